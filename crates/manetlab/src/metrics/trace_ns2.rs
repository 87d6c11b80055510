//! ns-2 wireless trace text: the "new" format (`$ns use-newtrace`, flag/value
//! pairs such as `-t 1.5 -Hs 0 -Nl AGT ...`) and the classic CMU format
//! (`s 1.500000000 _0_ AGT  --- 5 cbr 512 [...] ------- [...] [...]`).
//!
//! One line per traced event, built in a reused buffer with hand-rolled
//! number formatting and written through a `BufWriter` (no allocation per
//! event). The exact meaning of every field, and where manetlab departs from
//! ns-2 (sizes per layer, ports, flow ids of control packets), is in
//! `docs/tracing.md`; the short version:
//!
//! | field | filled with |
//! |---|---|
//! | event | `s` send, `r` receive, `f` forward, `d` drop (`D` in the old format) |
//! | `-t` | simulation time, seconds with 9 decimals (exact: the clock is integer ns) |
//! | `-Hs` / `-Hd` | this node / next hop (`-1` broadcast, `-2` not chosen yet: agent sends) |
//! | `-Ni -Nx -Ny -Nz` | this node and its position (taken when the sink is built) |
//! | `-Ne` | `-1.000000` (no energy model) |
//! | `-Nl` / `-Nw` | layer AGT/RTR/IFQ/MAC / drop reason or `---` |
//! | `-Ma -Md -Ms -Mt` | MAC header of the frame carrying the packet (hex): NAV in µs, receiver, transmitter, ethertype `800`; `0` where ns-2 has no MAC header yet |
//! | `-Is -Id` | `node.port` of the IP source / destination (`-1` broadcast) |
//! | `-It -Il` | packet type (`cbr`, `tcp`, `ack`, ...) / size at this layer |
//! | `-If -Ii -Iv` | flow id (`-1` for control packets) / unique id / TTL |
//! | `-Pn cbr -Pi -Pf -Po` | UDP sequence number, radio hops completed, `0` |
//! | `-Pn tcp -Ps -Pa -Pf -Po` | TCP byte sequence number, cumulative ACK, hops, `0` |
//!
//! Sizes (`-Il`, and the size column of the old format): at AGT the transport
//! segment (UDP or TCP header + payload), at RTR and IFQ the IP datagram (ns-2's
//! "+20 at RTR"), at MAC the MPDU (802.11 header + LLC/SNAP + datagram + FCS).
//! Unlike ns-2, an AGT receive shows the same size as the AGT send.

use super::trace::{Action, FrameDir, FrameEvent, Layer, PacketEvent, TraceSink};
use super::DropReason;
use crate::config::Position;
use crate::mac::frame::DATA_OVERHEAD_BYTES;
use crate::mac::{Frame, FrameKind};
use crate::net::{Body, NodeId, Packet, BROADCAST, FLOW_NONE, IP_HEADER_BYTES};
use crate::sim::Time;
use std::io::{self, Write};

/// Which ns-2 wireless trace layout to write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ns2Format {
    /// The revised format (`$ns use-newtrace`): `s -t 1.0 -Hs 0 ...`.
    New,
    /// The classic CMU format: `s 1.000000000 _0_ AGT  --- ...`.
    Old,
}

/// MAC header fields as ns-2 prints them (`-Ma -Md -Ms -Mt`, or the first
/// bracket of the old format).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct MacFields {
    /// Duration/ID (NAV), microseconds.
    duration_us: u64,
    dst: u32,
    src: u32,
    ethertype: u32,
}

const ETHERTYPE_IP: u32 = 0x800;

impl MacFields {
    fn of(f: &Frame) -> MacFields {
        let ethertype = if f.packet.is_some() { ETHERTYPE_IP } else { 0 };
        MacFields { duration_us: micros_up(f.duration), dst: f.dst, src: f.src, ethertype }
    }
}

/// Whole microseconds, rounded up (802.11 duration fields round up).
fn micros_up(t: Time) -> u64 {
    t.as_ns().div_ceil(1000)
}

