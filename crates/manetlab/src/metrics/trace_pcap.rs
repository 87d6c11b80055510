//! pcap capture files of the simulated air: link type 127
//! (IEEE802_11_RADIOTAP), so Wireshark and tshark dissect every frame down to
//! IP, UDP and TCP.
//!
//! Each record is a radiotap header followed by the 802.11 frame as it would
//! be on the air, FCS included (the radiotap Flags field says so), so the
//! captured length of a frame is exactly the simulator's frame size and
//! Wireshark's computed air times match the simulated ones:
//!
//! - radiotap: version 0; TSFT (µs, when the last bit of the frame left the
//!   sender's or reached the receiver's antenna: the convention Wireshark
//!   assumes by default, preference `wlan_radio.tsf_at_end`, so its
//!   "802.11 radio information" shows each frame's start, end and the gap
//!   (IFS) before it; the radiotap definition, first bit of the MPDU, would
//!   put Wireshark's computed times one frame duration early), Flags (FCS at
//!   end, long preamble), Rate (500 kbit/s units),
//!   Channel (2412 MHz, 2 GHz + CCK for DSSS rates; 5180 MHz, 5 GHz + OFDM for
//!   OFDM rates; the simulated carrier frequency is not a Wi-Fi channel in
//!   general), and for received frames the dBm antenna signal;
//! - RTS: frame control, duration, RA, TA; CTS and ACK: frame control,
//!   duration, RA; DATA: frame control (retry bit), duration, RA, TA, the
//!   fixed IBSS BSSID [`BSSID`], sequence control (the frame's sequence number);
//! - DATA bodies: LLC/SNAP (`AA AA 03 00 00 00 08 00`), an IPv4 header (total
//!   length = the packet's size, id = low 16 bits of its uid, TTL, checksum),
//!   then UDP (ports, length, checksum) or TCP (ports, sequence and ACK
//!   numbers modulo 2^32, data offset 5, flags, window capped at 65535,
//!   checksum) and a zero-filled payload up to the real length;
//! - the FCS: CRC-32 of the MAC header and body, little-endian.
//!
//! Node *n* has MAC address `02:00:` + *n* as four big-endian bytes and IPv4
//! address `10.0.0.0 + n + 1` (node 0 is 10.0.0.1, node 254 is 10.0.0.255,
//! node 255 is 10.0.1.0); broadcast is `ff:ff:ff:ff:ff:ff` / 255.255.255.255.
//! Timestamps are simulation time with nanosecond resolution (the pcap
//! nanosecond magic number), starting at the epoch.

use super::trace::{FrameDir, FrameEvent, PacketEvent, TraceSink};
use crate::mac::{Frame, FrameKind};
use crate::net::{Body, NodeId, Packet, BROADCAST, IP_HEADER_BYTES};
use crate::phy::mode::OFDM_RATES;
use crate::sim::Time;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Which frames go to which file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PcapMode {
    /// One file per node (`trace-node<i>.pcap`): the frames the node sent
    /// and the frames it decoded (overheard ones included), as a monitor-mode
    /// capture at that node would show them, with the received power.
    PerNode,
    /// One file (`trace.pcap`): every transmission once, when it starts.
    Merged,
}

/// Link type of radiotap + 802.11 (LINKTYPE_IEEE802_11_RADIOTAP).
pub const LINKTYPE_IEEE802_11_RADIOTAP: u32 = 127;
/// pcap magic number for nanosecond timestamps.
pub const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// The BSSID of the simulated IBSS (locally administered).
pub const BSSID: [u8; 6] = [0x02, 0xff, 0x00, 0x00, 0x00, 0x01];
/// Largest record written by default: no snapping (the biggest frame is
/// under 2.4 kB).
pub const DEFAULT_SNAPLEN: u32 = 65535;

const LLC_SNAP_IP: [u8; 8] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00];
/// UDP "discard" port: where bodies without an encoding of their own go.
const DISCARD_PORT: u16 = 9;
const IPPROTO_UDP: u8 = 17;
const IPPROTO_TCP: u8 = 6;
/// "Use for experimentation and testing" (RFC 3692): datagrams too short for
/// a UDP header.
const IPPROTO_EXPERIMENTAL: u8 = 253;

