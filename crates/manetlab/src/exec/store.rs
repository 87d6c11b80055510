//! The run store of a sweep: one compact, checksummed record per finished
//! run, appended as a JSON line to a file of the `runs/` folder, so a sweep
//! of 10^5 runs is a few files of a few kilobytes per run rather than
//! 10^5 reports of 100 KB, and the sweep tables are aggregated from the
//! records in one streaming pass ([`super::sweep_out`]).
//!
//! - `runs/runs.jsonl` (a whole sweep) or `runs/shard-I-of-N.jsonl` (one
//!   shard, `--shard I/N`): one [`Record`] per line: the run's key,
//!   fingerprint (config and binary), seed, kernel events, whether the
//!   packet audit balanced and its flows' cells of `sweep-runs.csv`, sealed
//!   with a CRC-32 ([`crate::study::sweep::seal`]). Each writer owns its
//!   file; a line is written with one `write` call and the file is synced
//!   to disk at least every [`SYNC_EVERY`] and when the writer closes.
//! - `runs/full/<key>.json`: the run's full report, only when asked for
//!   (`--full-reports`, `full_reports=True`), in the per-file format of
//!   [`crate::study::sweep`].
//!
//! Reading ([`Store::open`]) scans every `*.jsonl` of the given folders and
//! keeps an index (key, fingerprint, file, offset): about 100 bytes per
//! run. A line that is torn (a process killed while writing) or whose
//! checksum does not match (a flipped digit) is reported once on standard
//! error and left out, so its run is redone by a resume and reported
//! missing by a merge. When a key appears more than once, the last line
//! with the wanted fingerprint wins (all such lines hold the same result:
//! a run is a pure function of its config and the binary).

use crate::output::flows::{flow_key_columns, FLOW_METRICS};
use crate::output::{Kind, Value};
use crate::study::sweep::{seal, unseal};
use crate::Report;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A writer syncs its file to disk at least this often (and on close), so a
/// power cut loses at most this much finished work; a killed process loses
/// nothing it wrote.
pub const SYNC_EVERY: Duration = Duration::from_millis(500);

/// One finished run, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub key: String,
    /// [`crate::study::sweep::fingerprint`] of the run's config.
    pub fingerprint: String,
    pub seed: u64,
    /// Events the kernel executed.
    pub events: u64,
    /// Whether the packet audit balanced.
    pub balanced: bool,
    /// Per flow, the cells of [`flow_cells_columns`] (flow key, then every
    /// metric of [`FLOW_METRICS`]) as JSON values (null when undefined).
    pub flows: Vec<Vec<serde_json::Value>>,
    /// With `[output] interval`: the run's `timeseries` rows, each the cells
    /// of [`timeseries_cells_columns`] (null when undefined); empty (and
    /// not written) otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeseries: Vec<Vec<serde_json::Value>>,
}

/// The columns of a record's time-series cells: the `timeseries` columns
/// after the replication and seed (which the sweep tables fill in).
pub fn timeseries_cells_columns() -> Vec<crate::output::Column> {
    crate::output::timeseries::timeseries_columns(&[]).split_off(2)
}

/// The columns of a record's flow cells: the flow key columns, then every
/// per-flow metric.
pub fn flow_cells_columns() -> Vec<crate::output::Column> {
    let mut c = flow_key_columns();
    c.extend(FLOW_METRICS.iter().map(|m| m.column()));
    c
}

impl Record {
    /// The record of `report`, the run `key` with config fingerprint
    /// `fingerprint`.
    pub fn of(key: &str, fingerprint: &str, report: &Report) -> Record {
        Record {
            key: key.to_string(),
            fingerprint: fingerprint.to_string(),
            seed: report.seed,
            events: report.events,
            balanced: report.audit.balances(),
            flows: report
                .flows
                .iter()
                .map(|f| crate::output::flows::flow_cells(f).iter().map(Value::to_json).collect())
                .collect(),
            timeseries: {
                use crate::output::timeseries::{push_timeseries_rows, timeseries_columns};
                let mut t = crate::output::Table::new("timeseries", timeseries_columns(&[]));
                push_timeseries_rows(&mut t, &[], 0, report);
                t.rows.into_iter().map(|r| r[2..].iter().map(Value::to_json).collect()).collect()
            },
        }
    }

    /// The record as one sealed JSON line (with its newline).
    pub fn to_line(&self) -> String {
        let mut s = seal(&serde_json::to_string(self).expect("a record serializes"));
        s.push('\n');
        s
    }

    /// A record from a line written by [`Record::to_line`]; checks the
    /// checksum first.
    pub fn from_line(line: &str) -> Result<Record, String> {
        unseal(line)?;
        serde_json::from_str(line).map_err(|e| format!("not a run record: {e}"))
    }

    /// The flow cells as typed table values (columns [`flow_cells_columns`]).
    pub fn cells(&self, kinds: &[Kind]) -> Result<Vec<Vec<Value>>, String> {
        self.typed(&self.flows, kinds)
    }

