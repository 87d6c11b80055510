//! The coexistence paper's gateway topology (`scenarios/voip-gateway.toml`:
//! server = 30 ms wire = gateway + 4 hops of 802.11a at 12 Mbit/s = client,
//! a TCP download and a two-way call) and the gateway controls of
//! `net/gateway.rs`: window clamp, data pacing, ACK pacing.

use manetlab::config::{SimConfig, Traffic};
use manetlab::net::gateway::GatewayConfig;
use manetlab::net::routing::{AodvConfig, RoutingConfig};
use manetlab::scenario::Scenario;
use manetlab::transport::tcp::{SeqEvent, TcpTrace};
use manetlab::{Report, Simulation};

const SCENARIO: &str = include_str!("../../../scenarios/voip-gateway.toml");
const MSS: u64 = 1460;
/// The TCP flow's IP packet size.
const DATA: f64 = 1500.0;

/// The scenario with static routes (deterministic paths), 20 s.
fn config(gateway: Option<GatewayConfig>) -> SimConfig {
    let s = Scenario::from_str(SCENARIO, "voip-gateway.toml").unwrap_or_else(|e| panic!("{e}"));
    let mut cfg = s.config(s.seed());
    cfg.duration = manetlab::sim::Time::from_secs(20);
    cfg.routing = RoutingConfig::Static { paths: vec![] };
    if let Traffic::Tcp { tcp, .. } = &mut cfg.flows[1].traffic {
        assert_eq!(tcp.mss as u64, MSS);
        tcp.record_seq_log = true;
    }
    cfg.gateway = gateway;
    cfg
}

fn gw(f: impl FnOnce(&mut GatewayConfig)) -> Option<GatewayConfig> {
    let mut g = GatewayConfig { node: 0, ..GatewayConfig::default() };
    f(&mut g);
    Some(g)
}

fn run(cfg: SimConfig) -> (Report, TcpTrace) {
    let mut sim = Simulation::new(cfg).unwrap();
    sim.run_until(sim.config().duration);
    let trace = sim.tcp_trace(1).unwrap();
    let r = sim.finish();
    assert!(r.audit.balances(), "{:?}", r.audit);
    (r, trace)
}

/// Largest number of segments sent and not yet acknowledged.
fn max_flight(t: &TcpTrace) -> u64 {
    let (mut acked, mut most) = (0, 0);
    for e in &t.seq {
        match e.event {
            SeqEvent::Acked => acked = acked.max(e.seq),
            SeqEvent::Sent => most = most.max((e.seq + MSS - acked).div_ceil(MSS)),
            _ => {}
        }
    }
    most
}

/// IP-level rate of the TCP flow (payload goodput scaled to packets).
fn tcp_ip_bps(r: &Report) -> f64 {
    r.flows[1].goodput_bps * DATA / MSS as f64
}

#[test]
fn gateway_topology_carries_tcp_and_a_call_with_aodv_and_static_routes() {
    for routing in [RoutingConfig::Static { paths: vec![] }, RoutingConfig::Aodv(AodvConfig::default())] {
        let name = routing.name();
        let mut cfg = config(None);
        cfg.routing = routing;
        let (r, _) = run(cfg);
        let (call, tcp) = (&r.flows[0], &r.flows[1]);
        println!(
            "{name}: call {:.3} delivered, {:.1} ms; tcp {:.0} kbit/s",
            call.delivery_ratio.unwrap(),
            call.delay_mean_s.unwrap() * 1e3,
            tcp.goodput_bps / 1e3
        );
        // Both directions of the call cross the wire and the 4 hops.
        let v = call.voip.as_ref().unwrap();
        assert!(call.delivery_ratio.unwrap() > 0.9, "{name}: {call:?}");
        assert!(call.delay_mean_s.unwrap() > 0.030, "{name}: the 30 ms wire is on the path");
        assert!(tcp.goodput_bps > 300e3, "{name}: {tcp:?}");
        // Unrestricted TCP: the call is not supported (paper: MOS < 2 with TCP).
        assert!(v.mos < 3.6, "{name}: MOS {}", v.mos);
        assert_eq!(r.nodes[5].mac.data_sent, 0, "the server has no radio");
        assert!(r.gateway.is_none());
    }
}

#[test]
fn window_of_two_segments_limits_the_flight_and_protects_the_call() {
    let (free, free_t) = run(config(None));
    let (w2, w2_t) = run(config(gw(|g| g.window = Some(2))));
    let (f, c) = (max_flight(&free_t), max_flight(&w2_t));
    let (d_free, d_w2) = (free.flows[0].delay_mean_s.unwrap(), w2.flows[0].delay_mean_s.unwrap());
    println!("flight {f} -> {c}; call delay {:.1} -> {:.1} ms", d_free * 1e3, d_w2 * 1e3);
    assert_eq!(c, 2, "W = 2 segments in flight at most");
    assert!(f >= 8, "uncontrolled flight {f}");
    assert!(d_w2 < 0.6 * d_free, "call delay {d_free} -> {d_w2}");
    assert!(w2.flows[0].voip.as_ref().unwrap().mos >= 3.6);
    let g = w2.gateway.unwrap();
    // Every ACK the client sent crossed the gateway and was lowered.
    assert!(g.acks_rewritten > 500, "{g:?}");
    assert_eq!((g.data_paced, g.acks_paced, g.pacing_drops), (0, 0, 0));
    // W = 2 over an RTT of about 70 ms: about 2 * 1500 * 8 / 0.07 = 340 kbit/s.
    let rtt = w2.flows[1].tcp.as_ref().unwrap().srtt_s.unwrap();
    let bound = 2.0 * DATA * 8.0 / rtt;
    assert!(tcp_ip_bps(&w2) <= bound * 1.05, "{} vs {bound} (srtt {rtt})", tcp_ip_bps(&w2));
    assert!(tcp_ip_bps(&w2) > 0.7 * bound);
}

