//! The kim study's parts, each analysed into its tables, figures, checks
//! and results.json entry: (a) table 1, (b) capacity, (c) figure 4, (d)
//! priority vs hops, (e) figure 5, (f) scalability.

use super::study::Ctx;
use super::*;
use manetlab::study::report::{Blocks, Table};
use manetlab::study::{Check, Figure, Series};
use serde_json::{json, Map, Value};

pub(super) fn all(c: &Ctx, b: &mut Blocks, checks: &mut Vec<Check>, json: &mut Map<String, Value>) {
    table1(c, b, checks, json);
    let alone = capacity_part(c, b, checks, json);
    variants(c, alone, b, checks, json);
    priority(c, b, checks, json);
    fig5(c, b, checks, json);
    scalability(c, b, checks, json);
}

fn line(name: impl Into<String>, points: Vec<(f64, f64, Option<f64>)>) -> Series {
    Series { name: name.into(), points, scatter: false }
}

/// (a) Table 1: data burstiness.
fn table1(c: &Ctx, b: &mut Blocks, checks: &mut Vec<Check>, json: &mut Map<String, Value>) {
    let (plan, z, dur) = (&c.plan, &c.z, c.dur);
    let t1 = &c.pubd.table1;
    b.section("Table 1: data burstiness");
    b.para(format!("Source: {}.", t1.source));
    b.para(
        "550 kb/s of 1500-byte UDP data from the gateway to the client in bursts of k packets (same mean rate). \
         Loss and delays are at 5 calls, as in the paper's caption.",
    );
    let mut t = Table::new(&[
        "burst",
        "calls (paper)",
        "calls (ours)",
        "VoIP loss % (paper)",
        "ours",
        "VoIP delay ms (paper)",
        "ours",
        "data kb/s (paper)",
        "ours",
        "data delay ms (paper)",
        "ours",
    ])
    .align("rrrrrrrrrrr");
    let mut t1_calls = Vec::new();
    let mut t1_rows = Vec::new();
    for (i, &burst) in t1.burst.iter().enumerate() {
        let cap = capacity(&z.table1_calls, |n| plan.acceptable(&Setup::string(n, Data::Bursty { burst }, dur)));
        let s5 = Setup::string(5, Data::Bursty { burst }, dur);
        let row = (
            plan.mean(&s5, |r| r.voip_loss_pct.unwrap_or(f64::NAN)),
            plan.mean(&s5, |r| r.voip_delay_ms.unwrap_or(f64::NAN)),
            plan.mean(&s5, |r| r.data_kbps),
            plan.mean(&s5, |r| r.data_delay_ms.unwrap_or(f64::NAN)),
        );
        t.row([
            burst.to_string(),
            t1.calls[i].to_string(),
            cap.to_string(),
            format!("{:.2}", t1.voip_loss_pct[i]),
            format!("{:.2}", row.0),
            format!("{:.0}", t1.voip_delay_ms[i]),
            format!("{:.1}", row.1),
            format!("{:.0}", t1.data_kbps[i]),
            format!("{:.0}", row.2),
            format!("{:.0}", t1.data_delay_ms[i]),
            format!("{:.1}", row.3),
        ]);
        t1_calls.push(cap);
        t1_rows.push(row);
    }
    b.table(t);
    json.insert(
        "table1".into(),
        json!({ "calls": t1_calls, "at5": t1_rows.iter().map(|r| json!({"voip_loss_pct": r.0, "voip_delay_ms": r.1, "data_kbps": r.2, "data_delay_ms": r.3})).collect::<Vec<_>>() }),
    );
    let pts = |calls: &[u32]| t1.burst.iter().zip(calls).map(|(&b, &c)| (b as f64, c as f64, None)).collect();
    b.figure(Figure::lines(
        "kim_table1",
        "Calls supported beside 550 kb/s of bursty data",
        "burst length (packets)",
        "calls supported",
        vec![line("paper", pts(&t1.calls)), line("manetlab", pts(&t1_calls))],
    ));
    checks.push(Check::new(
        "table 1: calls supported do not increase with the burst length",
        t1_calls.windows(2).all(|w| w[1] <= w[0]),
        format!("{t1_calls:?} (paper {:?})", t1.calls),
    ));
    checks.push(Check::new(
        "table 1: at 5 calls, bursts of 5 give the calls a higher delay than bursts of 1",
        t1_rows[4].1 > t1_rows[0].1,
        format!("{:.1} vs {:.1} ms (paper 21 vs 13)", t1_rows[4].1, t1_rows[0].1),
    ));
    checks.push(Check::new(
        "table 1: at 5 calls, bursts of 5 give the data a higher delay than bursts of 1",
        t1_rows[4].3 > t1_rows[0].3,
        format!("{:.1} vs {:.1} ms (paper 31 vs 15)", t1_rows[4].3, t1_rows[0].3),
    ));
}

