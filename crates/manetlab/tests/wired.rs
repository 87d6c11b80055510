//! Point-to-point wired links (`net/wired.rs`): timing, the drop-tail
//! queue, and wireless nodes reaching a wired-only host through a gateway
//! with static routes, AODV and DSR.

mod common;
use common::*;
use manetlab::config::{Position, SimConfig};
use manetlab::net::routing::{AodvConfig, DsrConfig, RoutingConfig};
use manetlab::net::wired::{LinkConfig, WiredConfig};
use manetlab::scenario::Scenario;
use manetlab::sim::Time;

fn link(a: u32, b: u32, mbps: f64, delay_ms: u64, queue: usize) -> LinkConfig {
    LinkConfig { a, b, bandwidth_bps: (mbps * 1e6) as u64, delay: Time::from_ms(delay_ms), queue }
}

/// Two wired-only hosts 5 km apart (far beyond radio range).
fn wired_pair(mbps: f64, queue: usize) -> SimConfig {
    let mut cfg = base(vec![Position::new(0.0, 0.0), Position::new(5000.0, 0.0)], 20);
    cfg.wired = WiredConfig { links: vec![link(0, 1, mbps, 10, queue)], wired_only: vec![0, 1] };
    cfg
}

#[test]
fn delay_is_serialisation_plus_propagation() {
    let mut cfg = wired_pair(2.0, 50);
    // 972 B payload + 28 B UDP/IP = 1000 B: 4 ms at 2 Mbit/s, + 10 ms.
    cfg.flows = vec![cbr("f", 0, 1, 972, 500e3, 1.0), cbr("back", 1, 0, 972, 500e3, 1.0)];
    let r = run(cfg);
    for f in &r.flows {
        assert!(f.sent_packets > 1000);
        assert!(f.received_packets + 1 >= f.sent_packets, "{f:?}");
        assert!((f.delay_mean_s.unwrap() - 0.014).abs() < 1e-9, "delay {}", f.delay_mean_s.unwrap());
        assert!((f.delay_max_s.unwrap() - 0.014).abs() < 1e-9);
        assert!(f.jitter_s.unwrap() < 1e-9);
    }
    // No radio was used.
    assert!(r.nodes.iter().all(|n| n.mac.data_sent == 0), "{:?}", r.nodes[0].mac);
}

#[test]
fn bottleneck_saturates_and_drops_at_its_queue() {
    // 3 Mbit/s offered into 2 Mbit/s with a 10-packet queue.
    let mut cfg = wired_pair(2.0, 10);
    cfg.flows = vec![cbr("f", 0, 1, 972, 3e6, 1.0)];
    let r = run(cfg);
    let f = &r.flows[0];
    // Payload goodput = 2 Mbit/s * 972/1000 over the 19 s of the flow.
    let want = 2e6 * 0.972;
    assert!((f.goodput_bps / want - 1.0).abs() < 0.01, "goodput {} want {want}", f.goodput_bps);
    let ifq = r.audit.dropped.get("IFQ").copied().unwrap_or(0);
    assert!(ifq as f64 > 0.3 * f.sent_packets as f64, "drops {ifq} of {}", f.sent_packets);
    // Queueing delay: 10 packets ahead at 4 ms each, plus 4 ms + 10 ms.
    assert!((f.delay_max_s.unwrap() - 0.054).abs() < 0.0045, "max delay {}", f.delay_max_s.unwrap());
}

/// 0 - 1 - 2 wireless chain (200 m), node 2 is the gateway of wired-only
/// host 3 (10 Mbit/s, 5 ms).
fn gateway(routing: RoutingConfig) -> SimConfig {
    let mut cfg = base(
        vec![Position::new(0.0, 0.0), Position::new(200.0, 0.0), Position::new(400.0, 0.0), Position::new(2000.0, 0.0)],
        30,
    );
    cfg.routing = routing;
    cfg.wired = WiredConfig { links: vec![link(2, 3, 10.0, 5, 50)], wired_only: vec![3] };
    cfg.flows = vec![cbr("up", 0, 3, 512, 100e3, 1.0), cbr("down", 3, 0, 512, 100e3, 1.5)];
    cfg
}

