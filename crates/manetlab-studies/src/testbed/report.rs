//! The testbed study's report: table 1 beside the paper's, per-link detail,
//! the diagnosis runs, the paper's observations, checks and figures.

use super::study::Findings;
use super::*;
use manetlab::study::report::Table;
use manetlab::study::{Figure, ReportDoc, StudyError, StudyOptions};

fn tcp(x: &Cell) -> String {
    x.tcp_mbps.map_or("-".to_string(), |t| format!("{t:.2} Mbit/s"))
}

pub(super) fn write(opts: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
    let pubd = published();
    doc.title("Testbed study: TCP/UDP interaction (testbed-tcp-udp-interaction.txt)");
    doc.para(format!(
        "Nodes 0, 1, 2 on a line {SPACING} m apart ({RX_RANGE} m receive, {CS_RANGE} m carrier-sense range: two hops apart = hidden), 802.11b 11 Mbit/s data / 2 Mbit/s ACKs, \
         no RTS/CTS, drop-tail 50, CBR UDP 2 -> 0 of {UDP_BYTES}-byte packets at 192 kbit/s, TCP NewReno 3 -> 0 (bulk, 1460-byte segments). \
         S1/S2 static routes, S3 AODV with HELLOs. {} run(s) per cell{}; S1/S2 last {:.0} s, S3 {:.0} s. \
         Models: `threshold` = ns-2 threshold reception, two-ray ground; `sinr` = SINR reception (noise figure 7 dB) with two-ray ground plus {SIGMA_DB} dB log-normal shadowing per frame (`docs/sinr.md`).",
        f.seeds,
        if opts.quick { " (quick mode)" } else { "" },
        Scenario::S1.duration().as_secs_f64(),
        Scenario::S3.duration().as_secs_f64()
    ));
    doc.para(format!("Published numbers: {}.", pubd.source));

    doc.section("Table 1");
    let mut t = Table::new(&["scenario", "paper UDP delivery", "threshold", "sinr", "paper TCP", "threshold", "sinr"])
        .align("lrrrrrr");
    for (scn, p) in Scenario::ALL.iter().zip([&pubd.s1, &pubd.s2, &pubd.s3]) {
        let (a, b) = (f.cell(Model::Threshold, *scn), f.cell(Model::Sinr, *scn));
        t.row([
            format!("{} {}", scn.name(), p.name),
            format!("{:.1} %", p.udp_delivery_pct),
            format!("{:.1} %", a.udp_delivery_pct),
            format!("{:.1} %", b.udp_delivery_pct),
            p.tcp_mbps.map_or("-".to_string(), |t| format!("{t:.2} Mbit/s")),
            tcp(a),
            tcp(b),
        ]);
    }
    doc.table_with_note(&t, "manetlab values are mean ± 95 % CI over the runs.");

    doc.section("Per-link detail");
    let mut t = Table::new(&[
        "scenario",
        "model",
        "UDP loss 2->1",
        "UDP loss 1->0",
        "jitter 2->1 (ms)",
        "jitter 1->0 (ms)",
        "TCP hops 1/2/3 (% of time)",
        "HELLO neighbour losses",
        "route discoveries",
    ])
    .align("llrrrrlrr");
    for x in &f.cells {
        let share = x.tcp_hop_share.map(|s| format!("{:.0}", s * 100.0)).join("/");
        t.row([
            x.scenario.clone(),
            x.model.clone(),
            format!("{:.2} %", x.udp_loss_21_pct.mean),
            format!("{:.2} %", x.udp_loss_10_pct.mean),
            format!("{:.1}", x.jitter_21_ms.mean),
            format!("{:.1}", x.jitter_10_ms.mean),
            share,
            format!("{:.1}", x.neighbours_lost),
            format!("{:.1}", x.route_discoveries),
        ]);
    }
    doc.table_with_note(
        &t,
        "Loss on a hop = packets that left the sender of the hop (after its queue) but never reached its receiver, in % \
         of the packets the source sent; queue drops at node 1 count towards hop 1 -> 0.",
    );

    doc.section("Diagnosis runs");
    doc.para(
        "Variants that locate the losses (docs/testbed.md): hop 1 -> 0 lengthened towards the receive range; S2 with \
         the TCP application paced at the paper's TCP throughput; S2 without shadowing; S2 with node 3 walking in along \
         the line from the left (through a zone where it is hidden from node 2 but corrupts node 2's frames at node 1).",
    );
    let mut t = Table::new(&[
        "variant",
        "model",
        "UDP delivery",
        "UDP loss 2->1",
        "UDP loss 1->0",
        "jitter 2->1 (ms)",
        "jitter 1->0 (ms)",
        "TCP",
    ])
    .align("llrrrrrr");
    for x in &f.diagnosis {
        t.row([
            x.scenario.clone(),
            x.model.clone(),
            format!("{:.1} %", x.udp_delivery_pct),
            format!("{:.2} %", x.udp_loss_21_pct.mean),
            format!("{:.2} %", x.udp_loss_10_pct.mean),
            format!("{:.1}", x.jitter_21_ms.mean),
            format!("{:.1}", x.jitter_10_ms.mean),
            tcp(x),
        ]);
    }
    doc.table(&t);

    doc.section("The paper's observations");
    let mut t = Table::new(&["observation", "seen?"]);
    for (o, d) in &f.observations {
        t.row([o, d]);
    }
    doc.table(&t);
    doc.checks("Checks");

    doc.section("Figures");
    let pts = |v: &[(f64, f64)]| v.iter().map(|&(x, y)| (x, y, None)).collect::<Vec<_>>();
    let mut s2 = vec![Series {
        name: "no loss (received = transmitted)".into(),
        points: vec![(0.0, 0.0, None), (5.5, 5.5, None)],
        scatter: false,
    }];
    for c in &f.sweep {
        s2.push(Series { name: format!("manetlab {}", c.model), points: pts(&c.points), scatter: false });
    }
    doc.figure(&Figure::lines(
        "testbed_fig2_rate",
        "S1: received vs transmitted rate (paper figure 2)",
        "transmitted (Mbit/s)",
        "received (Mbit/s)",
        s2,
    ))?;
    for (model, scn, s) in &f.series {
        let stem = format!("testbed_{}_{}", scn.name().to_lowercase(), model.name());
        let title = |what: &str| format!("{} ({}): {what}", scn.name(), model.name());
        let dots = |name: &str, v: &[(f64, f64)]| Series { name: name.into(), points: pts(v), scatter: true };
        doc.figure(&Figure::lines(
            &format!("{stem}_udp_interpacket"),
            &title("UDP inter-packet delivery time per link"),
            "time (s)",
            "packet interspacing (s)",
            vec![dots("UDP 2->1", &s.gaps_21), dots("UDP 1->0", &s.gaps_10)],
        ))?;
        if *scn != Scenario::S1 {
            doc.figure(&Figure::lines(
                &format!("{stem}_tcp_timeseq"),
                &title("TCP time-sequence graph"),
                "time (s)",
                "segment number",
                vec![dots("sent", &s.tcp_sent), dots("acked", &s.tcp_acked)],
            ))?;
            let hops = Series {
                name: "hops of delivered segments".into(),
                points: s.tcp_hops.iter().map(|&(t, h)| (t, h as f64, None)).collect(),
                scatter: false,
            };
            doc.figure(&Figure {
                steps: true,
                ..Figure::lines(
                    &format!("{stem}_tcp_hops"),
                    &title("hop count of the TCP route in use"),
                    "time (s)",
                    "hops",
                    vec![hops],
                )
            })?;
        }
    }
    Ok(())
}
