//! The packet audit is complete by construction (issue 15, D9): a packet
//! parked in a holding place that does not report it is caught with its
//! uid; a packet whose only trace is a pending event is counted as held;
//! and the audit balances at every instant of runs that use every kind of
//! holding place, not only at the end.

use crate::metrics::Fate;
use crate::net::routing::{Origin, RouteCtx, Routing};
use crate::net::Packet;
use crate::scenario::Scenario;
use crate::sim::Time;
use crate::Simulation;
use std::collections::{BTreeSet, HashSet};

fn sim(text: &str, overrides: &[&str]) -> Simulation {
    let sc = Scenario::parse(text, "audit.toml", overrides).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(sc.config(sc.seed())).unwrap()
}

fn file(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Two nodes 200 m apart, 10 CBR packets a second from node 0 to node 1
/// from 1 s on.
fn two_nodes(protocol: &str) -> String {
    format!(
        "[run]\nduration = \"2s\"\nseed = 4\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = \"200m\"\n\
         [routing]\nprotocol = \"{protocol}\"\n\
         [[flow]]\nname = \"f\"\nsrc = 0\ndst = 1\ntype = \"cbr\"\npacket_size = \"512B\"\ninterval = \"100ms\"\nstart = \"1s\"\n"
    )
}

/// A routing protocol (a new holding place) that parks every packet it is
/// asked to route and never sends it on; `reports` says whether its
/// `held` lists them, as the trait asks.
struct Swallow {
    parked: Vec<Packet>,
    reports: bool,
}

impl Routing for Swallow {
    fn name(&self) -> &'static str {
        "swallow"
    }
    fn route(&mut self, _ctx: &mut RouteCtx, pkt: Packet, _origin: Origin) {
        self.parked.push(pkt);
    }
    fn held(&self, f: &mut dyn FnMut(&Packet)) {
        if self.reports {
            self.parked.iter().for_each(f);
        }
    }
}

fn swallowing_run(reports: bool) -> (crate::metrics::report::Audit, Vec<u64>) {
    let mut s = sim(&two_nodes("static"), &[]);
    s.nodes[0].routing = Box::new(Swallow { parked: Vec::new(), reports });
    s.run_until(Time::from_secs(2));
    let audit = s.audit();
    // What the protocol parked, read back through `held` (empty when it
    // does not report).
    let mut uids = Vec::new();
    s.nodes[0].routing.held(&mut |p| uids.push(p.uid));
    (audit, uids)
}

#[test]
fn a_holding_place_that_does_not_report_is_caught_with_its_uids() {
    let (a, _) = swallowing_run(false);
    // 1.0, 1.1, ..., 1.9 s: 10 packets, all parked at node 0.
    assert_eq!(a.created, 10, "{a:?}");
    assert_eq!(a.delivered, 0, "{a:?}");
    assert_eq!(a.unaccounted, 10, "{a:?}");
    assert!(!a.balances());
    // The first 8 of them by uid: the same run reporting them lists them.
    let (_, parked) = swallowing_run(true);
    assert_eq!(a.unaccounted_uids, parked[..8], "{a:?}");
}

#[test]
fn the_same_place_reporting_through_held_balances() {
    let (a, uids) = swallowing_run(true);
    assert_eq!(uids.len(), 10);
    assert_eq!(a.unaccounted, 0, "{a:?}");
    assert_eq!(a.held_at_end.get("routing"), Some(&10), "{a:?}");
    assert!(a.balances(), "{a:?}");
}

/// Uids of tracked packets the nodes' models and the kernel stages report
/// (everything but the pending events).
fn held_outside_events(s: &Simulation) -> HashSet<u64> {
    let mut held = HashSet::new();
    for n in &s.nodes {
        super::node_held(n, &mut |_, p| {
            held.insert(p.uid);
        });
    }
    s.stages_held(&mut |_, p| {
        held.insert(p.uid);
    });
    held
}

/// Data packets whose only trace is a pending event.
fn only_in_events(s: &Simulation) -> Vec<u64> {
    let held = held_outside_events(s);
    let mut v = Vec::new();
    for ev in s.queue.pending() {
        s.event_packets(ev, &mut |_, p| {
            if s.obs.metrics.fate.get(p.uid) == Fate::InFlight && !held.contains(&p.uid) {
                v.push(p.uid);
            }
        });
    }
    v
}

