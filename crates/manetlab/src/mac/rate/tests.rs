//! Defining behaviour of each rate controller, driven directly.

use super::aarf::{Aarf, MAX_SUCCESS_THRESHOLD};
use super::arf::Arf;
use super::ideal::Ideal;
use super::minstrel::Minstrel;
use super::*;
use crate::phy::{PhyMode, PhyStandard, Preamble};
use crate::sim::{Purpose, RngStream, Time};

fn b11() -> PhyMode {
    PhyMode { standard: PhyStandard::Dsss, preamble: Preamble::Long, data_rate: 11_000_000, basic_rate: 2_000_000 }
}

const D: MacAddr = 3;
const T: Time = Time::ZERO;

#[test]
fn rate_set_and_response_rates() {
    assert_eq!(rate_set(&b11()), vec![1_000_000, 2_000_000, 5_500_000, 11_000_000]);
    let p = PhyMode { data_rate: 5_500_000, ..b11() };
    assert_eq!(rate_set(&p), vec![1_000_000, 2_000_000, 5_500_000]);
    // ACK to an 11 or 5.5 Mbit/s frame at the 2 Mbit/s basic rate, to a
    // 1 Mbit/s frame at 1 Mbit/s (never faster than the frame answered).
    assert_eq!(control_rate(&b11(), 11_000_000), 2_000_000);
    assert_eq!(control_rate(&b11(), 2_000_000), 2_000_000);
    assert_eq!(control_rate(&b11(), 1_000_000), 1_000_000);
    let a = PhyMode { standard: PhyStandard::Ofdm, data_rate: 54_000_000, basic_rate: 24_000_000, ..b11() };
    assert_eq!(control_rate(&a, 54_000_000), 24_000_000);
    assert_eq!(control_rate(&a, 18_000_000), 12_000_000);
    assert_eq!(control_rate(&a, 9_000_000), 6_000_000);
}

#[test]
fn arf_falls_after_two_failures_and_rises_after_ten_successes() {
    let mut a = Arf::new(rate_set(&b11()));
    assert_eq!(a.data_rate(T, D, 1500, 0), 11_000_000, "starts at the highest rate");
    a.on_data_failed(T, D, 11_000_000, 0);
    assert_eq!(a.data_rate(T, D, 1500, 1), 11_000_000, "one failure does not fall back");
    a.on_data_failed(T, D, 11_000_000, 1);
    assert_eq!(a.data_rate(T, D, 1500, 2), 5_500_000, "two consecutive failures fall back one step");
    a.on_data_failed(T, D, 5_500_000, 2);
    a.on_data_ok(T, D, 5_500_000, 3);
    a.on_data_failed(T, D, 5_500_000, 0);
    assert_eq!(a.data_rate(T, D, 1500, 1), 5_500_000, "failures separated by a success are not consecutive");
    a.on_data_ok(T, D, 5_500_000, 1);
    // Ten successes in a row move up; nine do not (13 attempts at 5.5
    // Mbit/s so far: the 15-attempt timer has not fired).
    for i in 0..8 {
        a.on_data_ok(T, D, 5_500_000, 0);
        assert_eq!(a.data_rate(T, D, 1500, 0), 5_500_000, "after {} successes", i + 2);
    }
    a.on_data_ok(T, D, 5_500_000, 0);
    assert_eq!(a.data_rate(T, D, 1500, 0), 11_000_000, "after 10 successes");
    let mut b = Arf::new(rate_set(&b11()));
    for _ in 0..2 {
        b.on_data_failed(T, D, 11_000_000, 0);
    }
    assert_eq!(b.data_rate(T, D, 1500, 0), 5_500_000);
    for i in 0..10 {
        assert_eq!(b.data_rate(T, D, 1500, 0), 5_500_000, "{i} successes");
        b.on_data_ok(T, D, 5_500_000, 0);
    }
    assert_eq!(b.data_rate(T, D, 1500, 0), 11_000_000, "10 successes move up");
    // The first frame after moving up is a probe: one failure falls back.
    b.on_data_failed(T, D, 11_000_000, 0);
    assert_eq!(b.data_rate(T, D, 1500, 1), 5_500_000, "a failed probe falls back at once");
    // Other neighbours are independent.
    assert_eq!(b.data_rate(T, 7, 1500, 0), 11_000_000);
}

#[test]
fn arf_timer_moves_up_without_ten_successes_in_a_row() {
    let mut a = Arf::new(rate_set(&b11()));
    a.on_data_failed(T, D, 11_000_000, 0);
    a.on_data_failed(T, D, 11_000_000, 1);
    assert_eq!(a.data_rate(T, D, 1500, 0), 5_500_000);
    // success, failure, success, ...: never 10 in a row, never 2 failures
    // in a row; the 15th attempt at 5.5 Mbit/s fires the timer.
    let mut n = 0;
    while a.data_rate(T, D, 1500, 0) == 5_500_000 {
        if n % 2 == 0 {
            a.on_data_ok(T, D, 5_500_000, 0);
        } else {
            a.on_data_failed(T, D, 5_500_000, 0);
        }
        n += 1;
        assert!(n < 100);
    }
    assert_eq!(n, 15, "timer of 15 attempts");
}