    /// The time-series cells as typed table values (columns
    /// [`timeseries_cells_columns`]).
    pub fn timeseries_cells(&self, kinds: &[Kind]) -> Result<Vec<Vec<Value>>, String> {
        self.typed(&self.timeseries, kinds)
    }

    fn typed(&self, rows: &[Vec<serde_json::Value>], kinds: &[Kind]) -> Result<Vec<Vec<Value>>, String> {
        rows.iter()
            .map(|f| {
                if f.len() != kinds.len() {
                    return Err(format!("run {}: {} cells per row, expected {}", self.key, f.len(), kinds.len()));
                }
                f.iter()
                    .zip(kinds)
                    .map(|(v, k)| {
                        let cell = match (v, k) {
                            (serde_json::Value::Null, _) => Some(Value::Null),
                            (v, Kind::F64) => v.as_f64().map(Value::F64),
                            (v, Kind::U64) => v.as_u64().map(Value::U64),
                            (v, Kind::I64) => v.as_i64().map(Value::I64),
                            (v, Kind::Str) => v.as_str().map(Value::s),
                        };
                        cell.ok_or_else(|| format!("run {}: cell {v} is not {}", self.key, k.name()))
                    })
                    .collect()
            })
            .collect()
    }
}

/// The file a writer appends to: `runs.jsonl`, or `shard-I-of-N.jsonl`.
pub fn records_file(shard: Option<(u32, u32)>) -> String {
    match shard {
        None => "runs.jsonl".into(),
        Some((i, n)) => format!("shard-{i}-of-{n}.jsonl"),
    }
}

/// Appends records to one file of the store.
pub struct Writer {
    file: File,
    path: PathBuf,
    last_sync: Instant,
}

impl Writer {
    /// Opens `dir/name` for appending (created if needed); `fresh` empties
    /// it first. A line torn by a kill is closed with a newline so the next
    /// record starts on a line of its own.
    pub fn open(dir: &Path, name: &str, fresh: bool) -> std::io::Result<Writer> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(name);
        let mut file = std::fs::OpenOptions::new().create(true).append(true).read(true).truncate(false).open(&path)?;
        if fresh {
            file.set_len(0)?;
        }
        let len = file.metadata()?.len();
        if len > 0 {
            let mut last = [0u8];
            file.seek(SeekFrom::Start(len - 1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                file.write_all(b"\n")?;
            }
        }
        Ok(Writer { file, path, last_sync: Instant::now() })
    }

    /// Appends one record (one `write` call), syncing if the last sync is
    /// older than [`SYNC_EVERY`].
    pub fn append(&mut self, r: &Record) -> std::io::Result<()> {
        self.file.write_all(r.to_line().as_bytes())?;
        if self.last_sync.elapsed() >= SYNC_EVERY {
            self.file.sync_data()?;
            self.last_sync = Instant::now();
        }
        Ok(())
    }