/// MAC address of a node.
pub fn mac_addr(n: NodeId) -> [u8; 6] {
    if n == BROADCAST {
        return [0xff; 6];
    }
    let b = n.to_be_bytes();
    [0x02, 0x00, b[0], b[1], b[2], b[3]]
}

/// IPv4 address of a node: 10.0.0.0 + n + 1.
pub fn ip_addr(n: NodeId) -> [u8; 4] {
    if n == BROADCAST {
        return [255; 4];
    }
    (0x0a00_0000u32.wrapping_add(n).wrapping_add(1)).to_be_bytes()
}

/// The 24-byte global header of a pcap file.
pub fn global_header(snaplen: u32) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone and sigfigs stay 0.
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_IEEE802_11_RADIOTAP.to_le_bytes());
    h
}

/// Received power as a radiotap dBm value.
fn dbm(power_w: f64) -> i8 {
    let d = 10.0 * (power_w * 1000.0).log10();
    if d.is_nan() {
        i8::MIN
    } else {
        d.round().clamp(i8::MIN as f64, i8::MAX as f64) as i8
    }
}

/// One's-complement sum of big-endian 16-bit words (odd tail padded).
fn ones_sum(mut acc: u32, bytes: &[u8]) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// Internet checksum of `bytes`.
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    fold(ones_sum(0, bytes))
}

/// Transport checksum over the IPv4 pseudo-header and the segment header;
/// the zero-filled payload adds nothing to the sum.
fn l4_checksum(src: [u8; 4], dst: [u8; 4], proto: u8, l4_len: u16, header: &[u8]) -> u16 {
    let mut acc = ones_sum(0, &src);
    acc = ones_sum(acc, &dst);
    acc += proto as u32 + l4_len as u32;
    let c = fold(ones_sum(acc, header));
    // UDP sends a computed zero as all ones (zero means "no checksum").
    if c == 0 && proto == IPPROTO_UDP {
        0xffff
    } else {
        c
    }
}

/// The same with a payload after the (even-length) header.
fn l4_checksum_payload(src: [u8; 4], dst: [u8; 4], proto: u8, l4_len: u16, header: &[u8], payload: &[u8]) -> u16 {
    let mut acc = ones_sum(0, &src);
    acc = ones_sum(acc, &dst);
    acc += proto as u32 + l4_len as u32;
    let c = fold(ones_sum(ones_sum(acc, header), payload));
    if c == 0 && proto == IPPROTO_UDP {
        0xffff
    } else {
        c
    }
}

/// The CRC-32 of IEEE 802.3, used as the 802.11 FCS (reflected polynomial
/// 0xEDB88320), one table entry per byte value.
static CRC_TABLE: [u32; 256] = crc_table();

const fn crc_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

/// Runs the CRC register over `bytes` (no initial or final inversion).
fn crc_update(mut reg: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        reg = (reg >> 8) ^ CRC_TABLE[((reg ^ b as u32) & 0xff) as usize];
    }
    reg
}

/// CRC-32 of `bytes` (the 802.11 FCS).
pub fn crc32(bytes: &[u8]) -> u32 {
    !crc_update(!0, bytes)
}

/// Runs of zero bytes advance the CRC register by a linear map (over GF(2)),
/// so a frame's zero payload costs one 32-column product instead of a pass
/// over every byte. The columns for each payload length met are kept.
#[derive(Default)]
pub struct FrameEncoder {
    zero_runs: std::collections::HashMap<usize, [u32; 32]>,
    /// Where the bytes of DSDV and OLSR messages are (`wire/board.rs`).
    pub board: Option<crate::wire::board::WireBoard>,
    payload: Vec<u8>,
}

impl FrameEncoder {
    pub fn new() -> FrameEncoder {
        FrameEncoder::default()
    }

