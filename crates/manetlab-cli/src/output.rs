//! Result files and the terminal table.

use anyhow::{Context, Result};
use manetlab::metrics::stats::mean_ci95;
use manetlab::Report;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Writes the run's tables (`flows.csv`, `flows-summary.csv`,
/// `network.csv`, `network-summary.csv`, `flow-drops.csv`,
/// `histograms.csv`; see docs/outputs.md) and `summary.json`, built by the
/// library so the Python package writes the same bytes. Returns the files
/// written.
pub fn write_run(dir: &Path, name: &str, seeds: &[u64], reports: &[Report]) -> Result<Vec<PathBuf>> {
    manetlab::exec::summary::write_run(dir, name, seeds, reports)
        .with_context(|| format!("writing the result files in {}", dir.display()))
}

/// `x` with `prec` decimals, or "-" when undefined (NaN).
fn one(x: f64, prec: usize) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{x:.prec$}")
    }
}

pub fn print_table(name: &str, seeds: &[u64], reports: &[Report]) {
    let n = reports.len();
    if n == 1 {
        println!("{name} (seed {}, {} s)", seeds[0], reports[0].duration_s);
    } else {
        println!("{name} ({n} replications, seeds {}..{}; mean ± 95% CI)", seeds[0], seeds[n - 1]);
    }
    let expected = reports[0].flows.iter().any(|f| f.expected_bps.is_some());
    println!(
        "{:<12} {:>9} {:>9} {:>9} {:>7} {:>18} {:>16} {:>10} {:>10}{}",
        "flow",
        "src->dst",
        "sent",
        "recv",
        "PDR%",
        "goodput kbit/s",
        "delay ms",
        "p95 ms",
        "jitter ms",
        if expected { "  expected kbit/s" } else { "" }
    );
    for (i, f) in reports[0].flows.iter().enumerate() {
        // Undefined values (a flow that delivered nothing has no delay)
        // stay out of the means; a mean of nothing prints as "-".
        let st = |g: &dyn Fn(&manetlab::metrics::FlowReport) -> Option<f64>| {
            mean_ci95(&reports.iter().filter_map(|r| g(&r.flows[i])).collect::<Vec<_>>())
        };
        let fmt = |(m, h): (f64, f64), scale: f64, prec: usize| {
            if m.is_nan() {
                "-".to_string()
            } else if n == 1 || h.is_nan() {
                format!("{:.*}", prec, m * scale)
            } else {
                format!("{:.*} ± {:.*}", prec, m * scale, prec, h * scale)
            }
        };
        let exp = if f.expected_bps.is_some() {
            format!("  {:>16}", fmt(st(&|x| x.expected_bps), 1e-3, 1))
        } else {
            String::new()
        };
        println!(
            "{:<12} {:>9} {:>9.0} {:>9.0} {:>7} {:>18} {:>16} {:>10} {:>10}{exp}",
            f.name,
            format!("{}->{}", f.src, f.dst),
            st(&|x| Some(x.sent_packets as f64)).0,
            st(&|x| Some(x.received_packets as f64)).0,
            one(st(&|x| x.delivery_ratio).0 * 100.0, 1),
            fmt(st(&|x| Some(x.goodput_bps)), 1e-3, 1),
            fmt(st(&|x| x.delay_mean_s), 1e3, 2),
            one(st(&|x| x.delay_p95_s).0 * 1e3, 2),
            one(st(&|x| x.jitter_s).0 * 1e3, 2),
        );
    }
    let r = &reports[0];
    let mac = r.mac_totals();
    let radio = r.radio_totals();
    let drops: std::collections::BTreeMap<String, u64> =
        r.nodes.iter().flat_map(|nd| nd.drops.iter()).fold(Default::default(), |mut m, (k, v)| {
            *m.entry(k.clone()).or_default() += v;
            m
        });
    println!(
        "\nMAC (seed {}): {} data, {} RTS, {} retries, {} retry drops; radio: {} collisions, {} captures; drops {:?}",
        r.seed, mac.data_sent, mac.rts_sent, mac.retries, mac.retry_drops, radio.collisions, radio.captures, drops
    );
    if !r.routing.is_empty() {
        let sent: Vec<String> = r.routing.sent.iter().map(|(k, c)| format!("{} {k}", c.packets)).collect();
        let total = r.routing.sent_total();
        println!(
            "routing ({}, seed {}): sent {} = {} packets, {} bytes; events {:?}",
            r.routing_protocol,
            r.seed,
            sent.join(", "),
            total.packets,
            total.bytes,
            r.routing.events
        );
    }
}

