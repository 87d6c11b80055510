//! The published-vs-ours report builder every study writes through.
//!
//! A study fills a [`ReportDoc`] with headings, paragraphs, [`Table`]s
//! (usually the paper's numbers beside ours), figures and its [`Check`]s;
//! the doc renders the Markdown (`report.md`), records every file written,
//! and ends the check table with "N of M checks reproduce".

use super::figure::{write_file, Figure, FigureStyle};
use super::Check;
use std::fmt::Display;
use std::path::{Path, PathBuf};

/// A Markdown table: a header, a column alignment and rows of cells.
#[derive(Clone, Debug, Default)]
pub struct Table {
    head: Vec<String>,
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers, every column left-aligned.
    pub fn new<S: AsRef<str>>(head: &[S]) -> Table {
        Table {
            head: head.iter().map(|h| h.as_ref().to_string()).collect(),
            right: vec![false; head.len()],
            rows: vec![],
        }
    }

    /// Column alignment, one letter a column: `l` left, `r` right (numbers).
    /// Columns past the end of `spec` stay left-aligned.
    pub fn align(mut self, spec: &str) -> Table {
        for (i, c) in spec.chars().enumerate().take(self.right.len()) {
            self.right[i] = c == 'r';
        }
        self
    }

    /// Adds a row (cells beyond the header are an error in the study: they
    /// are kept, so the mistake shows in the report).
    pub fn row<I, D>(&mut self, cells: I) -> &mut Table
    where
        I: IntoIterator<Item = D>,
        D: Display,
    {
        self.rows.push(cells.into_iter().map(|c| c.to_string()).collect());
        self
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The Markdown text (ends with a newline).
    pub fn render(&self) -> String {
        let line = |cells: &[String]| {
            let mut s = String::from("|");
            for c in cells {
                s.push(' ');
                s.push_str(&c.replace('|', "\\|").replace('\n', " "));
                s.push_str(" |");
            }
            s.push('\n');
            s
        };
        let mut s = line(&self.head);
        s.push('|');
        for &r in &self.right {
            s.push_str(if r { "---:|" } else { "---|" });
        }
        s.push('\n');
        for r in &self.rows {
            s += &line(r);
        }
        s
    }
}

/// `ours` relative to `reference` as a signed percentage, `+3%`; `-` when
/// the reference is zero or either is undefined.
pub fn deviation(ours: f64, reference: f64) -> String {
    if reference == 0.0 || !ours.is_finite() || !reference.is_finite() {
        return "-".into();
    }
    format!("{:+.0}%", (ours - reference) / reference * 100.0)
}

/// A number with `digits` decimals, or `-` when undefined (NaN, None).
pub fn num(v: impl Into<Option<f64>>, digits: usize) -> String {
    match v.into() {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        _ => "-".into(),
    }
}

/// "N of M checks reproduce".
pub fn checks_summary(checks: &[Check]) -> String {
    let passed = checks.iter().filter(|c| c.passed).count();
    format!("{passed} of {} checks reproduce", checks.len())
}

/// A piece of a report recorded by an analysis (for studies whose analysis
/// decides what is shown): played into a [`ReportDoc`] by
/// [`ReportDoc::play`].
#[derive(Clone, Debug)]
pub enum Block {
    Section(String),
    Para(String),
    Table(Table),
    Figure(Figure),
}

/// A list of [`Block`]s, built like a [`ReportDoc`].
#[derive(Clone, Debug, Default)]
pub struct Blocks(pub Vec<Block>);

impl Blocks {
    pub fn section(&mut self, text: impl Display) {
        self.0.push(Block::Section(text.to_string()));
    }
    pub fn para(&mut self, text: impl Display) {
        self.0.push(Block::Para(text.to_string()));
    }
    pub fn table(&mut self, t: Table) {
        self.0.push(Block::Table(t));
    }
    pub fn figure(&mut self, f: Figure) {
        self.0.push(Block::Figure(f));
    }
}

/// A report being written: Markdown plus the files beside it.
pub struct ReportDoc {
    md: String,
    dir: PathBuf,
    files: Vec<PathBuf>,
    style: FigureStyle,
    checks: Vec<Check>,
}

impl ReportDoc {
    /// A report whose files go to `dir`.
    pub fn new(dir: &Path, style: FigureStyle) -> ReportDoc {
        ReportDoc { md: String::new(), dir: dir.to_path_buf(), files: Vec::new(), style, checks: Vec::new() }
    }

    /// The checks [`ReportDoc::checks`] writes.
    pub fn with_checks(mut self, checks: Vec<Check>) -> ReportDoc {
        self.checks = checks;
        self
    }

    /// The output directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `# text`
    pub fn title(&mut self, text: impl Display) -> &mut ReportDoc {
        self.md += &format!("# {text}\n\n");
        self
    }

