//! Random Early Detection (S. Floyd and V. Jacobson, "Random Early
//! Detection Gateways for Congestion Avoidance", IEEE/ACM Transactions on
//! Networking 1(4), 1993), in packets.
//!
//! At every data packet's arrival the average queue length is updated,
//! `avg <- (1 - w_q) avg + w_q q` (q the packets held, §4), and the packet
//! is dropped early with probability
//!
//! - 0 while `avg < min_th`;
//! - `p_a = p_b / (1 - count p_b)`, `p_b = max_p (avg - min_th) /
//!   (max_th - min_th)`, while `min_th <= avg < max_th`, `count` the
//!   packets accepted since the last early drop (§7: drops spaced roughly
//!   uniformly, not geometrically);
//! - 1 once `avg >= max_th`; with `gentle` (Floyd, "Recommendation on
//!   using the gentle_ variant of RED", 2000; ns-2 `gentle_`) `p_b` rises
//!   linearly from `max_p` at `max_th` to 1 at `2 max_th` instead.
//!
//! Defaults are the paper's and ns-2's classic ones (`thresh_` 5,
//! `maxthresh_` 15, `q_weight_` 0.002, `linterm_` 10, i.e. `max_p` 0.1,
//! `gentle_` false). A full queue (`queue.limit`) drops at the tail as
//! drop-tail does. Routing control packets with `control_first` use the
//! control lane of `droptail.rs`, exempt from early drops. Not modelled:
//! the idle-time correction of `avg` (§4: the queue cannot see time, so
//! the average is frozen while the queue is empty), byte mode, ECN
//! marking, adaptive RED. Early drops are reported as interface-queue
//! (IFQ) drops.

use super::{DropTail, QueueConfig, QueueDisc, QueueEnv, QueueKind};
use crate::sim::params::{ParamError, ParamErrorKind, Params};
use crate::sim::RngStream;
use crate::wire::Packet;

/// RED's parameters (`[queue]` keys of `kind = "red"`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedParams {
    /// `min_th`, packets of average queue.
    pub min_thresh: f64,
    /// `max_th`, packets of average queue.
    pub max_thresh: f64,
    /// `w_q`, the averaging weight.
    pub weight: f64,
    /// `max_p`, the drop probability at `max_th`.
    pub max_p: f64,
    pub gentle: bool,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams { min_thresh: 5.0, max_thresh: 15.0, weight: 0.002, max_p: 0.1, gentle: false }
    }
}

impl RedParams {
    /// `p_b`, the drop probability before the count correction, at
    /// average queue `avg` (1 means: drop).
    pub fn base_probability(&self, avg: f64) -> f64 {
        if avg < self.min_thresh {
            0.0
        } else if avg < self.max_thresh {
            self.max_p * (avg - self.min_thresh) / (self.max_thresh - self.min_thresh)
        } else if self.gentle && avg < 2.0 * self.max_thresh {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_thresh) / self.max_thresh
        } else {
            1.0
        }
    }
}

pub struct Red {
    params: RedParams,
    fifo: DropTail,
    control_first: bool,
    avg: f64,
    /// Packets accepted since the last early drop (-1: none since the
    /// average left the region below `min_th`, as in the paper).
    count: i64,
    rng: RngStream,
}

impl Red {
    pub fn new(params: RedParams, limit: usize, control_first: bool, rng: RngStream) -> Red {
        Red { params, fifo: DropTail::new(limit, control_first), control_first, avg: 0.0, count: -1, rng }
    }

