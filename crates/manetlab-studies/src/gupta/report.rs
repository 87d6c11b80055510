//! The gupta study's report: per-case tables with the paper's relative
//! goodput beside ours, the pinned-route variant, checks and figures 2, 5, 6.

use super::study::{mean, published, Findings, Row};
use super::*;
use manetlab::study::report::Table;
use manetlab::study::sweep::Aggregate;
use manetlab::study::{Figure, ReportDoc, Series, StudyError};

pub(super) fn write(opts: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
    let pubd = published();
    let plan = &f.plan;
    doc.title("gupta: TCP starved by UDP on a 13 x 13 grid; fair queueing and backpressure");
    doc.para(format!(
        "Paper: backpressure-tcp-udp.txt. Published numbers: `data/published/gupta.toml` ({}).",
        pubd.source
    ));
    doc.para(format!(
        "Setup: see `crates/manetlab-studies/src/gupta/mod.rs`. {} seeds, {:.0} s runs, goodput from {:.0} s (UDP start) to the end; {}.\n\
         Relative goodput = aggregate TCP goodput / the same network's goodput without UDP (\"initial\"): \
         initial (7,4) = {:.1} kbit/s for the default scheme, initial TDMA FIFO (5 x 5 grid, 4 clients) = {:.1} kbit/s \
         for the TDMA rows, initial (21,12) = {:.1} kbit/s for every other scheme (the paper's base). Backpressure applies to UDP datagrams only (the paper's \"UDP back-pressure\").",
        f.seeds,
        f.duration_s,
        UDP_START_S,
        if opts.quick { "quick mode: case 1 only, a subset of the schemes" } else { "full study" },
        f.initial_kbps.default,
        f.initial_kbps.tdma,
        f.initial_kbps.retry,
    ));
    for &case in &plan.cases {
        doc.section(format!(
            "{} ({})",
            case.name(),
            match case {
                Case::Encircle => "UDP paths encircle the server: 80->88 and 32->136",
                Case::OpenSide => "UDP paths leave a side open: 80->88 and 32->88",
            }
        ));
        let mut t = Table::new(&[
            "scheme",
            "TCP goodput kbit/s",
            "relative to initial %",
            "paper %",
            "UDP injected",
            "UDP delivered",
            "UDP kbit/s",
            "UDP via server",
        ]);
        for r in f.results.iter().filter(|r| r.case == case && r.routes == Routes::Aodv) {
            let paper_key = match r.scheme {
                Scheme::Bp { key: ClassKey::Src, k: 1, knowledge: Knowledge::Oracle } => "bp-src-k1".to_string(),
                s => s.id(),
            };
            let paper = pubd.relative_goodput_percent.get(&paper_key).map_or("".to_string(), |v| format!("{v:.0}"));
            // TDMA runs on another grid: the server is node 12.
            let via = if matches!(r.scheme, Scheme::Tdma { .. }) {
                String::new()
            } else {
                format!("{:.0}", r.server_forwarded())
            };
            t.row([
                r.scheme.label(),
                format!("{:.1}", r.tcp()),
                format!("{:.1}", r.relative()),
                paper,
                format!("{:.0}", r.udp_injected()),
                format!("{:.0}", r.udp_delivered()),
                format!("{:.1}", r.udp_kbps()),
                via,
            ]);
        }
        doc.table(&t);
    }

    if !plan.pinned.is_empty() {
        doc.section("UDP through the server (static routes, UDP pinned through node 84)");
        doc.para(format!(
            "The paper's explanation of IP-destination > IP-source queueing needs UDP in the server's queue \
             beside its ACKs; with AODV the UDP flows mostly avoid the server (column \"UDP via server\" above). \
             Here every node routes on fixed shortest paths (no routing packets) and both UDP flows are pinned to \
             their 8-hop paths through node 84 ({}). The corner clients take diagonals through their quadrants, \
             so each neighbour of the server relays one corner and one axis client (with the static tables' \
             tie rule, which runs the corner clients along the edges and down the UDP arms, FQ-src led FQ-dst in \
             9 of 10 seeds: docs/backpressure.md). Initial (no UDP, same routes): {}. The server's DATA frames \
             (retransmissions included) are counted from the UDP start; the paper: ACKs get \"up to 80%\" with \
             FQ-dst.",
            plan.cases
                .iter()
                .map(|c| format!(
                    "{}: {}",
                    c.name(),
                    (0..2).map(|j| format!("{:?}", c.udp_path(j))).collect::<Vec<_>>().join(" and ")
                ))
                .collect::<Vec<_>>()
                .join("; "),
            f.initial_pinned_kbps.iter().map(|(k, v)| format!("{k} {v:.1} kbit/s")).collect::<Vec<_>>().join(", ")
        ));
        for &case in &plan.cases {
            doc.subsection(format!("{} (pinned)", case.name()));
            let mut t = Table::new(&[
                "scheme",
                "TCP goodput kbit/s",
                "relative to initial %",
                "per seed %",
                "UDP delivered",
                "UDP via server",
                "server frames ACK / UDP",
                "ACK share of server frames %",
            ]);
            for r in f.results.iter().filter(|r| r.case == case && r.routes == Routes::Pinned) {
                let per: Vec<String> =
                    r.outcomes.iter().map(|o| format!("{:.0}", 100.0 * o.tcp_bps() / r.initial)).collect();
                let fr = |k: usize| mean(r.outcomes.iter().map(|o| o.server_frames[k] as f64));
                t.row([
                    r.scheme.label(),
                    format!("{:.1}", r.tcp()),
                    format!("{:.1}", r.relative()),
                    per.join(", "),
                    format!("{:.0}", r.udp_delivered()),
                    format!("{:.0}", r.server_forwarded()),
                    format!("{:.0} / {:.0}", fr(0), fr(1)),
                    format!("{:.1}", r.ack_share()),
                ]);
            }
            doc.table(&t);
        }
    }

    doc.para(format!(
        "Other published claims (data/published/gupta.toml): {}.",
        pubd.claims.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join("; ")
    ));
    doc.checks("Where the paper's ordering holds (case 1)");

    // Figure 2: per-client goodput, initial / case 1 / case 2 (default 802.11).
    let per_client = |v: &[Outcome]| -> Vec<(f64, f64, Option<f64>)> {
        (0..CLIENTS.len())
            .map(|c| {
                let a = Aggregate::of(v.iter().map(|o| o.client_bps[c] / 1e3));
                ((c + 1) as f64, a.mean, Some(a.ci95))
            })
            .collect()
    };
    let mut series = vec![Series { name: "initial".into(), points: per_client(&f.initial_default), scatter: false }];
    for &case in &plan.cases {
        if let Some(r) = f.row(case, Scheme::Default) {
            series.push(Series { name: case.name().into(), points: per_client(&r.outcomes), scatter: false });
        }
    }
    doc.section("Figure 2: per-client goodput (802.11 (7,4), drop-tail)");
    doc.figure(&Figure::lines(
        "fig2_clients",
        "Figure 2: TCP goodput per client",
        "connection",
        "goodput (kbit/s)",
        series,
    ))?;

    // Figure 5: packets sent/received, FQ-src vs backpressure.
    let c1 = Case::Encircle;
    let bp1 = |key| Scheme::Bp { key, k: 1, knowledge: Knowledge::Oracle };
    if let (Some(fq), Some(bp)) = (f.row(c1, Scheme::Fq(ClassKey::Src)), f.row(c1, bp1(ClassKey::Src))) {
        let pt = |f: &dyn Fn(&Row) -> f64| vec![(1.0, f(fq), None), (2.0, f(bp), None)];
        let tcp_sent = |r: &Row| mean(r.outcomes.iter().map(|o| o.tcp_sent.iter().sum::<u64>() as f64));
        let tcp_recv = |r: &Row| mean(r.outcomes.iter().map(|o| o.tcp_received.iter().sum::<u64>() as f64));
        doc.section("Figure 5: packets sent and received, FQ-src (x = 1) vs backpressure k = 1 (x = 2)");
        let mut t = Table::new(&["", "UDP injected", "UDP delivered", "TCP sent", "TCP received"]);
        for (name, r) in [("FQ-src", fq), ("BP src k=1", bp)] {
            t.row([
                name.to_string(),
                format!("{:.0}", r.udp_injected()),
                format!("{:.0}", r.udp_delivered()),
                format!("{:.0}", tcp_sent(r)),
                format!("{:.0}", tcp_recv(r)),
            ]);
        }
        doc.table(&t);
        let dots = |name: &str, points| Series { name: name.into(), points, scatter: true };
        doc.figure(&Figure::lines(
            "fig5_packets",
            "Figure 5: packets, FQ-src (1) vs backpressure (2)",
            "scheme",
            "packets per run",
            vec![
                dots("UDP injected", pt(&|r| r.udp_injected())),
                dots("UDP delivered", pt(&|r| r.udp_delivered())),
                dots("TCP sent", pt(&tcp_sent)),
                dots("TCP received", pt(&tcp_recv)),
            ],
        ))?;
    }

    // Figure 6: threshold sweep.
    let mut series = Vec::new();
    for knowledge in [Knowledge::Oracle, Knowledge::Overhear, Knowledge::Explicit] {
        for key in [ClassKey::Src, ClassKey::Dst] {
            let rows: Vec<(f64, &Row)> =
                (1..=6).filter_map(|k| f.row(c1, Scheme::Bp { key, k, knowledge }).map(|r| (k as f64, r))).collect();
            if rows.len() > 1 {
                let tcp = rows.iter().map(|&(k, r)| (k, r.relative().mean, Some(r.relative().ci95))).collect();
                let udp = rows.iter().map(|&(k, r)| (k, r.udp_kbps(), None)).collect();
                let line = |name: String, points| Series { name, points, scatter: false };
                series.push(line(format!("TCP % {} {}", key.name(), knowledge.name()), tcp));
                series.push(line(format!("UDP kbit/s {} {}", key.name(), knowledge.name()), udp));
            }
        }
    }
    if !series.is_empty() {
        doc.section("Figure 6: backpressure threshold (case 1)");
        doc.figure(&Figure::lines(
            "fig6_threshold",
            "Figure 6: TCP goodput (% of initial) and UDP goodput vs threshold",
            "backpressure threshold (packets)",
            "TCP % of initial / UDP kbit/s",
            series,
        ))?;
    }
    Ok(())
}
