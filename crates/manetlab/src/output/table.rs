//! A typed table: named columns with a unit and a data type, and rows of
//! values. Every tabular output of manetlab (flows.csv, network.csv,
//! sweep.csv, ...) is built as a [`Table`] from reports by one function in
//! this module's siblings, then written as CSV (through the `csv` crate, so
//! names with commas or quotes are quoted, never shift a column) or as JSON
//! objects; [`Table::column`] hands out one column as a typed vector for
//! columnar writers (Arrow, Parquet).
//!
//! Undefined values are [`Value::Null`]: an empty CSV field, JSON `null`.

use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// The csv writer's buffer (`Table::write_csv`).
const CSV_BUFFER: usize = 1024;

/// A column's data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// 64-bit float (may be null).
    F64,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 64-bit integer.
    U64,
    /// UTF-8 text.
    Str,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::F64 => "f64",
            Kind::I64 => "i64",
            Kind::U64 => "u64",
            Kind::Str => "str",
        }
    }
}

/// One column: its name (the unit is part of it: `goodput_bps`), the SI
/// unit ("" for counts, ratios and text), its type and what it means.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Column {
    pub name: String,
    pub unit: String,
    pub kind: Kind,
    pub about: String,
}

impl Column {
    pub fn new(name: impl Into<String>, unit: &str, kind: Kind, about: impl Into<String>) -> Column {
        Column { name: name.into(), unit: unit.to_string(), kind, about: about.into() }
    }
}

/// One cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    F64(f64),
    I64(i64),
    U64(u64),
    Str(String),
    /// Undefined (no samples, fewer than two samples, ...).
    Null,
}

impl Value {
    /// `Some(x)` as F64, `None` (or a non-finite x) as Null.
    pub fn opt(x: Option<f64>) -> Value {
        match x {
            Some(v) if v.is_finite() => Value::F64(v),
            _ => Value::Null,
        }
    }
    pub fn f(x: f64) -> Value {
        Value::opt(Some(x))
    }
    pub fn s(x: impl Into<String>) -> Value {
        Value::Str(x.into())
    }
    /// The CSV field: floats in Rust's shortest round-trip form, integers
    /// in decimal, null as the empty string.
    pub fn to_field(&self) -> String {
        match self {
            Value::F64(x) if x.is_finite() => format!("{x}"),
            Value::F64(_) | Value::Null => String::new(),
            Value::I64(x) => x.to_string(),
            Value::U64(x) => x.to_string(),
            Value::Str(s) => s.clone(),
        }
    }
    /// [`Value::to_field`] appended to `out` (no allocation of its own).
    pub fn write_field(&self, out: &mut String) {
        use std::fmt::Write as _;
        let _ = match self {
            Value::F64(x) if x.is_finite() => write!(out, "{x}"),
            Value::F64(_) | Value::Null => Ok(()),
            Value::I64(x) => write!(out, "{x}"),
            Value::U64(x) => write!(out, "{x}"),
            Value::Str(s) => {
                out.push_str(s);
                Ok(())
            }
        };
    }
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::F64(x) if x.is_finite() => serde_json::json!(x),
            Value::F64(_) | Value::Null => serde_json::Value::Null,
            Value::I64(x) => serde_json::json!(x),
            Value::U64(x) => serde_json::json!(x),
            Value::Str(s) => serde_json::json!(s),
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F64(x) if x.is_finite() => Some(x),
            Value::I64(x) => Some(x as f64),
            Value::U64(x) => Some(x as f64),
            _ => None,
        }
    }
    fn fits(&self, kind: Kind) -> bool {
        matches!(
            (self, kind),
            (Value::Null, _)
                | (Value::F64(_), Kind::F64)
                | (Value::I64(_), Kind::I64)
                | (Value::U64(_), Kind::U64)
                | (Value::Str(_), Kind::Str)
        )
    }
}

/// One column as a typed vector (nulls as `None`).
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    F64(Vec<Option<f64>>),
    I64(Vec<Option<i64>>),
    U64(Vec<Option<u64>>),
    Str(Vec<Option<String>>),
}

/// A named table of typed rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The file stem: `flows` is written as `flows.csv`.
    pub name: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
}

impl Table {
    pub fn new(name: impl Into<String>, columns: Vec<Column>) -> Table {
        Table { name: name.into(), columns, rows: Vec::new() }
    }