#[test]
fn aarf_doubles_the_success_threshold_on_failed_probes() {
    let mut a = Aarf::new(rate_set(&b11()));
    a.on_data_failed(T, D, 11_000_000, 0);
    a.on_data_failed(T, D, 11_000_000, 1);
    assert_eq!(a.data_rate(T, D, 1500, 0), 5_500_000);
    assert_eq!(a.success_threshold(D), 10);
    // Each round: successes until it moves up, then a failed probe.
    let mut needed = Vec::new();
    for _ in 0..5 {
        let mut n = 0;
        while a.data_rate(T, D, 1500, 0) == 5_500_000 {
            a.on_data_ok(T, D, 5_500_000, 0);
            n += 1;
        }
        needed.push(n);
        a.on_data_failed(T, D, 11_000_000, 0); // the probe fails
        assert_eq!(a.data_rate(T, D, 1500, 0), 5_500_000);
    }
    // 10, then 20, 40, then capped at 50 (the timer doubles alike).
    assert_eq!(needed, vec![10, 20, 40, 50, 50]);
    assert_eq!(a.success_threshold(D), MAX_SUCCESS_THRESHOLD);
    // A normal fallback (two consecutive failures) resets it to 10.
    a.on_data_failed(T, D, 5_500_000, 0);
    a.on_data_failed(T, D, 5_500_000, 1);
    assert_eq!(a.data_rate(T, D, 1500, 0), 2_000_000);
    assert_eq!(a.success_threshold(D), 10);
    // Plain ARF would have kept probing every 10 successes.
    let mut arf = Arf::new(rate_set(&b11()));
    arf.on_data_failed(T, D, 11_000_000, 0);
    arf.on_data_failed(T, D, 11_000_000, 1);
    for _ in 0..3 {
        let mut n = 0;
        while arf.data_rate(T, D, 1500, 0) == 5_500_000 {
            arf.on_data_ok(T, D, 5_500_000, 0);
            n += 1;
        }
        assert_eq!(n, 10);
        arf.on_data_failed(T, D, 11_000_000, 0);
    }
}

/// Drives a controller over a link whose frame success probability per
/// rate is fixed; returns (packets at each first-attempt rate, delivered).
fn drive(rc: &mut dyn RateControl, phy: &PhyMode, per_ok: &[(u64, f64)], secs: u64, seed: u64) -> (Vec<u64>, u64) {
    let mut rng = RngStream::new(seed, 0, Purpose::Phy, 99);
    let rates = rate_set(phy);
    let mut first = vec![0u64; rates.len()];
    let mut delivered = 0;
    let mut now = Time::ZERO;
    let end = Time::from_secs(secs);
    while now < end {
        for attempt in 0..7 {
            let r = rc.data_rate(now, D, 1536, attempt);
            if attempt == 0 {
                first[rates.iter().position(|&x| x == r).unwrap()] += 1;
            }
            // DIFS + mean backoff + DATA + SIFS + ACK.
            now = now + Time::from_us(360) + phy.frame_time(1536, r) + Time::from_us(10) + Time::from_us(248);
            let p = per_ok.iter().find(|(x, _)| *x == r).unwrap().1;
            if rng.unit() < p {
                rc.on_data_ok(now, D, r, attempt);
                delivered += 1;
                break;
            }
            rc.on_data_failed(now, D, r, attempt);
        }
    }
    (first, delivered)
}