    /// `## text`
    pub fn section(&mut self, text: impl Display) -> &mut ReportDoc {
        self.md += &format!("## {text}\n\n");
        self
    }

    /// `### text`
    pub fn subsection(&mut self, text: impl Display) -> &mut ReportDoc {
        self.md += &format!("### {text}\n\n");
        self
    }

    /// A paragraph.
    pub fn para(&mut self, text: impl Display) -> &mut ReportDoc {
        self.md += &format!("{text}\n\n");
        self
    }

    /// A bulleted list.
    pub fn bullets<I: IntoIterator<Item = D>, D: Display>(&mut self, items: I) -> &mut ReportDoc {
        for i in items {
            self.md += &format!("- {i}\n");
        }
        self.md.push('\n');
        self
    }

    pub fn table(&mut self, t: &Table) -> &mut ReportDoc {
        self.md += &t.render();
        self.md.push('\n');
        self
    }

    /// A table followed by a note under it.
    pub fn table_with_note(&mut self, t: &Table, note: impl Display) -> &mut ReportDoc {
        self.md += &t.render();
        self.md += &format!("\n{note}\n\n");
        self
    }

    /// The checks under `heading`: what, pass/FAIL, detail, and the count
    /// "N of M checks reproduce".
    pub fn checks(&mut self, heading: &str) -> &mut ReportDoc {
        self.section(heading);
        let mut t = Table::new(&["check", "result", "detail"]);
        for c in &self.checks {
            t.row([c.what.as_str(), if c.passed { "pass" } else { "FAIL" }, c.detail.as_str()]);
        }
        let summary = checks_summary(&self.checks);
        self.table(&t);
        self.para(format!("{summary}."))
    }

    /// Writes the figure's files (CSV, script, SVG, PNG) and embeds it.
    pub fn figure(&mut self, f: &Figure) -> std::io::Result<&mut ReportDoc> {
        let md = f.write_with(&self.dir, &mut self.files, &self.style)?;
        self.md += &md;
        self.md.push('\n');
        Ok(self)
    }

    /// Writes recorded blocks, in order.
    pub fn play(&mut self, blocks: &Blocks) -> std::io::Result<&mut ReportDoc> {
        for b in &blocks.0 {
            match b {
                Block::Section(t) => self.section(t),
                Block::Para(t) => self.para(t),
                Block::Table(t) => self.table(t),
                Block::Figure(f) => self.figure(f)?,
            };
        }
        Ok(self)
    }

    /// Writes a file beside the report and records it.
    pub fn file(&mut self, name: &str, text: &str) -> std::io::Result<()> {
        write_file(&self.dir, name, text, &mut self.files)
    }

    /// The Markdown so far.
    pub fn markdown(&self) -> &str {
        &self.md
    }

    /// Writes `report.md`; returns the Markdown and every file written.
    pub fn finish(mut self) -> std::io::Result<(String, Vec<PathBuf>)> {
        let dir = self.dir.clone();
        write_file(&dir, "report.md", &self.md, &mut self.files)?;
        Ok((self.md, self.files))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_renders_alignment_and_escapes_pipes() {
        let mut t = Table::new(&["hops", "published", "ours"]).align("lrr");
        t.row(["1", "a|b", "3.5"]).row([2.to_string(), "x".into(), num(f64::NAN, 1)]);
        assert_eq!(t.render(), "| hops | published | ours |\n|---|---:|---:|\n| 1 | a\\|b | 3.5 |\n| 2 | x | - |\n");
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn deviation_and_summary() {
        assert_eq!(deviation(103.0, 100.0), "+3%");
        assert_eq!(deviation(1.0, 0.0), "-");
        let c = |p| Check { what: "w".into(), passed: p, detail: String::new() };
        assert_eq!(checks_summary(&[c(true), c(false), c(true)]), "2 of 3 checks reproduce");
    }

    #[test]
    fn doc_collects_markdown_and_files() {
        let dir = std::env::temp_dir().join(format!("manetlab-reportdoc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let checks = vec![Check { what: "a".into(), passed: false, detail: "d".into() }];
        let mut d = ReportDoc::new(&dir, FigureStyle::default()).with_checks(checks);
        d.title("T").para("p");
        d.checks("Checks");
        d.file("x.json", "{}").unwrap();
        let (md, files) = d.finish().unwrap();
        assert!(md.starts_with("# T\n\np\n\n## Checks\n\n| check | result | detail |"));
        assert!(md.ends_with("| a | FAIL | d |\n\n0 of 1 checks reproduce.\n\n"), "{md}");
        assert_eq!(files, vec![dir.join("x.json"), dir.join("report.md")]);
        assert_eq!(std::fs::read_to_string(dir.join("report.md")).unwrap(), md);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
