//! The paired comparison: manetlab, ns-3.37 and ns-2.35 on IDENTICAL
//! movement. Each point has five movement files written once by ns-2's
//! `setdest` (`data/mrc/moves/`, see its README); run RUN of a point is
//! file RUN in all three simulators (manetlab: `model = "ns2-file"`; ns-2:
//! `scripts/ns2/mrc/mrc.tcl`; ns-3: `mrc --moves`, `Ns2MobilityHelper`),
//! with the same flows (node 10+i -> node i from 100 + 0.1 i s). The seed
//! spread of independent draws (95 % half-widths of 30-100 % of the mean)
//! then no longer hides the differences between the simulators: each run
//! is compared with the same run, and the per-run ratios and differences
//! have their own spread.

use super::counters::{self, Fate, Ns2Counters, Ns3Counters};
use super::{Cell, Outcome, RefRow, Scale, BAND, PROTOCOLS};
use manetlab::study::report::deviation;
use manetlab::study::sweep::Aggregate;
use manetlab::study::{Check, Runs, StudyOptions};
use serde::Serialize;
use std::collections::BTreeMap;

/// Movement files per point (`rwp50-vSPEED-pPAUSE-1.tcl` .. `-5.tcl`).
pub const MOVE_FILES: u64 = 5;

/// The folder of the movement files (read when a run is configured, like
/// the references; `MANETLAB_MRC_MOVES` names another folder).
pub fn moves_dir() -> std::path::PathBuf {
    std::env::var_os("MANETLAB_MRC_MOVES").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/mrc/moves"),
        std::path::PathBuf::from,
    )
}

/// The movement file of run `run` at (max speed, pause).
pub fn moves_name(max_speed: f64, pause: f64, run: u64) -> String {
    format!("rwp50-v{max_speed}-p{pause}-{run}.tcl")
}

/// The paired runs of a study: files 1..=min(seeds, 5).
pub fn runs(s: Scale) -> std::ops::RangeInclusive<u64> {
    1..=(s.seeds as u64).min(MOVE_FILES)
}

pub fn key(p: &str, v: f64, pause: f64, run: u64, s: Scale) -> String {
    format!("{p}/v={v}/pause={pause}/moves={run}/d={}", s.duration_s)
}

/// The protocols whose paired runs are repeated with ns-2.35's settings at
/// 20 m/s (full mode): its ARP (manetlab with ns-3's ARP loses far more at
/// ARP than ns-2.35 does) and, for DSDV, its DSDV (`DsdvConfig::ns2`; the
/// study's DSDV is ns-3.37's): the modelling differences shown as an
/// ablation.
pub const NS2_ARP: [&str; 3] = ["aodv", "dsr", "dsdv"];

/// The protocols whose paired runs are repeated at 20 m/s (full mode) with
/// every ARP loss handed to routing (`ArpVariant::Ns3Reported`, `[arp]
/// report_drops`): ns-3.37's DSR notices a packet lost at ARP by its
/// missing link acknowledgement, manetlab's DSR (MAC feedback) does not.
pub const NS3_REPORT: [&str; 1] = ["dsr"];

pub fn ns3_report_at(p: &str, max_speed: f64, opts: &StudyOptions) -> bool {
    !opts.quick && max_speed == 20.0 && NS3_REPORT.contains(&p)
}

pub fn ns3_report_key(p: &str, v: f64, pause: f64, run: u64, s: Scale) -> String {
    format!("{}/arp-report", key(p, v, pause, run, s))
}

pub fn ns2_arp_at(p: &str, max_speed: f64, opts: &StudyOptions) -> bool {
    !opts.quick && max_speed == 20.0 && NS2_ARP.contains(&p)
}

pub fn ns2_arp_key(p: &str, v: f64, pause: f64, run: u64, s: Scale) -> String {
    format!("{}/arp-ns2", key(p, v, pause, run, s))
}

/// manetlab against one reference over the runs both have.
#[derive(Clone, Debug, Serialize)]
pub struct Paired {
    /// The movement files both simulators ran.
    pub runs: Vec<u64>,
    /// PDR over those runs: manetlab's and the reference's.
    pub ours: Aggregate,
    pub reference: Aggregate,
    /// Per run: manetlab's PDR / the reference's (runs where the
    /// reference delivered something), and manetlab's - the reference's.
    pub ratio: Aggregate,
    pub diff: Aggregate,
    /// What became of the data packets (mean per run) over `fate_runs`:
    /// all the runs, or, where the reference's counters count copies, the
    /// runs it has per-packet fates for.
    pub fate: Fate,
    pub ref_fate: Option<Fate>,
    pub fate_runs: Vec<u64>,
    /// Within the band, or explained by counters.
    pub accepted: bool,
    pub verdict: String,
}

