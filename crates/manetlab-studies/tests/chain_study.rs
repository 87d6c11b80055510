//! The chain study in quick mode: issue 3's acceptance criteria on the TCP
//! chain, and every report artefact is produced.

use manetlab::study::StudyOptions;
use manetlab_studies as study;

#[test]
fn chain_study_quick_meets_acceptance_band() {
    let out = std::env::temp_dir().join(format!("manetlab-chain-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = StudyOptions { quick: true, ..StudyOptions::new(&out) };
    let res = study::run("chain", &opts, &|_, _| {}).expect("study runs");
    println!("{}", res.markdown);
    for c in &res.checks {
        assert!(c.passed, "{}: {}", c.what, c.detail);
    }
    assert_eq!(res.checks.len(), 12);
    for f in [
        "report.md",
        "results.json",
        "chain_goodput.csv",
        "plot_chain_goodput.py",
        "chain_goodput.svg",
        "chain_goodput.png",
        "chain_4hop_timeseq.svg",
        "chain_4hop_cwnd.png",
    ] {
        let p = out.join(f);
        let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
        assert!(len > 100, "{} missing or empty", p.display());
    }
    assert!(res.markdown.contains("| 10 | 182.4 |"), "published column present");
}

#[test]
fn unknown_study_is_a_clear_error() {
    let opts = StudyOptions { quick: true, ..StudyOptions::new(std::env::temp_dir()) };
    let e = study::run("nope", &opts, &|_, _| {}).unwrap_err().to_string();
    assert!(e.contains("unknown study 'nope'") && e.contains("chain"), "{e}");
}