#[test]
fn a_packet_only_in_a_pending_event_at_the_end_is_held_not_unaccounted() {
    // Flooding broadcasts every data packet: the sender's MAC lets go of a
    // broadcast when its transmission ends, while the last bit is still
    // travelling to the receiver (200 m: 667 ns). Then the packet is
    // nowhere but in the frame's pending signal event. End the run there.
    let mut s = sim(&two_nodes("flooding"), &[]);
    s.run_until(Time::ZERO); // starts the run
    let mut at = None;
    while let Some(t) = s.queue.peek_time() {
        if t > Time::from_secs(2) {
            break;
        }
        s.run_until(t);
        let v = only_in_events(&s);
        if !v.is_empty() {
            at = Some((t, v));
            break;
        }
    }
    let (t, uids) = at.expect("a broadcast data frame between its sender's TxEnd and its last bit");
    assert!(t >= Time::from_secs(1));
    let r = s.finish();
    let a = &r.audit;
    assert_eq!(a.unaccounted, 0, "{a:?}");
    assert!(a.balances(), "{a:?}");
    assert_eq!(a.held_at_end.get("air"), Some(&(uids.len() as u64)), "{a:?} at {t}");
    assert_eq!(a.created, a.delivered + uids.len() as u64, "{a:?}");
}

/// Runs to `until` one instant at a time and checks that the audit
/// balances after every instant; returns the places packets were held in.
fn balances_at_every_instant(text: &str, overrides: &[&str], until: Time, max: usize) -> BTreeSet<String> {
    let mut s = sim(text, overrides);
    s.run_until(Time::ZERO); // starts the run
    let mut places = BTreeSet::new();
    let mut n = 0;
    while let Some(t) = s.queue.peek_time() {
        if t > until || n == max {
            break;
        }
        s.run_until(t);
        n += 1;
        let a = s.audit();
        assert!(a.balances(), "at {t} (instant {n}): {a:?}");
        places.extend(a.held_at_end.keys().cloned());
    }
    assert!(n > 1000, "only {n} instants");
    places
}

#[test]
fn the_audit_balances_at_every_instant_with_links_and_a_gateway() {
    // A wired server, a pacing gateway, a priority queue, AODV, TCP and a
    // VoIP call (a golden-snapshot scenario).
    let text = file("tests/snapshots/wired-gateway.toml");
    let places = balances_at_every_instant(&text, &[], Time::from_ms(1500), 30_000);
    for p in ["gateway", "link", "mac", "queue", "routing"] {
        assert!(places.contains(p), "never held in {p}: {places:?}");
    }
}

#[test]
fn the_audit_balances_at_every_instant_with_aodv_arp_and_mobility() {
    // The D9 scenario (elfn-mobile with AODV): route discovery buffers,
    // jittered broadcasts, ns-2 ARP, mobile TCP.
    let text = file("../../scenarios/elfn-mobile.toml");
    let places =
        balances_at_every_instant(&text, &["routing.protocol=aodv", "run.duration=20s"], Time::from_secs(20), 30_000);
    for p in ["arp", "mac", "queue", "routing"] {
        assert!(places.contains(p), "never held in {p}: {places:?}");
    }
}

/// The audit's drops (counted by reason, named once at the end) are the
/// fate table's dropped packets keyed by their reason's ns-2 code, one
/// entry per reason that dropped any: what a map filled per packet gives.
/// The 2-hop CBR chain drops at its source's full queue (IFQ); the mobile
/// ELFN scenario adds other reasons.
#[test]
fn the_audits_drops_are_the_fate_tables_by_reason_code() {
    let cases: [(&str, &[&str]); 3] = [
        ("../../scenarios/bench/ns2/twohop-aodv.toml", &["run.duration=12s"]),
        ("../../scenarios/elfn-mobile.toml", &["routing.protocol=aodv", "run.duration=60s"]),
        ("../../scenarios/elfn-mobile.toml", &["run.duration=60s", "queue.limit=2"]),
    ];
    let mut reasons = BTreeSet::new();
    for (rel, ov) in cases {
        let mut s = sim(&file(rel), ov);
        s.run_until(Time(u64::MAX));
        let mut want = std::collections::BTreeMap::<String, u64>::new();
        for (_, fate) in s.obs.metrics.fate.iter() {
            if let Fate::Dropped(r) = fate {
                *want.entry(r.code().to_string()).or_default() += 1;
            }
        }
        let a = s.audit();
        assert_eq!(a.dropped, want, "{rel}");
        assert!(a.balances(), "{rel}");
        reasons.extend(want.keys().cloned());
    }
    assert!(reasons.contains("IFQ") && reasons.len() >= 3, "{reasons:?}");
}