/// One run's PDR in each simulator.
#[derive(Clone, Debug, Serialize)]
pub struct RunPdr {
    pub run: u64,
    pub manetlab: Option<f64>,
    pub ns3: Option<f64>,
    pub ns2: Option<f64>,
}

/// One protocol at one point, paired.
#[derive(Clone, Debug, Serialize)]
pub struct PairedRow {
    pub protocol: String,
    pub max_speed: f64,
    pub pause: f64,
    /// manetlab over all its paired runs.
    pub ours: Cell,
    pub per_run: Vec<RunPdr>,
    pub ns3: Option<Paired>,
    pub ns2: Option<Paired>,
    /// manetlab with ns-2.35's ARP (and DSDV) against ns-2.35 (`NS2_ARP`
    /// at 20 m/s).
    pub ns2_arp: Option<Paired>,
    /// manetlab with every ARP loss reported to routing against ns-3.37
    /// (`NS3_REPORT` at 20 m/s).
    pub ns3_report: Option<Paired>,
    /// Control packets by kind, mean per run (manetlab over all its paired
    /// runs, ns-3 over its runs with counters).
    pub control: BTreeMap<String, f64>,
    pub ns3_control: Option<BTreeMap<String, f64>>,
}

/// "within the seed-to-seed spread" when the paired differences' 95 %
/// confidence interval contains 0 (needs at least 2 runs).
pub fn within_spread(diff: &Aggregate) -> bool {
    diff.n >= 2 && diff.mean.abs() <= diff.ci95
}

fn pair(
    name: &str,
    ours: &[(u64, &Outcome)],
    refs: &[&RefRow],
    fate_of: &dyn Fn(&[u64]) -> Option<Fate>,
    protocol: &str,
) -> Option<Paired> {
    let both: Vec<(u64, f64, f64)> = ours
        .iter()
        .filter_map(|(run, o)| {
            let r = refs.iter().find(|r| r.run == *run)?;
            Some((*run, o.pdr?, r.pdr?))
        })
        .collect();
    if both.is_empty() {
        return None;
    }
    let runs: Vec<u64> = both.iter().map(|b| b.0).collect();
    let mine_over =
        |rs: &[u64]| -> Vec<&Outcome> { ours.iter().filter(|(r, _)| rs.contains(r)).map(|(_, o)| *o).collect() };
    // Where the reference's counters count copies, its per-packet fates
    // over the runs that have them (and manetlab's over the same runs).
    let mut fate_runs = runs.clone();
    let mut ref_fate = fate_of(&runs);
    if ref_fate.as_ref().is_some_and(|f| f.counts_copies()) {
        let sub: Vec<u64> = runs.iter().copied().filter(|r| fate_of(&[*r]).is_some_and(|f| f.per_packet)).collect();
        if !sub.is_empty() {
            ref_fate = fate_of(&sub);
            fate_runs = sub;
        }
    }
    let p = Paired {
        ours: Aggregate::of(both.iter().map(|b| b.1)),
        reference: Aggregate::of(both.iter().map(|b| b.2)),
        ratio: Aggregate::of(both.iter().filter(|b| b.2 > 0.0).map(|b| b.1 / b.2)),
        diff: Aggregate::of(both.iter().map(|b| b.1 - b.2)),
        fate: Fate::of_ours(protocol, &mine_over(&fate_runs)),
        ref_fate,
        fate_runs,
        runs,
        accepted: false,
        verdict: String::new(),
    };
    let (within, mut text) = super::verdict_of(p.ours.mean, p.reference.mean, &p.fate, p.ref_fate.as_ref(), name);
    if !within && p.fate_runs != p.runs {
        text = format!(
            "{text} (counters over runs {:?}, the runs with {name}'s per-packet fates; its drop counters count copies)",
            p.fate_runs
        );
    }
    let spread = if p.diff.n < 2 {
        String::new()
    } else {
        format!(
            "; paired difference {:+.3} ± {:.3} (95 %, n = {}): {} the seed-to-seed spread",
            p.diff.mean,
            p.diff.ci95,
            p.diff.n,
            if within_spread(&p.diff) { "within" } else { "outside" }
        )
    };
    Some(Paired { accepted: within || text.starts_with("explained"), verdict: format!("{text}{spread}"), ..p })
}

