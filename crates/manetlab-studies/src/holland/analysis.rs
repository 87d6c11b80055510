//! The holland study's judgement: the paper's findings and the issue's
//! acceptance checks, from the per-variant results.

use super::*;

/// The verdicts on the published findings, and the checks.
pub(super) fn judge<'a>(
    opts: &StudyOptions,
    pl: &Plan,
    get: impl Fn(&str) -> &'a VariantResult,
    below: &[f64],
    rising: usize,
    n_pat: usize,
) -> (Vec<Verdict>, Vec<Check>) {
    let kb = |x: f64| x / 1e3;
    let m = pl.minor_patterns;
    let reno = get("reno");
    let g = |p: usize, si: usize| reno.runs[si][p].goodput_bps[0];
    let mut checks = Vec::new();
    // ---- The paper's findings beside ours.
    let mean = |id: &str, si: usize| get(id).mean_first(si, m).mean();
    // Comparisons between variants run over the patterns they share (Reno
    // has more in quick mode, for figure 3a).
    let full = |id: &str, si: usize| get(id).mean_first(si, pl.patterns).mean();
    let avg_over_speeds = |f: &dyn Fn(usize) -> f64| (0..SPEEDS.len()).map(f).sum::<f64>() / SPEEDS.len() as f64;
    let mut verdicts: Vec<(String, String, bool, String)> = Vec::new(); // (id, paper, agree, ours)
    let ms: Vec<f64> = (0..4).map(|si| reno.mean(si).mean()).collect();
    let es: Vec<f64> = (0..4).map(|si| reno.expected(si).mean()).collect();
    verdicts.push((
        "drop-then-flat".into(),
        String::new(),
        ms[0] > ms[1] && (ms[0] - ms[1]) > (ms[1] - ms[3]).abs(),
        format!(
            "mean {:.0} / {:.0} / {:.0} / {:.0} kbit/s at 2/10/20/30 m/s: drop 2->10 of {:.0}, change 10->30 of {:.0}",
            kb(ms[0]),
            kb(ms[1]),
            kb(ms[2]),
            kb(ms[3]),
            kb(ms[0] - ms[1]),
            kb(ms[3] - ms[1])
        ),
    ));
    verdicts.push((
        "below-expected".into(),
        String::new(),
        ms.iter().zip(&es).all(|(m, e)| m <= e) && below.iter().all(|&b| b >= 0.85),
        format!(
            "mean measured/expected {}; patterns at or below the diagonal {}",
            (0..4).map(|si| format!("{:.0}%", 100.0 * ms[si] / es[si].max(1e-9))).collect::<Vec<_>>().join(" / "),
            below.iter().map(|b| format!("{:.0}%", b * 100.0)).collect::<Vec<_>>().join(" / ")
        ),
    ));
    let near_zero_low = reno.runs[0].iter().filter(|o| o.goodput_bps[0] < 0.1 * o.expected_bps[0].max(1.0)).count();
    let high_fast =
        reno.runs[3].iter().filter(|o| o.goodput_bps[0] > 0.6 * o.expected_bps[0] && o.goodput_bps[0] > 200e3).count();
    verdicts.push((
        "near-zero".into(),
        String::new(),
        near_zero_low > 0 && high_fast > 0,
        format!(
            "{near_zero_low} of {n_pat} patterns below 10% of expected at 2 m/s; {high_fast} above 60% of expected (and 200 kbit/s) at 30 m/s"
        ),
    ));
    let rise = (0..4).map(|si| kb(g(rising, si))).collect::<Vec<_>>();
    verdicts.push((
        "rises-with-speed".into(),
        String::new(),
        rise[2] + rise[3] > rise[0] + rise[1],
        format!(
            "pattern {}: {:.0} / {:.0} / {:.0} / {:.0} kbit/s at 2/10/20/30 m/s",
            pattern_seed(opts, rising),
            rise[0],
            rise[1],
            rise[2],
            rise[3]
        ),
    ));
    let nc_gain = avg_over_speeds(&|si| full("reno-nc", si)) / avg_over_speeds(&|si| full("reno", si)).max(1e-9);
    verdicts.push((
        "no-cache".into(),
        String::new(),
        nc_gain > 1.1,
        format!(
            "no-cache / cache mean throughput {:.2} (per speed {})",
            nc_gain,
            (0..4)
                .map(|si| format!("{:.2}", full("reno-nc", si) / full("reno", si).max(1e-9)))
                .collect::<Vec<_>>()
                .join(" / ")
        ),
    ));
    let ratio = |a: &str, b: &str, si: usize| mean(a, si) / mean(b, si).max(1e-9);
    let cbr_txt = pl
        .cbr
        .iter()
        .map(|p| {
            format!(
                "{p} pps NC/cache {}",
                (0..4)
                    .map(|si| format!("{:.2}", ratio(&format!("cbr{p}-nc"), &format!("cbr{p}"), si)))
                    .collect::<Vec<_>>()
                    .join("/")
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let cbr_hi = pl.cbr.iter().filter(|&&p| p <= 10).all(|p| {
        ratio(&format!("cbr{p}-nc"), &format!("cbr{p}"), 2) + ratio(&format!("cbr{p}-nc"), &format!("cbr{p}"), 3) > 2.0
    });
    verdicts.push(("no-cache-cbr".into(), String::new(), cbr_hi, cbr_txt + " (2/10/20/30 m/s)"));
    let t5 = (0..4).map(|si| ratio("tcp5-nc", "tcp5", si)).collect::<Vec<_>>();
    verdicts.push((
        "no-cache-five-tcp".into(),
        String::new(),
        t5[2] + t5[3] > 2.0,
        format!(
            "five TCP, NC/cache {} at 2/10/20/30 m/s",
            t5.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" / ")
        ),
    ));
    let el: Vec<f64> = (0..4).map(|si| full("elfn-2s", si) / full("reno", si).max(1e-9)).collect();
    let spread = |id: &str| -> f64 {
        // Mean |measured - expected| / expected over patterns with expected > 0.
        let r = get(id);
        let v: Vec<f64> = r
            .runs
            .iter()
            .flat_map(|per_speed| per_speed.iter().take(pl.patterns))
            .filter(|o| o.expected_bps[0] > 1e3)
            .map(|o| (o.expected_bps[0] - o.goodput_bps[0]).abs() / o.expected_bps[0])
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    verdicts.push((
        "elfn-improves".into(),
        String::new(),
        el.iter().all(|&x| x >= 0.97) && spread("elfn-2s") <= spread("reno"),
        format!(
            "ELFN/Reno mean throughput {} at 2/10/20/30 m/s; mean distance from the diagonal {:.0}% (Reno {:.0}%)",
            el.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" / "),
            100.0 * spread("elfn-2s"),
            100.0 * spread("reno")
        ),
    ));
    let p30 = avg_over_speeds(&|si| mean("elfn-30s", si)) / avg_over_speeds(&|si| mean("reno", si)).max(1e-9);
    let p2 = avg_over_speeds(&|si| mean("elfn-2s", si)) / avg_over_speeds(&|si| mean("reno", si)).max(1e-9);
    verdicts.push((
        "probe-30s-worse".into(),
        String::new(),
        p30 < 1.0 && p30 < p2,
        format!("ELFN/Reno over speeds: 30 s probes {p30:.2}, 2 s probes {p2:.2}"),
    ));
    let w = avg_over_speeds(&|si| mean("elfn-cwnd1", si)) / avg_over_speeds(&|si| mean("elfn-2s", si)).max(1e-9);
    let rto = avg_over_speeds(&|si| mean("elfn-cwnd1-rto", si)) / avg_over_speeds(&|si| mean("elfn-2s", si)).max(1e-9);
    verdicts.push((
        "restore-window".into(),
        String::new(),
        (w - 1.0).abs() < 0.1 && (rto - 1.0).abs() > (w - 1.0).abs(),
        format!("relative to ELFN keeping its state: cwnd 1 {w:.2}, cwnd 1 + RTO 6 s {rto:.2}"),
    ));
    let lo = avg_over_speeds(&|si| mean("elfn-lowest", si)) / avg_over_speeds(&|si| mean("elfn-2s", si)).max(1e-9);
    verdicts.push((
        "probe-choice".into(),
        String::new(),
        (lo - 1.0).abs() < 0.1,
        format!("lowest-lost probe / first-of-window probe: {lo:.2}"),
    ));
    let e15: Vec<f64> = pl
        .cbr
        .iter()
        .map(|p| {
            avg_over_speeds(&|si| mean(&format!("cbr{p}-elfn"), si))
                / avg_over_speeds(&|si| mean(&format!("cbr{p}"), si)).max(1e-9)
        })
        .collect();
    let e16 = avg_over_speeds(&|si| mean("tcp5-elfn", si)) / avg_over_speeds(&|si| mean("tcp5", si)).max(1e-9);
    verdicts.push((
        "elfn-multi".into(),
        String::new(),
        e15.iter().all(|&x| x >= 0.97) && e16 >= 0.97,
        format!(
            "ELFN/Reno with CBR {} ({} pps), with five TCP {e16:.2}",
            e15.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" / "),
            pl.cbr.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("/")
        ),
    ));
    // ---- Acceptance checks (the issue's).
    for (si, v) in SPEEDS.iter().enumerate() {
        checks.push(Check {
            what: format!("mean measured <= mean expected at {v} m/s"),
            passed: ms[si] <= es[si],
            detail: format!("{:.1} <= {:.1} kbit/s", kb(ms[si]), kb(es[si])),
        });
    }
    // The same patterns at both speeds: the paired difference and its
    // standard error say how far the check is from failing.
    let d: Summary = (0..reno.runs[0].len()).map(|p| g(p, 0) - g(p, 1)).collect();
    checks.push(Check {
        what: "2 m/s mean above the 10 m/s mean".into(),
        passed: ms[0] > ms[1],
        detail: format!("{:.1} > {:.1} kbit/s", kb(ms[0]), kb(ms[1]))
            + &if d.count() > 1 {
                format!(
                    "; paired over {} patterns: {:+.1} ± {:.1} kbit/s (standard error)",
                    d.count(),
                    kb(d.mean()),
                    kb(d.std_err())
                )
            } else {
                String::new()
            },
    });
    let elfn_avg = avg_over_speeds(&|si| full("elfn-2s", si));
    let reno_avg = avg_over_speeds(&|si| full("reno", si));
    checks.push(Check {
        what: "ELFN (2 s probes) not worse than Reno on the mean".into(),
        passed: elfn_avg >= reno_avg * 0.98,
        detail: format!("{:.1} vs {:.1} kbit/s averaged over speeds", kb(elfn_avg), kb(reno_avg)),
    });
    let verdicts = verdicts.into_iter().map(|(id, _, agree, ours)| Verdict { id, agree, ours }).collect();
    (verdicts, checks)
}
