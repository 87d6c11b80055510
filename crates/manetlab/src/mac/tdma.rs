//! A fixed-frame TDMA MAC: the fair MAC of backpressure-tcp-udp.txt's
//! section 3.4 experiment.
//!
//! Time is cut into frames of one slot per node; node `i` owns slot `i` of
//! every frame, so nobody contends. A slot lasts the air time of one
//! maximum-size data frame (`max_packet` IP bytes plus the 802.11 data
//! header, FCS and LLC/SNAP, at the data rate) plus a guard time. A node
//! with a packet sends it as one data frame at the start of its next slot;
//! there are no RTS/CTS, no ACKs and no retransmissions, so a send always
//! "succeeds" as far as the MAC knows (link breaks are left to routing, e.g.
//! AODV HELLOs). Receivers deliver every decoded data frame addressed to
//! them (or broadcast) and pass others up as overheard.
//!
//! It answers the same calls as the DCF (`mac::Mac` dispatches), emitting
//! the same `MacAction`s, so it works anywhere the 802.11 MAC does.

use super::dcf::{MacAction, MacStats, MacTimer};
use super::frame::{Frame, FrameKind, MacAddr};
use super::MacConfig;
use crate::sim::Time;
use crate::wire::{Packet, BROADCAST};

pub struct Tdma {
    addr: MacAddr,
    slot: Time,
    frame: Time,
    /// Offset of this node's slot in the frame.
    offset: Time,
    rate: u64,
    phy: crate::phy::PhyMode,
    current: Option<Packet>,
    /// A slot timer is pending for `current`.
    waiting: bool,
    gen: u32,
    seq: u16,
    tx_frame: Frame,
    pub stats: MacStats,
}

impl Tdma {
    /// `nodes` = slots per frame; `max_packet` = IP bytes a slot must fit.
    pub fn new(addr: MacAddr, nodes: usize, cfg: &MacConfig, max_packet: u32, guard: Time) -> Tdma {
        let phy = cfg.phy;
        let slot = Tdma::slot_length(cfg, max_packet, guard);
        Tdma {
            addr,
            slot,
            frame: slot * nodes.max(1) as u64,
            offset: slot * addr as u64,
            rate: phy.data_rate,
            phy,
            current: None,
            waiting: false,
            gen: 0,
            seq: 0,
            tx_frame: Frame {
                kind: FrameKind::Data,
                src: addr,
                dst: addr,
                duration: Time::ZERO,
                seq: 0,
                tid: None,
                retry: false,
                bytes: 0,
                rate: 0,
                packet: None,
            },
            stats: MacStats::default(),
        }
    }

    /// Air time of the largest data frame plus the guard.
    pub fn slot_length(cfg: &MacConfig, max_packet: u32, guard: Time) -> Time {
        cfg.phy.frame_time(max_packet + super::frame::DATA_OVERHEAD_BYTES, cfg.phy.data_rate) + guard
    }

    pub fn slot(&self) -> Time {
        self.slot
    }

    /// Start of this node's first slot at or after `now`.
    pub fn next_slot(&self, now: Time) -> Time {
        let f = self.frame.as_ns();
        let base = now.as_ns() / f * f + self.offset.as_ns();
        Time(if base >= now.as_ns() { base } else { base + f })
    }

    pub fn can_accept(&self) -> bool {
        self.current.is_none()
    }
    pub fn current(&self) -> Option<&Packet> {
        self.current.as_ref()
    }
    pub fn tx_frame(&self) -> &Frame {
        &self.tx_frame
    }

    pub fn enqueue(&mut self, now: Time, pkt: Packet, out: &mut Vec<MacAction>) {
        debug_assert!(self.current.is_none());
        self.current = Some(pkt);
        self.waiting = true;
        self.gen = self.gen.wrapping_add(1);
        out.push(MacAction::Timer { at: self.next_slot(now), kind: MacTimer::Access, gen: self.gen });
    }

    pub fn on_timer(&mut self, _now: Time, kind: MacTimer, gen: u32, out: &mut Vec<MacAction>) {
        if kind != MacTimer::Access || gen != self.gen || !self.waiting {
            return;
        }
        self.waiting = false;
        let p = self.current.expect("slot timer without a packet");
        let bytes = Frame::data_bytes(&p);
        self.seq = self.seq.wrapping_add(1);
        self.tx_frame = Frame {
            kind: FrameKind::Data,
            src: self.addr,
            dst: p.next_hop,
            duration: Time::ZERO,
            seq: self.seq,
            tid: None,
            retry: false,
            bytes,
            rate: self.rate,
            packet: Some(p),
        };
        let d = self.phy.frame_time(bytes, self.rate);
        if p.next_hop == BROADCAST {
            self.stats.broadcast_sent += 1;
        } else {
            self.stats.data_sent += 1;
        }
        self.stats.bytes_on_air += bytes as u64;
        self.stats.airtime_ns += d.as_ns();
        out.push(MacAction::Transmit(d));
    }

    pub fn on_tx_end(&mut self, _now: Time, out: &mut Vec<MacAction>) {
        if let Some(p) = self.current.take() {
            if p.next_hop != BROADCAST {
                self.stats.unicast_success += 1;
            }
            out.push(MacAction::TxSuccess(p));
            out.push(MacAction::Ready);
        }
    }

    pub fn on_rx_end(&mut self, _now: Time, decoded: Option<&Frame>, _idle: bool, out: &mut Vec<MacAction>) {
        let Some(f) = decoded else { return };
        if let (FrameKind::Data, Some(p)) = (f.kind, f.packet) {
            if f.dst == self.addr || f.dst == BROADCAST {
                out.push(MacAction::Deliver(p, f.src));
            } else {
                out.push(MacAction::Overheard(p, f.src));
            }
        }
    }
}