#[test]
fn data_pacing_caps_goodput_at_the_rate_and_leaves_voip_alone() {
    for rate in [300e3, 600e3, 1000e3] {
        let (r, _) = run(config(gw(|g| g.pacing = Some(rate))));
        let got = tcp_ip_bps(&r);
        let g = r.gateway.unwrap();
        println!("pacing {rate}: {got:.0} bit/s, call delay {:.1} ms, {g:?}", r.flows[0].delay_mean_s.unwrap() * 1e3);
        // The shaper releases at most R (plus one packet over the run).
        assert!(got <= rate * 1.01, "{got} > {rate}");
        // Below capacity (about 1.5 Mbit/s here), close to R.
        assert!(got >= rate * 0.9, "{got} << {rate}");
        assert!(g.data_delayed > 0 && g.data_paced as f64 > 0.9 * rate * 18.0 / (DATA * 8.0), "{g:?}");
        // The call is not shaped: wire + 4 hops, no queueing at the gateway.
        assert!(r.flows[0].delay_mean_s.unwrap() < 0.040, "{:?}", r.flows[0]);
    }
    // Above capacity pacing does not raise the flow beyond it.
    let (r, _) = run(config(gw(|g| g.pacing = Some(3e6))));
    assert!(tcp_ip_bps(&r) < 2.5e6);
}

#[test]
fn ack_pacing_spaces_the_data_to_the_rate() {
    let (free, _) = run(config(None));
    let (r, _) = run(config(gw(|g| g.ack_pacing = Some(600e3))));
    let got = tcp_ip_bps(&r);
    let g = r.gateway.unwrap();
    println!("ack pacing 600k: {got:.0} bit/s, call delay {:.1} ms, {g:?}", r.flows[0].delay_mean_s.unwrap() * 1e3);
    assert!((600e3 * 0.85..=600e3 * 1.02).contains(&got), "{got}");
    assert!(g.acks_delayed > 100 && g.acks_paced > 500, "{g:?}");
    assert_eq!(g.data_paced, 0);
    assert!(r.flows[0].delay_mean_s.unwrap() < 0.6 * free.flows[0].delay_mean_s.unwrap());
}

#[test]
fn a_full_shaper_drops_with_reason_pace_and_the_audit_balances() {
    let (r, _) = run(config(gw(|g| {
        g.pacing = Some(200e3);
        g.pacing_queue = 3;
    })));
    let g = r.gateway.unwrap();
    assert!(g.pacing_drops > 0, "{g:?}");
    assert_eq!(g.data_backlog_max, 3);
    assert_eq!(r.audit.dropped.get("PACE").copied(), Some(g.pacing_drops));
    assert_eq!(r.nodes[0].drops.get("PACE").copied(), Some(g.pacing_drops));
    assert!(tcp_ip_bps(&r) <= 200e3 * 1.01);
}

#[test]
fn scenario_gateway_keys_and_errors() {
    let with = |extra: &str| format!("{SCENARIO}\n[gateway]\n{extra}\n");
    let s = Scenario::from_str(
        &with("node = 0\nwindow = 4\npacing = \"600kbps\"\nack_pacing = \"500kbps\"\npacing_queue = 20"),
        "t",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        s.config(1).gateway,
        Some(GatewayConfig {
            node: 0,
            window: Some(4),
            pacing: Some(600e3),
            ack_pacing: Some(500e3),
            pacing_queue: 20
        })
    );
    let s = Scenario::from_str(&with("node = 0"), "t").unwrap();
    assert_eq!(s.config(1).gateway, Some(GatewayConfig::default()));
    let e = |extra: &str| Scenario::from_str(&with(extra), "t").unwrap_err().to_string();
    assert!(e("node = 2").contains("gateway node 2 has no [[link]]"), "{}", e("node = 2"));
    assert!(e("node = 5").contains("has no radio"), "{}", e("node = 5"));
    assert!(e("node = 9").contains("is not a node"));
    assert!(e("node = 0\nwindow = 0").contains("'gateway.window' must be at least 1"));
    assert!(e("node = 0\npacing = \"0kbps\"").contains("greater than zero"));
    assert!(e("node = 0\nwindows = 4").contains("windows"), "{}", e("node = 0\nwindows = 4"));
    // The simulator refuses the same mistakes in a SimConfig.
    let mut cfg = config(gw(|g| g.node = 2));
    assert!(Simulation::new(cfg.clone()).err().unwrap().to_string().contains("no wired link"));
    cfg.gateway = gw(|g| g.node = 5);
    assert!(Simulation::new(cfg).err().unwrap().to_string().contains("wired only"));
}