    /// The average queue length, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The paper's early-drop test for one arriving data packet.
    fn early_drop(&mut self) -> bool {
        let q = self.fifo.len() as f64;
        self.avg += self.params.weight * (q - self.avg);
        let pb = self.params.base_probability(self.avg);
        if pb <= 0.0 {
            self.count = -1;
            return false;
        }
        if pb >= 1.0 {
            self.count = 0;
            return true;
        }
        self.count += 1;
        let denom = 1.0 - self.count as f64 * pb;
        let pa = if denom <= 0.0 { 1.0 } else { pb / denom };
        if self.rng.unit() < pa {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, pkt: Packet) -> Result<(), Packet> {
        if !(self.control_first && pkt.is_control()) && self.early_drop() {
            return Err(pkt);
        }
        self.fifo.enqueue(pkt)
    }
    fn dequeue(&mut self) -> Option<Packet> {
        self.fifo.dequeue()
    }
    fn dequeue_where(&mut self, eligible: &mut dyn FnMut(&Packet) -> bool) -> Option<Packet> {
        self.fifo.dequeue_where(eligible)
    }
    fn len(&self) -> usize {
        self.fifo.len()
    }
    fn drain_next_hop(&mut self, next_hop: u32, out: &mut Vec<Packet>) {
        self.fifo.drain_next_hop(next_hop, out)
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.fifo.for_each(f)
    }
}

impl super::QueueModel for Red {
    const NAMES: &'static [&'static str] = &["red"];
    const KEYS: &'static [&'static str] = &["min_thresh", "max_thresh", "weight", "max_p", "gentle"];
    fn parse(p: &dyn Params) -> Result<QueueKind, ParamError> {
        let mut r = RedParams::default();
        let s = p.section().to_string();
        let get = |key: &str, lo: f64, lo_incl: bool, hi: f64, dst: &mut f64| -> Result<(), ParamError> {
            if let Some(v) = p.number(key)? {
                if !((v.v > lo || (lo_incl && v.v == lo)) && v.v <= hi) {
                    let from = if lo_incl { format!("from {lo}") } else { format!("greater than {lo} and") };
                    let to = if lo_incl { format!("to {hi}") } else { format!("at most {hi}") };
                    return Err(ParamError::new(
                        ParamErrorKind::OutOfRange,
                        v.at,
                        format!("'{s}.{key}' must be {from} {to}, got {}", v.v),
                    ));
                }
                *dst = v.v;
            }
            Ok(())
        };
        get("weight", 0.0, false, 1.0, &mut r.weight)?;
        get("max_p", 0.0, false, 1.0, &mut r.max_p)?;
        get("min_thresh", 0.0, true, 1e6, &mut r.min_thresh)?;
        get("max_thresh", 0.0, true, 1e6, &mut r.max_thresh)?;
        if r.min_thresh >= r.max_thresh {
            let at = p.number("max_thresh")?.or(p.number("min_thresh")?).map(|v| v.at);
            return Err(ParamError {
                kind: ParamErrorKind::Inconsistent,
                at,
                msg: format!(
                    "'{s}.min_thresh' ({}) must be below '{s}.max_thresh' ({})",
                    r.min_thresh, r.max_thresh
                ),
            });
        }
        p.set_flag("gentle", &mut r.gentle)?;
        Ok(QueueKind::Red(r))
    }
    fn build(cfg: &QueueConfig, env: &QueueEnv) -> Box<dyn QueueDisc> {
        let QueueKind::Red(r) = cfg.kind else { unreachable!("built for its own variant") };
        Box::new(Red::new(r, cfg.limit, cfg.control_first, env.rng()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Body;
    use crate::sim::{Purpose, Time};

    fn pkt(uid: u64) -> Packet {
        Packet {
            uid,
            src: 0,
            dst: 1,
            ttl: 64,
            dscp: 0,
            size: 1000,
            next_hop: 1,
            prev_hop: 0,
            created: Time::ZERO,
            flow: 0,
            body: Body::Udp { sport: 1, dport: 1, seq: uid },
            sr: Default::default(),
        }
    }

    /// Holds the queue at `q` packets (each accepted arrival is followed by
    /// a departure) and returns the fraction of arrivals dropped early.
    fn drop_fraction(params: RedParams, q: usize, arrivals: u64) -> (f64, f64) {
        let mut red = Red::new(params, 1000, true, RngStream::new(7, 0, Purpose::Queue, 0));
        let mut uid = 0;
        while red.len() < q {
            uid += 1;
            red.fifo.enqueue(pkt(uid)).unwrap();
        }
        let mut dropped = 0;
        for _ in 0..arrivals {
            uid += 1;
            match red.enqueue(pkt(uid)) {
                Ok(()) => {
                    red.dequeue().unwrap();
                }
                Err(_) => dropped += 1,
            }
        }
        (dropped as f64 / arrivals as f64, red.avg())
    }

    /// The fraction of arrivals dropped at a constant `p_b`: one over the
    /// mean gap between drops, the gap's hazard at its n-th packet being
    /// the paper's `p_a = p_b / (1 - n p_b)` (1 once that reaches 1). The
    /// gap is uniform on 1..1/p_b - 1 (§7), so this is about 2 p_b.
    fn expected_fraction(pb: f64) -> f64 {
        if pb == 0.0 {
            return 0.0;
        }
        let (mut survive, mut mean) = (1.0, 0.0);
        for n in 1..10_000 {
            let d = 1.0 - n as f64 * pb;
            let h = if d <= 0.0 { 1.0 } else { (pb / d).min(1.0) };
            mean += n as f64 * survive * h;
            survive *= 1.0 - h;
            if survive <= 0.0 {
                break;
            }
        }
        1.0 / mean
    }

    #[test]
    fn test_drop_probability_follows_the_average_queue() {
        // w_q = 1: the average is the queue itself.
        let params = RedParams { weight: 1.0, ..RedParams::default() };
        for (q, pb) in [(0, 0.0), (4, 0.0), (5, 0.0), (8, 0.03), (10, 0.05), (12, 0.07), (14, 0.09)] {
            assert!((params.base_probability(q as f64) - pb).abs() < 1e-12);
            let (got, avg) = drop_fraction(params, q, 200_000);
            assert_eq!(avg, q as f64);
            let want = expected_fraction(pb);
            println!("avg {q:2}: p_b {pb:.2}, dropped {got:.4}, expected {want:.4}");
            assert!((got - want).abs() <= 0.03 * want + 1e-9, "q {q}: {got} vs {want}");
        }
        // At and above max_th every data packet is dropped.
        assert_eq!(drop_fraction(params, 15, 1000).0, 1.0);
        // Gentle RED: p_b from max_p at max_th to 1 at 2 max_th.
        let gentle = RedParams { gentle: true, ..params };
        assert!((gentle.base_probability(22.5) - 0.55).abs() < 1e-12);
        let (got, _) = drop_fraction(gentle, 20, 100_000);
        let pb = 0.1 + 0.9 * 5.0 / 15.0;
        let want = expected_fraction(pb);
        println!("gentle, avg 20: p_b {pb:.2}, dropped {got:.4}, expected {want:.4}");
        assert!((got - want).abs() <= 0.03 * want, "{got} vs {want}");
    }

    #[test]
    fn test_average_is_an_ewma_of_the_queue() {
        // w_q = 0.002 with the queue held at 10: after n arrivals the
        // average is 10 (1 - (1 - w_q)^n) (no early drops below min_th = 5
        // are possible until it gets there).
        let mut red = Red::new(RedParams::default(), 1000, true, RngStream::new(1, 0, Purpose::Queue, 0));
        for u in 0..10 {
            red.fifo.enqueue(pkt(u)).unwrap();
        }
        for n in 1..=300u64 {
            red.enqueue(pkt(100 + n)).unwrap();
            red.dequeue().unwrap();
            let want = 10.0 * (1.0 - (1.0 - 0.002f64).powi(n as i32));
            assert!((red.avg() - want).abs() < 1e-9, "n {n}: {} vs {want}", red.avg());
        }
        // Control packets skip the early test (and leave the average alone).
        let avg = red.avg();
        let mut c = pkt(9999);
        c.flow = crate::net::FLOW_NONE;
        red.enqueue(c).unwrap();
        assert_eq!(red.avg(), avg);
    }
}
