//! Traffic types through the registry (`app/mod.rs`): the `poisson` type,
//! added as one file (`app/poisson.rs`) plus one registration line, in a
//! whole simulation, and the checks of its keys.

use manetlab::metrics::observe::{Action, Layer, Observer, PacketEvent};
use manetlab::scenario::Scenario;
use manetlab::Simulation;
use std::sync::{Arc, Mutex};

/// Times at which the source's agent sends data packets, seconds.
struct Sends(Arc<Mutex<Vec<f64>>>);

impl Observer for Sends {
    fn packet(&mut self, ev: &PacketEvent) {
        if !ev.pkt.is_control() && ev.node == 0 && ev.layer == Layer::Agent && ev.action == Action::Send {
            self.0.lock().unwrap().push(ev.time.as_secs_f64());
        }
    }
}

fn scenario(flow: &str) -> Result<Scenario, String> {
    let text = format!(
        "[run]\nduration = \"61s\"\nseed = 5\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = \"200m\"\n\
         [[flow]]\nsrc = 0\ndst = 1\n{flow}\n"
    );
    Scenario::from_str(&text, "t.toml").map_err(|e| e.to_string())
}

#[test]
fn poisson_flow_sends_a_poisson_process_end_to_end() {
    // 50 packets/s of 200 B (80 kbit/s) for 60 s over one light hop: the
    // count is Poisson(3000), sd 55 (tolerance 5 sd); the gaps the agent
    // really sent at have a coefficient of variation of 1 (standard error
    // ~0.026 at n = 3000 for an exponential, tolerance 0.1), where CBR
    // gives 0; every packet is delivered.
    let sc = scenario("type = \"poisson\"\npacket_size = \"200B\"\nrate = \"80kbps\"\nstart = \"1s\"").unwrap();
    let mut sim = Simulation::new(sc.config(5)).unwrap();
    let sends = Arc::new(Mutex::new(Vec::new()));
    sim.add_observer(Box::new(Sends(sends.clone())));
    let r = sim.run();
    let f = &r.flows[0];
    assert_eq!(f.kind, "poisson");
    assert!((f.sent_packets as f64 - 3000.0).abs() < 275.0, "{} packets", f.sent_packets);
    assert_eq!(f.received_packets, f.sent_packets);
    assert!(r.audit.balances(), "{:?}", r.audit);
    let t = sends.lock().unwrap().clone();
    assert_eq!(t.len() as u64, f.sent_packets);
    assert!(t[0] > 1.0 && *t.last().unwrap() < 61.0);
    let g: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    let n = g.len() as f64;
    let mean = g.iter().sum::<f64>() / n;
    let sd = (g.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt();
    assert!((mean - 0.02).abs() < 0.002, "mean gap {mean}");
    assert!((sd / mean - 1.0).abs() < 0.1, "CV {}", sd / mean);
    // The same seed gives the same packets; another seed other ones.
    let again = Simulation::new(sc.config(5)).unwrap().run();
    assert_eq!(again.flows[0].sent_packets, f.sent_packets);
    let other = Simulation::new(sc.config(6)).unwrap().run();
    assert_ne!(other.flows[0].sent_packets, f.sent_packets);
}

#[test]
fn poisson_keys_are_checked_with_positions() {
    assert!(scenario("type = \"poisson\"\npacket_size = \"200B\"\ninterval = \"5ms\"").is_ok());
    let e = scenario("type = \"poisson\"\nrate = \"80kbps\"").unwrap_err();
    assert!(e.contains("missing 'flow.0.packet_size': a poisson flow needs its UDP payload size"), "{e}");
    assert!(e.contains(":11:"), "points at the type line: {e}");
    let e = scenario("type = \"poisson\"\npacket_size = \"200B\"\nrate = \"80kbps\"\ninterval = \"5ms\"").unwrap_err();
    assert!(e.contains("give either 'flow.0.rate' or 'flow.0.interval', not both") && e.contains(":14:"), "{e}");
    let e = scenario("type = \"poisson\"\npacket_size = \"200B\"\nrate = \"80kbps\"\nburst = 3").unwrap_err();
    assert!(
        e.contains("'flow.0.burst' is not used by type = \"poisson\" (it uses: packet_size, rate, interval)"),
        "{e}"
    );
    let e = scenario("type = \"poisson\"\npacket_size = \"9000B\"\nrate = \"80kbps\"").unwrap_err();
    assert!(e.contains("'flow.0.packet_size' must be from 1B to 2276B"), "{e}");
    let e = scenario("type = \"poisson\"\npacket_size = \"200B\"\nrte = \"80kbps\"").unwrap_err();
    assert!(e.contains("unknown field 'rte' in [[flow]] #0") && e.contains("did you mean 'rate'?"), "{e}");
    let e = scenario("type = \"pareto\"").unwrap_err();
    assert!(e.contains("expected one of: cbr, tcp, ftp, tfrc, voip, poisson"), "{e}");
}

#[test]
fn every_registered_type_name_is_unique_and_builds() {
    let mut names: Vec<&str> = manetlab::app::TRAFFIC_TYPES.iter().flat_map(|t| t.types.iter().copied()).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "a type name registered twice");
    for (ty, keys) in [
        ("cbr", "packet_size = \"100B\"\ninterval = \"1s\""),
        ("tcp", ""),
        ("ftp", "bytes = \"10KB\""),
        ("tfrc", ""),
        ("voip", ""),
        ("poisson", "packet_size = \"100B\"\ninterval = \"1s\""),
    ] {
        let sc = scenario(&format!("type = \"{ty}\"\n{keys}")).unwrap_or_else(|e| panic!("{ty}: {e}"));
        let r = Simulation::new(sc.config(1)).unwrap().run();
        assert!(r.flows[0].received_packets > 0, "{ty}");
        assert_eq!(r.flows[0].kind, if ty == "ftp" { "tcp" } else { ty });
    }
}
