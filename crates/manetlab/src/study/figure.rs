//! Figures: data, axes and the files beside them.
//!
//! A [`Figure`] is written as CSV (always, through the `csv` crate, so a
//! series named `udp, 2 -> 0` stays one column), as `plot_<stem>.py` (a
//! short matplotlib script that redraws it from the CSV, for users who
//! restyle in their own tool) and, when the `plot` feature is compiled in,
//! as SVG and PNG drawn by [`super::plot`]. PDF: plotters has no PDF
//! backend and converting needs system libraries, so the Python script
//! writes the PDF (`python3 plot_<stem>.py` -> `<stem>.pdf`).
//!
//! The axes follow what the data are (see [`axes`]): a metric whose values
//! are all non-negative starts at 0 (error bars are clipped there, never an
//! axis running to -1.5 kbit/s), an axis whose values are all whole numbers
//! gets whole-number ticks, and at most [`MAX_SERIES`] series share one
//! panel (more are drawn on further panels) so the legend, drawn below the
//! plot, always fits.

use std::path::{Path, PathBuf};

/// The most series drawn in one panel: the Okabe-Ito palette without its
/// yellow (poor contrast on white).
pub const MAX_SERIES: usize = 7;

/// Okabe and Ito, "Color Universal Design" (2002): distinguishable with
/// every common form of colour blindness. Yellow (#F0E442) left out.
pub const OKABE_ITO: [(u8, u8, u8); MAX_SERIES] = [
    (0x00, 0x72, 0xB2), // blue
    (0xD5, 0x5E, 0x00), // vermillion
    (0x00, 0x9E, 0x73), // bluish green
    (0xCC, 0x79, 0xA7), // reddish purple
    (0xE6, 0x9F, 0x00), // orange
    (0x56, 0xB4, 0xE9), // sky blue
    (0x00, 0x00, 0x00), // black
];

/// One plotted series: name, points (x, y, optional ± error).
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64, Option<f64>)>,
    /// Draw markers only (scatter), no line.
    pub scatter: bool,
}

/// A figure: written as CSV and a matplotlib script always, as SVG and PNG
/// when plotting is compiled in.
#[derive(Clone, Debug)]
pub struct Figure {
    pub file_stem: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Step plot (for time series that change by steps, like cwnd).
    pub steps: bool,
}

/// How figures are drawn (the same for every figure of a report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FigureStyle {
    /// Draw the title above the plot (off for figures going into a paper,
    /// whose caption is the title).
    pub title: bool,
}

impl Default for FigureStyle {
    fn default() -> FigureStyle {
        FigureStyle { title: true }
    }
}

/// The axes of a figure (before any padding a renderer adds for markers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axes {
    pub x: (f64, f64),
    pub y: (f64, f64),
    /// Every x (y) value is a whole number: ticks at whole numbers only.
    pub x_integer: bool,
    pub y_integer: bool,
    /// Every y value is >= 0, so the axis starts at 0 and error bars are
    /// clipped there.
    pub y_non_negative: bool,
}

/// The axes the data of `series` ask for: x spans the data (3% padding
/// each side); y spans the data and their error bars, from 0 when every
/// value is non-negative, with 5% headroom.
pub fn axes(series: &[Series]) -> Axes {
    let pts = || series.iter().flat_map(|s| s.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let whole = |v: f64| v.fract() == 0.0 && v.abs() < 1e15;
    let mut x = (f64::INFINITY, f64::NEG_INFINITY);
    let mut y = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut x_integer, mut y_integer, mut non_negative, mut any) = (true, true, true, false);
    for &(px, py, e) in pts() {
        any = true;
        let e = e.filter(|e| e.is_finite()).unwrap_or(0.0).abs();
        x = (x.0.min(px), x.1.max(px));
        y = (y.0.min(py - e), y.1.max(py + e));
        x_integer &= whole(px);
        y_integer &= whole(py) && e == 0.0;
        non_negative &= py >= 0.0;
    }
    if !any {
        return Axes { x: (0.0, 1.0), y: (0.0, 1.0), x_integer: false, y_integer: false, y_non_negative: true };
    }
    if non_negative {
        y.0 = 0.0;
    }
    let pad = if x.1 > x.0 { (x.1 - x.0) * 0.03 } else { 0.5 };
    let x = (x.0 - pad, x.1 + pad);
    let span = if y.1 > y.0 { y.1 - y.0 } else { y.1.abs().max(1.0) };
    let lo = if non_negative { 0.0 } else { y.0 - 0.05 * span };
    let hi = if y.1 > y.0 { y.1 + 0.05 * span } else { y.0 + span };
    Axes { x, y: (lo, hi), x_integer, y_integer, y_non_negative: non_negative }
}

