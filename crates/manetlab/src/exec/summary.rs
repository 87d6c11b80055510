//! `summary.json`: every replication's full report, the per-flow
//! aggregate and the network table (see `crate::output`). One function builds its text so that the command line and the
//! Python package (`Results.summary_json`) agree byte for byte.

use crate::output::table::write_atomic;
use crate::Report;
use std::path::{Path, PathBuf};

/// The text of `summary.json` (pretty-printed, ending in a newline) for the
/// replications `reports` of scenario `name` run with `seeds`: see
/// [`crate::output::summary_json`].
pub fn summary_json(name: &str, seeds: &[u64], reports: &[Report]) -> String {
    let tables = crate::output::run_tables(reports);
    summary_text(name, seeds, reports, &tables)
}

/// Written from [`crate::output::Summary`] without building the
/// `serde_json::Value` of [`crate::output::summary_json`], to the same
/// text (`output/sorted_json.rs`; its tests compare the two); through the
/// `Value` where the direct writer refuses something (a map key that is
/// not a string or an integer).
fn summary_text(name: &str, seeds: &[u64], reports: &[Report], tables: &[crate::output::Table]) -> String {
    let direct = crate::output::Summary::new(name, seeds, reports, tables);
    match crate::output::sorted_json::to_string_pretty_sorted(&direct) {
        Ok(text) => text + "\n",
        Err(_) => {
            let v = crate::output::summary_json(name, seeds, reports, tables);
            serde_json::to_string_pretty(&v).expect("a report serializes") + "\n"
        }
    }
}

/// Writes `summary.json` into `dir` atomically (temporary file + rename).
pub fn write_summary(dir: &Path, name: &str, seeds: &[u64], reports: &[Report]) -> std::io::Result<()> {
    write_atomic(&dir.join("summary.json"), summary_json(name, seeds, reports).as_bytes())
}

/// Writes every file of a run into `dir`: the tables of
/// [`crate::output::run_tables`] as CSV and `summary.json`. Returns the
/// paths written.
pub fn write_run(dir: &Path, name: &str, seeds: &[u64], reports: &[Report]) -> std::io::Result<Vec<PathBuf>> {
    let tables = crate::output::run_tables(reports);
    let mut files = Vec::new();
    for t in &tables {
        files.push(t.save_csv(dir)?);
    }
    let path = dir.join("summary.json");
    write_atomic(&path, summary_text(name, seeds, reports, &tables).as_bytes())?;
    files.push(path);
    Ok(files)
}

/// Reads the reports and seeds back from a `summary.json` text.
pub fn read_summary(text: &str) -> Result<(String, Vec<u64>, Vec<Report>), serde_json::Error> {
    #[derive(serde::Deserialize)]
    struct File {
        scenario: String,
        seeds: Vec<u64>,
        replications: Vec<Report>,
    }
    let f: File = serde_json::from_str(text)?;
    Ok((f.scenario, f.seeds, f.replications))
}

#[cfg(test)]
mod tests {
    /// `summary.json` of real runs: the direct writer's text is the
    /// `serde_json::Value` path's (`output/sorted_json.rs`).
    #[test]
    fn summary_json_of_real_runs_is_unchanged() {
        // Two replications of a short TCP chain and a CBR 2-hop run (reports
        // with every field filled: flows, nodes, histograms, drops, events).
        use crate::exec::{run_scenario, Cancel};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/bench/ns2");
        for (file, seeds) in [("chain10-tcp-dsr.toml", &[1u64, 2][..]), ("twohop-aodv.toml", &[7u64][..])] {
            let path = root.join(file);
            let sc = crate::scenario::Scenario::load(&path, &["run.duration=12s", "run.warmup=1s"]).unwrap();
            let reports = run_scenario(&sc, seeds, &Cancel::new(), &std::sync::atomic::AtomicU64::new(0)).unwrap();
            let tables = crate::output::run_tables(&reports);
            let old = serde_json::to_string_pretty(&crate::output::summary_json(&sc.name, seeds, &reports, &tables))
                .unwrap()
                + "\n";
            assert_eq!(super::summary_json(&sc.name, seeds, &reports), old, "{file}");
            // ... and through the direct writer, not its fallback to the `Value`.
            let direct = crate::output::Summary::new(&sc.name, seeds, &reports, &tables);
            assert_eq!(
                crate::output::sorted_json::to_string_pretty_sorted(&direct).expect("the direct writer takes a report")
                    + "\n",
                old,
                "{file}"
            );
        }
    }
}
