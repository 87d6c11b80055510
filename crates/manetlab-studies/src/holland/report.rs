//! The holland study's report: figures 3-16 with the paper's findings
//! beside ours.

use super::*;
use manetlab::study::report::Table;
use manetlab::study::{Figure, Series};

pub(super) fn write(opts: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
    let pl = &f.plan;
    let publ = published();
    let (chain_seeds, chain_dur) = chain_size(opts);
    let kb = |x: f64| x / 1e3;
    doc.title("TCP over a mobile ad hoc network, with and without ELFN (holland)");
    doc.para(format!("Reproduces {}.", publ.source));
    doc.para(format!(
        "Setup: 30 nodes, 1500 m x 300 m, pattern mobility (random waypoint, pause 0, speeds uniform in \
         [0.9v, 1.1v], the same pattern replayed at every v), 2 Mbit/s 802.11 (WaveLAN, 250 m), DSR with ARP, \
         TCP-Reno 1460 B, window 8, initial RTO 6 s, flow 0 -> 1. **{} s per run**{}; {} and the first {} of \
         them for the other figures (the paper: 50 and 30). Expected throughput: \
         eq. 1 over each run's exact path profile, with the chain table of the same settings ({} seeds x {} s): {}.",
        pl.duration_s,
        if opts.quick { " (quick mode)" } else { "" },
        if pl.fig3_patterns == pl.patterns {
            format!("{} patterns for figures 3, 4, 7, 11", pl.patterns)
        } else {
            format!(
                "{} patterns for figures 3 and 4 (TCP-Reno), the first {} of them for figures 7 and 11",
                pl.fig3_patterns, pl.patterns
            )
        },
        pl.minor_patterns,
        chain_seeds,
        chain_dur,
        f.chain_table_bps.iter().map(|b| format!("{:.0}", b / 1e3)).collect::<Vec<_>>().join(", ")
            + " kbit/s for 1..10 hops"
    ));
    let speed_series = |r: &VariantResult, name: &str, f: &dyn Fn(&VariantResult, usize) -> Summary| Series {
        name: name.to_string(),
        points: (0..SPEEDS.len())
            .map(|si| {
                let s = f(r, si);
                (SPEEDS[si], kb(s.mean()), Some(kb(s.ci95_half_width())))
            })
            .collect(),
        scatter: false,
    };
    let line = |stem: &str, title: &str, series: Vec<Series>| {
        Figure::lines(stem, title, "mean speed (m/s)", "throughput (kbit/s)", series)
    };

    // ---- Figure 3a: mean measured and expected vs speed.
    let reno = f.get("reno");
    doc.section("Figure 3a: mean throughput vs speed");
    let mut t = Table::new(&[
        "speed (m/s)",
        "measured (kbit/s)",
        "expected (kbit/s)",
        "measured/expected",
        "RTO timeouts per run",
    ]);
    for (si, v) in SPEEDS.iter().enumerate() {
        let (m, e) = (reno.mean(si), reno.expected(si));
        let to: Summary = reno.runs[si].iter().map(|o| o.timeouts[0] as f64).collect();
        t.row([
            v.to_string(),
            format!("{:.1} ± {:.1}", kb(m.mean()), kb(m.ci95_half_width())),
            format!("{:.1} ± {:.1}", kb(e.mean()), kb(e.ci95_half_width())),
            format!("{:.0}%", reno.pct_of_expected(si)),
            format!("{:.1}", to.mean()),
        ]);
    }
    doc.table(&t);
    doc.figure(&line(
        "fig3a_mean_vs_speed",
        "Figure 3a: TCP-Reno mean throughput vs speed",
        vec![speed_series(reno, "measured", &|r, s| r.mean(s)), speed_series(reno, "expected", &|r, s| r.expected(s))],
    ))?;

    // ---- Figure 3b: per-pattern throughput at 20 and 30 m/s, sorted.
    let sorted = |si: usize| -> Vec<(f64, f64, Option<f64>)> {
        let mut g: Vec<f64> = reno.runs[si].iter().map(|o| kb(o.goodput_bps[0])).collect();
        g.sort_by(|a, b| a.total_cmp(b));
        g.into_iter().enumerate().map(|(i, y)| ((i + 1) as f64, y, None)).collect()
    };
    doc.section("Figure 3b: per-pattern throughput at 20 and 30 m/s (sorted)");
    doc.figure(&Figure::lines(
        "fig3b_per_pattern",
        "Figure 3b: per-pattern throughput (sorted)",
        "pattern (sorted by throughput)",
        "throughput (kbit/s)",
        vec![
            Series { name: "20 m/s".into(), points: sorted(2), scatter: true },
            Series { name: "30 m/s".into(), points: sorted(3), scatter: true },
        ],
    ))?;

    // ---- Figures 4 and 11: measured vs expected scatter per speed.
    let scatter = |r: &VariantResult, stem: &str, title: &str| -> Figure {
        let mut series: Vec<Series> = SPEEDS
            .iter()
            .enumerate()
            .map(|(si, v)| Series {
                name: format!("{v} m/s"),
                points: r.runs[si].iter().map(|o| (kb(o.expected_bps[0]), kb(o.goodput_bps[0]), None)).collect(),
                scatter: true,
            })
            .collect();
        let top = f.chain_table_bps.first().copied().map_or(1500.0, kb);
        series.push(Series {
            name: "diagonal".into(),
            points: vec![(0.0, 0.0, None), (top, top, None)],
            scatter: false,
        });
        Figure::lines(stem, title, "expected throughput (kbit/s)", "measured throughput (kbit/s)", series)
    };
    doc.section("Figure 4: measured vs expected, per pattern");
    doc.figure(&scatter(reno, "fig4_scatter_reno", "Figure 4: TCP-Reno, measured vs expected"))?;
    doc.para(format!(
        "Patterns at or below the diagonal (within 5%): {}.",
        SPEEDS.iter().zip(&f.below).map(|(v, b)| format!("{v} m/s {:.0}%", b * 100.0)).collect::<Vec<_>>().join(", ")
    ));

    // ---- Figures 5 and 10: patterns found automatically.
    for (fig, p, what, per_speed) in &f.patterns_shown {
        let (fig, p) = (*fig, *p);
        let seed = pattern_seed(opts, p);
        let g = |si: usize| reno.runs[si][p].goodput_bps[0];
        doc.section(format!("Figure {fig}: pattern {seed}, {what}"));
        doc.para(format!(
            "Measured throughput at 2/10/20/30 m/s: {}.",
            (0..SPEEDS.len()).map(|si| format!("{:.1}", kb(g(si)))).collect::<Vec<_>>().join(" / ") + " kbit/s"
        ));
        // (a) the path profile, against the fraction of the pattern played
        // (the same movie at every speed: 2 m/s plays 1/15 of what 30 m/s does).
        let profile = |si: usize| -> Vec<(f64, f64, Option<f64>)> {
            let prof = &reno.runs[si][p].profile;
            let mut pts: Vec<(f64, f64, Option<f64>)> =
                prof.iter().map(|s| (s.start_s, s.hops.map_or(0.0, |h| h as f64), None)).collect();
            if let Some(last) = prof.last() {
                pts.push((last.end_s, last.hops.map_or(0.0, |h| h as f64), None));
            }
            pts
        };
        let by_speed = |points: &dyn Fn(usize) -> Vec<(f64, f64, Option<f64>)>| -> Vec<Series> {
            SPEEDS
                .iter()
                .enumerate()
                .map(|(si, v)| Series { name: format!("{v} m/s"), points: points(si), scatter: false })
                .collect()
        };
        doc.figure(&Figure {
            steps: true,
            ..Figure::lines(
                &format!("fig{fig}a_path_profile"),
                &format!("Figure {fig}a: shortest path 0 -> 1, pattern {seed} (0 = partitioned)"),
                "time (s)",
                "hops",
                by_speed(&profile),
            )
        })?;
        // (b) throughput per second at each speed.
        doc.figure(&Figure {
            steps: true,
            ..Figure::lines(
                &format!("fig{fig}b_per_second"),
                &format!("Figure {fig}b: TCP throughput per 1 s, pattern {seed}"),
                "time (s)",
                "throughput (kbit/s)",
                by_speed(&|si| per_speed[si].clone()),
            )
        })?;
    }

    // ---- Figure 7: cache replies on/off.
    let nc = f.get("reno-nc");
    doc.section("Figure 7: DSR replies from cache on and off");
    doc.figure(&line(
        "fig7_cache",
        "Figure 7: TCP-Reno, replies from cache on / off",
        vec![
            speed_series(reno, "cache replies", &|r, s| r.mean_first(s, pl.patterns)),
            speed_series(nc, "no cache replies", &|r, s| r.mean_first(s, pl.patterns)),
            speed_series(reno, "expected", &|r, s| r.expected(s)),
        ],
    ))?;

    // ---- Figure 8: with CBR background, cache vs no cache.
    let m = pl.minor_patterns;
    let first_n = |id: &str, name: &str| speed_series(f.get(id), name, &|r, s| r.mean_first(s, m));
    doc.section("Figure 8: with 10 CBR connections, cache vs no cache (NC)");
    let mut s8 = Vec::new();
    for pps in &pl.cbr {
        s8.push(first_n(&format!("cbr{pps}"), &format!("{pps} pps")));
        s8.push(first_n(&format!("cbr{pps}-nc"), &format!("{pps} pps NC")));
    }
    doc.figure(&line("fig8_cbr_cache", "Figure 8: TCP-Reno with 10 CBR flows, cache vs NC", s8))?;

    // ---- Figure 9: five TCP connections.
    doc.section("Figure 9: five TCP connections, cache vs no cache");
    doc.figure(&line(
        "fig9_five_tcp",
        "Figure 9: mean per-connection throughput of five TCP flows",
        vec![first_n("tcp5", "cache replies"), first_n("tcp5-nc", "no cache replies")],
    ))?;

    // ---- Figure 11: ELFN scatter.
    doc.section("Figure 11: TCP with ELFN (2 s probes), measured vs expected");
    doc.figure(&scatter(f.get("elfn-2s"), "fig11_scatter_elfn", "Figure 11: ELFN (2 s probes), measured vs expected"))?;

    // ---- Figure 12: probe intervals, % of expected.
    doc.section("Figure 12: probe interval (measured as % of expected)");
    let pct_first = |r: &VariantResult, si: usize| -> f64 {
        let n = m.min(r.runs[si].len());
        let meas: f64 = r.runs[si][..n].iter().map(|o| o.goodput_bps[0]).sum();
        let exp: f64 = r.runs[si][..n].iter().map(|o| o.expected_bps[0]).sum();
        100.0 * meas / exp.max(1e-9)
    };
    let pct_series = |r: &VariantResult, name: &str| Series {
        name: name.into(),
        points: (0..SPEEDS.len()).map(|si| (SPEEDS[si], pct_first(r, si), None)).collect(),
        scatter: false,
    };
    let mut head = vec!["variant".to_string()];
    head.extend(SPEEDS.map(|v| format!("{v} m/s")));
    let mut t = Table::new(&head);
    let mut s12 = vec![pct_series(reno, "TCP-Reno")];
    let mut row = |r: &VariantResult| {
        let mut cells = vec![r.variant.label.clone()];
        cells.extend((0..SPEEDS.len()).map(|si| format!("{:.0}%", pct_first(r, si))));
        t.row(cells);
    };
    row(reno);
    for p in &pl.probes {
        let r = f.get(&format!("elfn-{p}"));
        s12.push(pct_series(r, &format!("ELFN {p}")));
        row(r);
    }
    doc.table(&t);
    doc.figure(&Figure::lines(
        "fig12_probe_interval",
        "Figure 12: measured as % of expected, by probe interval",
        "mean speed (m/s)",
        "% of expected throughput",
        s12,
    ))?;

    // ---- Figure 13: restore variants; figure 14: probe choice.
    doc.section("Figure 13: window and RTO on restore");
    doc.figure(&line(
        "fig13_restore",
        "Figure 13: ELFN restore variants (2 s probes)",
        vec![
            first_n("reno", "TCP-Reno"),
            first_n("elfn-2s", "ELFN (state kept)"),
            first_n("elfn-cwnd1", "W/ELFN"),
            first_n("elfn-cwnd1-rto", "RTO/W/ELFN"),
        ],
    ))?;
    doc.section("Figure 14: choice of probe packet");
    doc.figure(&line(
        "fig14_probe_packet",
        "Figure 14: probe = first of window vs lowest reported lost",
        vec![first_n("reno", "TCP-Reno"), first_n("elfn-2s", "First/ELFN"), first_n("elfn-lowest", "Lowest Rcvd/ELFN")],
    ))?;

    // ---- Figures 15 and 16: ELFN (4 s) with other traffic.
    doc.section("Figure 15: ELFN (4 s probes) with 10 CBR connections");
    let mut s15 = Vec::new();
    for pps in &pl.cbr {
        s15.push(first_n(&format!("cbr{pps}"), &format!("{pps} pps")));
        s15.push(first_n(&format!("cbr{pps}-elfn"), &format!("{pps} pps ELFN")));
    }
    doc.figure(&line("fig15_cbr_elfn", "Figure 15: TCP-Reno vs ELFN with 10 CBR flows", s15))?;
    doc.section("Figure 16: ELFN (4 s probes) with five TCP connections");
    doc.figure(&line(
        "fig16_five_tcp_elfn",
        "Figure 16: five TCP connections, Reno vs ELFN",
        vec![first_n("tcp5", "TCP-Reno"), first_n("tcp5-elfn", "ELFN")],
    ))?;

    // ---- The paper's findings beside ours.
    doc.section("The paper's findings beside ours");
    let mut t = Table::new(&["figure", "the paper says", "we measure", "agree"]);
    for v in &f.findings {
        let p = publ.finding.iter().find(|p| p.id == v.id).expect("every verdict has a published finding");
        t.row([p.figure.as_str(), p.text.as_str(), v.ours.as_str(), if v.agree { "yes" } else { "**no**" }]);
    }
    doc.table(&t);
    doc.checks("Acceptance checks");
    Ok(())
}
