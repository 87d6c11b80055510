//! `manetlab study holland --quick`: the acceptance criteria on the
//! quick study (200 s runs; 24 patterns for TCP-Reno, 8 for the other main
//! variants), every figure present, and resuming from the stored runs
//! reproducing the report exactly.

use manetlab::study::StudyOptions;
use manetlab_studies as study;

#[test]
fn holland_quick_meets_the_acceptance_criteria_and_resumes_identically() {
    let out = std::env::temp_dir().join(format!("manetlab-holland-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = StudyOptions { quick: true, ..StudyOptions::new(&out) };
    let r = study::run("holland", &opts, &|_, _| {}).expect("study runs");
    for c in &r.checks {
        println!("{}: {} ({})", c.what, c.passed, c.detail);
    }
    // measured <= expected at each speed, 2 m/s above 10 m/s, ELFN (2 s) not
    // worse than Reno on the mean.
    assert_eq!(r.checks.len(), 6);
    for c in &r.checks {
        assert!(c.passed, "{}: {}", c.what, c.detail);
    }
    for stem in [
        "fig3a_mean_vs_speed",
        "fig3b_per_pattern",
        "fig4_scatter_reno",
        "fig5a_path_profile",
        "fig5b_per_second",
        "fig7_cache",
        "fig8_cbr_cache",
        "fig9_five_tcp",
        "fig10a_path_profile",
        "fig10b_per_second",
        "fig11_scatter_elfn",
        "fig12_probe_interval",
        "fig13_restore",
        "fig14_probe_packet",
        "fig15_cbr_elfn",
        "fig16_five_tcp_elfn",
    ] {
        assert!(r.markdown.contains(stem), "report lacks {stem}");
        let csv = std::fs::read_to_string(out.join(format!("{stem}.csv"))).unwrap();
        assert!(csv.lines().count() > 2, "{stem}.csv has no data");
    }
    // Every finding of the paper is answered, point by point.
    let findings = r.markdown.split("## The paper's findings beside ours").nth(1).unwrap();
    assert_eq!(findings.lines().filter(|l| l.ends_with("| yes |") || l.ends_with("| **no** |")).count(), 12);

    // Resuming from the stored runs runs nothing and reproduces the report.
    let runs_dir = out.join("runs");
    let stored = std::fs::read_dir(&runs_dir).unwrap().count();
    assert_eq!(stored, r.runs);
    let again = study::run("holland", &StudyOptions { resume: true, ..opts.clone() }, &|_, _| {}).unwrap();
    assert_eq!(again.markdown, r.markdown);
    let _ = std::fs::remove_dir_all(&out);
}
