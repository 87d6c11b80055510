//! Blind flooding (`net/routing/flooding.rs`) in whole simulations:
//! delivery over a chain and a grid, each node rebroadcasting each packet
//! exactly once, and the hop limit.

use manetlab::metrics::observe::{Action, Layer, Observer, PacketEvent};
use manetlab::net::NodeId;
use manetlab::scenario::Scenario;
use manetlab::{Report, Simulation};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Router-layer forwards and drops per (node, uid), data packets only.
#[derive(Default)]
struct Copies {
    forwards: BTreeMap<(NodeId, u64), u32>,
    dup_drops: u64,
    ttl_drops: BTreeMap<NodeId, u64>,
}

struct Watch(Arc<Mutex<Copies>>);

impl Observer for Watch {
    fn packet(&mut self, ev: &PacketEvent) {
        if ev.pkt.is_control() {
            return;
        }
        let mut c = self.0.lock().unwrap();
        match (ev.layer, ev.action) {
            (Layer::Router, Action::Forward) => *c.forwards.entry((ev.node, ev.pkt.uid)).or_default() += 1,
            (_, Action::Drop(manetlab::sim::DropReason::Dup)) => c.dup_drops += 1,
            (_, Action::Drop(manetlab::sim::DropReason::Ttl)) => *c.ttl_drops.entry(ev.node).or_default() += 1,
            _ => {}
        }
    }
}

fn run(topology: &str, routing: &str, dst: u32) -> (Report, Copies) {
    let text = format!(
        "[run]\nduration = \"20s\"\nseed = 3\n[topology]\n{topology}\n[routing]\nprotocol = \"flooding\"\n{routing}\n\
         [[flow]]\nname = \"f\"\nsrc = 0\ndst = {dst}\ntype = \"cbr\"\npacket_size = \"512B\"\nrate = \"16kbps\"\nstart = \"1s\"\n"
    );
    let sc = Scenario::from_str(&text, "flooding.toml").unwrap();
    let mut sim = Simulation::new(sc.config(3)).unwrap();
    let copies = Arc::new(Mutex::new(Copies::default()));
    sim.add_observer(Box::new(Watch(copies.clone())));
    let r = sim.run();
    assert!(r.audit.balances(), "{:?}", r.audit);
    assert_eq!(r.routing_protocol, "flooding");
    let c = std::mem::take(&mut *copies.lock().unwrap());
    (r, c)
}

/// Every node but the source and the destination forwards every packet
/// exactly once (a connected network, a light load: every node hears at
/// least one copy); duplicates are dropped, at the destination too.
fn check_each_node_forwards_once(r: &Report, c: &Copies, n: u32, dst: u32) {
    let f = &r.flows[0];
    assert!(f.sent_packets >= 70, "{}", f.sent_packets);
    assert_eq!(f.received_packets, f.sent_packets, "every packet delivered");
    assert_eq!(f.duplicates, 0, "the destination discards copies it has delivered");
    assert!(c.forwards.values().all(|&k| k == 1), "a node forwarded a packet twice");
    let uids: std::collections::BTreeSet<u64> = c.forwards.keys().map(|k| k.1).collect();
    assert_eq!(uids.len() as u64, f.sent_packets);
    let relays = n as u64 - 2;
    assert_eq!(c.forwards.len() as u64, f.sent_packets * relays, "each relay forwards each packet once");
    assert!(c.forwards.keys().all(|&(node, _)| node != 0 && node != dst));
    assert_eq!(r.routing.event_count("rebroadcast"), f.sent_packets * relays);
    assert_eq!(r.routing.event_count("originated"), f.sent_packets);
    // Every transmission of a copy reaches each neighbour of the sender;
    // all but the first copy at each node are duplicates.
    assert_eq!(r.routing.event_count("duplicate"), c.dup_drops);
    assert!(c.dup_drops > 0);
    assert!(c.ttl_drops.is_empty());
}

#[test]
fn chain_delivers_each_packet_with_one_rebroadcast_per_node() {
    let (r, c) = run("kind = \"chain\"\nnodes = 6\nspacing = \"200m\"", "", 5);
    check_each_node_forwards_once(&r, &c, 6, 5);
    // On a chain node i hears the copies of i-1 and i+1: the source hears
    // node 1's copy, nodes 1..4 the copy of the next node (the destination
    // does not rebroadcast), the destination only node 4's.
    let f = &r.flows[0];
    assert_eq!(c.dup_drops, f.sent_packets * 4);
}

#[test]
fn grid_delivers_each_packet_with_one_rebroadcast_per_node() {
    let (r, c) = run("kind = \"grid\"\nrows = 4\ncols = 4\nspacing = \"200m\"", "jitter = \"20ms\"", 15);
    check_each_node_forwards_once(&r, &c, 16, 15);
}

#[test]
fn ttl_limits_how_far_copies_travel() {
    // ttl = 2: node 1 rebroadcasts (1 hop travelled), node 2 receives the
    // copy after 2 hops and drops it; nothing reaches node 5.
    let (r, c) = run("kind = \"chain\"\nnodes = 6\nspacing = \"200m\"", "ttl = 2", 5);
    let f = &r.flows[0];
    assert!(f.sent_packets >= 70);
    assert_eq!(f.received_packets, 0);
    assert!(c.forwards.keys().all(|&(node, _)| node == 1));
    assert_eq!(c.forwards.len() as u64, f.sent_packets);
    assert_eq!(c.ttl_drops.keys().copied().collect::<Vec<_>>(), vec![2]);
    assert_eq!(c.ttl_drops[&2], f.sent_packets);
    assert_eq!(r.routing.event_count("ttl_expired"), f.sent_packets);
    // ttl = 5 is just enough for the 5-hop chain.
    let (r, _) = run("kind = \"chain\"\nnodes = 6\nspacing = \"200m\"", "ttl = 5", 5);
    assert_eq!(r.flows[0].received_packets, r.flows[0].sent_packets);
    // ttl = 4 is not.
    let (r, _) = run("kind = \"chain\"\nnodes = 6\nspacing = \"200m\"", "ttl = 4", 5);
    assert_eq!(r.flows[0].received_packets, 0);
}

#[test]
fn flooding_keys_are_checked() {
    let parse = |routing: &str| {
        let text = format!(
            "[run]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing = \"200m\"\n[routing]\nprotocol = \"flooding\"\n{routing}\n"
        );
        Scenario::from_str(&text, "t.toml").map(|_| ()).map_err(|e| e.to_string())
    };
    assert!(parse("ttl = 3\ncache_lifetime = \"5s\"\njitter = \"0s\"").is_ok());
    let e = parse("ttl = 0").unwrap_err();
    assert!(e.contains("'routing.ttl' must be from 1 to 64, got 0") && e.contains(":9:"), "{e}");
    let e = parse("cache_lifetime = \"0s\"").unwrap_err();
    assert!(e.contains("'routing.cache_lifetime' must be greater than zero"), "{e}");
    let e = parse("hello_interval = \"1s\"").unwrap_err();
    assert!(e.contains("is not used by protocol = \"flooding\" (it uses: ttl, cache_lifetime, jitter)"), "{e}");
}