    /// The CRC register after `n` more zero bytes.
    fn crc_zeros(&mut self, reg: u32, n: usize) -> u32 {
        if n < 64 {
            return (0..n).fold(reg, |r, _| (r >> 8) ^ CRC_TABLE[(r & 0xff) as usize]);
        }
        let cols = self.zero_runs.entry(n).or_insert_with(|| {
            let mut cols = [0u32; 32];
            for (i, c) in cols.iter_mut().enumerate() {
                *c = (0..n).fold(1u32 << i, |r, _| (r >> 8) ^ CRC_TABLE[(r & 0xff) as usize]);
            }
            cols
        });
        let (mut out, mut bits) = (0u32, reg);
        while bits != 0 {
            out ^= cols[bits.trailing_zeros() as usize];
            bits &= bits - 1;
        }
        out
    }

    /// Appends one captured frame (radiotap + 802.11 + body + FCS) to `buf`
    /// and returns its length (the record's original length). `tsft_us` is
    /// the radiotap TSFT (the end of the frame, see the module
    /// documentation); `signal_dbm` is given for received frames.
    pub fn encode(&mut self, buf: &mut Vec<u8>, frame: &Frame, tsft_us: u64, signal_dbm: Option<i8>) -> usize {
        let start = buf.len();
        let zeros = encode_frame_body(buf, frame, tsft_us, signal_dbm, self.board.as_ref(), &mut self.payload);
        let mac_start = start + u16::from_le_bytes([buf[start + 2], buf[start + 3]]) as usize;
        let reg = crc_update(!0, &buf[mac_start..buf.len() - zeros]);
        let fcs = !self.crc_zeros(reg, zeros);
        buf.extend_from_slice(&fcs.to_le_bytes());
        buf.len() - start
    }
}

/// Duration/ID field: microseconds rounded up, at most 32767.
fn duration_field(t: Time) -> u16 {
    t.as_ns().div_ceil(1000).min(0x7fff) as u16
}

/// Appends radiotap, the MAC header and the body of a frame (everything but
/// the FCS) to `buf`; returns how many zero bytes end it (the payload).
fn encode_frame_body(
    buf: &mut Vec<u8>,
    frame: &Frame,
    tsft_us: u64,
    signal_dbm: Option<i8>,
    board: Option<&crate::wire::board::WireBoard>,
    payload: &mut Vec<u8>,
) -> usize {
    let start = buf.len();
    // ---- radiotap (little-endian; each field aligned to its size) ----
    let mut present: u32 = 1 << 0 | 1 << 1 | 1 << 2 | 1 << 3; // TSFT, Flags, Rate, Channel
    if signal_dbm.is_some() {
        present |= 1 << 5; // dBm antenna signal
    }
    buf.extend_from_slice(&[0, 0, 0, 0]); // version 0, pad, length (below)
    buf.extend_from_slice(&present.to_le_bytes());
    buf.extend_from_slice(&tsft_us.to_le_bytes()); // offset 8
    buf.push(0x10); // Flags: FCS at the end, long preamble
    buf.push((frame.rate / 500_000).min(255) as u8);
    let (freq, chan_flags): (u16, u16) =
        if OFDM_RATES.contains(&frame.rate) { (5180, 0x0100 | 0x0040) } else { (2412, 0x0080 | 0x0020) };
    buf.extend_from_slice(&freq.to_le_bytes()); // offset 18
    buf.extend_from_slice(&chan_flags.to_le_bytes());
    if let Some(s) = signal_dbm {
        buf.push(s as u8);
    }
    let rt_len = (buf.len() - start) as u16;
    buf[start + 2..start + 4].copy_from_slice(&rt_len.to_le_bytes());

    // ---- 802.11 MAC header ----
    let mac_start = buf.len();
    let dur = duration_field(frame.duration).to_le_bytes();
    match frame.kind {
        FrameKind::Rts | FrameKind::Cts | FrameKind::Ack => {
            // Control frames: type 1; subtypes RTS 11, CTS 12, ACK 13.
            let subtype = match frame.kind {
                FrameKind::Rts => 11,
                FrameKind::Cts => 12,
                _ => 13,
            };
            buf.extend_from_slice(&[(subtype << 4) | (1 << 2), 0x00, dur[0], dur[1]]);
            buf.extend_from_slice(&mac_addr(frame.dst));
            if frame.kind == FrameKind::Rts {
                buf.extend_from_slice(&mac_addr(frame.src));
            }
            0
        }
        FrameKind::Data => {
            // Data frame (type 2, subtype 0), To/From DS 0 (IBSS).
            let flags = if frame.retry { 0x08 } else { 0x00 };
            buf.extend_from_slice(&[2 << 2, flags, dur[0], dur[1]]);
            buf.extend_from_slice(&mac_addr(frame.dst));
            buf.extend_from_slice(&mac_addr(frame.src));
            buf.extend_from_slice(&BSSID);
            buf.extend_from_slice(&((frame.seq & 0x0fff) << 4).to_le_bytes());
            match &frame.packet {
                Some(p) => {
                    buf.extend_from_slice(&LLC_SNAP_IP);
                    encode_ip(buf, p, board, payload)
                }
                // A data frame without a packet has no body to show: pad to its size.
                None => {
                    let len = (mac_start + frame.bytes.saturating_sub(4) as usize).max(buf.len());
                    let zeros = len - buf.len();
                    buf.resize(len, 0);
                    zeros
                }
            }
        }
    }
}