#[test]
fn minstrel_converges_to_the_best_throughput_rate_and_samples_about_ten_percent() {
    let phy = b11();
    // 11 Mbit/s loses 70 % of frames: 5.5 Mbit/s has the best throughput
    // (0.9 / 2.7 ms vs 0.3 / 1.9 ms per attempt).
    let table = [(1_000_000, 1.0), (2_000_000, 0.95), (5_500_000, 0.9), (11_000_000, 0.3)];
    let mut m = Minstrel::new(&phy, rate_set(&phy), RngStream::new(1, 0, Purpose::RateControl, 0));
    let (first, delivered) = drive(&mut m, &phy, &table, 20, 1);
    let total: u64 = first.iter().sum();
    eprintln!(
        "minstrel first-attempt rates {first:?} of {total}, delivered {delivered}, direct samples {}, deferred {}",
        m.sampled_first, m.deferred
    );
    assert_eq!(m.best_rate(D), 5_500_000);
    let share55 = first[2] as f64 / total as f64;
    assert!(share55 > 0.8, "5.5 Mbit/s first on {:.1} % of packets", 100.0 * share55);
    let probs = m.probabilities(D);
    // 11 Mbit/s is sampled a few times per 100 ms interval: its EWMA is
    // noisy around 0.3, but well below the 95 % needed to win.
    assert!(probs[3].unwrap() < 0.6, "11 Mbit/s probability {:?}", probs[3]);
    assert!((probs[2].unwrap() - 0.9).abs() < 0.1, "5.5 Mbit/s probability {:?}", probs[2]);
    // Look-around: about 10 % of packets carry a sample rate (first stage
    // if faster than the best, second stage if slower; deferred ones count
    // half in Minstrel's budget).
    let sampled = (m.sampled_first + m.deferred) as f64 / m.packets as f64;
    assert!((0.08..0.2).contains(&sampled), "sampled {:.1} % of packets", 100.0 * sampled);

    // A clean link: converges to 11 Mbit/s.
    let clean = [(1_000_000, 1.0), (2_000_000, 1.0), (5_500_000, 0.98), (11_000_000, 0.95)];
    let mut m = Minstrel::new(&phy, rate_set(&phy), RngStream::new(2, 0, Purpose::RateControl, 0));
    let (first, _) = drive(&mut m, &phy, &clean, 10, 2);
    assert_eq!(m.best_rate(D), 11_000_000);
    assert!(first[3] as f64 / first.iter().sum::<u64>() as f64 > 0.85, "{first:?}");
    // A bad link: only 1 and 2 Mbit/s work; 2 Mbit/s wins.
    let bad = [(1_000_000, 0.99), (2_000_000, 0.9), (5_500_000, 0.05), (11_000_000, 0.0)];
    let mut m = Minstrel::new(&phy, rate_set(&phy), RngStream::new(3, 0, Purpose::RateControl, 0));
    drive(&mut m, &phy, &bad, 10, 3);
    assert_eq!(m.best_rate(D), 2_000_000);
}

#[test]
fn arf_and_aarf_settle_where_failures_are_rare() {
    let phy = b11();
    let table = [(1_000_000, 1.0), (2_000_000, 0.98), (5_500_000, 0.9), (11_000_000, 0.2)];
    let mut a = Arf::new(rate_set(&phy));
    let (first_arf, _) = drive(&mut a, &phy, &table, 10, 4);
    let mut b = Aarf::new(rate_set(&phy));
    let (first_aarf, _) = drive(&mut b, &phy, &table, 10, 4);
    eprintln!("ARF first attempts {first_arf:?}, AARF {first_aarf:?}");
    // Both spend most packets at 5.5; AARF probes 11 Mbit/s less often.
    assert!(first_arf[2] > first_arf[3] && first_aarf[2] > first_aarf[3]);
    assert!(first_aarf[3] < first_arf[3], "AARF probes less: {} vs {}", first_aarf[3], first_arf[3]);
}

#[test]
fn ideal_picks_the_highest_rate_the_snr_supports() {
    let phy = b11();
    let noise = 1e-12;
    let mut i = Ideal::new(&phy, rate_set(&phy), noise);
    let th = i.thresholds_db();
    assert!(th.windows(2).all(|w| w[0].1 < w[1].1), "thresholds rise with rate: {th:?}");
    assert_eq!(i.data_rate(T, D, 1500, 0), 1_000_000, "nothing heard yet: lowest rate");
    for (k, &(rate, db)) in th.iter().enumerate() {
        i.on_rx_power(D, noise * 10f64.powf((db + 0.1) / 10.0));
        assert_eq!(i.data_rate(T, D, 1500, 0), rate);
        if k > 0 {
            i.on_rx_power(D, noise * 10f64.powf((db - 0.1) / 10.0));
            assert_eq!(i.data_rate(T, D, 1500, 0), th[k - 1].0);
        }
    }
}

/// The constant controller's shortcuts (no call through the controller,
/// the rate's counter found without a search) give what the controller
/// and the search gave: same rates, same per-rate counts.
#[test]
fn constant_rate_shortcuts_match_the_controller() {
    let a = PhyMode { standard: PhyStandard::Ofdm, data_rate: 54_000_000, basic_rate: 24_000_000, ..b11() };
    // 3 Mbit/s is no DSSS rate: no counter (as the search found none).
    for phy in [b11(), PhyMode { data_rate: 2_000_000, ..b11() }, a, PhyMode { data_rate: 3_000_000, ..b11() }] {
        let mut fast = DcfRate::constant(&phy);
        let mut slow = DcfRate::new(&phy, Box::new(constant::Constant::new(phy.data_rate)));
        assert!(!fast.is_adaptive() && slow.is_adaptive());
        for attempt in 0..3 {
            let r = fast.choose(T, D, 1500, attempt);
            assert_eq!(r, slow.choose(T, D, 1500, attempt));
            assert_eq!(r, phy.data_rate);
            fast.sent(r);
            slow.sent(r);
            fast.sent(1_000_000);
            slow.sent(1_000_000);
            fast.ok(T, D, r, attempt);
            slow.ok(T, D, r, attempt);
            fast.failed(T, D, r, attempt);
            slow.failed(T, D, r, attempt);
        }
        assert_eq!(format!("{:?}", fast.counts()), format!("{:?}", slow.counts()));
    }
}
