//! The browser viewer's recorder (`metrics/viz`): what it records agrees
//! with the ns-2 trace of the same run, its options do what they say, and
//! recording does not change the run.

use manetlab::metrics::trace::{Ns2Format, Ns2Sink, Tee, TraceSink};
use manetlab::metrics::viz::{Recording, VizOptions, VizRecorder};
use manetlab::scenario::Scenario;
use manetlab::sim::Time;
use manetlab::Simulation;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

pub const SCENARIO: &str = include_str!("data/viz.toml");

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);
impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `SCENARIO` with the recorder (and an ns-2 trace beside it when
/// `ns2`), returning the recording, the trace text and the summary.
pub fn record(opts: VizOptions, ns2: bool) -> (Recording, String, String) {
    let sc = Scenario::from_str(SCENARIO, "viz.toml").unwrap();
    let cfg = sc.config(sc.seed());
    let positions = cfg.nodes.clone();
    let mut sim = Simulation::new(cfg).unwrap();
    let (rec, handle) = VizRecorder::new(sim.config(), &sc.name, opts);
    let buf = Shared::default();
    let mut sinks: Vec<Box<dyn TraceSink>> = vec![Box::new(rec)];
    if ns2 {
        sinks.push(Box::new(Ns2Sink::new(buf.clone(), Ns2Format::New, &positions)));
    }
    sim.set_tracer(Box::new(Tee(sinks)));
    let report = sim.run();
    let rec = handle.lock().unwrap().clone();
    let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    (rec, text, serde_json::to_string(&report).unwrap())
}

/// One ns-2 new-format line as (event, flag -> value).
fn fields(line: &str) -> (char, BTreeMap<&str, &str>) {
    let mut it = line.split_whitespace();
    let ev = it.next().unwrap().chars().next().unwrap();
    let toks: Vec<&str> = it.collect();
    let mut m = BTreeMap::new();
    for w in toks.windows(2) {
        if w[0].starts_with('-') && w[0].len() > 1 && w[0].as_bytes()[1].is_ascii_alphabetic() {
            m.insert(w[0], w[1]);
        }
    }
    (ev, m)
}

fn ns(t: &str) -> u64 {
    let (s, frac) = t.split_once('.').unwrap();
    s.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap()
}

fn kind_of(it: &str) -> u8 {
    match it {
        "RTS" => 0,
        "CTS" => 1,
        "ACK" => 2,
        _ => 3,
    }
}

/// (time ns, node, frame kind, uid) of every MAC send (`s`) and addressed
/// MAC receive (`r`) in the trace.
type Key = (u64, u32, u8, i64);

fn ns2_mac(text: &str, ev: char) -> Vec<(Key, u32, String)> {
    let mut v = Vec::new();
    for line in text.lines() {
        let (e, f) = fields(line);
        if e != ev || f.get("-Nl") != Some(&"MAC") {
            continue;
        }
        let kind = kind_of(f["-It"]);
        let uid = if kind == 3 { f["-Ii"].parse::<i64>().unwrap() } else { -1 };
        let sender = u32::from_str_radix(f["-Ms"], 16).unwrap();
        let key = (ns(f["-t"]), f["-Ni"].parse().unwrap(), kind, uid);
        v.push((key, sender, f.get("-Nw").unwrap_or(&"---").to_string()));
    }
    v
}

#[test]
fn every_recorded_frame_is_in_the_ns2_trace_and_vice_versa() {
    let (from, to) = (Time::from_secs(8), Time::from_secs(16));
    let (rec, trace, _) = record(VizOptions { from, to: Some(to), ..VizOptions::default() }, true);
    let inw = |t: u64| t >= from.as_ns() && t <= to.as_ns();

    // Transmissions: one MAC send line per frame put on the air.
    let mut ours: Vec<Key> = (0..rec.frames.len())
        .map(|i| (rec.frames.t[i], rec.frames.src[i], rec.frames.kind[i], rec.frames.uid[i]))
        .collect();
    let mut theirs: Vec<Key> = ns2_mac(&trace, 's').into_iter().map(|x| x.0).filter(|k| inw(k.0)).collect();
    ours.sort_unstable();
    theirs.sort_unstable();
    assert!(ours.len() > 2000, "a busy window: {} frames", ours.len());
    for k in 0..4u8 {
        assert!(ours.iter().any(|f| f.2 == k), "frame kind {k} recorded");
    }
    assert_eq!(ours, theirs, "frames on the air: recording vs ns-2 trace");

    // Receptions decoded by their addressee (ns-2 `r` at MAC), for frames
    // that ended well inside the window (so they started inside it too).
    let rx_from = from.as_ns() + 50_000_000;
    let mut ours: Vec<(Key, u32)> = Vec::new();
    let mut lost: Vec<(u64, u32, u32)> = Vec::new();
    for r in 0..rec.rx.frame.len() {
        let f = rec.rx.frame[r] as usize;
        let (node, dst) = (rec.rx.node[r], rec.frames.dst[f]);
        let addressed = dst == node as i64 || dst < 0;
        if !addressed || rec.rx.t[r] < rx_from || rec.rx.t[r] > to.as_ns() {
            continue;
        }
        if rec.rx.out[r] == 0 {
            ours.push(((rec.rx.t[r], node, rec.frames.kind[f], rec.frames.uid[f]), rec.frames.src[f]));
        } else {
            lost.push((rec.rx.t[r], node, rec.frames.src[f]));
        }
    }
    let mut theirs: Vec<(Key, u32)> = Vec::new();
    let mut dropped = 0;
    for (key, sender, why) in ns2_mac(&trace, 'r').into_iter().chain(ns2_mac(&trace, 'd')) {
        if key.0 < rx_from || key.0 > to.as_ns() {
            continue;
        }
        match why.as_str() {
            "---" => theirs.push((key, sender)),
            // A frame the addressee's receiver lost: recorded as lost there.
            "COL" | "ERR" => {
                dropped += 1;
                assert!(
                    lost.contains(&(key.0, key.1, sender)),
                    "ns-2 drop {key:?} from {sender} {why} not recorded as lost"
                );
            }
            _ => {}
        }
    }
    ours.sort_unstable();
    theirs.sort_unstable();
    assert!(ours.len() > 2000);
    assert!(dropped > 0, "the window has losses at addressees");
    assert_eq!(ours, theirs, "decoded receptions: recording vs ns-2 trace");

    // Every outcome occurs, and the hops of a delivered packet chain from
    // its flow's source to its destination.
    for o in 0..4u8 {
        assert!(rec.rx.out.contains(&o), "outcome {o} ({}) recorded", rec.kinds.outcome[o as usize]);
    }
    let i = (0..rec.delivered.t.len()).find(|&i| rec.sent.uid.contains(&rec.delivered.uid[i])).unwrap();
    let hops = rec.hops_of(rec.delivered.uid[i]);
    let flow = &rec.flows[rec.delivered.flow[i] as usize];
    assert_eq!(hops.first().unwrap().0, flow.src);
    assert_eq!(hops.last().unwrap().1, flow.dst);
    assert!(hops.windows(2).all(|w| w[0].1 == w[1].0), "{hops:?}");
}

#[test]
fn recording_does_not_change_the_run() {
    let sc = Scenario::from_str(SCENARIO, "viz.toml").unwrap();
    let plain = serde_json::to_string(&Simulation::new(sc.config(sc.seed())).unwrap().run()).unwrap();
    let (_, _, with) = record(VizOptions::default(), false);
    assert_eq!(plain, with);
}

#[test]
fn window_decimation_and_sensed_options() {
    let (from, to) = (Time::from_secs(10), Time::from_secs(12));
    let full = record(VizOptions { from, to: Some(to), ..VizOptions::default() }, false).0;
    let dec = record(VizOptions { from, to: Some(to), decimate: 4, sensed: false }, false).0;
    let (a, b) = (from.as_ns(), to.as_ns());
    assert!(full.frames.t.iter().all(|&t| t >= a && t <= b));
    assert!([&full.drops.t, &full.delivered.t, &full.queues.t, &full.routes.t]
        .iter()
        .all(|v| v.iter().all(|&t| t >= a && t <= b)));
    assert_eq!(full.window_ns, [a, b]);
    // Decimated: flow data frames of uids divisible by 4 only, no
    // RTS/CTS/ACK, control frames all kept, no "below threshold" receivers.
    for i in 0..dec.frames.len() {
        assert_eq!(dec.frames.kind[i], 3);
        if dec.frames.flow[i] >= 0 {
            assert_eq!(dec.frames.uid[i] % 4, 0);
        }
    }
    assert!(!dec.rx.out.contains(&3) && full.rx.out.contains(&3));
    let ctl = |r: &Recording| r.frames.ctl.iter().filter(|&&c| c >= 0).count();
    assert_eq!(ctl(&full), ctl(&dec));
    let kept = (0..full.frames.len())
        .filter(|&i| full.frames.kind[i] == 3 && (full.frames.flow[i] < 0 || full.frames.uid[i] % 4 == 0));
    assert_eq!(kept.count(), dec.frames.len());
    // Deliveries (the chart) and the baseline are not decimated.
    assert_eq!(full.delivered, dec.delivered);
    assert!(dec.to_json().len() * 3 < full.to_json().len(), "{} vs {}", dec.to_json().len(), full.to_json().len());
    // The baseline at the window's start holds the tables built before it.
    assert!(full.baseline.iter().any(|b| !b.routes.is_empty()));
    assert!(full.baseline.iter().map(|b| b.tx[3]).sum::<u64>() > 0);
}

#[test]
fn trajectories_are_the_simulators_legs() {
    let sc = Scenario::from_str(SCENARIO, "viz.toml").unwrap();
    let cfg = sc.config(sc.seed());
    let trajs = cfg.mobility.trajectories(&cfg.nodes);
    let (rec, _, _) = record(VizOptions::default(), false);
    for (k, tr) in trajs.iter().enumerate() {
        let legs = &rec.nodes[k].legs;
        assert_eq!(legs.len(), tr.legs().iter().filter(|l| l.start <= cfg.duration).count());
        for (l, m) in legs.iter().zip(tr.legs().iter()) {
            assert_eq!((l.0, l.1, l.2, l.3, l.4), (m.start.as_ns(), m.from.x, m.from.y, m.vx, m.vy));
        }
    }
}

#[test]
fn scenario_viz_keys() {
    let with = |extra: &str| Scenario::from_str(&format!("{SCENARIO}\n[output]\n{extra}\n"), "viz.toml");
    let s = with("viz = true\nviz_window = [\"5s\", \"7.5s\"]\nviz_decimate = 3\nviz_sensed = false").unwrap();
    assert!(s.viz);
    let o = s.viz_options;
    assert_eq!((o.from, o.to, o.decimate, o.sensed), (Time::from_secs(5), Some(Time::from_ms(7500)), 3, false));
    // Options without `viz = true` are kept for `--viz`.
    let s = with("viz_window = [\"5s\", \"6s\"]").unwrap();
    assert!(!s.viz && s.viz_options.from == Time::from_secs(5));
    for (bad, says) in [
        ("viz_window = [\"5s\"]", "[from, to]"),
        ("viz_window = [\"6s\", \"5s\"]", "must end after it starts"),
        ("viz_decimate = 0", "at least 1"),
        ("viz = \"yes\"", "output.viz"),
    ] {
        let e = with(bad).unwrap_err().to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
}
