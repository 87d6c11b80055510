//! `summary.json`: every replication's full report and a per-flow
//! aggregate. One function builds its text so that the command line and the
//! Python package (`Results.summary_json`) agree byte for byte.

use crate::metrics::stats::Summary;
use crate::metrics::FlowReport;
use crate::Report;
use serde_json::json;

/// Per-flow aggregate over replications of the main metrics.
fn aggregate(reports: &[Report]) -> Vec<serde_json::Value> {
    let Some(first) = reports.first() else { return Vec::new() };
    first
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let col = |g: &dyn Fn(&FlowReport) -> f64| -> Summary { reports.iter().map(|r| g(&r.flows[i])).collect() };
            json!({
                "flow": f.name,
                "src": f.src,
                "dst": f.dst,
                "goodput_bps": col(&|x| x.goodput_bps).values(),
                "delivery_ratio": col(&|x| x.delivery_ratio).values(),
                "delay_mean_s": col(&|x| x.delay_mean_s).values(),
                "delay_p95_s": col(&|x| x.delay_p95_s).values(),
                "jitter_s": col(&|x| x.jitter_s).values(),
            })
        })
        .collect()
}

/// The text of `summary.json` (pretty-printed, ending in a newline) for the
/// replications `reports` of scenario `name` run with `seeds`.
pub fn summary_json(name: &str, seeds: &[u64], reports: &[Report]) -> String {
    let v = json!({
        "scenario": name,
        "seeds": seeds,
        "replications": reports,
        "aggregate": aggregate(reports),
    });
    serde_json::to_string_pretty(&v).expect("a report serializes") + "\n"
}

/// Writes `summary.json` into `dir` atomically (temporary file + rename).
pub fn write_summary(dir: &std::path::Path, name: &str, seeds: &[u64], reports: &[Report]) -> std::io::Result<()> {
    let path = dir.join("summary.json");
    let tmp = dir.join(".summary.json.tmp");
    std::fs::write(&tmp, summary_json(name, seeds, reports))?;
    std::fs::rename(&tmp, &path)
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