/// (b) Capacity of the string. Returns the calls VoIP alone supports.
fn capacity_part(c: &Ctx, b: &mut Blocks, checks: &mut Vec<Check>, json: &mut Map<String, Value>) -> u32 {
    let (plan, z, dur) = (&c.plan, &c.z, c.dur);
    let p = &c.pubd.capacity;
    let alone = capacity(&z.alone_calls, |n| plan.acceptable(&Setup::string(n, Data::None, dur)));
    let with_tcp = capacity(&z.table1_calls, |n| plan.acceptable(&Setup::string(n, reno(1), dur)));
    let tcp_alone = plan.mean(&Setup::string(0, reno(1), dur), |r| r.data_kbps) / 1e3;
    let mixed = Setup::string(p.mixed_calls, reno(p.mixed_tcp_flows), dur);
    let mixed_worst = plan.mean(&mixed, |r| r.worst_mos());
    let mixed_mean = plan.mean(&mixed, |r| r.mean_mos());
    let mixed_tcp = plan.mean(&mixed, |r| r.data_kbps) / 1e3;
    b.section("Capacity of the string");
    b.para(format!("Source: {}.", p.source));
    let mut t = Table::new(&["case", "paper", "manetlab"]).align("lrr");
    let mixed_case = format!("{} calls + {} TCP-Reno flows", p.mixed_calls, p.mixed_tcp_flows);
    t.row([
        format!("calls supported, VoIP alone (searched up to {})", z.alone_calls.last().unwrap()),
        p.calls_alone.to_string(),
        alone.to_string(),
    ]);
    t.row([
        "TCP-Reno goodput, TCP alone (1 flow)".to_string(),
        format!("{:.2} Mb/s", p.tcp_alone_mbps),
        format!("{tcp_alone:.2} Mb/s"),
    ]);
    t.row([
        format!("{mixed_case}: MOS (worst call / mean)"),
        format!("< {:.0}", p.mixed_mos_below),
        format!("{mixed_worst:.2} / {mixed_mean:.2}"),
    ]);
    t.row([
        format!("{mixed_case}: TCP goodput"),
        format!("{:.2} Mb/s", p.mixed_tcp_mbps),
        format!("{mixed_tcp:.2} Mb/s"),
    ]);
    t.row([
        "calls supported beside 1 unrestricted TCP-Reno flow".to_string(),
        "(not given)".into(),
        with_tcp.to_string(),
    ]);
    b.table(t);
    json.insert(
        "capacity".into(),
        json!({"calls_alone": alone, "calls_with_tcp": with_tcp, "tcp_alone_mbps": tcp_alone, "mixed_worst_mos": mixed_worst, "mixed_mean_mos": mixed_mean, "mixed_tcp_mbps": mixed_tcp}),
    );
    checks.push(Check::new(
        "acceptance: VoIP alone supports more calls than beside unrestricted TCP",
        alone > with_tcp,
        format!("{alone} alone vs {with_tcp} with 1 TCP-Reno flow"),
    ));
    checks.push(Check::new(
        "calls alone within 30% of the paper's 11",
        (alone as f64 - p.calls_alone as f64).abs() <= 0.3 * p.calls_alone as f64,
        format!("{alone}"),
    ));
    checks.push(Check::new(
        "TCP alone within 25% of the paper's 1.35 Mb/s",
        (tcp_alone - p.tcp_alone_mbps).abs() <= 0.25 * p.tcp_alone_mbps,
        format!("{tcp_alone:.2} Mb/s"),
    ));
    checks.push(Check::new(
        "5 calls + 3 TCP flows: the calls are not supported (paper: MOS < 2)",
        mixed_worst < SUPPORTED_MOS,
        format!("worst MOS {mixed_worst:.2}, mean {mixed_mean:.2}"),
    ));
    checks.push(Check::new(
        "5 calls + 3 TCP flows: TCP gets less than TCP alone (paper 0.84 vs 1.35 Mb/s)",
        mixed_tcp < tcp_alone,
        format!("{mixed_tcp:.2} vs {tcp_alone:.2} Mb/s"),
    ));
    alone
}

