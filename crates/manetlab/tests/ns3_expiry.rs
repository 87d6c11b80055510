//! ns-3.37's in-flight MPDU expiry and station retry counters through the
//! kernel (`queue.expire_in_flight`, `mac.retry_counters`; the semantics
//! are unit-tested in `mac/tests.rs`). Node 0 sends to a next hop 1 km
//! away that never answers, with a 10 ms queue lifetime: 7 DATA attempts
//! take at least 7 x 2.7 ms, so no frame reaches the retry limit within
//! its lifetime.

mod common;
use common::*;
use manetlab::config::SimConfig;
use manetlab::mac::RetryCounters;
use manetlab::net::routing::RoutingConfig;
use manetlab::sim::Time;
use manetlab::Report;

fn unanswered(expire_in_flight: bool, counters: RetryCounters) -> Report {
    let mut cfg = base(SimConfig::chain_positions(2, 1000.0), 5);
    cfg.routing = RoutingConfig::Static { paths: vec![vec![0, 1]] };
    cfg.mac.rts_threshold = None;
    cfg.mac.retry_counters = counters;
    cfg.queue.max_delay = Some(Time::from_ms(10));
    cfg.queue.expire_in_flight = expire_in_flight;
    cfg.flows = vec![cbr("udp", 0, 1, 512, 100e3, 1.0)];
    run(cfg)
}

#[test]
fn in_flight_expiry_ends_frames_before_the_retry_limit_and_station_counters_carry_over() {
    let counts = |r: &Report| {
        let n = &r.nodes[0];
        let d = |k: &str| n.drops.get(k).copied().unwrap_or(0);
        (d("IFQ"), d("RET"), n.mac.ack_failures)
    };
    // Without in-flight expiry every frame the MAC takes is tried 7 times.
    let (ifq, ret, fails) = counts(&unanswered(false, RetryCounters::Mpdu));
    assert!(ret > 20 && fails >= 7 * ret && fails < 7 * ret + 7, "ifq {ifq} ret {ret} failures {fails}");
    // With it and per-frame counters, none reaches the limit: all expire
    // (after one or two attempts: the contention window, reset only by a
    // success or a retry-limit drop, stays at its maximum).
    let (ifq, ret, fails) = counts(&unanswered(true, RetryCounters::Mpdu));
    assert_eq!(ret, 0, "ifq {ifq} failures {fails}");
    assert!(ifq > 50 && fails > ifq && fails < 3 * ifq, "ifq {ifq} failures {fails}");
    // ns-3.37: the station's counter is reset only at the retry limit, so
    // every 7th failure drops a frame (RET) whatever frame it is, and most
    // frames expire in between.
    let (ifq, ret, fails) = counts(&unanswered(true, RetryCounters::Station));
    assert!(ret > 10 && fails >= 7 * ret && fails < 7 * ret + 7, "ifq {ifq} ret {ret} failures {fails}");
    assert!(ifq > ret, "ifq {ifq} ret {ret}");
}