/// The IPv4 datagram of a packet: headers, the routing message if it is
/// one (`trace_payload.rs`), and a zero payload up to `pkt.size` bytes;
/// returns the length of the trailing zeros.
fn encode_ip(
    buf: &mut Vec<u8>,
    p: &Packet,
    board: Option<&crate::wire::board::WireBoard>,
    payload: &mut Vec<u8>,
) -> usize {
    payload.clear();
    // DSR (IP protocol 48, RFC 4728): control messages and source-routed data.
    if let Some(zeros) = super::trace_dsr::encode(buf, p, board, payload, encode_ip) {
        return zeros;
    }
    let start = buf.len();
    let total = p.size.clamp(IP_HEADER_BYTES, 65535) as u16;
    let (src, dst) = (ip_addr(p.src), ip_addr(p.dst));
    let l4_len = total - IP_HEADER_BYTES as u16;
    // The transport header and the protocol number.
    let mut l4 = [0u8; 20];
    let (proto, l4_hdr_len) = match p.body {
        Body::Tcp(s) if l4_len >= 20 => {
            l4[0..2].copy_from_slice(&s.sport.to_be_bytes());
            l4[2..4].copy_from_slice(&s.dport.to_be_bytes());
            l4[4..8].copy_from_slice(&(s.seq as u32).to_be_bytes());
            let ack = if s.flags & crate::net::TcpSeg::ACK != 0 { s.ack as u32 } else { 0 };
            l4[8..12].copy_from_slice(&ack.to_be_bytes());
            l4[12] = 5 << 4; // data offset: 5 words, no options
            l4[13] = s.flags;
            l4[14..16].copy_from_slice(&(s.wnd.min(65535) as u16).to_be_bytes());
            // l4[16..18] checksum, l4[18..20] urgent pointer (0).
            let c = l4_checksum(src, dst, IPPROTO_TCP, l4_len, &l4);
            l4[16..18].copy_from_slice(&c.to_be_bytes());
            (IPPROTO_TCP, 20)
        }
        Body::Udp { sport, dport, .. } if l4_len >= 8 => {
            (IPPROTO_UDP, udp_header(&mut l4, sport, dport, src, dst, l4_len))
        }
        // AODV and board messages (DSDV, OLSR, ...): on their UDP ports.
        Body::Aodv(_) | Body::Routing(_) if l4_len >= 8 => {
            let port = super::trace_payload::routing_payload(&p.body, board, payload).expect("a routing body");
            payload.truncate(l4_len as usize - 8);
            l4[0..2].copy_from_slice(&port.to_be_bytes());
            l4[2..4].copy_from_slice(&port.to_be_bytes());
            l4[4..6].copy_from_slice(&l4_len.to_be_bytes());
            let c = l4_checksum_payload(src, dst, IPPROTO_UDP, l4_len, &l4[..8], payload);
            l4[6..8].copy_from_slice(&c.to_be_bytes());
            (IPPROTO_UDP, 8)
        }
        // ARP (SNAP ethertype 0x0806) has no encoding yet: UDP to the
        // discard port with a zero payload.
        _ if l4_len >= 8 => (IPPROTO_UDP, udp_header(&mut l4, DISCARD_PORT, DISCARD_PORT, src, dst, l4_len)),
        _ => (IPPROTO_EXPERIMENTAL, 0),
    };
    let mut ip = [0u8; 20];
    ip[0] = 0x45; // version 4, 5 words
    ip[1] = p.dscp << 2; // DSCP in the top six bits of the TOS byte
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[4..6].copy_from_slice(&(p.uid as u16).to_be_bytes());
    // flags and fragment offset 0
    ip[8] = p.ttl;
    ip[9] = proto;
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let c = internet_checksum(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    buf.extend_from_slice(&ip);
    buf.extend_from_slice(&l4[..l4_hdr_len]);
    buf.extend_from_slice(payload);
    let zeros = start + total as usize - buf.len();
    buf.resize(start + total as usize, 0);
    zeros
}

fn udp_header(l4: &mut [u8; 20], sport: u16, dport: u16, src: [u8; 4], dst: [u8; 4], len: u16) -> usize {
    l4[0..2].copy_from_slice(&sport.to_be_bytes());
    l4[2..4].copy_from_slice(&dport.to_be_bytes());
    l4[4..6].copy_from_slice(&len.to_be_bytes());
    let c = l4_checksum(src, dst, IPPROTO_UDP, len, &l4[..8]);
    l4[6..8].copy_from_slice(&c.to_be_bytes());
    8
}

/// Appends a record (16-byte header + the data cut at `snaplen`) to `out`.
fn write_record(out: &mut impl Write, t: Time, data: &[u8], orig_len: usize, snaplen: u32) -> io::Result<()> {
    let ns = t.as_ns();
    let incl = orig_len.min(snaplen as usize);
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
    h[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(incl as u32).to_le_bytes());
    h[12..16].copy_from_slice(&(orig_len as u32).to_le_bytes());
    out.write_all(&h)?;
    out.write_all(&data[..incl])
}

/// Per-node files are buffered in memory and appended in chunks of this size.
const NODE_CHUNK: usize = 32 * 1024;
/// At most this many per-node files stay open; the others are reopened
/// for each chunk (a run may have far more nodes than file descriptors).
const MAX_OPEN: usize = 128;

#[derive(Default)]
struct NodeFile {
    buf: Vec<u8>,
    file: Option<File>,
    created: bool,
}

/// Writes pcap files (see the module documentation).
pub struct PcapSink {
    mode: PcapMode,
    dir: PathBuf,
    snaplen: u32,
    merged: Option<BufWriter<File>>,
    nodes: Vec<NodeFile>,
    open_files: usize,
    scratch: Vec<u8>,
    encoder: FrameEncoder,
    error: Option<io::Error>,
}

impl PcapSink {
    /// File name of node `n`'s capture in per-node mode.
    pub fn node_file_name(n: NodeId) -> String {
        format!("trace-node{n}.pcap")
    }
    /// File name of the merged capture.
    pub const MERGED_FILE_NAME: &'static str = "trace.pcap";

    /// Captures into `dir` (which must exist): `trace.pcap` in merged mode,
    /// `trace-node<i>.pcap` for each of the `nodes` nodes in per-node mode.
    pub fn create(dir: &Path, mode: PcapMode, nodes: usize) -> io::Result<PcapSink> {
        PcapSink::with_snaplen(dir, mode, nodes, DEFAULT_SNAPLEN)
    }

    /// As [`PcapSink::create`], keeping at most `snaplen` bytes of each frame
    /// (radiotap header included; e.g. 128 keeps every header).
    pub fn with_snaplen(dir: &Path, mode: PcapMode, nodes: usize, snaplen: u32) -> io::Result<PcapSink> {
        let snaplen = snaplen.max(64);
        let merged = match mode {
            PcapMode::Merged => {
                let mut w = BufWriter::with_capacity(256 * 1024, File::create(dir.join(Self::MERGED_FILE_NAME))?);
                w.write_all(&global_header(snaplen))?;
                Some(w)
            }
            PcapMode::PerNode => None,
        };
        let nodes = match mode {
            PcapMode::PerNode => (0..nodes).map(|_| NodeFile::default()).collect(),
            PcapMode::Merged => Vec::new(),
        };
        Ok(PcapSink {
            mode,
            dir: dir.to_path_buf(),
            snaplen,
            merged,
            nodes,
            open_files: 0,
            scratch: Vec::with_capacity(4096),
            encoder: FrameEncoder::new(),
            error: None,
        })
    }

    fn node_record(&mut self, node: NodeId, t: Time, orig_len: usize) -> io::Result<()> {
        let i = node as usize;
        if i >= self.nodes.len() {
            self.nodes.resize_with(i + 1, NodeFile::default);
        }
        let n = &mut self.nodes[i];
        if n.buf.is_empty() && !n.created {
            n.buf.extend_from_slice(&global_header(self.snaplen));
        }
        write_record(&mut n.buf, t, &self.scratch, orig_len, self.snaplen)?;
        if n.buf.len() >= NODE_CHUNK {
            self.flush_node(i)?;
        }
        Ok(())
    }

    /// Appends node `i`'s buffer to its file, creating the file the first time.
    fn flush_node(&mut self, i: usize) -> io::Result<()> {
        let n = &mut self.nodes[i];
        if !n.created && n.buf.is_empty() {
            n.buf.extend_from_slice(&global_header(self.snaplen));
        }
        if n.file.is_none() {
            let path = self.dir.join(Self::node_file_name(i as NodeId));
            let mut f = if n.created { OpenOptions::new().append(true).open(&path)? } else { File::create(&path)? };
            n.created = true;
            if self.open_files >= MAX_OPEN {
                f.write_all(&n.buf)?;
                n.buf.clear();
                return Ok(());
            }
            self.open_files += 1;
            n.file = Some(f);
        }
        n.file.as_mut().expect("opened above").write_all(&n.buf)?;
        n.buf.clear();
        Ok(())
    }

    fn on_frame(&mut self, ev: &FrameEvent) -> io::Result<()> {
        match (self.mode, ev.dir) {
            // Transmissions are recorded when they start (TSFT: when they end);
            // receptions when the last bit arrives.
            (PcapMode::Merged, FrameDir::Tx) => {
                self.scratch.clear();
                let end = ev.time + ev.duration;
                let len = self.encoder.encode(&mut self.scratch, ev.frame, end.as_ns() / 1000, None);
                let out = self.merged.as_mut().expect("merged mode has its file");
                write_record(out, ev.time, &self.scratch, len, self.snaplen)
            }
            (PcapMode::PerNode, FrameDir::Tx) => {
                self.scratch.clear();
                let end = ev.time + ev.duration;
                let len = self.encoder.encode(&mut self.scratch, ev.frame, end.as_ns() / 1000, None);
                self.node_record(ev.node, ev.time, len)
            }
            (PcapMode::PerNode, FrameDir::Rx) => {
                self.scratch.clear();
                let len =
                    self.encoder.encode(&mut self.scratch, ev.frame, ev.time.as_ns() / 1000, Some(dbm(ev.power_w)));
                self.node_record(ev.node, ev.time, len)
            }
            _ => Ok(()),
        }
    }
}

impl TraceSink for PcapSink {
    fn packet(&mut self, _ev: &PacketEvent) {}

    fn attach_board(&mut self, board: &crate::wire::board::WireBoard) {
        self.encoder.board = Some(board.clone());
    }

    fn frame(&mut self, ev: &FrameEvent) {
        if self.error.is_none() {
            if let Err(e) = self.on_frame(ev) {
                self.error = Some(e);
            }
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(w) = self.merged.as_mut() {
            w.flush()?;
        }
        // Every node gets its file, even one that never heard a frame.
        for i in 0..self.nodes.len() {
            if !self.nodes[i].buf.is_empty() || !self.nodes[i].created {
                self.flush_node(i)?;
            }
            self.nodes[i].file = None;
        }
        self.open_files = 0;
        Ok(())
    }
}

/// A sink dropped without `finish` (a run abandoned half-way) still leaves
/// complete files behind.
impl Drop for PcapSink {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::TcpSeg;

    fn packet(body: Body, size: u32) -> Packet {
        Packet {
            uid: 0x1_0203,
            src: 2,
            dst: 0,
            ttl: 63,
            dscp: 0,
            size,
            next_hop: 1,
            prev_hop: 2,
            created: Time::ZERO,
            flow: 0,
            body,
            sr: Default::default(),
        }
    }

    fn data(p: Packet) -> Frame {
        Frame {
            kind: FrameKind::Data,
            src: 2,
            dst: 1,
            duration: Time::from_ns(313_500),
            seq: 0x123,
            tid: None,
            retry: true,
            bytes: p.size + 36,
            rate: 11_000_000,
            packet: Some(p),
        }
    }

    #[test]
    fn snapped_records_keep_their_original_length() {
        let dir = std::env::temp_dir().join(format!("manetlab-pcap-snap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = data(packet(Body::Udp { sport: 1, dport: 2, seq: 0 }, 1000));
        {
            let mut sink = PcapSink::with_snaplen(&dir, PcapMode::PerNode, 3, 100).unwrap();
            let ev = FrameEvent {
                time: Time::from_ns(1_500_000_123),
                node: 1,
                dir: FrameDir::Rx,
                frame: &f,
                duration: Time::from_us(800),
                power_w: 1e-9,
            };
            sink.frame(&ev);
            // Dropped without finish(): the files are completed anyway.
        }
        let b = std::fs::read(dir.join(PcapSink::node_file_name(1))).unwrap();
        assert_eq!(u32::from_le_bytes(b[16..20].try_into().unwrap()), 100);
        let rec = &b[24..];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 500_000_123);
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 100);
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 23 + 1036);
        assert_eq!(rec.len(), 16 + 100);
        assert_eq!(std::fs::read(dir.join(PcapSink::node_file_name(0))).unwrap(), global_header(100));
        assert_eq!(std::fs::read(dir.join(PcapSink::node_file_name(2))).unwrap(), global_header(100));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn addresses() {
        assert_eq!(mac_addr(0x0001_0203), [2, 0, 0, 1, 2, 3]);
        assert_eq!(mac_addr(BROADCAST), [0xff; 6]);
        assert_eq!(ip_addr(0), [10, 0, 0, 1]);
        assert_eq!(ip_addr(255), [10, 0, 1, 0]);
        assert_eq!(ip_addr(BROADCAST), [255; 4]);
    }

    #[test]
    fn checksum_of_a_known_header() {
        // A textbook IPv4 header whose checksum is 0xb861.
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
            0x00, 0xc7,
        ];
        assert_eq!(internet_checksum(&h), 0xb861);
    }

    #[test]
    fn crc_of_zero_runs() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        let mut enc = FrameEncoder::new();
        for n in [0, 1, 63, 64, 65, 1000, 2300] {
            let mut bytes = b"header".to_vec();
            let reg = crc_update(!0, &bytes);
            bytes.resize(6 + n, 0);
            assert_eq!(!enc.crc_zeros(reg, n), crc32(&bytes), "{n} zeros");
            assert_eq!(!enc.crc_zeros(reg, n), crc32(&bytes), "{n} zeros, cached");
        }
    }

    #[test]
    fn udp_data_frame_layout() {
        let p = packet(Body::Udp { sport: 10000, dport: 10001, seq: 3 }, 20 + 8 + 100);
        let f = data(p);
        let mut b = Vec::new();
        let n = FrameEncoder::new().encode(&mut b, &f, 7, Some(-70));
        assert_eq!(n, b.len());
        let rt = u16::from_le_bytes([b[2], b[3]]) as usize;
        assert_eq!(rt, 23);
        assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()), 0b10_1111);
        assert_eq!(u64::from_le_bytes(b[8..16].try_into().unwrap()), 7);
        assert_eq!((b[16], b[17]), (0x10, 22)); // FCS at the end, 11 Mbit/s
        assert_eq!(u16::from_le_bytes([b[18], b[19]]), 2412);
        assert_eq!(b[22] as i8, -70);
        let m = &b[rt..];
        assert_eq!(m.len() as u32, f.bytes);
        let (m, fcs) = m.split_at(m.len() - 4);
        assert_eq!(fcs, crc32(m).to_le_bytes());
        assert_eq!(&m[0..2], &[0x08, 0x08]); // data, retry
        assert_eq!(u16::from_le_bytes([m[2], m[3]]), 314);
        assert_eq!(&m[4..10], &mac_addr(1));
        assert_eq!(&m[10..16], &mac_addr(2));
        assert_eq!(&m[16..22], &BSSID);
        assert_eq!(u16::from_le_bytes([m[22], m[23]]), 0x123 << 4);
        assert_eq!(&m[24..32], &LLC_SNAP_IP);
        let ip = &m[32..];
        assert_eq!(ip.len(), 128);
        assert_eq!(internet_checksum(&ip[..20]), 0);
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 128);
        assert_eq!(u16::from_be_bytes([ip[4], ip[5]]), 0x0203);
        assert_eq!((ip[8], ip[9]), (63, 17));
        assert_eq!(&ip[12..16], &[10, 0, 0, 3]);
        assert_eq!(u16::from_be_bytes([ip[22], ip[23]]), 10001);
        assert_eq!(u16::from_be_bytes([ip[24], ip[25]]), 108);
        // The UDP checksum verifies over the pseudo-header and the whole datagram.
        let mut acc = ones_sum(0, &ip[12..20]) + 17 + 108;
        acc = ones_sum(acc, &ip[20..]);
        assert_eq!(fold(acc), 0);
    }

    #[test]
    fn tcp_and_control_frames() {
        let seg = TcpSeg {
            sport: 1,
            dport: 2,
            seq: (1 << 32) + 5,
            ack: 77,
            len: 1000,
            flags: TcpSeg::ACK,
            wnd: 1 << 20,
            ..Default::default()
        };
        let p = packet(Body::Tcp(seg), 20 + 20 + 1000);
        let mut b = Vec::new();
        FrameEncoder::new().encode(&mut b, &data(p), 0, None);
        let tcp = &b[22 + 32 + 20..b.len() - 4];
        assert_eq!(tcp.len(), 1020);
        assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), 5);
        assert_eq!(u32::from_be_bytes(tcp[8..12].try_into().unwrap()), 77);
        assert_eq!((tcp[12], tcp[13]), (0x50, 0x10));
        assert_eq!(u16::from_be_bytes([tcp[14], tcp[15]]), 65535);
        let mut acc = ones_sum(0, &[10, 0, 0, 3, 10, 0, 0, 1]) + 6 + 1020;
        acc = ones_sum(acc, tcp);
        assert_eq!(fold(acc), 0);

        for (kind, bytes, fc) in [(FrameKind::Rts, 20, 0xb4), (FrameKind::Cts, 14, 0xc4), (FrameKind::Ack, 14, 0xd4)] {
            let f = Frame {
                kind,
                src: 0,
                dst: 1,
                duration: Time::from_us(100),
                seq: 0,
                tid: None,
                retry: false,
                bytes,
                rate: 6_000_000,
                packet: None,
            };
            let mut b = Vec::new();
            let n = FrameEncoder::new().encode(&mut b, &f, 0, None);
            assert_eq!(n - 22, bytes as usize);
            assert_eq!(b[n - 4..], crc32(&b[22..n - 4]).to_le_bytes());
            assert_eq!(b[22], fc);
            assert_eq!(u16::from_le_bytes([b[18], b[19]]), 5180);
            assert_eq!(b[17], 12);
        }
    }
}
