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
    // Like with like (issue 24): DSR and AODV under profile ns2 beside
    // ns-2.35's; at 1-2 hops (no route breaks) both within 3 % of ns-2.35.
    assert!(res.markdown.contains("Like with like"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let mean = |rule: &str, hops: u64| {
        json["points"].as_array().unwrap().iter().find(|p| p["rule"] == rule && p["hops"] == hops).unwrap()
            ["goodput_kbps"]["mean"]
            .as_f64()
            .unwrap()
    };
    for (rule, ns2) in [("dsr", [1286.4, 643.2]), ("aodv", [1309.7, 654.7])] {
        for h in 1..=2u64 {
            let r = mean(rule, h) / ns2[h as usize - 1];
            assert!((0.97..=1.03).contains(&r), "{rule} {h} hops: {r:.3} x ns-2.35");
        }
    }
}

#[test]
fn unknown_study_is_a_clear_error() {
    let opts = StudyOptions { quick: true, ..StudyOptions::new(std::env::temp_dir()) };
    let e = study::run("nope", &opts, &|_, _| {}).unwrap_err().to_string();
    assert!(e.contains("unknown study 'nope'") && e.contains("chain"), "{e}");
}