#[test]
fn wireless_nodes_reach_a_wired_host_through_the_gateway() {
    let protocols = [
        RoutingConfig::Static { paths: vec![] },
        RoutingConfig::Aodv(AodvConfig::default()),
        RoutingConfig::Dsr(DsrConfig::default()),
    ];
    for p in protocols {
        let name = p.name();
        let r = run(gateway(p));
        for f in &r.flows {
            println!(
                "{name} {}: {} of {} delay {:.4}",
                f.name,
                f.received_packets,
                f.sent_packets,
                f.delay_mean_s.unwrap()
            );
            assert!(f.delivery_ratio.unwrap() > 0.97, "{name} {}: {f:?}", f.name);
            // Two radio hops plus the wire: above the wire's 5 ms.
            assert!(f.delay_mean_s.unwrap() > 0.005);
        }
        // The wired host sent nothing over the air, the gateway forwarded.
        assert_eq!(r.nodes[3].mac.data_sent, 0, "{name}");
        assert!(r.nodes[2].forwarded > 0);
    }
}

#[test]
fn static_routes_cross_a_wire_between_two_radio_islands() {
    // 0 - 1 (radio) ... 1 = 2 (wire, 3 km) ... 2 - 3 (radio).
    let mut cfg = base(
        vec![
            Position::new(0.0, 0.0),
            Position::new(200.0, 0.0),
            Position::new(3200.0, 0.0),
            Position::new(3400.0, 0.0),
        ],
        10,
    );
    cfg.wired = WiredConfig { links: vec![link(1, 2, 10.0, 15, 50)], wired_only: vec![] };
    cfg.flows = vec![cbr("f", 0, 3, 512, 100e3, 1.0)];
    let r = run(cfg);
    assert!(r.flows[0].delivery_ratio.unwrap() > 0.98, "{:?}", r.flows[0]);
    assert!(r.flows[0].delay_mean_s.unwrap() > 0.015);
}

#[test]
fn scenario_links_and_wired_only_nodes() {
    let text = r#"
[run]
duration = "5s"
[topology]
kind = "explicit"
positions = [[0, 0], [200, 0], [5000, 0]]
[[link]]
a = 1
b = 2
bandwidth = "10Mbps"
delay = "30ms"
queue = 20
[wired]
only = [2]
[[flow]]
src = 0
dst = 2
type = "cbr"
packet_size = "512B"
interval = "100ms"
"#;
    let s = Scenario::from_str(text, "t.toml").unwrap();
    let cfg = s.config(1);
    assert_eq!(cfg.wired.links, vec![link(1, 2, 10.0, 30, 20)]);
    assert_eq!(cfg.wired.wired_only, vec![2]);
    let r = run(cfg);
    assert!(r.flows[0].delivery_ratio.unwrap() > 0.95);
    // Errors: a self link, a typo, a link given twice, a wired-only node
    // without a link.
    let bad = [
        ("a = 1\nb = 2", "a = 1\nb = 1", "to itself"),
        ("queue = 20", "queu = 20", "queu"),
        ("only = [2]", "only = [2, 0]", "has no [[link]]"),
    ];
    for (from, to, msg) in bad {
        let e = Scenario::from_str(&text.replace(from, to), "t.toml").map(|_| ()).expect_err(msg).to_string();
        assert!(e.contains(msg), "{e}");
    }
    let twice = format!("{text}\n[[link]]\na = 2\nb = 1\nbandwidth = \"1Mbps\"\ndelay = \"1ms\"\n");
    let e = Scenario::from_str(&twice, "t.toml").err().unwrap().to_string();
    assert!(e.contains("again"), "{e}");
}
