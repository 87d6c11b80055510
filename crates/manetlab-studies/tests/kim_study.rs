//! The kim study (voip-tcp-coexistence.txt) in quick mode: issue 9's
//! acceptance criteria (VoIP alone supports more calls than beside
//! unrestricted TCP; window control at the gateway supports more calls
//! than plain sharing), and every report artefact is produced.

use manetlab::study::StudyOptions;
use manetlab_studies as study;

#[test]
fn kim_study_quick_meets_acceptance() {
    let out = std::env::temp_dir().join(format!("manetlab-kim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = StudyOptions { quick: true, ..StudyOptions::new(&out) };
    let res = study::run("kim", &opts, &|_, _| {}).expect("study runs");
    println!("{}", res.markdown);
    let acceptance: Vec<_> = res.checks.iter().filter(|c| c.what.starts_with("acceptance:")).collect();
    assert_eq!(acceptance.len(), 2, "{:?}", res.checks);
    for c in &acceptance {
        assert!(c.passed, "{}: {}", c.what, c.detail);
    }
    let audit = res.checks.iter().find(|c| c.what.contains("audit")).expect("audit check");
    assert!(audit.passed, "{}", audit.detail);
    for f in [
        "report.md",
        "results.json",
        "kim_table1.csv",
        "kim_table1.svg",
        "kim_table1.png",
        "kim_fig4_mos.svg",
        "kim_fig4_goodput.png",
        "kim_fig4_ratio.csv",
        "kim_priority_hops.svg",
        "kim_fig5.svg",
        "kim_fig5.csv",
        "kim_scal_window.png",
    ] {
        let p = out.join(f);
        let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
        assert!(len > 100, "{} missing or empty", p.display());
    }
    // The paper's table is printed beside ours.
    assert!(res.markdown.contains("| 5 | 3 |"), "published table 1 row present");
    let _ = std::fs::remove_dir_all(&out);
}
