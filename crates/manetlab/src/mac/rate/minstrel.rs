//! Minstrel, the Linux mac80211 rate control for legacy (non-HT) rates
//! (D. Smithies and F. Fietkau, `net/mac80211/rc80211_minstrel.c`;
//! described at wireless.wiki.kernel.org "minstrel"). Reimplemented from
//! the algorithm's description; per neighbour:
//!
//! * every [`UPDATE_INTERVAL`] (100 ms) the success ratio of each rate over
//!   the interval updates an EWMA of its success probability (weight 75 %
//!   on the old value); the expected throughput of a rate is probability /
//!   airtime of one attempt (zero below 10 %). From these: the best and
//!   second-best throughput rates and the most reliable rate (the best
//!   throughput among rates above 95 %, else the most probable one);
//! * each packet gets a *multi-rate retry chain* of four stages: best
//!   throughput, second best, most reliable, lowest rate;
//! * "look-around" sampling: [`LOOKAROUND_PERCENT`] (10 %) of packets probe
//!   a rate taken from a per-neighbour sampling table (a random
//!   permutation of the rates per column, drawn once from the node's
//!   `RateControl` stream). A sample rate slower than the best goes in the
//!   second stage (deferred: the best rate is tried first) unless it has
//!   been skipped 20 intervals running; a faster one is tried first, for
//!   one attempt.
//!
//! Simplification: the stages get 2 attempts each (the sample stage 1) and
//! the lowest rate the rest of the MAC's retry limit, where Linux sizes
//! each stage to fit a 6 ms budget (with the DCF's limit of 7 attempts
//! that would rarely reach the third stage).

use super::{PerNeighbour, RateControl};
use crate::mac::frame::MacAddr;
use crate::phy::PhyMode;
use crate::sim::{RngStream, Time};

pub const UPDATE_INTERVAL: Time = Time::from_ms(100);
pub const LOOKAROUND_PERCENT: u64 = 10;
/// EWMA weight of the old probability, percent.
pub const EWMA_LEVEL: f64 = 0.75;
/// Columns of the sampling table.
const SAMPLE_COLUMNS: usize = 10;
/// Attempts per retry-chain stage.
const STAGE_ATTEMPTS: u32 = 2;
/// Frame size used for the per-rate attempt airtime (as Linux's 1200-byte
/// average frame).
const AVG_FRAME_BYTES: u32 = 1200;

#[derive(Clone, Debug, Default)]
struct RateStat {
    attempts: u32,
    success: u32,
    /// EWMA success probability; `None` before the first sample.
    prob: Option<f64>,
    tp: f64,
    /// Update intervals in a row without an attempt.
    sample_skipped: u32,
}

#[derive(Clone, Debug)]
struct Station {
    stats: Vec<RateStat>,
    max_tp: [usize; 2],
    max_prob: usize,
    /// Retry chain of the current packet: (rate index, attempts).
    chain: [(usize, u32); 4],
    /// The current packet's first-stage rate is a sample.
    packets: u64,
    sample_packets: u64,
    sample_deferred: u64,
    next_update: Time,
    sample_row: usize,
    sample_col: usize,
    table: Vec<[usize; SAMPLE_COLUMNS]>,
    started: bool,
}

pub struct Minstrel {
    rates: Vec<u64>,
    /// Airtime of one attempt per rate, µs (DIFS + mean backoff + DATA +
    /// SIFS + ACK).
    attempt_us: Vec<f64>,
    st: PerNeighbour<Station>,
    rng: RngStream,
    /// Packets whose chain starts with a sample rate (direct sampling), for
    /// the sampling-share tests.
    pub sampled_first: u64,
    /// Packets with a slower sample rate deferred to the second stage.
    pub deferred: u64,
    pub packets: u64,
}

impl Minstrel {
    pub fn new(phy: &PhyMode, rates: Vec<u64>, rng: RngStream) -> Minstrel {
        let n = rates.len();
        let backoff = Time::from_ns(phy.slot().as_ns() * phy.cw_min() as u64 / 2);
        let attempt_us = rates
            .iter()
            .map(|&r| {
                let ack = phy.frame_time(crate::mac::frame::ACK_BYTES, super::control_rate(phy, r));
                (phy.difs() + backoff + phy.frame_time(AVG_FRAME_BYTES, r) + phy.sifs() + ack).as_us_f64()
            })
            .collect();
        let top = n - 1;
        let init = Station {
            stats: vec![RateStat::default(); n],
            max_tp: [top, top.saturating_sub(1)],
            max_prob: 0,
            chain: [(top, 1); 4],
            packets: 0,
            sample_packets: 0,
            sample_deferred: 0,
            next_update: Time::ZERO,
            sample_row: 0,
            sample_col: 0,
            table: Vec::new(),
            started: false,
        };
        Minstrel { rates, attempt_us, st: PerNeighbour::new(init), rng, sampled_first: 0, deferred: 0, packets: 0 }
    }

    /// Index of the best-throughput rate towards `dst`.
    pub fn best_rate(&mut self, dst: MacAddr) -> u64 {
        let i = self.st.get(dst).max_tp[0];
        self.rates[i]
    }

    /// The EWMA success probability of each rate towards `dst`.
    pub fn probabilities(&mut self, dst: MacAddr) -> Vec<Option<f64>> {
        self.st.get(dst).stats.iter().map(|s| s.prob).collect()
    }