/// Writes, for every TCP flow with a trace: `tcp-<flow>-series.csv`
/// (series,time_s,value for cwnd, ssthresh, srtt_s, rto_s),
/// `tcp-<flow>-seq.csv` (time_s,seq_bytes,event: sent, retransmitted,
/// acked, dropped, elfn-notice, elfn-probe) and the time-sequence and
/// cwnd figures. Returns the files written.
pub fn write_tcp_traces(
    dir: &Path,
    report: &Report,
    traces: &[Option<manetlab::transport::tcp::TcpTrace>],
) -> Result<Vec<std::path::PathBuf>> {
    use manetlab::study::{Figure, Series};
    use manetlab::transport::tcp::SeqEvent;
    let mut files = Vec::new();
    for (f, t) in report.flows.iter().zip(traces) {
        let Some(t) = t else { continue };
        let name = f.name.replace(|c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_', "_");
        let mut series = String::from("series,time_s,value\n");
        for (label, s) in [("cwnd", &t.cwnd), ("ssthresh", &t.ssthresh), ("srtt_s", &t.srtt), ("rto_s", &t.rto)] {
            for (time, v) in s.points() {
                let _ = writeln!(series, "{label},{:.9},{v}", time.as_secs_f64());
            }
        }
        let p = dir.join(format!("tcp-{name}-series.csv"));
        std::fs::write(&p, series).with_context(|| format!("writing {}", p.display()))?;
        files.push(p);
        let event = |e: SeqEvent| match e {
            SeqEvent::Sent => "sent",
            SeqEvent::Retransmitted => "retransmitted",
            SeqEvent::Acked => "acked",
            SeqEvent::Dropped => "dropped",
            SeqEvent::Notice => "elfn-notice",
            SeqEvent::Probe => "elfn-probe",
        };
        let mut seq = String::from("time_s,seq_bytes,event\n");
        for r in &t.seq {
            let _ = writeln!(seq, "{:.9},{},{}", r.time.as_secs_f64(), r.seq, event(r.event));
        }
        let p = dir.join(format!("tcp-{name}-seq.csv"));
        std::fs::write(&p, seq).with_context(|| format!("writing {}", p.display()))?;
        files.push(p);
        let pick = |ev: SeqEvent| -> Vec<(f64, f64, Option<f64>)> {
            t.seq
                .iter()
                .filter(|r| r.event == ev)
                .map(|r| (r.time.as_secs_f64(), r.seq as f64 / 1000.0, None))
                .collect()
        };
        let figures = [
            Figure {
                file_stem: format!("tcp-{name}-timeseq"),
                title: format!("TCP time-sequence, flow {}", f.name),
                x_label: "time (s)".into(),
                y_label: "sequence (kB)".into(),
                series: [SeqEvent::Sent, SeqEvent::Retransmitted, SeqEvent::Acked, SeqEvent::Dropped]
                    .into_iter()
                    .map(|e| Series { name: event(e).into(), points: pick(e), scatter: true })
                    // ELFN notices and probes only where there are some
                    .chain(
                        [SeqEvent::Notice, SeqEvent::Probe]
                            .into_iter()
                            .map(|e| Series { name: event(e).into(), points: pick(e), scatter: true })
                            .filter(|s| !s.points.is_empty()),
                    )
                    .collect(),
                steps: false,
            },
            Figure {
                file_stem: format!("tcp-{name}-cwnd"),
                title: format!("cwnd and ssthresh, flow {}", f.name),
                x_label: "time (s)".into(),
                y_label: "segments".into(),
                series: [("cwnd", &t.cwnd), ("ssthresh", &t.ssthresh)]
                    .into_iter()
                    .map(|(n, s)| Series {
                        name: n.into(),
                        points: s.points().iter().map(|&(x, y)| (x.as_secs_f64(), y.min(1e3), None)).collect(),
                        scatter: false,
                    })
                    .collect(),
                steps: true,
            },
        ];
        for fig in figures {
            fig.write(dir, &mut files)?;
        }
    }
    Ok(files)
}

/// Writes `path-<flow>-spans.csv` (start_s,end_s,hops; empty = no path)
/// and its figure (`path-<flow>.csv`: series,x,y,err with y empty = no
/// path) for every flow with a path profile (first replication; only with
/// `[output] path_profile = true` / `--path-profile`).
pub fn write_path_profiles(dir: &Path, report: &Report) -> Result<Vec<std::path::PathBuf>> {
    use manetlab::study::{Figure, Series};
    let mut files = Vec::new();
    for f in &report.flows {
        let Some(p) = &f.path_profile else { continue };
        let name = f.name.replace(|c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_', "_");
        let mut csv = String::from("start_s,end_s,hops\n");
        for s in p {
            let _ =
                writeln!(csv, "{:.6},{:.6},{}", s.start_s, s.end_s, s.hops.map(|h| h.to_string()).unwrap_or_default());
        }
        let path = dir.join(format!("path-{name}-spans.csv"));
        std::fs::write(&path, csv).with_context(|| format!("writing {}", path.display()))?;
        files.push(path);
        // No path (partitioned) is an empty hops field in both files (a
        // gap in the plot), as in summary.json (null).
        let hops = |s: &manetlab::metrics::path::Span| s.hops.map_or(f64::NAN, |h| h as f64);
        let mut pts: Vec<(f64, f64, Option<f64>)> = p.iter().map(|s| (s.start_s, hops(s), None)).collect();
        if let Some(last) = p.last() {
            pts.push((last.end_s, hops(last), None));
        }
        let fig = Figure {
            file_stem: format!("path-{name}"),
            title: format!("Path profile {} -> {} (gaps: no path)", f.src, f.dst),
            x_label: "time (s)".into(),
            y_label: "shortest path (hops)".into(),
            series: vec![Series { name: f.name.clone(), points: pts, scatter: false }],
            steps: true,
        };
        fig.write(dir, &mut files)?;
    }
    Ok(files)
}

/// The per-link views of the chosen flows (`--link-view`): per flow
/// `linkview-<name>-interpacket.csv` (`from,to,time_s,gap_s`: every hop's
/// inter-packet delivery time at its receiver), `linkview-<name>-hops.csv`
/// (`time_s,hops` per delivered packet) and a figure of each
/// (`-interpacket-plot`, `-hops-plot`: SVG, PNG and the plotted points).
pub fn write_link_views(
    dir: &Path,
    report: &Report,
    views: &manetlab::metrics::linkview::LinkViews,
) -> Result<Vec<std::path::PathBuf>> {
    use manetlab::metrics::linkview::{hops_csv, inter_delivery_csv};
    use manetlab::study::{Figure, Series};
    let mut files = Vec::new();
    for v in &views.flows {
        let Some(f) = report.flows.get(v.flow as usize) else { continue };
        let name = f.name.replace(|c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_', "_");
        for (stem, text) in [("interpacket", inter_delivery_csv(v)), ("hops", hops_csv(v))] {
            let p = dir.join(format!("linkview-{name}-{stem}.csv"));
            std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?;
            files.push(p);
        }
        let gaps = Figure {
            file_stem: format!("linkview-{name}-interpacket-plot"),
            title: format!("Inter-packet delivery time per link, flow {}", f.name),
            x_label: "time (s)".into(),
            y_label: "packet interspacing (s)".into(),
            series: v
                .links
                .keys()
                .map(|&(a, b)| Series {
                    name: format!("{a}->{b}"),
                    points: v.inter_delivery(a, b).into_iter().map(|(t, g)| (t, g, None)).collect(),
                    scatter: true,
                })
                .collect(),
            steps: false,
        };
        let hops = Figure {
            file_stem: format!("linkview-{name}-hops-plot"),
            title: format!("Hop count of the route in use, flow {}", f.name),
            x_label: "time (s)".into(),
            y_label: "hops".into(),
            series: vec![Series {
                name: "hops of delivered packets".into(),
                points: v.hop_changes().into_iter().map(|(t, h)| (t, h as f64, None)).collect(),
                scatter: false,
            }],
            steps: true,
        };
        for fig in [gaps, hops] {
            if fig.series.iter().any(|s| !s.points.is_empty()) {
                fig.write(dir, &mut files)?;
            }
        }
    }
    Ok(files)
}