/// Writes `text` to `dir/name` atomically (temporary file + rename) and
/// records the path.
pub fn write_file(dir: &Path, name: &str, text: &str, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &path)?;
    files.push(path);
    Ok(())
}

impl Figure {
    /// A line plot (no steps).
    pub fn lines(file_stem: &str, title: &str, x_label: &str, y_label: &str, series: Vec<Series>) -> Figure {
        Figure {
            file_stem: file_stem.into(),
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series,
            steps: false,
        }
    }

    /// The plotted data: one row per point, `series,x,y,err` (y empty where
    /// undefined, a gap in the line; err empty where a point has none),
    /// quoted as CSV requires.
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(["series", "x", "y", "err"]);
        for se in &self.series {
            for (x, y, e) in &se.points {
                let e = e.map(|v| v.to_string()).unwrap_or_default();
                // Undefined (non-finite) values are empty, as in every table.
                let y = if y.is_finite() { y.to_string() } else { String::new() };
                let _ = w.write_record([se.name.as_str(), &x.to_string(), &y, &e]);
            }
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// The panels drawn: the series in groups of at most [`MAX_SERIES`].
    pub fn panels(&self) -> Vec<Figure> {
        if self.series.len() <= MAX_SERIES {
            return vec![self.clone()];
        }
        let n = self.series.len().div_ceil(MAX_SERIES);
        self.series
            .chunks(MAX_SERIES)
            .enumerate()
            .map(|(i, chunk)| Figure {
                file_stem: if i == 0 { self.file_stem.clone() } else { format!("{}_{}", self.file_stem, i + 1) },
                title: format!("{} ({} of {n})", self.title, i + 1),
                series: chunk.to_vec(),
                ..self.clone()
            })
            .collect()
    }

    /// Writes CSV, `plot_<stem>.py` and (with plotting) SVG and PNG with the
    /// default style; returns the Markdown to embed the figure.
    pub fn write(&self, dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<String> {
        self.write_with(dir, files, &FigureStyle::default())
    }

    /// [`Figure::write`] with a style.
    pub fn write_with(&self, dir: &Path, files: &mut Vec<PathBuf>, style: &FigureStyle) -> std::io::Result<String> {
        let stem = &self.file_stem;
        write_file(dir, &format!("{stem}.csv"), &self.csv(), files)?;
        write_file(dir, &format!("plot_{stem}.py"), &self.python(style), files)?;
        #[cfg(feature = "plot")]
        {
            let mut md = String::new();
            for panel in self.panels() {
                for ext in ["svg", "png"] {
                    let path = dir.join(format!("{}.{ext}", panel.file_stem));
                    super::plot::draw(&panel, style, &path)
                        .map_err(|e| std::io::Error::other(format!("plotting {}: {e}", path.display())))?;
                    files.push(path);
                }
                md += &format!("![{}]({}.svg)\n\n", panel.title, panel.file_stem);
            }
            md += &format!("(data: [{stem}.csv]({stem}.csv); redraw: `python3 plot_{stem}.py`)\n");
            Ok(md)
        }
        #[cfg(not(feature = "plot"))]
        Ok(format!(
            "Figure '{}': data in [{stem}.csv]({stem}.csv); draw it with `python3 plot_{stem}.py` (built without plotting)\n",
            self.title
        ))
    }

    /// A short matplotlib script that redraws the figure from its CSV (next
    /// to the script) and saves `<stem>.pdf` (or the file given as its
    /// argument).
    pub fn python(&self, style: &FigureStyle) -> String {
        let a = axes(&self.series);
        let scatter: Vec<String> = self.series.iter().filter(|s| s.scatter).map(|s| py_str(&s.name)).collect();
        let colours: Vec<String> = OKABE_ITO.iter().map(|(r, g, b)| format!("\"#{r:02X}{g:02X}{b:02X}\"")).collect();
        let title = if style.title { py_str(&self.title) } else { "None".into() };
        let py_bool = |b: bool| if b { "True" } else { "False" };
        format!(
            r#"#!/usr/bin/env python3
"""Redraws {stem} from {stem}.csv (written by manetlab). Restyle freely.
Usage: python3 plot_{stem}.py [output file, default {stem}.pdf]"""
import csv, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

TITLE = {title}  # None: no title
XLABEL, YLABEL = {xl}, {yl}
SCATTER = {scatter}  # series drawn as markers only
STEPS, Y_FROM_ZERO = {steps}, {nonneg}
X_INTEGER, Y_INTEGER = {xi}, {yi}
COLOURS = [{colours}]  # Okabe-Ito

here = os.path.dirname(os.path.abspath(__file__))
series = {{}}
with open(os.path.join(here, "{stem}.csv"), newline="") as f:
    for row in csv.DictReader(f):
        x, y, e = series.setdefault(row["series"], ([], [], []))
        x.append(float(row["x"])); y.append(float(row["y"])); e.append(float(row["err"]) if row["err"] else 0.0)
plt.rcParams.update({{"font.size": 8, "axes.titlesize": 9, "legend.fontsize": 7}})
fig, ax = plt.subplots(figsize=(3.5, 2.6))
for i, (name, (x, y, e)) in enumerate(series.items()):
    c = COLOURS[i % len(COLOURS)]
    if name in SCATTER:
        ax.plot(x, y, ".", color=c, markersize=2, label=name)
    elif STEPS:
        ax.step(x, y, where="post", color=c, linewidth=1, label=name)
    else:
        ax.plot(x, y, "-o", color=c, markersize=3, linewidth=1, label=name)
    if any(e):
        down = [min(d, v) if Y_FROM_ZERO else d for v, d in zip(y, e)]  # clipped at 0
        ax.errorbar(x, y, yerr=[down, e], fmt="none", ecolor=c, capsize=3, linewidth=0.8)
ax.set_xlabel(XLABEL); ax.set_ylabel(YLABEL)
if TITLE: ax.set_title(TITLE)
if Y_FROM_ZERO: ax.set_ylim(bottom=0)
if X_INTEGER: ax.xaxis.set_major_locator(MaxNLocator(integer=True))
if Y_INTEGER: ax.yaxis.set_major_locator(MaxNLocator(integer=True))
ax.legend(frameon=False)
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "{stem}.pdf")
fig.savefig(out)
print("wrote", out)
"#,
            stem = self.file_stem,
            xl = py_str(&self.x_label),
            yl = py_str(&self.y_label),
            scatter = if scatter.is_empty() { "set()".to_string() } else { format!("{{{}}}", scatter.join(", ")) },
            steps = py_bool(self.steps),
            nonneg = py_bool(a.y_non_negative),
            xi = py_bool(a.x_integer),
            yi = py_bool(a.y_integer),
            colours = colours.join(", "),
        )
    }
}

/// A Python string literal of `s`.
fn py_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => o.push_str(&format!("\\x{:02x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(name: &str, points: Vec<(f64, f64, Option<f64>)>) -> Series {
        Series { name: name.into(), points, scatter: false }
    }

    #[test]
    fn non_negative_metric_starts_at_zero_despite_wide_error_bars() {
        // Goodput 0.5 kbit/s ± 2 (a wide CI at a starved point): the old
        // bounds took y - CI and ran the axis to -1.5 kbit/s.
        let a = axes(&[s("g", vec![(1.0, 0.5, Some(2.0)), (2.0, 10.0, Some(1.0))])]);
        assert_eq!(a.y.0, 0.0);
        assert!(a.y_non_negative);
        assert!((a.y.1 - 11.0 * 1.05).abs() < 1e-9, "{a:?}");
    }

    #[test]
    fn negative_data_keep_their_range() {
        let a = axes(&[s("d", vec![(0.0, -3.0, Some(1.0)), (1.0, 2.0, None)])]);
        assert!(!a.y_non_negative);
        assert!(a.y.0 < -4.0 && a.y.0 > -4.5, "{a:?}");
    }

    #[test]
    fn integer_axes_are_detected() {
        let a = axes(&[s("hops", (1..=10).map(|h| (h as f64, 100.0 / h as f64, None)).collect())]);
        assert!(a.x_integer && !a.y_integer);
        assert!((a.x.0 - (1.0 - 0.27)).abs() < 1e-9 && (a.x.1 - 10.27).abs() < 1e-9, "{a:?}");
        let b = axes(&[s("seq", vec![(0.5, 3.0, None), (1.5, 4.0, None)])]);
        assert!(!b.x_integer && b.y_integer);
        // An error bar makes y a measured, non-integer quantity.
        let c = axes(&[s("m", vec![(1.0, 3.0, Some(0.5))])]);
        assert!(!c.y_integer);
    }

    #[test]
    fn empty_and_single_point_figures_have_usable_axes() {
        let a = axes(&[]);
        assert_eq!((a.x, a.y), ((0.0, 1.0), (0.0, 1.0)));
        let b = axes(&[s("one", vec![(5.0, 0.0, None)])]);
        assert!(b.x.0 < 5.0 && b.x.1 > 5.0 && b.y.1 > b.y.0, "{b:?}");
    }

    #[test]
    fn csv_round_trips_names_with_commas_and_quotes() {
        let fig = Figure::lines(
            "f",
            "t",
            "x",
            "y",
            vec![
                s("udp, 2 to 0 \"fast\"", vec![(1.0, 2.5, Some(0.25)), (2.0, 3.0, None)]),
                s("plain", vec![(0.1, 1e-7, None)]),
            ],
        );
        let text = fig.csv();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        assert_eq!(r.headers().unwrap(), vec!["series", "x", "y", "err"]);
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(&rows[0][0], "udp, 2 to 0 \"fast\"");
        let back: Vec<(f64, f64, Option<f64>)> = rows
            .iter()
            .map(|r| (r[1].parse().unwrap(), r[2].parse().unwrap(), (!r[3].is_empty()).then(|| r[3].parse().unwrap())))
            .collect();
        assert_eq!(back, vec![(1.0, 2.5, Some(0.25)), (2.0, 3.0, None), (0.1, 1e-7, None)]);
    }

    #[test]
    fn many_series_are_split_into_panels_that_fit_the_palette() {
        let series: Vec<Series> = (0..10).map(|i| s(&format!("s{i}"), vec![(0.0, i as f64, None)])).collect();
        let fig = Figure::lines("many", "Many", "x", "y", series);
        let p = fig.panels();
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].series.len(), p[1].series.len()), (7, 3));
        assert_eq!((p[0].file_stem.as_str(), p[1].file_stem.as_str()), ("many", "many_2"));
        assert_eq!(p[1].series[0].name, "s7");
    }

    #[test]
    fn python_script_quotes_labels_and_follows_the_style() {
        let mut fig = Figure::lines("g", "Goodput \"all\"", "hops", "goodput (kbit/s)", vec![]);
        fig.series.push(Series { name: "pts".into(), points: vec![(1.0, 2.0, None)], scatter: true });
        let py = fig.python(&FigureStyle { title: false });
        assert!(py.contains("TITLE = None"));
        assert!(py.contains("SCATTER = {\"pts\"}"));
        assert!(py.contains("X_INTEGER, Y_INTEGER = True, True"));
        let py = fig.python(&FigureStyle::default());
        assert!(py.contains(r#"TITLE = "Goodput \"all\"""#), "{py}");
    }
}