    /// Appends a row; its length and types must match the columns (a bug
    /// otherwise, caught here rather than as a shifted CSV).
    pub fn push(&mut self, row: Vec<Value>) {
        assert_eq!(row.len(), self.columns.len(), "table {}: row length", self.name);
        for (v, c) in row.iter().zip(&self.columns) {
            assert!(v.fits(c.kind), "table {}: column {} is {:?}, got {v:?}", self.name, c.name, c.kind);
        }
        self.rows.push(row);
    }

    pub fn column_names(&self) -> Vec<&str> {
        self.columns.iter().map(|c| c.name.as_str()).collect()
    }

    /// Index of the column named `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// One column as a typed vector, e.g. for an Arrow array.
    pub fn column(&self, i: usize) -> ColumnData {
        let cells = self.rows.iter().map(|r| &r[i]);
        match self.columns[i].kind {
            Kind::F64 => ColumnData::F64(cells.map(Value::as_f64).collect()),
            Kind::I64 => ColumnData::I64(cells.map(|v| if let Value::I64(x) = v { Some(*x) } else { None }).collect()),
            Kind::U64 => ColumnData::U64(cells.map(|v| if let Value::U64(x) = v { Some(*x) } else { None }).collect()),
            Kind::Str => {
                ColumnData::Str(cells.map(|v| if let Value::Str(x) = v { Some(x.clone()) } else { None }).collect())
            }
        }
    }

    /// Writes the header and every row as RFC 4180 CSV.
    pub fn write_csv<W: Write>(&self, out: W) -> csv::Result<()> {
        // The csv writer's own buffer (8 KiB by default, zeroed: a `calloc`
        // and a `memset` per table, and the pages they touch) only batches
        // writes into `out`, a `Vec` for `to_csv`; its size does not change
        // the bytes written (csv's `buffer_capacity`; its tests write
        // through a 4-byte buffer). Session 22.
        let mut w = csv::WriterBuilder::new().buffer_capacity(CSV_BUFFER).from_writer(out);
        w.write_record(self.columns.iter().map(|c| c.name.as_str()))?;
        // Each cell into one reused buffer (`to_field` allocated a String
        // per cell): `write_record` is `write_field` per field then the
        // terminator (csv 1.4 `Writer::write_record`), so the bytes are the
        // same.
        let mut field = String::new();
        for r in &self.rows {
            for v in r {
                field.clear();
                v.write_field(&mut field);
                w.write_field(field.as_bytes())?;
            }
            w.write_record(None::<&[u8]>)?;
        }
        w.flush()?;
        Ok(())
    }

    /// The CSV text.
    pub fn to_csv(&self) -> String {
        let mut buf = Vec::new();
        self.write_csv(&mut buf).expect("writing to memory");
        String::from_utf8(buf).expect("CSV of UTF-8 values")
    }

    /// Writes `<dir>/<name>.csv` (atomically: a temporary file, then a
    /// rename). Returns the path.
    pub fn save_csv(&self, dir: &Path) -> std::io::Result<std::path::PathBuf> {
        let path = dir.join(format!("{}.csv", self.name));
        write_atomic(&path, self.to_csv().as_bytes())?;
        Ok(path)
    }

    /// The rows as JSON objects keyed by column name (the same names as the
    /// CSV header).
    pub fn to_json_rows(&self) -> Vec<serde_json::Value> {
        self.rows
            .iter()
            .map(|r| {
                serde_json::Value::Object(
                    self.columns.iter().zip(r).map(|(c, v)| (c.name.clone(), v.to_json())).collect(),
                )
            })
            .collect()
    }
}