/// The MAC header a node last saw on a packet, per direction: ns-2 keeps the
/// MAC header in the packet, so a packet received and then forwarded still
/// shows the received frame's fields at RTR, and a packet dropped after a
/// failed transmission shows the frame it was sent in.
#[derive(Copy, Clone, Default)]
struct LastMac {
    rx: Option<(u64, MacFields)>,
    tx: Option<(u64, MacFields)>,
}

/// Writes ns-2 trace lines (see the module documentation).
pub struct Ns2Sink<W: Write + Send> {
    out: W,
    format: Ns2Format,
    /// Per node, `-Nx .. -Ny .. -Nz ..` formatted once.
    positions: Vec<Box<str>>,
    last: Vec<LastMac>,
    control_frames: bool,
    /// The line being written (reused: no allocation per event).
    line: Line,
    error: Option<io::Error>,
}

impl<W: Write + Send> Ns2Sink<W> {
    /// A sink writing to `out`; `positions` (node `i` at index `i`) fill
    /// `-Nx/-Ny/-Nz` (nodes do not move during a run).
    pub fn new(out: W, format: Ns2Format, positions: &[Position]) -> Ns2Sink<W> {
        let positions = match format {
            Ns2Format::New => {
                positions.iter().map(|p| format!("-Nx {:.2} -Ny {:.2} -Nz {:.2}", p.x, p.y, p.z).into()).collect()
            }
            Ns2Format::Old => Vec::new(),
        };
        Ns2Sink { out, format, positions, last: Vec::new(), control_frames: true, line: Line::default(), error: None }
    }

    /// Whether RTS, CTS and ACK frames get lines of their own (ns-2 with
    /// `-macTrace ON`); on by default. Data frames are always traced, as the
    /// MAC-level events of the packets they carry.
    pub fn with_control_frames(mut self, on: bool) -> Self {
        self.control_frames = on;
        self
    }

    /// The writer (for tests); call after `finish`.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn last_mut(&mut self, node: NodeId) -> &mut LastMac {
        let i = node as usize;
        if i >= self.last.len() {
            self.last.resize(i + 1, LastMac::default());
        }
        &mut self.last[i]
    }

    /// The MAC fields shown for a packet event, and the bookkeeping that
    /// makes later events of the same packet at this node show them too.
    fn mac_fields(&mut self, ev: &PacketEvent) -> MacFields {
        let uid = ev.pkt.uid;
        let node = ev.node;
        let last = *self.last_mut(node);
        let cached = |slot: Option<(u64, MacFields)>| slot.filter(|(u, _)| *u == uid).map(|(_, m)| m);
        if let Some(f) = ev.frame {
            let m = MacFields::of(f);
            match ev.action {
                Action::Send => self.last_mut(node).tx = Some((uid, m)),
                Action::Recv => self.last_mut(node).rx = Some((uid, m)),
                _ => {}
            }
            return m;
        }
        match ev.layer {
            // Nothing below the agent has touched the header of a packet
            // being sent; a received packet keeps the last hop's header.
            Layer::Agent | Layer::Router => cached(last.rx).unwrap_or_default(),
            // The link layer has filled in addresses and type; the duration
            // is still the received frame's (or 0 for a local packet).
            Layer::Ifq => MacFields {
                duration_us: cached(last.rx).map_or(0, |m| m.duration_us),
                dst: ev.pkt.next_hop,
                src: node,
                ethertype: ETHERTYPE_IP,
            },
            // A MAC drop without a frame (retry limit): the frame it was sent in.
            Layer::Mac => cached(last.tx).or(cached(last.rx)).unwrap_or(MacFields {
                duration_us: 0,
                dst: ev.pkt.next_hop,
                src: node,
                ethertype: ETHERTYPE_IP,
            }),
        }
    }

    fn record(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.error = Some(e);
        }
    }
}

/// `-Nx -Ny -Nz` of a node the sink was not told about.
const NO_POSITION: &str = "-Nx 0.00 -Ny 0.00 -Nz 0.00";

/// One trace line under construction. Numbers are formatted by hand: lines
/// are mostly integers, and this is several times faster than `write!`.
#[derive(Default)]
struct Line(Vec<u8>);