    /// Syncs the file to disk.
    pub fn close(self) -> std::io::Result<()> {
        self.file.sync_data()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Where a record is.
#[derive(Clone, Copy, Debug)]
enum Loc {
    File { file: u32, offset: u64, len: u32 },
    Mem(u32),
}

/// The records of one or more `runs/` folders (or held in memory), indexed
/// by key.
#[derive(Default)]
pub struct Store {
    files: Vec<PathBuf>,
    open: Vec<Option<File>>,
    mem: Vec<Record>,
    index: HashMap<String, Vec<(u64, Loc)>>,
    /// Lines left out (torn, damaged): `file:line: why`.
    pub damaged: Vec<String>,
}

fn fp_u64(fp: &str) -> u64 {
    u64::from_str_radix(fp, 16).unwrap_or(u64::MAX)
}

impl Store {
    /// An empty store held in memory.
    pub fn memory() -> Store {
        Store::default()
    }

    /// Scans every `*.jsonl` file of the `dirs` (each a `runs/` folder; a
    /// missing folder holds nothing), checking every line's checksum.
    /// Damaged lines are reported on standard error (`warn`) and left out.
    pub fn open(dirs: &[PathBuf], warn: bool) -> std::io::Result<Store> {
        let mut s = Store::default();
        for d in dirs {
            let mut names: Vec<PathBuf> = match std::fs::read_dir(d) {
                Ok(rd) => rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                    .collect(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            names.sort();
            for p in names {
                s.scan(p, warn)?;
            }
        }
        Ok(s)
    }

    fn scan(&mut self, path: PathBuf, warn: bool) -> std::io::Result<()> {
        let file = self.files.len() as u32;
        let mut r = BufReader::new(File::open(&path)?);
        let mut line = String::new();
        let (mut offset, mut n) = (0u64, 0usize);
        loop {
            line.clear();
            let len = r.read_line(&mut line)?;
            if len == 0 {
                break;
            }
            n += 1;
            if !line.trim().is_empty() {
                match Record::from_line(&line) {
                    Ok(rec) => {
                        let loc = Loc::File { file, offset, len: len as u32 };
                        self.index.entry(rec.key).or_default().push((fp_u64(&rec.fingerprint), loc));
                    }
                    Err(why) => {
                        let key = serde_json::from_str::<serde_json::Value>(&line)
                            .ok()
                            .and_then(|v| v["key"].as_str().map(|k| format!(" (run {k})")))
                            .unwrap_or_default();
                        let msg = format!("{}:{n}: {why}{key}", path.display());
                        if warn {
                            eprintln!("warning: {msg}; that run is left out (a resume runs it again)");
                        }
                        self.damaged.push(msg);
                    }
                }
            }
            offset += len as u64;
        }
        self.files.push(path);
        self.open.push(None);
        Ok(())
    }

    /// Adds a record held in memory.
    pub fn insert(&mut self, r: Record) {
        let i = self.mem.len() as u32;
        self.index.entry(r.key.clone()).or_default().push((fp_u64(&r.fingerprint), Loc::Mem(i)));
        self.mem.push(r);
    }

    fn find(&self, key: &str, fingerprint: &str) -> Option<Loc> {
        let fp = fp_u64(fingerprint);
        self.index.get(key)?.iter().rev().find(|(f, _)| *f == fp).map(|(_, l)| *l)
    }

    /// Whether the store holds run `key` with this fingerprint.
    pub fn contains(&self, key: &str, fingerprint: &str) -> bool {
        self.find(key, fingerprint).is_some()
    }

    /// Whether the store holds run `key` with another fingerprint only
    /// (another config or binary).
    pub fn stale(&self, key: &str, fingerprint: &str) -> bool {
        self.index.contains_key(key) && !self.contains(key, fingerprint)
    }

    /// Distinct keys held.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The record of run `key` with this fingerprint, read back from its
    /// file (checksum checked again).
    pub fn get(&mut self, key: &str, fingerprint: &str) -> std::io::Result<Option<Record>> {
        match self.find(key, fingerprint) {
            None => Ok(None),
            Some(Loc::Mem(i)) => Ok(Some(self.mem[i as usize].clone())),
            Some(Loc::File { file, offset, len }) => {
                let f = file as usize;
                if self.open[f].is_none() {
                    self.open[f] = Some(File::open(&self.files[f])?);
                }
                let h = self.open[f].as_mut().expect("opened");
                h.seek(SeekFrom::Start(offset))?;
                let mut buf = vec![0u8; len as usize];
                h.read_exact(&mut buf)?;
                let text = String::from_utf8(buf)
                    .map_err(|_| std::io::Error::other(format!("{}: not UTF-8", self.files[f].display())))?;
                Record::from_line(&text).map(Some).map_err(|e| {
                    std::io::Error::other(format!("{}: {e} (changed while read?)", self.files[f].display()))
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(key: &str, fp: &str, x: f64) -> Record {
        Record {
            key: key.into(),
            fingerprint: fp.into(),
            seed: 1,
            events: 10,
            balanced: true,
            flows: vec![vec![serde_json::json!(0), serde_json::json!("f"), serde_json::json!(x)]],
            timeseries: Vec::new(),
        }
    }

    #[test]
    fn records_append_index_and_survive_torn_and_damaged_lines() {
        let dir = std::env::temp_dir().join(format!("manetlab-store-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut w = Writer::open(&dir, "runs.jsonl", true).unwrap();
        w.append(&rec("a", "00000000000000aa", 0.1)).unwrap();
        w.append(&rec("b", "00000000000000bb", 1.0 / 3.0)).unwrap();
        w.close().unwrap();
        // A kill in the middle of a line, then a flipped digit in "b".
        let path = dir.join("runs.jsonl");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text = text.replace("0.3333333333333333", "0.3333333333333334");
        text.push_str("{\"key\":\"c\",\"fing");
        std::fs::write(&path, &text).unwrap();
        let mut s = Store::open(std::slice::from_ref(&dir), false).unwrap();
        assert_eq!(s.damaged.len(), 2, "{:?}", s.damaged);
        assert!(s.damaged[0].contains("checksum mismatch") && s.damaged[0].contains("(run b)"), "{:?}", s.damaged);
        assert_eq!(s.get("a", "00000000000000aa").unwrap(), Some(rec("a", "00000000000000aa", 0.1)));
        assert!(!s.contains("b", "00000000000000bb") && !s.contains("a", "00000000000000ab"));
        assert!(s.stale("a", "00000000000000ab"));
        // Appending after the torn line starts a new line; the redone run
        // is found, floats exactly.
        let mut w = Writer::open(&dir, "runs.jsonl", false).unwrap();
        w.append(&rec("b", "00000000000000bb", 1.0 / 3.0)).unwrap();
        w.close().unwrap();
        let mut s = Store::open(std::slice::from_ref(&dir), false).unwrap();
        let b = s.get("b", "00000000000000bb").unwrap().unwrap();
        assert_eq!(b.flows[0][2].as_f64(), Some(1.0 / 3.0));
        assert_eq!(s.len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