/// Writes a file through a temporary file in the same directory and a
/// rename, so a reader never sees half a file.
///
/// A file that already holds exactly `bytes` is left as it is (outputs are
/// deterministic, so a rerun into the same folder writes what is there):
/// creating the temporary file and renaming it over the old one (with
/// ext4's write-back of the replaced file's blocks) was a tenth of a short
/// run's CPU time (issue 25, docs/performance.md). Such a file keeps its
/// modification time; `manifest.json` (wall time) is always rewritten.
/// The check reads the old file with one `read` of the length `lstat`
/// gave (`std::fs::read` also asked `fstat` for it and read once more to
/// see the end: 2 of 5 system calls per file; session 21).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let old = std::fs::symlink_metadata(path);
    if old.is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64) && holds(path, bytes) {
        return Ok(());
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// Whether the file at `path` (of `bytes.len()` bytes by its `lstat`)
/// starts with `bytes`, i.e. holds them.
fn holds(path: &Path, bytes: &[u8]) -> bool {
    let mut buf = vec![0; bytes.len()];
    std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut buf)).is_ok() && buf == bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CSV as written before the reused field buffer: one `to_field`
    /// String per cell through `write_record`.
    fn csv_by_record(t: &Table) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(t.columns.iter().map(|c| c.name.as_str())).unwrap();
        for r in &t.rows {
            w.write_record(r.iter().map(Value::to_field)).unwrap();
        }
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    #[test]
    fn fields_through_one_buffer_write_what_records_wrote() {
        let cols = vec![
            Column::new("a", "", Kind::F64, ""),
            Column::new("b", "", Kind::Str, ""),
            Column::new("c", "", Kind::I64, ""),
            Column::new("d", "", Kind::U64, ""),
        ];
        let mut t = Table::new("t", cols);
        let strs = ["", "x", "a,b", "q\"u", "line\nbreak", " sp ", "long text here"];
        let floats = [0.0, -0.0, 1.5, 1e-9, 1e21, 123456.789, f64::NAN, f64::INFINITY, 0.1 + 0.2];
        for (i, s) in strs.iter().enumerate() {
            for (j, &f) in floats.iter().enumerate() {
                let a = if (i + j) % 4 == 0 { Value::Null } else { Value::F64(f) };
                let b = if (i * j) % 5 == 3 { Value::Null } else { Value::s(*s) };
                t.push(vec![a, b, Value::I64(i as i64 - 3 * j as i64), Value::U64(u64::MAX - j as u64)]);
            }
        }
        assert_eq!(t.to_csv(), csv_by_record(&t));
        // One column: an empty field alone on its row.
        let mut one = Table::new("one", vec![Column::new("s", "", Kind::Str, "")]);
        for s in ["", "a", ""] {
            one.push(vec![Value::s(s)]);
        }
        one.push(vec![Value::Null]);
        assert_eq!(one.to_csv(), csv_by_record(&one));
    }

    #[test]
    fn csv_quotes_commas_and_quotes_and_writes_null_empty() {
        let mut t = Table::new(
            "t",
            vec![Column::new("flow", "", Kind::Str, "name"), Column::new("delay_s", "s", Kind::F64, "delay")],
        );
        t.push(vec![Value::s("udp, 2 to \"0\""), Value::Null]);
        t.push(vec![Value::s("b"), Value::f(0.25)]);
        assert_eq!(t.to_csv(), "flow,delay_s\n\"udp, 2 to \"\"0\"\"\",\nb,0.25\n");
        let text = t.to_csv();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(&rows[0][0], "udp, 2 to \"0\"");
        assert_eq!(&rows[0][1], "");
        assert_eq!(t.column(1), ColumnData::F64(vec![None, Some(0.25)]));
        assert_eq!(t.to_json_rows()[0]["delay_s"], serde_json::Value::Null);
    }

    #[cfg(unix)]
    #[test]
    fn an_identical_file_is_left_and_a_different_one_replaced() {
        use std::os::unix::fs::MetadataExt;
        let dir = std::env::temp_dir().join(format!("manetlab-write-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.csv");
        let _ = std::fs::remove_file(&path);
        write_atomic(&path, b"a,b\n1,2\n").unwrap();
        let ino = std::fs::metadata(&path).unwrap().ino();
        write_atomic(&path, b"a,b\n1,2\n").unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), ino, "same bytes: the file is not replaced");
        write_atomic(&path, b"a,b\n1,3\n").unwrap();
        assert_ne!(std::fs::metadata(&path).unwrap().ino(), ino, "other bytes: a new file is renamed over it");
        assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n1,3\n");
        write_atomic(&path, b"a,b\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n");
        // Same length, other bytes; longer.
        write_atomic(&path, b"a,c\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a,c\n");
        write_atomic(&path, b"a,c\n1,2,3\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a,c\n1,2,3\n");
        assert!(!dir.join(".t.csv.tmp").exists());
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["t.csv"], "nothing but the file is left");
        // A folder where the file goes is not replaced (nor swapped).
        let sub = dir.join("sub.csv");
        std::fs::create_dir_all(sub.join("inner")).unwrap();
        assert!(write_atomic(&sub, b"x\n").is_err());
        assert!(sub.join("inner").is_dir());
        // A symbolic link is replaced by the file, its target left alone.
        let target = dir.join("target.csv");
        std::fs::write(&target, b"a,b\n").unwrap();
        let link = dir.join("link.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"a,b\n").unwrap();
        assert!(!std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"a,b\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    #[should_panic(expected = "column delay_s")]
    fn a_value_of_the_wrong_type_is_refused() {
        let mut t = Table::new("t", vec![Column::new("delay_s", "s", Kind::F64, "")]);
        t.push(vec![Value::U64(1)]);
    }
}