/// (c) Figure 4: TCP variants beside the calls.
fn variants(c: &Ctx, alone: u32, b: &mut Blocks, checks: &mut Vec<Check>, json: &mut Map<String, Value>) {
    let (plan, z, dur) = (&c.plan, &c.z, c.dur);
    let v = &c.pubd.variants;
    b.section("Figure 4: TCP variants");
    b.para(format!("Source: {}.", v.source));
    b.para(
        "One TCP flow of each variant beside 1..N calls. Left: mean MOS of the calls; right: TCP goodput; \
         also goodput / sent (bytes acknowledged over bytes sent, retransmissions included).",
    );
    let (mut s_mos, mut s_gp, mut s_ratio) = (Vec::new(), Vec::new(), Vec::new());
    let mut t = Table::new(&[
        "variant",
        "calls supported",
        "mean MOS over the call counts",
        "TCP alone Mb/s",
        "mean goodput with calls Mb/s",
        "goodput / sent",
        "timeouts / run",
    ])
    .align("lrrrrrr");
    let mut var_rows = Vec::new();
    for vt in VARIANTS {
        let d = Data::Tcp { flows: 1, variant: vt };
        let pts = |f: &dyn Fn(&RunSummary) -> f64| -> Vec<(f64, f64, Option<f64>)> {
            z.fig4_calls.iter().map(|&n| (n as f64, plan.mean(&Setup::string(n, d, dur), f), None)).collect()
        };
        let mos = pts(&|r| r.mean_mos());
        let gp = pts(&|r| r.data_kbps / 1e3);
        let ratio = pts(&|r| r.goodput_ratio.unwrap_or(f64::NAN));
        let cap = capacity(&z.fig4_calls, |n| plan.acceptable(&Setup::string(n, d, dur)));
        let tcp_alone = plan.mean(&Setup::string(0, d, dur), |r| r.data_kbps / 1e3);
        let avg = |p: &[(f64, f64, Option<f64>)]| p.iter().map(|x| x.1).sum::<f64>() / p.len() as f64;
        let tos =
            z.fig4_calls.iter().map(|&n| plan.mean(&Setup::string(n, d, dur), |r| r.timeouts as f64)).sum::<f64>()
                / z.fig4_calls.len() as f64;
        let row = (vt, cap, avg(&mos), tcp_alone, avg(&gp), avg(&ratio));
        t.row([
            variant_label(vt).to_string(),
            row.1.to_string(),
            format!("{:.2}", row.2),
            format!("{:.2}", row.3),
            format!("{:.2}", row.4),
            format!("{:.2}", row.5),
            format!("{tos:.1}"),
        ]);
        var_rows.push(row);
        let name = variant_label(vt);
        s_mos.push(line(name, mos));
        s_gp.push(line(name, gp));
        s_ratio.push(line(name, ratio));
    }
    b.table(t);
    let (lo, hi) = (*z.fig4_calls.first().unwrap() as f64, *z.fig4_calls.last().unwrap() as f64);
    s_mos.push(line("MOS 3.6", vec![(lo, SUPPORTED_MOS, None), (hi, SUPPORTED_MOS, None)]));
    for (stem, title, y, series) in [
        ("kim_fig4_mos", "VoIP quality beside one TCP flow", "mean MOS of the calls", s_mos),
        ("kim_fig4_goodput", "TCP goodput beside the calls", "TCP goodput (Mb/s)", s_gp),
        ("kim_fig4_ratio", "TCP goodput / sent", "bytes acknowledged / bytes sent", s_ratio),
    ] {
        b.figure(Figure::lines(stem, title, "VoIP calls", y, series));
    }
    json.insert(
        "variants".into(),
        Value::Array(
            var_rows
                .iter()
                .map(|r| json!({"variant": r.0.name(), "calls_supported": r.1, "mean_mos": r.2, "tcp_alone_mbps": r.3, "mean_goodput_mbps": r.4, "goodput_ratio": r.5}))
                .collect(),
        ),
    );
    let max_cap = var_rows.iter().map(|r| r.1).max().unwrap_or(0);
    checks.push(Check::new(
        "figure 4: no TCP variant protects VoIP (each supports fewer calls than VoIP alone)",
        max_cap < alone,
        var_rows.iter().map(|r| format!("{} {}", variant_label(r.0), r.1)).collect::<Vec<_>>().join(", ")
            + &format!(" vs {alone} alone"),
    ));
    if z.fig4_calls.contains(&10) {
        let at10: Vec<f64> = VARIANTS
            .iter()
            .map(|&vt| plan.mean(&Setup::string(10, Data::Tcp { flows: 1, variant: vt }, dur), |r| r.mean_mos()))
            .collect();
        checks.push(Check::new(
            format!("figure 4: mean MOS < {} with 10 calls for every variant", v.mos_below_at_10_calls),
            at10.iter().all(|&m| m < v.mos_below_at_10_calls),
            at10.iter().map(|m| format!("{m:.2}")).collect::<Vec<_>>().join(", "),
        ));
    }
    let best_mos = var_rows.iter().max_by(|a, b| a.2.total_cmp(&b.2)).unwrap();
    checks.push(Check::new(
        "figure 4: Vegas protects VoIP best (highest mean MOS)",
        best_mos.0 == TcpVariant::Vegas,
        format!("best: {} ({:.2})", variant_label(best_mos.0), best_mos.2),
    ));
    let ww = var_rows.iter().find(|r| r.0 == TcpVariant::WestwoodPlus).unwrap();
    let worst_ratio = var_rows.iter().min_by(|a, b| a.5.total_cmp(&b.5)).unwrap();
    checks.push(Check::new(
        format!("figure 4: Westwood+ wastes most (lowest goodput / sent; paper ~{})", v.westwood_goodput_ratio),
        worst_ratio.0 == TcpVariant::WestwoodPlus,
        format!("Westwood+ {:.2}; lowest {} {:.2}", ww.5, variant_label(worst_ratio.0), worst_ratio.5),
    ));
}

