//! Draws a [`Figure`] panel as SVG or PNG with plotters.
//!
//! Sized for a one-column figure: the SVG is 640 x 420 px, so placed at
//! 3.5 in wide (183 px per inch) tick labels (20 px) are 7.9 pt and axis
//! labels (24 px) 9.4 pt. The PNG is the same drawing at twice the
//! resolution. Colours are Okabe-Ito with a different marker shape per
//! series (readable in grey too); error bars are drawn over the markers
//! with caps wider than the markers; the legend goes below the plot, two
//! entries a row, so it never covers data.

use super::figure::{axes, Figure, FigureStyle, OKABE_ITO};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::error::Error;
use std::path::Path;

const SIZE: (u32, u32) = (640, 420);

pub fn draw(fig: &Figure, style: &FigureStyle, path: &Path) -> Result<(), Box<dyn Error>> {
    fontconfig_present()?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => render(fig, style, 1, SVGBackend::new(path, SIZE).into_drawing_area()),
        _ => render(fig, style, 2, BitMapBackend::new(path, (SIZE.0 * 2, SIZE.1 * 2)).into_drawing_area()),
    }
}

/// Text needs fontconfig, which plotters opens (dlopen) at the first label
/// and, when it is missing, panics inside its loader (and stays broken for
/// the process). Looked for once here first, so a missing library is an
/// error naming it (the tables are written before any figure).
fn fontconfig_present() -> Result<(), Box<dyn Error>> {
    #[cfg(target_os = "linux")]
    {
        static FOUND: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
        let found = FOUND.get_or_init(|| {
            // SAFETY: loading fontconfig runs only its own initialisers
            // (none with preconditions); it is the library plotters loads
            // for text anyway, and the handle is kept for the process.
            match unsafe { libloading::Library::new("libfontconfig.so.1") } {
                Ok(lib) => {
                    std::mem::forget(lib);
                    Ok(())
                }
                Err(e) => Err(format!(
                    "figures (SVG/PNG) need fontconfig (libfontconfig.so.1, Debian/Ubuntu: apt install libfontconfig1) and a TrueType font: {e}"
                )),
            }
        });
        found.clone().map_err(Into::into)
    }
    #[cfg(not(target_os = "linux"))]
    Ok(())
}

fn colour(i: usize) -> RGBColor {
    let (r, g, b) = OKABE_ITO[i % OKABE_ITO.len()];
    RGBColor(r, g, b)
}

/// Ticks for an axis spanning `lo..hi`: whole-number axes get one tick per
/// integer when they span few (at most 10 labels).
fn tick_count(lo: f64, hi: f64, integer: bool) -> usize {
    if integer {
        ((hi.floor() - lo.ceil()) as usize + 1).clamp(2, 10)
    } else {
        8
    }
}