/// The paired rows, and the acceptance checks: per row and reference, PDR
/// within 15 % of the reference's mean over the same movement files, or
/// the difference explained by counters; per protocol and reference, every
/// point so.
pub fn analyse(
    opts: &StudyOptions,
    done: &Runs<Outcome>,
    ns2: &[RefRow],
    ns2c: &[Ns2Counters],
    checks: &mut Vec<Check>,
) -> Vec<PairedRow> {
    let s = super::scale(opts);
    let ns3 = super::reference("ns3-moves");
    let ns3c = counters::ns3_counters_from("ns3-moves-counters.csv");
    let ns3f = counters::ns3_fates_from("ns3-moves-fates.csv");
    let mut rows = Vec::new();
    for &(v, pause) in super::points(opts) {
        for p in PROTOCOLS {
            let at = |proto: &str, sv: f64, sp: f64| proto.eq_ignore_ascii_case(p) && sv == v && sp == pause;
            let ours: Vec<(u64, &Outcome)> = runs(s).map(|k| (k, done.get(&key(p, v, pause, k, s)))).collect();
            let r3: Vec<&RefRow> = ns3.iter().filter(|r| at(&r.protocol, r.max_speed, r.pause)).collect();
            let r2: Vec<&RefRow> = ns2.iter().filter(|r| at(&r.protocol, r.max_speed, r.pause)).collect();
            let c3: Vec<&Ns3Counters> = ns3c.iter().filter(|r| at(&r.protocol, r.max_speed, r.pause)).collect();
            let c2: Vec<&Ns2Counters> = ns2c.iter().filter(|r| at(&r.protocol, r.max_speed, r.pause)).collect();
            let f3: Vec<&counters::Ns3Fates> = ns3f.iter().filter(|r| at(&r.protocol, r.max_speed, r.pause)).collect();
            // ns-3's per-packet fates where every run has them, else its drop counters.
            let fate3 = |rs: &[u64]| {
                let fates: Vec<&counters::Ns3Fates> = f3.iter().copied().filter(|c| rs.contains(&c.run)).collect();
                if fates.len() == rs.len() {
                    return Some(Fate::of_ns3_fates(&fates));
                }
                let sel: Vec<&Ns3Counters> = c3.iter().copied().filter(|c| rs.contains(&c.run)).collect();
                (sel.len() == rs.len()).then(|| Fate::of_ns3(&sel))
            };
            let fate2 = |rs: &[u64]| {
                let sel: Vec<&Ns2Counters> = c2.iter().copied().filter(|c| rs.contains(&c.run)).collect();
                (sel.len() == rs.len()).then(|| Fate::of_ns2(&sel))
            };
            let outs: Vec<&Outcome> = ours.iter().map(|o| o.1).collect();
            // A variant's runs (named by its key function) in `pair`'s form.
            let variant = |key: fn(&str, f64, f64, u64, Scale) -> String| -> Vec<(u64, &Outcome)> {
                runs(s).map(|k| (k, done.get(&key(p, v, pause, k, s)))).collect()
            };
            let mut row = PairedRow {
                protocol: p.into(),
                max_speed: v,
                pause,
                ours: super::cell_of_ours(&outs),
                per_run: ours
                    .iter()
                    .map(|(k, o)| RunPdr {
                        run: *k,
                        manetlab: o.pdr,
                        ns3: r3.iter().find(|r| r.run == *k).and_then(|r| r.pdr),
                        ns2: r2.iter().find(|r| r.run == *k).and_then(|r| r.pdr),
                    })
                    .collect(),
                ns3: pair("ns-3", &ours, &r3, &fate3, p),
                ns2: pair("ns-2", &ours, &r2, &fate2, p),
                ns2_arp: ns2_arp_at(p, v, opts).then(|| pair("ns-2", &variant(ns2_arp_key), &r2, &fate2, p)).flatten(),
                ns3_report: ns3_report_at(p, v, opts)
                    .then(|| pair("ns-3", &variant(ns3_report_key), &r3, &fate3, p))
                    .flatten(),
                control: counters::control_of_ours(p, &outs),
                ns3_control: (!c3.is_empty()).then(|| counters::control_of_ns3(p, &c3)),
            };
            // A row the counters do not explain is explained when the
            // modelled difference, switched to the reference's behaviour,
            // brings manetlab within the band or to a difference its
            // counters explain: the mechanism shown by the ablation, the
            // rest by counters on both sides.
            for (main, alt, what) in [
                (
                    &mut row.ns3,
                    &row.ns3_report,
                    "with every ARP loss handed to routing (`[arp] report_drops`: ns-3's DSR notices it by its \
                     link acknowledgements, manetlab's by MAC feedback, which a packet ARP drops never reaches)",
                ),
                (&mut row.ns2, &row.ns2_arp, "with ns-2.35's settings (its ARP, and for DSDV its DSDV)"),
            ] {
                let (Some(m), Some(a)) = (main.as_mut(), alt.as_ref()) else { continue };
                if m.accepted || !a.accepted {
                    continue;
                }
                m.accepted = true;
                m.verdict = format!(
                    "explained by the model: {} against the reference; {what} manetlab's PDR is {:.3}: {}. The counters \
                     alone: {}",
                    deviation(m.ours.mean, m.reference.mean),
                                        a.ours.mean,
                    a.verdict,
                    m.verdict
                );
            }
            for (name, x) in [("ns-3.37", &row.ns3), ("ns-2.35", &row.ns2)] {
                if let Some(x) = x {
                    checks.push(Check::new(
                        format!(
                            "{} PDR within 15 % of {name} on the same movement at {v} m/s, pause {pause} s, or explained",
                            p.to_uppercase()
                        ),
                        x.accepted,
                        format!(
                            "manetlab {:.3}, {name} {:.3} over runs {:?}: {}",
                            x.ours.mean, x.reference.mean, x.runs, x.verdict
                        ),
                    ));
                }
            }
            rows.push(row);
        }
    }
    if !opts.quick {
        for p in PROTOCOLS {
            for (name, get) in [
                ("ns-3.37", (|r: &PairedRow| r.ns3.clone()) as fn(&PairedRow) -> Option<Paired>),
                ("ns-2.35", |r: &PairedRow| r.ns2.clone()),
            ] {
                let xs: Vec<Paired> = rows.iter().filter(|r| r.protocol == p).filter_map(get).collect();
                if xs.is_empty() {
                    continue;
                }
                let within = xs.iter().filter(|x| x.verdict.starts_with("within")).count();
                checks.push(Check::new(
                    format!(
                        "{} against {name} on the same movement: PDR within {:.0} % at every point, or explained by counters",
                        p.to_uppercase(),
                        BAND * 100.0
                    ),
                    xs.iter().all(|x| x.accepted),
                    format!(
                        "{within} of {} points within the band; {}",
                        xs.len(),
                        xs.iter().map(|x| deviation(x.ours.mean, x.reference.mean)).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
    }
    rows
}

/// The paired comparison's sections of the report.
pub fn report(rows: &[PairedRow], doc: &mut manetlab::study::ReportDoc) {
    use manetlab::study::report::{num, Table};
    let agg = |a: &Aggregate, d: usize| match a.n {
        0 => "-".to_string(),
        1 => num(a.mean, d),
        _ => format!("{} ± {}", num(a.mean, d), num(a.ci95, d)),
    };
    let ratio = |x: &Option<Paired>| {
        x.as_ref()
            .map_or("-".into(), |x| format!("{} [{}, {}]", agg(&x.ratio, 2), num(x.ratio.min, 2), num(x.ratio.max, 2)))
    };
    let dev = |x: &Option<Paired>| x.as_ref().map_or("-".into(), |x| deviation(x.ours.mean, x.reference.mean));
    let refpdr = |x: &Option<Paired>| {
        x.as_ref().map_or("-".into(), |x| format!("{} (n={})", agg(&x.reference, 3), x.runs.len()))
    };
    doc.section("Paired comparison: the same movement files in all three simulators (the acceptance)");
    doc.para(
        "Run RUN of a point is the setdest movement file `data/mrc/moves/rwp50-vSPEED-pPAUSE-RUN.tcl` in manetlab \
         (`model = \"ns2-file\"`), ns-2.35 (`mrc.tcl`) and ns-3.37 (`mrc --moves`, `Ns2MobilityHelper`), with the \
         same flows (node 10+i -> node i from 100 + 0.1 i s). References: `ns3-moves-runs.csv` / \
         `ns3-moves-counters.csv` and `ns2-runs.csv` / `ns2-counters.csv`. A reference's mean is over the runs it \
         has (`n`); manetlab's deviation is of its mean over the same runs. Per-run ratio: manetlab's PDR / the \
         reference's on the same file, mean ± 95 % half-width [min, max].",
    );
    let mut t = Table::new(&[
        "max speed (m/s)",
        "pause (s)",
        "protocol",
        "manetlab",
        "ns-3.37",
        "vs ns-3",
        "per-run ratio vs ns-3",
        "ns-2.35",
        "vs ns-2",
        "per-run ratio vs ns-2",
    ])
    .align("rrlrrrrrrr");
    for r in rows {
        t.row([
            r.max_speed.to_string(),
            r.pause.to_string(),
            r.protocol.to_uppercase(),
            agg(&r.ours.pdr, 3),
            refpdr(&r.ns3),
            dev(&r.ns3),
            ratio(&r.ns3),
            refpdr(&r.ns2),
            dev(&r.ns2),
            ratio(&r.ns2),
        ]);
    }
    doc.subsection("Packet delivery ratio on identical movement");
    doc.table(&t);
    doc.subsection("Packet delivery ratio per movement file");
    let mut t = Table::new(&["max speed (m/s)", "pause (s)", "protocol", "run", "manetlab", "ns-3.37", "ns-2.35"])
        .align("rrlrrrr");
    for r in rows {
        for k in &r.per_run {
            t.row([
                r.max_speed.to_string(),
                r.pause.to_string(),
                r.protocol.to_uppercase(),
                k.run.to_string(),
                num(k.manetlab, 3),
                num(k.ns3, 3),
                num(k.ns2, 3),
            ]);
        }
    }
    doc.table(&t);
    doc.subsection("What became of the data packets on identical movement (mean per run)");
    let mut head = vec!["max speed (m/s)", "pause (s)", "protocol", "simulator (runs)", "offered", "delivered"];
    head.extend(counters::GROUPS);
    let mut t = Table::new(&head).align("rrllrrrrrrrr");
    for r in rows {
        let mut shown: Vec<&[u64]> = Vec::new();
        for (name, x) in [("ns-3.37", &r.ns3), ("ns-2.35", &r.ns2)] {
            let Some(x) = x else { continue };
            let mut line = |who: String, fa: &Fate| {
                let mut cells = vec![
                    r.max_speed.to_string(),
                    r.pause.to_string(),
                    r.protocol.to_uppercase(),
                    who,
                    num(fa.offered, 0),
                    num(fa.delivered, 0),
                ];
                cells.extend(fa.group_cells());
                t.row(cells);
            };
            let runs = format!("{:?}", x.fate_runs);
            if !shown.contains(&x.fate_runs.as_slice()) {
                line(format!("manetlab {runs}"), &x.fate);
                shown.push(&x.fate_runs);
            }
            if let Some(fa) = &x.ref_fate {
                line(format!("{name} {runs}"), fa);
            }
        }
    }
    doc.table_with_note(
        &t,
        "The groups as in the independent-draw counters below. ns-3's come from `mrc --fates` on the same \
         movement file where every run of the row has them (`ns3-moves-fates.csv`: each packet once, by the last \
         event seen for it; ARP includes the held packets ArpCache drops when a resolution fails; no route \
         includes packets the source's routing held until they were dropped unseen, such as DSR's send buffer), \
         else from its drop counters (`mrc --counters`), which count every dropped copy: a negative residual is \
         marked \"counts copies\" and such a row gets no counter-based verdict. ns-2's come from its trace \
         (`summarize.py --counters`).",
    );
    doc.subsection("Control packets handed to the MAC by kind on identical movement (mean per run)");
    doc.table(&super::report::control_table(
        rows.iter().map(|r| (r.max_speed, r.pause, r.protocol.as_str(), &r.control, r.ns3_control.as_ref())),
    ));
    if rows.iter().any(|r| r.ns2_arp.is_some()) {
        doc.subsection("ns-2.35's settings on identical movement: manetlab with ns-2's ARP (and DSDV) against ns-2.35");
        let mut t = Table::new(&[
            "max speed (m/s)",
            "pause (s)",
            "protocol",
            "ns-2.35 PDR",
            "manetlab, ns-3's ARP",
            "manetlab, ns-2's settings",
            "ARP losses/run: ns-2.35",
            "ns-3's ARP",
            "ns-2's settings",
            "with ns-2's settings: verdict",
        ])
        .align("rrlrrrrrrl");
        for r in rows {
            let (Some(alt), Some(main)) = (&r.ns2_arp, &r.ns2) else { continue };
            t.row([
                r.max_speed.to_string(),
                r.pause.to_string(),
                r.protocol.to_uppercase(),
                agg(&main.reference, 3),
                format!("{} ({})", agg(&main.ours, 3), deviation(main.ours.mean, main.reference.mean)),
                format!("{} ({})", agg(&alt.ours, 3), deviation(alt.ours.mean, alt.reference.mean)),
                main.ref_fate.as_ref().map_or("-".into(), |f| num(f.arp, 0)),
                num(main.fate.arp, 0),
                num(alt.fate.arp, 0),
                alt.verdict.clone(),
            ]);
        }
        doc.table_with_note(
            &t,
            "The study runs every protocol with ns-3.37's ARP (`ArpConfig::ns3`: 3 packets held, 3 requests 1 s \
             apart, on failure the held packets dropped, routing not told, the address dead for 100 s). ns-2.35's \
             ARP (`ArpConfig::ns2`, mac/arp.cc: one packet held per address, a newer one replaces it, no request \
             timer, after 3 unanswered requests the packets go back to routing as a link failure) is what ns-2's \
             runs use; these rows repeat the paired runs with it, and DSDV's also with ns-2.35's DSDV \
             (`DsdvConfig::ns2`, dsdv/dsdv.cc with its defaults: `use_mac_ 0`, so a MAC failure drops the packet \
             and leaves the route; `wst0_` 6 s; 5 packets held per destination without a route, no timeout; a newer \
             sequence number alone triggers nothing; a break believed from any neighbour; packets to the route's \
             own next hop) instead of the study's ns-3.37 DSDV.",
        );
    }
    if rows.iter().any(|r| r.ns3_report.is_some()) {
        doc.subsection("ARP losses reported to routing on identical movement: manetlab against ns-3.37");
        let mut t = Table::new(&[
            "max speed (m/s)",
            "pause (s)",
            "protocol",
            "ns-3.37 PDR",
            "manetlab, the study's",
            "manetlab, ARP losses to routing",
            "ARP losses/run: ns-3.37",
            "the study's",
            "reported",
            "MAC retry losses/run: ns-3.37",
            "the study's",
            "reported",
            "reported: verdict",
        ])
        .align("rrlrrrrrrrrrl");
        for r in rows {
            let (Some(alt), Some(main)) = (&r.ns3_report, &r.ns3) else { continue };
            let rf = |f: &Option<Fate>, g: fn(&Fate) -> f64| f.as_ref().map_or("-".into(), |f| num(g(f), 0));
            t.row([
                r.max_speed.to_string(),
                r.pause.to_string(),
                r.protocol.to_uppercase(),
                agg(&main.reference, 3),
                format!("{} ({})", agg(&main.ours, 3), deviation(main.ours.mean, main.reference.mean)),
                format!("{} ({})", agg(&alt.ours, 3), deviation(alt.ours.mean, alt.reference.mean)),
                rf(&main.ref_fate, |f| f.arp),
                num(main.fate.arp, 0),
                num(alt.fate.arp, 0),
                rf(&main.ref_fate, |f| f.mac),
                num(main.fate.mac, 0),
                num(alt.fate.mac, 0),
                alt.verdict.clone(),
            ]);
        }
        doc.table_with_note(
            &t,
            "The study runs DSR with ns-3.37's ARP, which drops a packet for an address whose resolution failed \
             (dead for 100 s) without telling routing; manetlab's DSR learns of a broken link from the MAC's \
             retry failures, which such a packet never reaches, so its source route keeps pointing at the dead \
             neighbour. ns-3.37's DSR acknowledges every hop itself (each data packet waits in its maintenance \
             buffer for a link acknowledgement, 100 ms, one retransmission; then every cached route with that link \
             is deleted and the packets salvaged or reported), so it notices the loss whatever caused it. These \
             rows repeat the paired runs with every ARP loss handed to routing as a link failure (`[arp] \
             report_drops`): what ns-3's DSR notices, noticed at once.",
        );
    }
    doc.subsection("Verdict per row on identical movement");
    let mut t = Table::new(&["max speed (m/s)", "pause (s)", "protocol", "vs ns-3.37", "vs ns-2.35"]).align("rrlll");
    let v = |x: &Option<Paired>| x.as_ref().map_or("-".into(), |x| x.verdict.clone());
    for r in rows {
        t.row([r.max_speed.to_string(), r.pause.to_string(), r.protocol.to_uppercase(), v(&r.ns3), v(&r.ns2)]);
    }
    doc.table(&t);
}
