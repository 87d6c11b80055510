//! Figures still draw their text. Since session 21 (docs/performance.md)
//! the binary links FreeType statically (`.cargo/config.toml`) and opens
//! fontconfig at run time (plotters' `fontconfig-dlopen`), so a figure is
//! the first place text rendering would break: the SVG must hold its labels
//! and the PNG must have ink where they are drawn.
//!
//! Needs the `plot` feature (on in the CLI, and in `cargo test --workspace`
//! by feature unification): `cargo test -p manetlab --features plot --test figures`.
#![cfg(feature = "plot")]

use manetlab::study::figure::{Figure, FigureStyle, Series};
use std::path::PathBuf;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("manetlab-figures-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn figure(stem: &str, title: &str, x: &str, y: &str) -> Figure {
    let pts = |k: f64| (0..20).map(|i| (i as f64, k * i as f64, None)).collect();
    Figure::lines(
        stem,
        title,
        x,
        y,
        vec![
            Series { name: "first series".into(), points: pts(1.0), scatter: false },
            Series { name: "second series".into(), points: pts(0.5), scatter: true },
        ],
    )
}

/// The PNG's pixels as (width, height, RGB rows).
fn pixels(path: &std::path::Path) -> (usize, usize, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "plotters writes RGB");
    buf.truncate(info.buffer_size());
    (info.width as usize, info.height as usize, buf)
}

/// Pixels darker than mid-grey in `rows` x `cols` of the image (text and
/// axes are black; the grid is light grey).
fn dark(img: &(usize, usize, Vec<u8>), rows: std::ops::Range<usize>, cols: std::ops::Range<usize>) -> usize {
    let (w, _, px) = img;
    rows.flat_map(|r| cols.clone().map(move |c| (r, c)))
        .filter(|&(r, c)| {
            let i = (r * w + c) * 3;
            (px[i] as u32 + px[i + 1] as u32 + px[i + 2] as u32) < 3 * 96
        })
        .count()
}

#[test]
fn svg_holds_the_title_axis_labels_and_legend() {
    let d = dir("svg");
    let fig = figure("fig", "A title here", "time (s)", "segments");
    fig.write_with(&d, &mut Vec::new(), &FigureStyle::default()).unwrap();
    let svg = std::fs::read_to_string(d.join("fig.svg")).unwrap();
    for s in ["A title here", "time (s)", "segments", "first series", "second series", "\n15\n"] {
        assert!(svg.contains(s), "the SVG lacks {s:?}");
    }
    assert!(svg.matches("<text").count() >= 10, "too few text elements");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn png_has_ink_where_the_text_is_and_only_there() {
    // The same figure with and without its words. The middle of the title
    // band (top 60 rows of 840, columns 300-1000: the y axis is at ~190,
    // the data's top right corner at ~1230) and the legend band's text
    // (bottom 80 rows, columns 200-700: the first entry's marker is at
    // ~140-190) hold text only: blank without it, inked with it.
    let d = dir("png");
    figure("with", "A title here", "time (s)", "segments").write(&d, &mut Vec::new()).unwrap();
    let mut bare = figure("bare", "", "", "");
    for s in &mut bare.series {
        s.name.clear();
    }
    bare.write_with(&d, &mut Vec::new(), &FigureStyle { title: false }).unwrap();
    let with = pixels(&d.join("with.png"));
    let without = pixels(&d.join("bare.png"));
    assert_eq!((with.0, with.1), (1280, 840));
    let h = with.1;
    let title = dark(&with, 0..60, 300..1000);
    let legend = dark(&with, h - 80..h, 200..700);
    assert!(title > 200, "no title drawn ({title} dark pixels)");
    assert!(legend > 200, "no legend text drawn ({legend} dark pixels)");
    assert_eq!(dark(&without, 0..60, 300..1000), 0, "the bare figure has ink in the title band");
    assert_eq!(dark(&without, h - 80..h, 200..700), 0, "the bare figure has ink in the legend's text");
    assert!(with.2 != without.2);
    let _ = std::fs::remove_dir_all(&d);
}
