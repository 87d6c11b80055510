//! Files a scenario reads, and paths it names: regular files only, with a
//! size limit, and (unless the caller allows more) only inside the
//! scenario's folder (`mobility.file`) or below the working directory
//! (`output.dir`). A scenario file may come from someone else (a shared
//! study, a web front end): it must not read `/etc/passwd` into an error
//! message or write outside the output folder.

use super::error::{At, Diag, ErrorKind};
use std::io::Read;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicBool, Ordering};
use toml_edit::Table;

/// Largest scenario file read (scenarios are a few KB).
pub const MAX_SCENARIO_BYTES: u64 = 4 << 20;
/// Largest movement file read (a 100-node, 10,000 s setdest file is ~10 MB).
pub const MAX_MOVEMENT_BYTES: u64 = 64 << 20;

static ALLOW_PATHS: AtomicBool = AtomicBool::new(false);

/// Lets scenario files name paths anywhere (the command line's
/// `--allow-paths`). Off by default.
pub fn set_allow_paths(allow: bool) {
    ALLOW_PATHS.store(allow, Ordering::Relaxed);
}

fn paths_allowed() -> bool {
    ALLOW_PATHS.load(Ordering::Relaxed)
}

/// Reads `path` as bytes: a regular file (not a device, FIFO or
/// directory) of at most `limit` bytes. The message never quotes the file.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "{} is not a regular file (a device, FIFO or folder); refused before reading, so no line applies",
            path.display()
        ));
    }
    if meta.len() > limit {
        // Refused on its size alone, like any other input error (exit 2),
        // but with no line: nothing was read to point into.
        return Err(format!(
            "{} is {} bytes; at most {limit} bytes ({} MiB) are read; refused by size before reading, so no line \
             applies",
            path.display(),
            meta.len(),
            limit >> 20
        ));
    }
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    f.take(limit + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(format!("{} grew past {limit} bytes while being read", path.display()));
    }
    Ok(bytes)
}

/// `p` names something below its base: relative, no `..`, no root.
fn stays_below(p: &Path) -> bool {
    p.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Refuses `mobility.file` outside the scenario's folder and `output.dir`
/// outside the working directory, unless [`set_allow_paths`] allowed them.
pub(crate) fn check_paths(doc: &Table, base_dir: &Path) -> Result<(), Diag> {
    if paths_allowed() {
        return Ok(());
    }
    let value = |section: &str, key: &str| {
        doc.get(section)?.as_table_like()?.get(key)?.as_value().and_then(|v| Some((v.as_str()?.to_string(), v.span())))
    };
    let at = |span: Option<std::ops::Range<usize>>| span.map_or(At::Nowhere, |s| At::Offset(s.start));
    if let Some((file, span)) = value("mobility", "file") {
        let inside = stays_below(Path::new(&file)) && {
            // A symbolic link inside the folder may still point outside it.
            let base = if base_dir.as_os_str().is_empty() { Path::new(".") } else { base_dir };
            match (base.join(&file).canonicalize(), base.canonicalize()) {
                (Ok(f), Ok(b)) => f.starts_with(b),
                _ => true, // does not exist: reading it reports that
            }
        };
        if !inside {
            return Err(Diag::new(
                ErrorKind::OutOfRange,
                at(span),
                "'mobility.file' must name a file inside the scenario's folder (a relative path without \"..\"); \
                 the command line's --allow-paths lifts this",
            ));
        }
    }
    if let Some((dir, span)) = value("output", "dir") {
        if !stays_below(Path::new(&dir)) {
            return Err(Diag::new(
                ErrorKind::OutOfRange,
                at(span),
                "'output.dir' must be a relative path without \"..\" (results stay below the working directory); \
                 use --out on the command line, or --allow-paths",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_directories_are_refused() {
        assert!(read_limited(Path::new("/dev/zero"), 1 << 20).unwrap_err().contains("not a regular file"));
        assert!(read_limited(Path::new("/"), 1 << 20).unwrap_err().contains("not a regular file"));
    }

    #[test]
    fn size_limit() {
        let p = std::env::temp_dir().join(format!("manetlab-input-{}.txt", std::process::id()));
        std::fs::write(&p, vec![b'x'; 100]).unwrap();
        assert_eq!(read_limited(&p, 100).unwrap().len(), 100);
        let e = read_limited(&p, 99).unwrap_err();
        assert!(e.contains("is 100 bytes; at most 99") && !e.contains("xxx"), "{e}");
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn paths_below_only() {
        assert!(stays_below(Path::new("moves/a.tcl")));
        assert!(stays_below(Path::new("./a.tcl")));
        assert!(!stays_below(Path::new("../a.tcl")));
        assert!(!stays_below(Path::new("/etc/passwd")));
        assert!(!stays_below(Path::new("a/../../b")));
    }
}