/// (d) Priority queues, 802.11e and RTS/CTS vs the number of hops.
fn priority(c: &Ctx, b: &mut Blocks, checks: &mut Vec<Check>, json: &mut Map<String, Value>) {
    let (plan, z, dur) = (&c.plan, &c.z, c.dur);
    let p = &c.pubd.priority;
    b.section("Priority queues, 802.11e and RTS/CTS vs the number of hops");
    b.para(format!("Source: {}.", p.source));
    b.para(format!(
        "Calls supported beside one unrestricted TCP-Reno flow, on strings of 1..4 hops, call counts tried: {:?}.",
        z.prio_calls
    ));
    let mut head = vec!["hops".to_string(), "VoIP alone (fifo)".into(), "VoIP alone (priority+edca)".into()];
    head.extend(z.prio_schemes.iter().map(|s| s.name().to_string()));
    let mut t = Table::new(&head).align(&"r".repeat(head.len()));
    let mut prio_series: Vec<Series> = std::iter::once("VoIP alone")
        .chain(z.prio_schemes.iter().map(|s| s.name()))
        .map(|n| line(n, Vec::new()))
        .collect();
    let mut prio_tab = Vec::new();
    for &h in &z.prio_hops {
        let a = capacity(&z.prio_calls, |n| plan.acceptable(&Setup { hops: h, ..Setup::string(n, Data::None, dur) }));
        let ae = capacity(&z.prio_calls, |n| {
            plan.acceptable(&Setup { hops: h, scheme: Scheme::Edca, ..Setup::string(n, Data::None, dur) })
        });
        prio_series[0].points.push((h as f64, a as f64, None));
        let mut row = vec![a, ae];
        for (k, &s) in z.prio_schemes.iter().enumerate() {
            let cap = capacity(&z.prio_calls, |n| {
                plan.acceptable(&Setup { hops: h, scheme: s, ..Setup::string(n, reno(1), dur) })
            });
            prio_series[k + 1].points.push((h as f64, cap as f64, None));
            row.push(cap);
        }
        t.row(std::iter::once(h).chain(row.iter().copied()));
        prio_tab.push((h, row));
    }
    b.table(t);
    b.figure(Figure::lines(
        "kim_priority_hops",
        "Calls supported beside one TCP flow",
        "wireless hops",
        "calls supported",
        prio_series,
    ));
    json.insert(
        "priority".into(),
        Value::Array(prio_tab.iter().map(|(h, row)| json!({"hops": h, "alone_then_schemes": row})).collect()),
    );
    // Columns of a row: alone (fifo), alone (priority+edca), then the schemes.
    let Some(k) = z.prio_schemes.iter().position(|&s| s == Scheme::Edca).map(|i| i + 2) else { return };
    let far: Vec<(u32, u32)> =
        prio_tab.iter().filter(|(h, _)| *h > p.max_hops_with_calls).map(|(h, r)| (*h, r[k])).collect();
    checks.push(Check::new(
        format!("priority + EDCA supports no call beyond {} hops (paper: none at 3+ hops)", p.max_hops_with_calls),
        far.iter().all(|x| x.1 == 0),
        far.iter().map(|(h, c)| format!("{h} hops: {c}")).collect::<Vec<_>>().join(", "),
    ));
    let near: Vec<String> = prio_tab
        .iter()
        .filter(|(h, _)| *h <= p.max_hops_with_calls)
        .map(|(h, r)| format!("{h} hops: {} of {} ({:.0}%)", r[k], r[1], 100.0 * r[k] as f64 / r[1].max(1) as f64))
        .collect();
    checks.push(Check::new(
        format!(
            "priority + EDCA beside TCP keeps at most about {:.0}% of its voice capacity without TCP at 1-2 hops (paper: 20%; we allow up to 40%)",
            p.capacity_fraction * 100.0
        ),
        prio_tab
            .iter()
            .filter(|(h, _)| *h <= p.max_hops_with_calls)
            .all(|(_, r)| (r[k] as f64) <= 2.0 * p.capacity_fraction * r[1] as f64),
        near.join(", "),
    ));
}