    fn ensure_started(&mut self, dst: MacAddr, now: Time) {
        let n = self.rates.len();
        let s = self.st.get(dst);
        if s.started {
            return;
        }
        s.started = true;
        s.next_update = now + UPDATE_INTERVAL;
        // The sampling table: n rows, SAMPLE_COLUMNS columns, each column a
        // random permutation of the rate indices (Linux init_sample_table).
        let mut table = vec![[0usize; SAMPLE_COLUMNS]; n];
        for col in 0..SAMPLE_COLUMNS {
            let mut perm: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                let j = self.rng.uniform_incl(i as u32) as usize;
                perm.swap(i, j);
            }
            for (row, &r) in table.iter_mut().zip(&perm) {
                row[col] = r;
            }
        }
        self.st.get(dst).table = table;
    }

    fn update_stats(&mut self, dst: MacAddr) {
        let attempt_us = &self.attempt_us;
        let s = self.st.get(dst);
        for (i, r) in s.stats.iter_mut().enumerate() {
            if r.attempts > 0 {
                let p = r.success as f64 / r.attempts as f64;
                r.prob = Some(match r.prob {
                    Some(old) => old * EWMA_LEVEL + p * (1.0 - EWMA_LEVEL),
                    None => p,
                });
                r.sample_skipped = 0;
            } else {
                r.sample_skipped += 1;
            }
            r.attempts = 0;
            r.success = 0;
            let p = r.prob.unwrap_or(0.0);
            r.tp = if p < 0.1 { 0.0 } else { p / attempt_us[i] };
        }
        // Best and second-best throughput (ties to the faster rate).
        let n = s.stats.len();
        // (No allocation: the two best by throughput, ties to the faster.)
        let better = |a: usize, b: usize| s.stats[a].tp > s.stats[b].tp || (s.stats[a].tp == s.stats[b].tp && a > b);
        let mut best = n - 1;
        for i in 0..n {
            if better(i, best) {
                best = i;
            }
        }
        let mut second = if best == 0 { n - 1 } else { 0 };
        for i in 0..n {
            if i != best && better(i, second) {
                second = i;
            }
        }
        if s.stats[best].tp > 0.0 {
            s.max_tp = [best, if n > 1 { second } else { best }];
        }
        // Most reliable: best throughput above 95 %, else highest probability.
        let reliable = (0..n)
            .filter(|&i| s.stats[i].prob.unwrap_or(0.0) >= 0.95)
            .max_by(|&a, &b| s.stats[a].tp.total_cmp(&s.stats[b].tp).then(a.cmp(&b)));
        s.max_prob = reliable.unwrap_or_else(|| {
            (0..n)
                .max_by(|&a, &b| {
                    s.stats[a].prob.unwrap_or(0.0).total_cmp(&s.stats[b].prob.unwrap_or(0.0)).then(b.cmp(&a))
                })
                .unwrap_or(0)
        });
    }

    /// Builds the retry chain of a new packet towards `dst`.
    fn new_chain(&mut self, dst: MacAddr) {
        self.packets += 1;
        let attempt_us = &self.attempt_us;
        let s = self.st.get(dst);
        s.packets += 1;
        let lowest = 0usize;
        let [tp0, tp1] = s.max_tp;
        let mut chain =
            [(tp0, STAGE_ATTEMPTS), (tp1, STAGE_ATTEMPTS), (s.max_prob, STAGE_ATTEMPTS), (lowest, u32::MAX)];
        // Look-around: keep sample packets near LOOKAROUND_PERCENT of all.
        let delta = (s.packets * LOOKAROUND_PERCENT / 100) as i64 - (s.sample_packets + s.sample_deferred / 2) as i64;
        let mut direct = false;
        let mut deferred = false;
        if delta > 0 && !s.table.is_empty() {
            let ndx = s.table[s.sample_row][s.sample_col];
            s.sample_row += 1;
            if s.sample_row >= s.table.len() {
                s.sample_row = 0;
                s.sample_col = (s.sample_col + 1) % SAMPLE_COLUMNS;
            }
            if ndx != tp0 {
                let slower = attempt_us[ndx] > attempt_us[tp0];
                if slower && s.stats[ndx].sample_skipped < 20 {
                    // Deferred: best rate first, the sample second.
                    s.sample_deferred += 1;
                    chain[1] = (ndx, 1);
                    deferred = true;
                } else {
                    s.sample_packets += 1;
                    chain[0] = (ndx, 1);
                    chain[1] = (tp0, STAGE_ATTEMPTS);
                    direct = true;
                }
            }
        }
        s.chain = chain;
        if direct {
            self.sampled_first += 1;
        }
        if deferred {
            self.deferred += 1;
        }
    }

    fn chain_rate(&mut self, dst: MacAddr, attempt: u32) -> usize {
        let s = self.st.get(dst);
        let mut k = attempt;
        for &(r, n) in &s.chain {
            if k < n {
                return r;
            }
            k -= n;
        }
        0
    }
}

impl RateControl for Minstrel {
    fn data_rate(&mut self, now: Time, dst: MacAddr, _bytes: u32, attempt: u32) -> u64 {
        self.ensure_started(dst, now);
        if now >= self.st.get(dst).next_update {
            self.update_stats(dst);
            self.st.get(dst).next_update = now + UPDATE_INTERVAL;
        }
        if attempt == 0 {
            self.new_chain(dst);
        }
        let i = self.chain_rate(dst, attempt);
        self.rates[i]
    }
    fn on_data_ok(&mut self, _now: Time, dst: MacAddr, rate: u64, _attempt: u32) {
        if let Some(i) = self.rates.iter().position(|&r| r == rate) {
            let s = &mut self.st.get(dst).stats[i];
            s.attempts += 1;
            s.success += 1;
        }
    }
    fn on_data_failed(&mut self, _now: Time, dst: MacAddr, rate: u64, _attempt: u32) {
        if let Some(i) = self.rates.iter().position(|&r| r == rate) {
            self.st.get(dst).stats[i].attempts += 1;
        }
    }
}