/// The fields of an AODV message that ns-2's trace shows (its message
/// types: HELLO 0x1, RREQ 0x2, RREP 0x4, RERR 0x8).
enum Aodv {
    Request {
        hops: u64,
        id: u64,
        dst: u64,
        dst_seq: u64,
        orig: u64,
        orig_seq: u64,
    },
    Reply {
        hello: bool,
        hops: u64,
        dst: u64,
        dst_seq: u64,
        lifetime_ms: u32,
    },
    /// The number of unreachable destinations and the first of them.
    Error {
        count: u64,
        dst: u64,
        dst_seq: u64,
    },
}

impl Aodv {
    fn of(m: &crate::wire::aodv::AodvMsg) -> Aodv {
        use crate::wire::aodv::{AodvMsg, MsgKind};
        match m {
            AodvMsg::Rreq(q) => Aodv::Request {
                hops: q.hop_count as u64,
                id: q.id as u64,
                dst: q.dst as u64,
                dst_seq: q.dst_seq as u64,
                orig: q.orig as u64,
                orig_seq: q.orig_seq as u64,
            },
            AodvMsg::Rrep(r) => Aodv::Reply {
                hello: m.kind() == MsgKind::Hello,
                hops: r.hop_count as u64,
                dst: r.dst as u64,
                dst_seq: r.dst_seq as u64,
                lifetime_ms: r.lifetime_ms,
            },
            AodvMsg::Rerr(e) => {
                let (d, s) = e.dests().first().copied().unwrap_or((0, 0));
                Aodv::Error { count: e.count as u64, dst: d as u64, dst_seq: s as u64 }
            }
            AodvMsg::RerrElfn(e) => Aodv::Error { count: 1, dst: e.dst as u64, dst_seq: e.seq as u64 },
        }
    }
}

