//! `recovery = "ns3-prr"` (sender/ns3.rs) over the test network.

use super::*;

fn ns3_cfg() -> TcpConfig {
    TcpConfig { recovery: TcpRecovery::Ns3Prr, limited_transmit: true, initial_cwnd: 10, max_window: 1000, ..cfg() }
}

/// Segments the sender put on the wire, in order: (seq number, first send?).
fn sends(net: &Net) -> Vec<(u64, bool)> {
    let mut high = 0;
    net.sent
        .iter()
        .filter(|(_, s)| s.len > 0)
        .map(|(_, s)| {
            let new = s.seq >= high;
            high = high.max(s.seq + s.len as u64);
            (s.seq / MSS, new)
        })
        .collect()
}

/// One loss in a window: ns-3 sends one new segment per duplicate ACK
/// during recovery (PRR with no delivery counted for a non-SACK duplicate
/// ACK), so the flight is not reduced until recovery ends with
/// cwnd = ssthresh; exactly the lost segment is resent, no timeout.
#[test]
fn test_ns3_prr_one_loss_keeps_the_flight_and_ends_at_ssthresh() {
    let c = TcpConfig { initial_ssthresh: Some(12), ..ns3_cfg() };
    let mut net = Net::new(c, DataSource::Finite(60 * MSS), 10, 500);
    net.drop_data = drop_first(&[20]);
    net.run_to_completion(Time::from_secs(60));
    let st = net.tx.stats().clone();
    assert_eq!((st.timeouts, st.fast_retransmits, st.retransmissions, st.partial_acks), (0, 1, 1, 0));
    assert_eq!(net.delivered, 60 * MSS);
    // In flight between the loss and the retransmission's ACK: never fewer
    // than before the loss (each duplicate ACK let one new segment out).
    let s = sends(&net);
    let rtx = s.iter().position(|&(_, new)| !new).unwrap();
    assert_eq!(s[rtx].0, 20);
    let new_during: Vec<u64> = s[rtx + 1..].iter().take_while(|&&(q, _)| q < 60).map(|&(q, _)| q).take(5).collect();
    assert_eq!(new_during.len(), 5, "new data keeps flowing in recovery");
    // ssthresh = flight / 2 (NewReno), cwnd = ssthresh at the exit, then
    // congestion avoidance.
    let ss = net.tx.trace().ssthresh.points();
    let after = ss.last().unwrap().1;
    assert!(after < 12.0);
    assert_eq!(after, 7.0, "14 segments outstanding at the third duplicate ACK");
    // cwnd = pipe + 1 (the retransmission) through recovery, then
    // ssthresh + 1/ssthresh (the exit's congestion-avoidance step).
    let cw: Vec<f64> = net.tx.trace().cwnd.points().iter().filter(|p| p.0 >= ss[1].0).map(|p| p.1).take(2).collect();
    assert_eq!(cw[0], 12.0);
    assert!((cw[1] - (7.0 + 1.0 / 7.0)).abs() < 1e-9, "{cw:?}");
}

/// Two losses in one window: the partial ACK marks the new head lost and
/// resends it at once (RFC 6582 as ns-3 does it), without a timeout; the
/// classic NewReno sender also repairs both, but its window inflation sends
/// nothing new until half the window's duplicate ACKs have arrived.
#[test]
fn test_ns3_prr_two_losses_repaired_by_the_partial_ack() {
    let mut firsts = Vec::new();
    for recovery in [TcpRecovery::Ns3Prr, TcpRecovery::Classic] {
        let c = TcpConfig { initial_ssthresh: Some(16), recovery, ..ns3_cfg() };
        let mut net = Net::new(c, DataSource::Finite(80 * MSS), 10, 500);
        net.drop_data = drop_first(&[30, 33]);
        net.run_to_completion(Time::from_secs(60));
        let st = net.tx.stats().clone();
        assert_eq!((st.timeouts, st.fast_retransmits, st.retransmissions), (0, 1, 2), "{recovery:?}");
        assert_eq!(st.partial_acks, 1);
        assert_eq!(net.delivered, 80 * MSS);
        // Time from the fast retransmit of 30 to the next new segment.
        let t_rtx = net.sent.iter().find(|(_, s)| s.seq == 30 * MSS && s.len > 0).map(|p| p.0);
        let t_rtx = net.sent.iter().filter(|(_, s)| s.seq == 30 * MSS).nth(1).map(|p| p.0).or(t_rtx).unwrap();
        let high = net.sent.iter().filter(|(t, _)| *t <= t_rtx).map(|(_, s)| s.seq).max().unwrap();
        let t_new = net.sent.iter().find(|(t, s)| *t >= t_rtx && s.seq > high).unwrap().0;
        firsts.push(t_new - t_rtx);
    }
    // One serialisation time (0.5 ms) = the next duplicate ACK.
    assert_eq!(firsts[0], Time::from_us(500), "ns3-prr: the next duplicate ACK sends new data");
    assert!(firsts[1] > Time::from_ms(3), "classic inflation waits for half a window: {firsts:?}");
}

/// A lost tail (no duplicate ACKs): only the RTO recovers, go-back-N
/// from the head with the window reset to one segment.
#[test]
fn test_ns3_prr_tail_loss_times_out_and_goes_back_n() {
    let mut net = Net::new(ns3_cfg(), DataSource::Finite(20 * MSS), 10, 500);
    net.drop_data = drop_first(&(10..20).collect::<Vec<_>>());
    net.run_to_completion(Time::from_secs(60));
    let st = net.tx.stats().clone();
    assert_eq!((st.timeouts, st.fast_retransmits, st.retransmissions), (1, 0, 10));
    assert_eq!(net.delivered, 20 * MSS);
    let s = sends(&net);
    let rtx: Vec<u64> = s.iter().filter(|&&(_, new)| !new).map(|&(q, _)| q).collect();
    assert_eq!(rtx, (10..20).collect::<Vec<_>>());
}