impl super::MacModel for Tdma {
    const NAMES: &'static [&'static str] = &["tdma"];
    const KEYS: &'static [&'static str] = &["tdma_max_packet", "tdma_guard"];
    fn parse(p: &dyn crate::sim::params::Params) -> Result<super::MacKind, crate::sim::params::ParamError> {
        use crate::sim::params::{ParamError, ParamErrorKind};
        let max_packet = match p.uint("tdma_max_packet")? {
            Some(s) if s.v < 64 => {
                return Err(ParamError::new(
                    ParamErrorKind::OutOfRange,
                    s.at,
                    format!("'{}.tdma_max_packet' must be at least 64 bytes", p.section()),
                ))
            }
            s => s.map_or(1500, |s| s.v),
        };
        let guard = p.duration("tdma_guard")?.map_or(Time::from_us(20), |d| d.v);
        Ok(super::MacKind::Tdma { max_packet, guard })
    }
    fn build(cfg: &MacConfig, env: &super::MacEnv) -> Tdma {
        let super::MacKind::Tdma { max_packet, guard } = cfg.kind else { unreachable!("built for its own variant") };
        Tdma::new(env.node, env.nodes, cfg, max_packet, guard)
    }
}

impl super::MacProtocol for Tdma {
    #[inline]
    fn can_accept(&self) -> bool {
        Tdma::can_accept(self)
    }
    #[inline]
    fn current(&self) -> Option<&Packet> {
        Tdma::current(self)
    }
    #[inline]
    fn tx_frame(&self) -> &Frame {
        Tdma::tx_frame(self)
    }
    #[inline]
    fn stats(&self) -> MacStats {
        self.stats
    }
    #[inline]
    fn enqueue(&mut self, now: Time, pkt: Packet, out: &mut Vec<MacAction>) {
        Tdma::enqueue(self, now, pkt, out)
    }
    #[inline]
    fn on_timer(&mut self, now: Time, kind: MacTimer, gen: u32, out: &mut Vec<MacAction>) {
        Tdma::on_timer(self, now, kind, gen, out)
    }
    #[inline]
    fn on_tx_end(&mut self, now: Time, out: &mut Vec<MacAction>) {
        Tdma::on_tx_end(self, now, out)
    }
    #[inline]
    fn on_rx_end(&mut self, now: Time, decoded: Option<&Frame>, idle: bool, out: &mut Vec<MacAction>) {
        Tdma::on_rx_end(self, now, decoded, idle, out)
    }
    /// The one frame in its slot or waiting for it (the interface queue
    /// holds the rest).
    fn held(&self, f: &mut dyn FnMut(&Packet)) {
        if let Some(p) = Tdma::current(self) {
            f(p)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Body;

    fn pkt(to: u32, bytes: u32) -> Packet {
        let mut p = Packet::new(7, 2, to, bytes - 20, 0, Body::Udp { sport: 1, dport: 1, seq: 0 }, Time::ZERO);
        p.next_hop = to;
        p
    }

    #[test]
    fn slots_are_one_max_frame_plus_guard_and_owned_in_turn() {
        let cfg = MacConfig::default(); // 2 Mbit/s DSSS, long preamble
        let guard = Time::from_us(20);
        let m = Tdma::new(2, 5, &cfg, 1500, guard);
        // 192 us PLCP + (1500 + 36) bytes at 2 Mbit/s = 6144 us, + 20 us guard.
        assert_eq!(m.slot(), Time::from_us(192 + 6144 + 20));
        let s = m.slot().as_ns();
        assert_eq!(m.next_slot(Time::ZERO), Time(2 * s));
        assert_eq!(m.next_slot(Time(2 * s)), Time(2 * s));
        assert_eq!(m.next_slot(Time(2 * s + 1)), Time(7 * s));
    }

    #[test]
    fn sends_in_its_slot_without_ack_and_fits_the_slot() {
        let cfg = MacConfig::default();
        let mut m = Tdma::new(1, 4, &cfg, 1500, Time::from_us(20));
        let mut out = Vec::new();
        m.enqueue(Time::from_us(5), pkt(3, 1500), &mut out);
        let (at, gen) = match out[..] {
            [MacAction::Timer { at, kind: MacTimer::Access, gen }] => (at, gen),
            _ => panic!("{out:?}"),
        };
        assert_eq!(at, m.slot());
        assert!(!m.can_accept());
        out.clear();
        m.on_timer(at, MacTimer::Access, gen, &mut out);
        let d = match out[..] {
            [MacAction::Transmit(d)] => d,
            _ => panic!("{out:?}"),
        };
        assert!(d < m.slot(), "a maximum-size frame fits its slot");
        assert_eq!((m.tx_frame().dst, m.tx_frame().kind), (3, FrameKind::Data));
        out.clear();
        m.on_tx_end(at + d, &mut out);
        assert!(matches!(out[..], [MacAction::TxSuccess(_), MacAction::Ready]));
        assert!(m.can_accept());
        // Receivers: delivered to the addressee, overheard by others.
        let f = *m.tx_frame();
        let mut r = Tdma::new(3, 4, &cfg, 1500, Time::from_us(20));
        out.clear();
        r.on_rx_end(at + d, Some(&f), true, &mut out);
        assert!(matches!(out[..], [MacAction::Deliver(_, 1)]));
        let mut o = Tdma::new(0, 4, &cfg, 1500, Time::from_us(20));
        out.clear();
        o.on_rx_end(at + d, Some(&f), true, &mut out);
        assert!(matches!(out[..], [MacAction::Overheard(_, 1)]));
    }
}