/// The best setting of a control, as (parameter shown, goodput kbit/s).
type Best = Option<(String, f64)>;

/// "W | Mb/s" cells of a best setting.
fn best_cells(b: &Best) -> [String; 2] {
    match b {
        Some((p, k)) => [p.clone(), format!("{:.2}", k / 1e3)],
        None => ["-".into(), "0 (none)".into()],
    }
}

/// (e) Figure 5: TCP controlled at the gateway.
fn fig5(c: &Ctx, b: &mut Blocks, checks: &mut Vec<Check>, json: &mut Map<String, Value>) {
    let (plan, z) = (&c.plan, &c.z);
    let wpub = &c.pubd.window;
    b.section("Figure 5: TCP controlled at the gateway");
    b.para("Source: section 'Window resizing vs. pacing', figure 5, and the summary.");
    b.para(format!(
        "One TCP-Reno flow (window up to {TCP_WINDOW}) beside n calls. For each control, the largest TCP goodput among the \
         settings tried that keeps every call acceptable: window W in {:?} segments (advertised window rewritten in the \
         ACKs at the gateway), data pacing and ACK pacing at R in {:?} kbit/s. Plain TCP is shown whether or not the \
         calls are supported.",
        z.fig5_windows,
        z.fig5_rates.iter().map(|r| r / 1000).collect::<Vec<_>>()
    ));
    let mut t = Table::new(&[
        "calls",
        "window: W",
        "Mb/s",
        "data pacing: R kb/s",
        "Mb/s",
        "ACK pacing: R kb/s",
        "Mb/s",
        "plain TCP Mb/s",
        "plain: worst MOS",
    ])
    .align("rrrrrrrrr");
    let mut f5: Vec<Series> = ["window control", "data pacing", "ACK pacing", "plain TCP (calls not protected)"]
        .iter()
        .map(|n| line(*n, Vec::new()))
        .collect();
    let mut f5_rows = Vec::new();
    for &n in &z.fig5_calls {
        let w: Best = best(plan, &z.fig5_windows, |w| c.fig5(n, Gw::Window(w))).map(|(p, k)| (p.to_string(), k));
        let dp: Best =
            best(plan, &z.fig5_rates, |r| c.fig5(n, Gw::Pacing(r))).map(|(p, k)| ((p / 1000).to_string(), k));
        let ap: Best =
            best(plan, &z.fig5_rates, |r| c.fig5(n, Gw::AckPacing(r))).map(|(p, k)| ((p / 1000).to_string(), k));
        let plain = plan.mean(&c.fig5(n, Gw::None), |r| r.data_kbps);
        let plain_mos = plan.mean(&c.fig5(n, Gw::None), |r| r.worst_mos());
        let mut cells = vec![n.to_string()];
        for x in [&w, &dp, &ap] {
            cells.extend(best_cells(x));
        }
        cells.push(format!("{:.2}", plain / 1e3));
        cells.push(if n == 0 { "-".to_string() } else { format!("{plain_mos:.2}") });
        t.row(cells);
        for (k, x) in [&w, &dp, &ap].iter().enumerate() {
            f5[k].points.push((n as f64, x.as_ref().map_or(0.0, |x| x.1 / 1e3), None));
        }
        f5[3].points.push((n as f64, plain / 1e3, None));
        f5_rows.push((n, w, dp, ap, plain, plain_mos));
    }
    b.table(t);
    b.figure(Figure::lines(
        "kim_fig5",
        "TCP goodput keeping every call at MOS >= 3.6",
        "VoIP calls",
        "TCP goodput (Mb/s)",
        f5,
    ));
    let bj = |x: &Best| json!(x.as_ref().map(|v| json!({"param": v.0, "kbps": v.1})));
    json.insert(
        "fig5".into(),
        Value::Array(
            f5_rows
                .iter()
                .map(|r| json!({"calls": r.0, "window": bj(&r.1), "pacing": bj(&r.2), "ack_pacing": bj(&r.3), "plain_kbps": r.4, "plain_worst_mos": r.5}))
                .collect(),
        ),
    );
    let positive: Vec<u32> = z.fig5_calls.iter().copied().filter(|&n| n > 0).collect();
    let row = |n: u32| f5_rows.iter().find(|r| r.0 == n).unwrap();
    let win_cap = capacity(&positive, |n| row(n).1.as_ref().is_some_and(|b| b.1 > 0.0));
    let plain_cap = capacity(&positive, |n| plan.acceptable(&c.fig5(n, Gw::None)));
    checks.push(Check::new(
        "acceptance: window control at the gateway supports more calls than plain sharing",
        win_cap > plain_cap,
        format!("{win_cap} with window control (TCP still carried) vs {plain_cap} with plain TCP"),
    ));
    let mean_of = |k: usize| {
        positive.iter().map(|&n| [&row(n).1, &row(n).2, &row(n).3][k].as_ref().map_or(0.0, |b| b.1)).sum::<f64>()
            / positive.len().max(1) as f64
    };
    let (mw, mp, ma) = (mean_of(0), mean_of(1), mean_of(2));
    checks.push(Check::new(
        "figure 5: window control attains the best utilisation (mean TCP goodput over 1..11 calls)",
        mw >= mp && mw >= ma,
        format!("window {:.2}, data pacing {:.2}, ACK pacing {:.2} Mb/s", mw / 1e3, mp / 1e3, ma / 1e3),
    ));
    if let Some(r0) = f5_rows.iter().find(|r| r.0 == 0) {
        let ctl = r0.1.as_ref().map_or(0.0, |b| b.1);
        let gain = ctl / r0.4 - 1.0;
        checks.push(Check::new(
            format!(
                "without VoIP, window control beats plain TCP (paper: +{:.0}%)",
                wpub.improvement_without_voip * 100.0
            ),
            gain > 0.0,
            format!("{:.2} vs {:.2} Mb/s ({:+.0}%)", ctl / 1e3, r0.4 / 1e3, gain * 100.0),
        ));
    }
    if let Some(r6) = f5_rows.iter().find(|r| r.0 == wpub.example_calls) {
        b.para(format!(
            "Paper's worked example: at {} calls the optimal window is W = {} and TCP can use {:.0} kb/s; ours: {}.",
            wpub.example_calls,
            wpub.example_window,
            wpub.example_tcp_kbps,
            r6.1.as_ref().map_or("no window keeps the calls".into(), |b| format!("W = {}, {:.0} kb/s", b.0, b.1))
        ));
    }
}