/// A tick label without trailing zeros: 1400, 0.25, 1e-6 as 0.000001.
fn tick_label(v: f64) -> String {
    let s = format!("{:.6}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

fn render<DB: DrawingBackend>(
    fig: &Figure,
    style: &FigureStyle,
    k: u32,
    root: DrawingArea<DB, Shift>,
) -> Result<(), Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let px = |v: u32| v * k;
    let font = |size: u32| ("sans-serif", px(size)).into_font();
    let rows = fig.series.len().div_ceil(2) as u32;
    let legend_h = if fig.series.is_empty() { 0 } else { px(8 + 22 * rows) };
    let (plot_area, legend_area) = root.split_vertically(root.dim_in_pixel().1 - legend_h);
    let a = axes(&fig.series);
    let (x0, x1, y0, y1) = (a.x.0, a.x.1, a.y.0, a.y.1);
    let mut builder = ChartBuilder::on(&plot_area);
    if style.title {
        builder.caption(&fig.title, font(22));
    }
    let mut chart = builder
        .margin(px(10))
        .x_label_area_size(px(46))
        .y_label_area_size(px(84))
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let int_fmt = |v: &f64| format!("{:.0}", v);
    let num_fmt = |v: &f64| tick_label(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&fig.x_label)
        .y_desc(&fig.y_label)
        .label_style(font(20))
        .axis_desc_style(font(24))
        .x_labels(tick_count(x0, x1, a.x_integer))
        .y_labels(tick_count(y0, y1, a.y_integer))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(RGBColor(225, 225, 225).stroke_width(k))
        .axis_style(BLACK.stroke_width(k));
    mesh.x_label_formatter(if a.x_integer { &int_fmt } else { &num_fmt });
    mesh.y_label_formatter(if a.y_integer { &int_fmt } else { &num_fmt });
    mesh.draw()?;
    let marker = px(3);
    for (i, s) in fig.series.iter().enumerate() {
        let c = colour(i);
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
        if !s.scatter {
            // A non-finite y (undefined) is a gap in the line.
            for seg in pts.split(|p| !p.1.is_finite()).filter(|seg| !seg.is_empty()) {
                chart.draw_series(LineSeries::new(seg.iter().copied(), c.stroke_width(px(2))))?;
            }
        }
        let with_markers = s.scatter || (!fig.steps && s.points.len() <= 60);
        if with_markers {
            let size = if s.scatter { px(2) } else { marker };
            let xy = s.points.iter().filter(|p| p.1.is_finite()).map(|&(x, y, _)| (x, y));
            match i % 3 {
                0 => chart.draw_series(xy.map(|p| Circle::new(p, size, c.filled())))?,
                1 => chart.draw_series(xy.map(|p| TriangleMarker::new(p, size + k, c.filled())))?,
                _ => chart.draw_series(xy.map(|p| Cross::new(p, size + k, c.stroke_width(px(2)))))?,
            };
        }
        // Error bars on top of the markers, caps wider than a marker;
        // clipped at 0 for a non-negative metric.
        let bars: Vec<_> =
            s.points.iter().filter_map(|&(x, y, e)| e.filter(|e| e.is_finite()).map(|e| (x, y, e))).collect();
        let cap = (px(6) as f64) * (x1 - x0) / chart.plotting_area().dim_in_pixel().0.max(1) as f64;
        let bar_style = c.stroke_width(px(1) + k / 2);
        for (x, y, e) in bars {
            let lo = if a.y_non_negative { (y - e).max(0.0) } else { y - e };
            let hi = y + e;
            chart.draw_series([
                PathElement::new(vec![(x, lo), (x, hi)], bar_style),
                PathElement::new(vec![(x - cap, lo), (x + cap, lo)], bar_style),
                PathElement::new(vec![(x - cap, hi), (x + cap, hi)], bar_style),
            ])?;
        }
    }
    // Legend below the plot: two entries a row.
    let w = legend_area.dim_in_pixel().0 as i32;
    for (i, s) in fig.series.iter().enumerate() {
        let c = colour(i);
        let col = (i % 2) as i32;
        let x = px(70) as i32 + col * (w - px(70) as i32) / 2;
        let y = px(4 + 22 * (i as u32 / 2) + 11) as i32;
        if !s.scatter {
            legend_area.draw(&PathElement::new(vec![(x, y), (x + px(24) as i32, y)], c.stroke_width(px(2))))?;
        }
        let m = (x + px(12) as i32, y);
        match i % 3 {
            0 => legend_area.draw(&Circle::new(m, px(3), c.filled()))?,
            1 => legend_area.draw(&TriangleMarker::new(m, px(4), c.filled()))?,
            _ => legend_area.draw(&Cross::new(m, px(4), c.stroke_width(px(2))))?,
        }
        let label = s.name.as_str();
        legend_area.draw(&Text::new(label, (x + px(32) as i32, y - px(9) as i32), font(18).color(&BLACK)))?;
    }
    root.present()?;
    Ok(())
}
