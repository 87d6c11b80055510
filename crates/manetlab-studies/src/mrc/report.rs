//! The study's report: the paired comparison on identical movement, then
//! the independent-draw tables, the counters and the verdicts.

use super::*;

pub fn report(opts: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
    doc.title("manet-routing-compare: AODV, DSR, DSDV, OLSR beside ns-3.37 and ns-2.35 (mrc)");
    doc.para(
        "Scenario: ns-3's `examples/routing/manet-routing-compare.cc` — 50 nodes in 300 m x 1500 m, random \
         waypoint (leg speeds uniform in [0, max], constant pause), 10 CBR/UDP flows node 10+i -> node i of \
         64-byte payloads at 4 packets/s from about 100 s to the end at 200 s; 802.11b at 11 Mbit/s for every \
         frame, no RTS/CTS, 7.5 dBm, Friis at 5.15 GHz (ns-3's default frequency of the Friis model, which the \
         example keeps), frames locked onto and the medium busy from -82 dBm (ns-3's preamble detection), SINR \
         reception with DSSS error rates, noise figure 7 dB.",
    );
    doc.para(format!(
        "Ours: {} seed(s) per point, {} s runs, traffic from {} s{}. References: `data/reference/mrc/ns3-runs.csv` \
         (ns-3.37, `scripts/ns3/mrc/mrc.cc`, RngRun 1..n) and `ns2-runs.csv` (ns-2.35, `scripts/ns2/mrc/mrc.tcl` \
         on setdest movement files, threshold reception at -82 dBm, AODV/DSR/DSDV with ns-2's defaults). \
         Mean ± 95 % confidence half-width over runs; `n` is the number of runs. Degree and connectivity: \
         unit-disk graph of the {:.1} m receive range, sampled every second of the traffic window.",
        f.scale.seeds,
        f.scale.duration_s,
        f.scale.traffic_start_s,
        if opts.quick {
            " (quick mode: one point, one seed, a 60 s run with traffic from 30 s — not comparable with the \
             references, which are 200 s runs with traffic from 100 s)"
        } else {
            ""
        },
        f.range_m
    ));
    super::paired::report(&f.paired, doc);
    doc.checks("Acceptance on identical movement: PDR within 15 % of the reference's mean over the same movement files, or the difference explained by counters");
    doc.section("Independent draws: each simulator draws its own random waypoint movement");
    doc.para(
        "The second comparison: manetlab's random waypoint (seeds 1..n) against ns-3.37's \
         `RandomWaypointMobilityModel` (RngRun 1..n, `ns3-runs.csv`, flows starting uniformly in [100, 101] s); \
         ns-2.35 runs on the setdest files in both comparisons. The seed spread of independent draws is large \
         (95 % half-widths of 30-100 % of the mean), so these rows carry verdicts but no acceptance checks.",
    );
    let agg = |a: &Aggregate, d: usize| {
        if a.n == 0 {
            "-".to_string()
        } else if a.n == 1 {
            num(a.mean, d)
        } else {
            format!("{} ± {}", num(a.mean, d), num(a.ci95, d))
        }
    };
    #[allow(clippy::type_complexity)]
    let metrics: [(&str, fn(&Cell) -> &Aggregate, usize); 4] = [
        ("packet delivery ratio", |c| &c.pdr, 3),
        ("goodput, all flows (kbit/s)", |c| &c.goodput_kbps, 2),
        ("mean delay (ms)", |c| &c.delay_ms, 1),
        ("normalized routing load (routing packets per delivered packet)", |c| &c.nrl, 2),
    ];
    for (title, get, d) in metrics {
        doc.subsection(format!("{}{}", title[..1].to_uppercase(), &title[1..]));
        let mut t = Table::new(&[
            "max speed (m/s)",
            "pause (s)",
            "protocol",
            "ns-3.37",
            "ns-2.35",
            "manetlab",
            "vs ns-3",
            "vs ns-2",
        ])
        .align("rrlrrrrr");
        for r in &f.rows {
            let ours = get(&r.ours);
            let dev = |c: &Option<Cell>| c.as_ref().map_or("-".into(), |c| deviation(ours.mean, get(c).mean));
            t.row([
                r.max_speed.to_string(),
                r.pause.to_string(),
                r.protocol.to_uppercase(),
                r.ns3.as_ref().map_or("-".into(), |c| agg(get(c), d)),
                r.ns2.as_ref().map_or("-".into(), |c| agg(get(c), d)),
                agg(ours, d),
                dev(&r.ns3),
                dev(&r.ns2),
            ]);
        }
        doc.table(&t);
    }
    doc.subsection("Topology: is the network connected?");
    let mut t = Table::new(&[
        "max speed (m/s)",
        "pause (s)",
        "mean degree (ours)",
        "mean degree (ns-3)",
        "flows connected (ours)",
        "flows connected (ns-3)",
    ])
    .align("rrrrrr");
    for r in f.rows.iter().filter(|r| r.protocol == "aodv") {
        let ns3 = r.ns3.as_ref();
        t.row([
            r.max_speed.to_string(),
            r.pause.to_string(),
            agg(&r.ours.mean_degree, 2),
            ns3.map_or("-".into(), |c| agg(&c.mean_degree, 2)),
            agg(&r.ours.connected, 3),
            ns3.map_or("-".into(), |c| agg(&c.connected, 3)),
        ]);
    }
    doc.table(&t);
    doc.subsection("Counters: what became of the data packets (mean per run)");
    let mut head = vec!["max speed (m/s)", "pause (s)", "protocol", "simulator", "offered", "delivered"];
    head.extend(counters::GROUPS);
    let mut t = Table::new(&head).align("rrllrrrrrrrr");
    let fate_row = |t: &mut Table, r: &PointRow, who: &str, fa: &Fate| {
        let mut cells = vec![
            r.max_speed.to_string(),
            r.pause.to_string(),
            r.protocol.to_uppercase(),
            format!("{who} (n={})", fa.n),
            num(fa.offered, 0),
            num(fa.delivered, 0),
        ];
        cells.extend(fa.group_cells());
        t.row(cells);
    };
    for r in &f.rows {
        fate_row(&mut t, r, "manetlab", &r.fate);
        if let Some(fa) = &r.ns3_fate {
            fate_row(&mut t, r, "ns-3.37", fa);
        }
        if let Some(fa) = &r.ns2_fate {
            fate_row(&mut t, r, "ns-2.35", fa);
        }
        if let Some((_, fa)) = &r.arp_manetlab {
            fate_row(&mut t, r, "manetlab, ARP failure to routing", fa);
        }
    }
    doc.table_with_note(
        &t,
        "refused at source: ns-3's UDP socket refused the packet (no route; OLSR), manetlab's OLSR dropped it at \
         the source for the same reason; ARP: dropped by ARP (failed resolution, full pending queue, or an \
         address still dead after a failure); MAC retries: dropped after the MAC's retry limit (manetlab: RET \
         and CBK); no route: dropped by routing (no route at a forwarder, discovery failed, buffer timeout or \
         overflow, TTL; ns-3's DSR retransmits data packets from its maintenance buffer, so its MAC drops \
         count copies and its own Drop trace is left out); queue: interface queue overflow or (ns-3) its 500 ms \
         lifetime; other / in flight: the rest, including packets still buffered at the end. ns-3 counters come \
         from `ns3-counters.csv` (only runs made with `mrc --counters`), ns-2's from `ns2-counters.csv` (the last \
         drop event of each lost packet in the trace: ARP; RET, CBK; NRTE, TTL, LOOP; IFQ; other reasons such as \
         END and packets never dropped are `other / in flight`).",
    );
    doc.subsection("Counters: control packets handed to the MAC by kind (mean per run)");
    doc.table(&control_table(
        f.rows.iter().map(|r| (r.max_speed, r.pause, r.protocol.as_str(), &r.control, r.ns3_control.as_ref())),
    ));
    if f.rows.iter().any(|r| r.arp_manetlab.is_some()) {
        doc.subsection(format!(
            "ARP failure handling at {} m/s, pause {} s: ns-3's (the study's) against manetlab's default",
            ABLATION.0, ABLATION.1
        ));
        let mut t = Table::new(&[
            "protocol",
            "ns-3.37 PDR",
            "manetlab PDR, ns-3's ARP",
            "manetlab PDR, ARP failure to routing",
            "ARP drops/run: ns-3",
            "ns-3's ARP",
            "failure to routing",
        ])
        .align("lrrrrrr");
        for r in f.rows.iter().filter(|r| r.arp_manetlab.is_some()) {
            let (pdr, fa) = r.arp_manetlab.as_ref().unwrap();
            t.row([
                r.protocol.to_uppercase(),
                r.ns3.as_ref().map_or("-".into(), |c| agg(&c.pdr, 3)),
                agg(&r.ours.pdr, 3),
                agg(pdr, 3),
                r.ns3_fate.as_ref().map_or("-".into(), |x| num(x.arp, 0)),
                num(r.fate.arp, 0),
                num(fa.arp, 0),
            ]);
        }
        doc.table_with_note(
            &t,
            "ns-3's ARP (ns-3.37 ArpCache, `ArpConfig::ns3`, the study's: 3 requests 1 s apart; on failure the held \
             packets are dropped, routing is not told, and the address stays DEAD for 100 s, every packet for it \
             dropped) against manetlab's default queue mode (the first held packet goes back to routing as a \
             link failure; no dead time).",
        );
    }
    doc.subsection(
        "Verdict per row (independent draws): within 15 % of the reference mean, or the counter that explains the difference",
    );
    let mut t = Table::new(&["max speed (m/s)", "pause (s)", "protocol", "vs ns-3.37", "vs ns-2.35"]).align("rrlll");
    for r in &f.rows {
        t.row([
            r.max_speed.to_string(),
            r.pause.to_string(),
            r.protocol.to_uppercase(),
            r.verdict_ns3.clone().unwrap_or_else(|| "-".into()),
            r.verdict_ns2.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    doc.table(&t);
    // PDR against the maximum speed at pause 0, one panel per source.
    let series = |src: &str, get: &dyn Fn(&PointRow) -> Option<Aggregate>| -> Vec<Series> {
        PROTOCOLS
            .iter()
            .map(|p| Series {
                name: format!("{src} {}", p.to_uppercase()),
                points: f
                    .rows
                    .iter()
                    .filter(|r| r.protocol == *p && r.pause == 0.0)
                    .filter_map(|r| get(r).filter(|a| a.n > 0).map(|a| (r.max_speed, a.mean, Some(a.ci95))))
                    .collect(),
                scatter: false,
            })
            .filter(|s| !s.points.is_empty())
            .collect()
    };
    let mut all = series("manetlab", &|r| Some(r.ours.pdr));
    all.extend(series("ns-3", &|r| r.ns3.as_ref().map(|c| c.pdr)));
    all.extend(series("ns-2", &|r| r.ns2.as_ref().map(|c| c.pdr)));
    doc.figure(&Figure::lines("pdr", "Packet delivery ratio, pause 0", "maximum speed (m/s)", "PDR", all))?;
    Ok(())
}

/// One control-packet table (AODV and OLSR rows, every message kind either
/// simulator counted) for the paired and the independent-draw sections:
/// rows of (max speed, pause, protocol, manetlab's counts, ns-3's counts).
pub(super) fn control_table<'a>(
    rows: impl Iterator<Item = (f64, f64, &'a str, &'a BTreeMap<String, f64>, Option<&'a BTreeMap<String, f64>>)>,
) -> Table {
    let mut t =
        Table::new(&["max speed (m/s)", "pause (s)", "protocol", "kind", "manetlab", "ns-3.37"]).align("rrllrr");
    for (max_speed, pause, protocol, ours, ns3) in rows.filter(|r| r.2 == "aodv" || r.2 == "olsr") {
        let mut kinds: Vec<&String> = ours.keys().collect();
        if let Some(c) = ns3 {
            kinds.extend(c.keys());
        }
        kinds.sort();
        kinds.dedup();
        for k in kinds {
            t.row([
                max_speed.to_string(),
                pause.to_string(),
                protocol.to_uppercase(),
                k.clone(),
                ours.get(k).map_or("-".into(), |x| num(*x, 0)),
                ns3.and_then(|c| c.get(k)).map_or("-".into(), |x| num(*x, 0)),
            ]);
        }
    }
    t
}
