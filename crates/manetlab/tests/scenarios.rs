//! Every scenario file shipped in `scenarios/` parses, builds, runs (cut to
//! 30 s) and balances its packet audit: each packet delivered,
//! dropped with a reason, or held somewhere at the end.

use manetlab::scenario::Scenario;
use manetlab::Simulation;
use std::path::Path;

fn scenario_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            scenario_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_shipped_scenario_runs_and_its_audit_balances() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = Vec::new();
    scenario_files(&root, &mut files);
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    for f in &files {
        let s = Scenario::load(f, &["run.duration=30s"]).unwrap_or_else(|e| panic!("{e}"));
        let cfg = s.config(s.seed());
        let r = Simulation::new(cfg).unwrap_or_else(|e| panic!("{}: {e}", f.display())).run();
        println!("{}: {} events, audit {:?}", f.display(), r.events, r.audit);
        assert!(r.audit.balances(), "{}: {:?}", f.display(), r.audit);
        assert!(r.events > 0, "{}", f.display());
    }
}