/// (f) Scalability: number of TCP flows and Internet delay.
fn scalability(c: &Ctx, b: &mut Blocks, checks: &mut Vec<Check>, json: &mut Map<String, Value>) {
    let (plan, z) = (&c.plan, &c.z);
    let wpub = &c.pubd.window;
    b.section("Scalability: number of TCP flows and Internet delay");
    b.para(format!("Source: {}.", wpub.source));
    b.para(format!(
        "{} calls beside F TCP-Reno flows; Internet delay (round trip of the wired part) {:?} ms. For each (F, delay), \
         the best window W* (per connection, searched over {:?}) and data-pacing rate R* (aggregate, over {:?} kb/s) that \
         keep the 3 calls acceptable, with the TCP goodput. \"fails\": no setting tried works (window control would need \
         W < 1 packet).",
        wpub.calls,
        z.scal_delays,
        z.scal_windows,
        z.scal_rates.iter().map(|r| r / 1000).collect::<Vec<_>>()
    ));
    let mut head = vec!["flows".to_string()];
    for d in &z.scal_delays {
        head.extend([format!("{d} ms: W*"), "Mb/s".into(), "R* kb/s".into(), "Mb/s".into()]);
    }
    let mut t = Table::new(&head).align(&"r".repeat(head.len()));
    let (mut sw, mut st, mut scal_rows) = (Vec::new(), Vec::new(), Vec::new());
    for &d in &z.scal_delays {
        sw.push(line(format!("W*, {d} ms"), Vec::new()));
        st.push(line(format!("window, {d} ms"), Vec::new()));
        st.push(line(format!("pacing, {d} ms"), Vec::new()));
    }
    for &f in &z.scal_flows {
        let mut cells = vec![f.to_string()];
        for (di, &d) in z.scal_delays.iter().enumerate() {
            let w = best(plan, &z.scal_windows, |w| c.scal(f, d, Gw::Window(w)));
            let r = best(plan, &z.scal_rates, |r| c.scal(f, d, Gw::Pacing(r)));
            let cell = |x: Option<(String, f64)>| match x {
                Some((p, k)) => [p, format!("{:.2}", k / 1e3)],
                None => ["fails".into(), "0".into()],
            };
            cells.extend(cell(w.map(|(w, k)| (w.to_string(), k))));
            cells.extend(cell(r.map(|(r, k)| ((r / 1000).to_string(), k))));
            sw[di].points.push((f as f64, w.map_or(0.0, |x| x.0 as f64), None));
            st[2 * di].points.push((f as f64, w.map_or(0.0, |x| x.1 / 1e3), None));
            st[2 * di + 1].points.push((f as f64, r.map_or(0.0, |x| x.1 / 1e3), None));
            scal_rows.push((f, d, w, r));
        }
        t.row(cells);
    }
    b.table(t);
    for (stem, title, y, series) in [
        ("kim_scal_window", "Best window per connection (0 = window control fails)", "W* (segments)", sw),
        ("kim_scal_goodput", "TCP goodput keeping 3 calls at MOS >= 3.6", "TCP goodput (Mb/s)", st),
    ] {
        b.figure(Figure::lines(stem, title, "TCP flows", y, series));
    }
    json.insert(
        "scalability".into(),
        Value::Array(
            scal_rows
                .iter()
                .map(|(f, d, w, r)| json!({"flows": f, "internet_delay_ms": d, "window": w.map(|x| json!({"w": x.0, "kbps": x.1})), "pacing": r.map(|x| json!({"bps": x.0, "kbps": x.1}))}))
                .collect(),
        ),
    );
    // Largest flow count (contiguous from the smallest) a control supports, per delay.
    let max_flows = |d: u64, win: bool| {
        capacity(&z.scal_flows, |f| {
            scal_rows.iter().any(|r| r.0 == f && r.1 == d && if win { r.2.is_some() } else { r.3.is_some() })
        })
    };
    let (d_lo, d_hi) = (*z.scal_delays.first().unwrap(), *z.scal_delays.last().unwrap());
    let first_fail =
        z.scal_flows.iter().copied().find(|&f| scal_rows.iter().any(|r| r.0 == f && r.1 == d_lo && r.2.is_none()));
    checks.push(Check::new(
        format!(
            "window control fails (W < 1 packet) beyond some number of flows at {d_lo} ms (paper: beyond {})",
            wpub.max_flows_30ms
        ),
        first_fail.is_some(),
        match first_fail {
            Some(f) => format!("supports up to {} flows, fails at {f}", max_flows(d_lo, true)),
            None => format!("never fails up to {} flows", z.scal_flows.last().unwrap()),
        },
    ));
    if d_hi > d_lo {
        checks.push(Check::new(
            format!(
                "window control supports at least as many flows at {d_hi} ms as at {d_lo} ms (paper: {} vs {})",
                wpub.max_flows_150ms, wpub.max_flows_30ms
            ),
            max_flows(d_hi, true) >= max_flows(d_lo, true),
            format!("{} vs {}", max_flows(d_hi, true), max_flows(d_lo, true)),
        ));
        let w1 = |d: u64| scal_rows.iter().find(|r| r.0 == z.scal_flows[0] && r.1 == d).and_then(|r| r.2).map(|x| x.0);
        checks.push(Check::new(
            format!(
                "{} flow(s): a longer Internet delay needs a larger window (paper: W = {} -> {} at 100 ms)",
                z.scal_flows[0], wpub.example_window, wpub.example_window_100ms
            ),
            matches!((w1(d_lo), w1(d_hi)), (Some(a), Some(b)) if b > a),
            format!("W* {:?} at {d_lo} ms, {:?} at {d_hi} ms", w1(d_lo), w1(d_hi)),
        ));
    }
    checks.push(Check::new(
        format!("shaping scales better: data pacing supports at least as many flows as window control at {d_lo} ms"),
        max_flows(d_lo, false) >= max_flows(d_lo, true),
        format!("pacing {} vs window {}", max_flows(d_lo, false), max_flows(d_lo, true)),
    ));
}