impl Line {
    fn clear(&mut self) {
        self.0.clear();
    }
    fn s(&mut self, s: &str) -> &mut Self {
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    fn ch(&mut self, c: u8) -> &mut Self {
        self.0.push(c);
        self
    }
    /// Decimal.
    fn u(&mut self, mut v: u64) -> &mut Self {
        let mut d = [0u8; 20];
        let mut i = d.len();
        loop {
            i -= 1;
            d[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.0.extend_from_slice(&d[i..]);
        self
    }
    fn i(&mut self, v: i64) -> &mut Self {
        if v < 0 {
            self.0.push(b'-');
        }
        self.u(v.unsigned_abs())
    }
    /// Lower-case hexadecimal, as C's `%x`.
    fn x(&mut self, mut v: u64) -> &mut Self {
        let mut d = [0u8; 16];
        let mut i = d.len();
        loop {
            i -= 1;
            d[i] = b"0123456789abcdef"[(v & 15) as usize];
            v >>= 4;
            if v == 0 {
                break;
            }
        }
        self.0.extend_from_slice(&d[i..]);
        self
    }
    /// Milliseconds as seconds with six decimals (C's `%f`).
    fn ms_secs(&mut self, ms: u32) -> &mut Self {
        self.u(ms as u64 / 1000).ch(b'.');
        let f = (ms % 1000) as u64 * 1000;
        let mut d = [b'0'; 6];
        let mut v = f;
        for c in d.iter_mut().rev() {
            *c = b'0' + (v % 10) as u8;
            v /= 10;
        }
        self.0.extend_from_slice(&d);
        self
    }
    /// Seconds with nine decimals, exact (`%.9f` of the integer-ns clock).
    fn time(&mut self, t: Time) -> &mut Self {
        let ns = t.as_ns();
        self.u(ns / 1_000_000_000).ch(b'.');
        let frac = ns % 1_000_000_000;
        let mut d = [b'0'; 9];
        let mut v = frac;
        for c in d.iter_mut().rev() {
            *c = b'0' + (v % 10) as u8;
            v /= 10;
        }
        self.0.extend_from_slice(&d);
        self
    }
    /// Right-aligned in 4 columns, as `%4s`.
    fn pad4(&mut self, s: &str) -> &mut Self {
        for _ in s.len()..4 {
            self.0.push(b' ');
        }
        self.s(s)
    }
}

/// A node id as ns-2 prints addresses: broadcast is -1.
fn addr(n: NodeId) -> i64 {
    if n == BROADCAST {
        -1
    } else {
        n as i64
    }
}

/// ns-2's routing-agent port, used for packets that are not UDP or TCP.
const RT_PORT: u16 = 255;

fn ports(p: &Packet) -> (u16, u16) {
    // Routing protocol messages (AODV, DSR, ...) and ARP: ns-2 shows them on
    // port 255.
    p.ports().unwrap_or((RT_PORT, RT_PORT))
}

/// The size of the packet as the layer of the event sees it.
fn layer_size(ev: &PacketEvent) -> u32 {
    match ev.layer {
        Layer::Agent => ev.pkt.size.saturating_sub(IP_HEADER_BYTES),
        Layer::Router | Layer::Ifq => ev.pkt.size,
        Layer::Mac => ev.frame.map_or(ev.pkt.size + DATA_OVERHEAD_BYTES, |f| f.bytes),
    }
}

/// Radio hops the packet has completed (ns-2's `num_forwards`, which its MAC
/// increments on every reception): one per forwarding (TTL decrement), plus
/// one while the packet sits at a receiver that has not forwarded it yet.
fn hops(ev: &PacketEvent) -> u64 {
    let forwarded = Packet::DEFAULT_TTL.saturating_sub(ev.pkt.ttl) as u64;
    let here = match ev.action {
        Action::Recv => ev.node != ev.pkt.src,
        Action::Drop(DropReason::Col | DropReason::Err | DropReason::Dup | DropReason::Ttl) => true,
        _ => false,
    };
    forwarded + here as u64
}

/// `-Hd`: the next hop, `-1` for broadcast, `-2` before routing chose one.
fn hop_dst(ev: &PacketEvent) -> i64 {
    if ev.layer == Layer::Agent && ev.action == Action::Send {
        -2
    } else {
        addr(ev.pkt.next_hop)
    }
}

fn op(action: Action, format: Ns2Format) -> u8 {
    match (action, format) {
        (Action::Send, _) => b's',
        (Action::Recv, _) => b'r',
        (Action::Forward, _) => b'f',
        (Action::Drop(_), Ns2Format::New) => b'd',
        (Action::Drop(_), Ns2Format::Old) => b'D',
    }
}

fn reason(action: Action) -> &'static str {
    match action {
        Action::Drop(r) => r.code(),
        _ => "---",
    }
}

impl<W: Write + Send> Ns2Sink<W> {
    /// `s -t 1.000000000 -Hs 2 -Hd -2 -Ni 2 -Nx 400.00 -Ny 0.00 -Nz 0.00
    /// -Ne -1.000000 -Nl AGT -Nw --- -Ma 0 -Md 0 -Ms 0 -Mt 0 -Is 2.10000
    /// -Id 0.10000 -It cbr -Il 508 -If 0 -Ii 0 -Iv 64 -Pn cbr -Pi 0 -Pf 0 -Po 0`
    fn write_new(&mut self, ev: &PacketEvent, m: MacFields) -> io::Result<()> {
        let p = ev.pkt;
        let (sport, dport) = ports(p);
        let flow = if p.flow == FLOW_NONE { -1 } else { p.flow as i64 };
        let pos = self.positions.get(ev.node as usize).map_or(NO_POSITION, |s| s);
        let l = &mut self.line;
        l.clear();
        l.ch(op(ev.action, Ns2Format::New)).s(" -t ").time(ev.time).s(" -Hs ").u(ev.node as u64);
        l.s(" -Hd ").i(hop_dst(ev)).s(" -Ni ").u(ev.node as u64).s(" ").s(pos);
        l.s(" -Ne -1.000000 -Nl ").s(ev.layer.ns2()).s(" -Nw ").s(reason(ev.action));
        l.s(" -Ma ").x(m.duration_us).s(" -Md ").x(m.dst as u64).s(" -Ms ").x(m.src as u64);
        l.s(" -Mt ").x(m.ethertype as u64);
        l.s(" -Is ").i(addr(p.src)).ch(b'.').u(sport as u64).s(" -Id ").i(addr(p.dst)).ch(b'.').u(dport as u64);
        l.s(" -It ").s(p.type_name()).s(" -Il ").u(layer_size(ev) as u64).s(" -If ").i(flow);
        l.s(" -Ii ").u(p.uid).s(" -Iv ").u(p.ttl as u64);
        #[allow(unreachable_patterns)] // bodies added later fall into the last arm
        match p.body {
            Body::Udp { seq, .. } => {
                l.s(" -Pn cbr -Pi ").u(seq).s(" -Pf ").u(hops(ev)).s(" -Po 0");
            }
            Body::Tcp(t) => {
                l.s(" -Pn tcp -Ps ").u(t.seq).s(" -Pa ").u(t.ack).s(" -Pf ").u(hops(ev)).s(" -Po 0");
            }
            // AODV as ns-2's cmu-trace prints it (see `docs/tracing.md`).
            Body::Aodv(m) => match Aodv::of(&m) {
                Aodv::Request { hops, id, dst, dst_seq, orig, orig_seq } => {
                    l.s(" -P aodv -Pt 0x2 -Ph ").u(hops).s(" -Pb ").u(id).s(" -Pd ").u(dst).s(" -Pds ").u(dst_seq);
                    l.s(" -Ps ").u(orig).s(" -Pss ").u(orig_seq).s(" -Pc REQUEST");
                }
                Aodv::Reply { hello, hops, dst, dst_seq, lifetime_ms } => {
                    l.s(if hello { " -P aodv -Pt 0x1 -Ph " } else { " -P aodv -Pt 0x4 -Ph " }).u(hops);
                    l.s(" -Pd ").u(dst).s(" -Pds ").u(dst_seq).s(" -Pl ").ms_secs(lifetime_ms);
                    l.s(if hello { " -Pc HELLO" } else { " -Pc REPLY" });
                }
                Aodv::Error { count, dst, dst_seq } => {
                    l.s(" -P aodv -Pt 0x8 -Ph ").u(count).s(" -Pd ").u(dst).s(" -Pds ").u(dst_seq).s(" -Pc ERROR");
                }
            },
            // DSR (`-P dsr ...`), ARP (`-P arp ...`), DSDV and OLSR: the
            // line ends after the IP fields (`-It` names the protocol).
            _ => {}
        }
        l.ch(b'\n');
        self.out.write_all(&l.0)
    }

    /// `s 1.000000000 _2_ AGT  --- 0 cbr 508 [0 0 0 0] ------- [2:10000 0:10000 64 0] [0] 0 0`
    fn write_old(&mut self, ev: &PacketEvent, m: MacFields) -> io::Result<()> {
        let p = ev.pkt;
        let (sport, dport) = ports(p);
        let l = &mut self.line;
        l.clear();
        l.ch(op(ev.action, Ns2Format::Old)).ch(b' ').time(ev.time).s(" _").u(ev.node as u64).s("_ ");
        l.s(ev.layer.ns2()).ch(b' ').pad4(reason(ev.action)).ch(b' ').u(p.uid).ch(b' ').s(p.type_name());
        l.ch(b' ').u(layer_size(ev) as u64).s(" [").x(m.duration_us).ch(b' ').x(m.dst as u64).ch(b' ');
        l.x(m.src as u64).ch(b' ').x(m.ethertype as u64).s("] ------- [");
        l.i(addr(p.src)).ch(b':').u(sport as u64).ch(b' ').i(addr(p.dst)).ch(b':').u(dport as u64);
        l.ch(b' ').u(p.ttl as u64).ch(b' ').i(hop_dst(ev).max(0)).ch(b']');
        #[allow(unreachable_patterns)] // bodies added later fall into the last arm
        match p.body {
            Body::Udp { seq, .. } => {
                l.s(" [").u(seq).s("] ").u(hops(ev)).s(" 0");
            }
            Body::Tcp(t) => {
                l.s(" [").u(t.seq).ch(b' ').u(t.ack).s("] ").u(hops(ev)).s(" 0");
            }
            // AODV as ns-2 prints it: `[0x2 1 9 [3 4] [2 0]] (REQUEST)`.
            Body::Aodv(m) => match Aodv::of(&m) {
                Aodv::Request { hops, id, dst, dst_seq, orig, orig_seq } => {
                    l.s(" [0x2 ").u(hops).ch(b' ').u(id).s(" [").u(dst).ch(b' ').u(dst_seq).s("] [");
                    l.u(orig).ch(b' ').u(orig_seq).s("]] (REQUEST)");
                }
                Aodv::Reply { hello, hops, dst, dst_seq, lifetime_ms } => {
                    l.s(if hello { " [0x1 " } else { " [0x4 " }).u(hops).s(" [").u(dst).ch(b' ').u(dst_seq);
                    l.s("] ").ms_secs(lifetime_ms).s(if hello { "] (HELLO)" } else { "] (REPLY)" });
                }
                Aodv::Error { count, dst, dst_seq } => {
                    l.s(" [0x8 ").u(count).s(" [").u(dst).ch(b' ').u(dst_seq).s("] 0.000000] (ERROR)");
                }
            },
            _ => {}
        }
        l.ch(b'\n');
        self.out.write_all(&l.0)
    }

    /// An RTS, CTS or ACK: MAC fields only (the old format ends there, as
    /// ns-2's; the new one keeps every flag so that fields stay in the same
    /// columns: `-Is/-Id` are transmitter/receiver with port 0, `-Ii 0`).
    fn write_control(&mut self, ev: &FrameEvent, action: Action) -> io::Result<()> {
        let f = ev.frame;
        let m = MacFields::of(f);
        let l = &mut self.line;
        l.clear();
        match self.format {
            Ns2Format::New => {
                let pos = self.positions.get(ev.node as usize).map_or(NO_POSITION, |s| s);
                l.ch(op(action, Ns2Format::New)).s(" -t ").time(ev.time).s(" -Hs ").u(ev.node as u64);
                l.s(" -Hd ").i(addr(f.dst)).s(" -Ni ").u(ev.node as u64).s(" ").s(pos);
                l.s(" -Ne -1.000000 -Nl MAC -Nw ").s(reason(action)).s(" -Ma ").x(m.duration_us);
                l.s(" -Md ").x(m.dst as u64).s(" -Ms ").x(m.src as u64).s(" -Mt 0 -Is ").i(addr(f.src));
                l.s(".0 -Id ").i(addr(f.dst)).s(".0 -It ").s(f.kind.name()).s(" -Il ").u(f.bytes as u64);
                l.s(" -If -1 -Ii 0 -Iv 0\n");
            }
            Ns2Format::Old => {
                l.ch(op(action, Ns2Format::Old)).ch(b' ').time(ev.time).s(" _").u(ev.node as u64).s("_ MAC ");
                l.pad4(reason(action)).s(" 0 ").s(f.kind.name()).ch(b' ').u(f.bytes as u64).s(" [");
                l.x(m.duration_us).ch(b' ').x(m.dst as u64).ch(b' ').x(m.src as u64).s(" 0]\n");
            }
        }
        self.out.write_all(&l.0)
    }
}

impl<W: Write + Send> TraceSink for Ns2Sink<W> {
    fn packet(&mut self, ev: &PacketEvent) {
        if self.error.is_some() {
            return;
        }
        let m = self.mac_fields(ev);
        let r = match self.format {
            Ns2Format::New => self.write_new(ev, m),
            Ns2Format::Old => self.write_old(ev, m),
        };
        self.record(r);
    }

    fn frame(&mut self, ev: &FrameEvent) {
        if !self.control_frames || ev.frame.kind == FrameKind::Data || self.error.is_some() {
            return;
        }
        let to_me = ev.frame.dst == ev.node || ev.frame.dst == BROADCAST;
        let action = match ev.dir {
            FrameDir::Tx => Action::Send,
            FrameDir::Rx if to_me => Action::Recv,
            FrameDir::Lost(why) if to_me => Action::Drop(why),
            _ => return,
        };
        let r = self.write_control(ev, action);
        self.record(r);
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::TcpSeg;

    fn udp(uid: u64, src: NodeId, dst: NodeId, next_hop: NodeId, ttl: u8) -> Packet {
        Packet {
            uid,
            src,
            dst,
            ttl,
            dscp: 0,
            size: 20 + 8 + 512,
            next_hop,
            prev_hop: src,
            created: Time::ZERO,
            flow: 0,
            body: Body::Udp { sport: 10000, dport: 10000, seq: 7 },
            sr: Default::default(),
        }
    }

    fn data(p: &Packet, src: NodeId) -> Frame {
        Frame {
            kind: FrameKind::Data,
            src,
            dst: p.next_hop,
            duration: Time::from_us(314),
            seq: 1,
            tid: None,
            retry: false,
            bytes: p.size + DATA_OVERHEAD_BYTES,
            rate: 2_000_000,
            packet: Some(*p),
        }
    }

    fn lines(format: Ns2Format, evs: &[PacketEvent]) -> Vec<String> {
        let pos = [Position::new(0.0, 0.0), Position::new(200.0, 0.0), Position::new(400.0, 0.0)];
        let mut s = Ns2Sink::new(Vec::new(), format, &pos);
        for e in evs {
            s.packet(e);
        }
        s.finish().unwrap();
        String::from_utf8(s.into_inner()).unwrap().lines().map(String::from).collect()
    }

    fn ev<'a>(
        t: u64,
        node: NodeId,
        layer: Layer,
        action: Action,
        pkt: &'a Packet,
        frame: Option<&'a Frame>,
    ) -> PacketEvent<'a> {
        PacketEvent { time: Time::from_ns(t), node, layer, action, pkt, frame }
    }

    #[test]
    fn new_format_lines_of_a_forwarded_packet() {
        let sent = udp(5, 2, 0, 2, 64);
        let routed = udp(5, 2, 0, 1, 64);
        let f1 = data(&routed, 2);
        let fwd = udp(5, 2, 0, 0, 63);
        let evs = [
            ev(10_000_000_000, 2, Layer::Agent, Action::Send, &sent, None),
            ev(10_000_000_000, 2, Layer::Router, Action::Send, &routed, None),
            ev(10_000_500_000, 2, Layer::Mac, Action::Send, &routed, Some(&f1)),
            ev(10_003_000_001, 1, Layer::Mac, Action::Recv, &routed, Some(&f1)),
            ev(10_003_000_001, 1, Layer::Router, Action::Forward, &fwd, None),
            ev(10_003_000_001, 1, Layer::Ifq, Action::Drop(DropReason::Ifq), &fwd, None),
        ];
        let l = lines(Ns2Format::New, &evs);
        assert_eq!(
            l[0],
            "s -t 10.000000000 -Hs 2 -Hd -2 -Ni 2 -Nx 400.00 -Ny 0.00 -Nz 0.00 -Ne -1.000000 -Nl AGT -Nw --- \
             -Ma 0 -Md 0 -Ms 0 -Mt 0 -Is 2.10000 -Id 0.10000 -It cbr -Il 520 -If 0 -Ii 5 -Iv 64 -Pn cbr -Pi 7 -Pf 0 -Po 0"
        );
        assert!(l[1].contains("-Hd 1 ") && l[1].contains("-Nl RTR") && l[1].contains("-Il 540 "), "{}", l[1]);
        assert!(l[2].contains("-Ma 13a -Md 1 -Ms 2 -Mt 800 ") && l[2].contains("-Il 576 "), "{}", l[2]);
        assert!(l[3].starts_with("r -t 10.003000001 -Hs 1 -Hd 1 -Ni 1 -Nx 200.00 "), "{}", l[3]);
        assert!(l[3].ends_with("-Pf 1 -Po 0"), "{}", l[3]);
        // The forward keeps the received frame's MAC header, as in ns-2.
        assert!(l[4].starts_with("f ") && l[4].contains("-Ma 13a -Md 1 -Ms 2 -Mt 800 -Is 2.10000"), "{}", l[4]);
        assert!(l[4].contains("-Hd 0 ") && l[4].contains("-Iv 63 ") && l[4].ends_with("-Pf 1 -Po 0"), "{}", l[4]);
        assert!(l[5].starts_with("d ") && l[5].contains("-Nl IFQ -Nw IFQ -Ma 13a -Md 0 -Ms 1 -Mt 800"), "{}", l[5]);
    }

    #[test]
    fn old_format_matches_the_cmu_layout() {
        let sent = udp(5, 0, 1, 0, 64);
        let routed = udp(5, 0, 1, 1, 64);
        let f = data(&routed, 0);
        let evs = [
            ev(10_000_000_000, 0, Layer::Agent, Action::Send, &sent, None),
            ev(10_002_000_000, 1, Layer::Mac, Action::Recv, &routed, Some(&f)),
            ev(10_002_000_000, 1, Layer::Agent, Action::Recv, &routed, None),
            ev(11_000_000_000, 0, Layer::Router, Action::Drop(DropReason::Nrte), &routed, None),
        ];
        let l = lines(Ns2Format::Old, &evs);
        assert_eq!(l[0], "s 10.000000000 _0_ AGT  --- 5 cbr 520 [0 0 0 0] ------- [0:10000 1:10000 64 0] [7] 0 0");
        assert_eq!(l[1], "r 10.002000000 _1_ MAC  --- 5 cbr 576 [13a 1 0 800] ------- [0:10000 1:10000 64 1] [7] 1 0");
        assert_eq!(l[2], "r 10.002000000 _1_ AGT  --- 5 cbr 520 [13a 1 0 800] ------- [0:10000 1:10000 64 1] [7] 1 0");
        assert_eq!(l[3], "D 11.000000000 _0_ RTR NRTE 5 cbr 540 [0 0 0 0] ------- [0:10000 1:10000 64 1] [7] 0 0");
    }

    #[test]
    fn tcp_broadcast_and_control_frames() {
        let mut p = udp(9, 1, BROADCAST, BROADCAST, 64);
        p.body = Body::Tcp(TcpSeg { sport: 1, dport: 2, seq: 1460, ack: 0, len: 1460, ..Default::default() });
        let l = lines(Ns2Format::New, &[ev(1, 1, Layer::Router, Action::Send, &p, None)]);
        assert!(l[0].contains("-Hd -1 ") && l[0].contains("-Id -1.2 -It tcp "), "{}", l[0]);
        assert!(l[0].ends_with("-Pn tcp -Ps 1460 -Pa 0 -Pf 0 -Po 0"), "{}", l[0]);

        let rts = Frame {
            kind: FrameKind::Rts,
            src: 0,
            dst: 1,
            duration: Time::from_us(686),
            seq: 0,
            tid: None,
            retry: false,
            bytes: 20,
            rate: 1_000_000,
            packet: None,
        };
        for (format, want) in [
            (Ns2Format::Old, "s 0.000001000 _0_ MAC  --- 0 RTS 20 [2ae 1 0 0]"),
            (
                Ns2Format::New,
                "s -t 0.000001000 -Hs 0 -Hd 1 -Ni 0 -Nx 0.00 -Ny 0.00 -Nz 0.00 -Ne -1.000000 -Nl MAC -Nw --- \
                 -Ma 2ae -Md 1 -Ms 0 -Mt 0 -Is 0.0 -Id 1.0 -It RTS -Il 20 -If -1 -Ii 0 -Iv 0",
            ),
        ] {
            let mut s = Ns2Sink::new(Vec::new(), format, &[Position::default(); 2]);
            let fe = |node, dir| FrameEvent {
                time: Time::from_us(1),
                node,
                dir,
                frame: &rts,
                duration: Time::from_us(352),
                power_w: 1e-9,
            };
            s.frame(&fe(0, FrameDir::Tx));
            s.frame(&fe(1, FrameDir::Rx));
            s.frame(&fe(2, FrameDir::Rx)); // overheard: not traced
            s.frame(&fe(1, FrameDir::Lost(DropReason::Col)));
            s.finish().unwrap();
            let text = String::from_utf8(s.into_inner()).unwrap();
            let l: Vec<&str> = text.lines().collect();
            assert_eq!(l.len(), 3, "{text}");
            assert_eq!(l[0], want);
            assert!(l[1].starts_with("r ") && l[2].contains("COL"), "{text}");
        }
    }
}
