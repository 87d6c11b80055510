//! Draws a [`Figure`] as SVG or PNG with plotters.

use super::Figure;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::error::Error;
use std::path::Path;

const SIZE: (u32, u32) = (900, 560);

pub fn draw(fig: &Figure, path: &Path) -> Result<(), Box<dyn Error>> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => render(fig, SVGBackend::new(path, SIZE).into_drawing_area()),
        _ => render(fig, BitMapBackend::new(path, SIZE).into_drawing_area()),
    }
}

fn bounds(fig: &Figure) -> (f64, f64, f64, f64) {
    let mut xs = (f64::INFINITY, f64::NEG_INFINITY);
    let mut ys = (0.0f64, f64::NEG_INFINITY);
    for s in &fig.series {
        for &(x, y, e) in &s.points {
            xs = (xs.0.min(x), xs.1.max(x));
            let e = e.unwrap_or(0.0);
            ys = (ys.0.min(y - e), ys.1.max(y + e));
        }
    }
    if !xs.0.is_finite() {
        xs = (0.0, 1.0);
    }
    if !ys.1.is_finite() || ys.1 <= ys.0 {
        ys.1 = ys.0 + 1.0;
    }
    let pad = (xs.1 - xs.0).max(1e-9) * 0.03;
    (xs.0 - pad, xs.1 + pad, ys.0, ys.1 * 1.08)
}

fn render<DB: DrawingBackend>(fig: &Figure, root: DrawingArea<DB, Shift>) -> Result<(), Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (x0, x1, y0, y1) = bounds(fig);
    let mut chart = ChartBuilder::on(&root)
        .caption(&fig.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart.configure_mesh().x_desc(&fig.x_label).y_desc(&fig.y_label).light_line_style(WHITE.mix(0.0)).draw()?;
    for (i, s) in fig.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = if fig.steps {
            let mut v = Vec::with_capacity(s.points.len() * 2);
            for w in s.points.windows(2) {
                v.push((w[0].0, w[0].1));
                v.push((w[1].0, w[0].1));
            }
            if let Some(last) = s.points.last() {
                v.push((last.0, last.1));
            }
            v
        } else {
            s.points.iter().map(|p| (p.0, p.1)).collect()
        };
        if s.scatter {
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?
                .label(s.name.as_str())
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
        } else {
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                .label(s.name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            if !fig.steps && s.points.len() <= 60 {
                chart.draw_series(s.points.iter().map(|&(x, y, _)| Circle::new((x, y), 3, color.filled())))?;
            }
        }
        let bars: Vec<_> = s.points.iter().filter_map(|&(x, y, e)| e.map(|e| (x, y, e))).collect();
        chart.draw_series(
            bars.into_iter().map(|(x, y, e)| ErrorBar::new_vertical(x, y - e, y, y + e, color.stroke_width(1), 8)),
        )?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
