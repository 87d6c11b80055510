//! The counters that explain where the simulators differ: what became of
//! the data packets (delivered, refused at the source, dropped at ARP, by
//! the MAC after its retries, for want of a route, by a queue) and the
//! control packets each protocol sent by kind, as mean per run. ns-3's come
//! from `data/reference/mrc/ns3-counters.csv` (written by
//! `scripts/ns3/mrc/mrc.cc --counters`, from its trace sources: Ipv4L3Protocol
//! Drop, ArpL3Protocol Drop, WifiMac DroppedMpdu, the OLSR agent's Tx, the
//! AODV headers of every packet handed to a MAC), manetlab's from the runs'
//! flow drops (ns-2 reason codes) and routing statistics.

use super::Outcome;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One ns-3 run's counters, as `ns3-counters.csv` stores them (see the
/// header comment of `scripts/ns3/mrc/mrc.cc`).
#[derive(Clone, Debug, Deserialize)]
pub struct Ns3Counters {
    pub protocol: String,
    pub max_speed: f64,
    pub pause: f64,
    pub run: u64,
    pub offered: u64,
    pub refused: u64,
    pub received: u64,
    pub rreq_orig: u64,
    pub rreq_fwd: u64,
    pub rrep: u64,
    pub hello: u64,
    pub rerr: u64,
    pub olsr_packets: u64,
    pub olsr_hello: u64,
    pub olsr_tc: u64,
    pub olsr_other: u64,
    pub ip_ttl: u64,
    pub ip_noroute: u64,
    pub ip_route_error: u64,
    pub ip_other: u64,
    pub arp_drop: u64,
    pub mac_retry_data: u64,
    pub mac_retry_ctl: u64,
    pub mac_lifetime_data: u64,
    pub mac_enqueue_data: u64,
    pub mac_txdrop: u64,
    pub dsr_drop: u64,
    pub phy_rx_drop: u64,
}

/// The stored ns-3 counters of the independent draws (empty when the file
/// is missing).
pub fn ns3_counters() -> Vec<Ns3Counters> {
    ns3_counters_from("ns3-counters.csv")
}

/// The stored ns-3 counters in `file` of the reference folder
/// (`ns3-moves-counters.csv`: the paired runs).
pub fn ns3_counters_from(file: &str) -> Vec<Ns3Counters> {
    let path = super::reference_dir().join(file);
    let Ok(text) = std::fs::read_to_string(&path) else { return Vec::new() };
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<Vec<Ns3Counters>, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What became of one ns-3 run's data packets, each packet once, by the
/// last event seen for it (`ns3-moves-fates.csv`, `mrc --fates`; see
/// FATES_HEADER in `scripts/ns3/mrc/mrc.cc`).
#[derive(Clone, Debug, Deserialize)]
pub struct Ns3Fates {
    pub protocol: String,
    pub max_speed: f64,
    pub pause: f64,
    pub run: u64,
    pub offered: u64,
    pub sent: u64,
    pub delivered: u64,
    pub never_to_mac_old: u64,
    pub never_to_mac_recent: u64,
    pub last_mac_tx: u64,
    pub last_mac_rx: u64,
    pub last_mac_retry: u64,
    pub last_mac_other: u64,
    pub last_arp: u64,
    pub last_arp_giveup: u64,
    pub last_ip: u64,
    pub last_dsr: u64,
}

/// The stored per-packet fates in `file` of the reference folder (empty
/// when the file is missing).
pub fn ns3_fates_from(file: &str) -> Vec<Ns3Fates> {
    let path = super::reference_dir().join(file);
    let Ok(text) = std::fs::read_to_string(&path) else { return Vec::new() };
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<Vec<Ns3Fates>, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One ns-2.35 run's loss counters, as `ns2-counters.csv` stores them
/// (`scripts/ns2/mrc/summarize.py --counters`: every CBR packet sent and
/// not received, by the ns-2 reason of its last drop event).
#[derive(Clone, Debug, Deserialize)]
pub struct Ns2Counters {
    pub protocol: String,
    pub max_speed: f64,
    pub pause: f64,
    pub run: u64,
    pub offered: u64,
    pub received: u64,
    pub arp: u64,
    pub mac: u64,
    pub no_route: u64,
    pub queue: u64,
    pub other_drop: u64,
    pub in_flight: u64,
}

/// The stored ns-2 counters (empty when the file is missing).
pub fn ns2_counters() -> Vec<Ns2Counters> {
    let path = super::reference_dir().join("ns2-counters.csv");
    let Ok(text) = std::fs::read_to_string(&path) else { return Vec::new() };
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<Vec<Ns2Counters>, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What became of the data packets, mean per run over `n` runs. The groups
/// are the ones both simulators can count: `refused` = not accepted at the
/// source for want of a route (ns-3's UDP socket; manetlab's OLSR drops
/// them NRTE at the source), `arp` = dropped by ARP (ns-3: any packet its
/// ArpL3Protocol drops, nearly all data), `mac` = dropped after the MAC's
/// retry limit (manetlab: RET, and CBK for the packet routing could not
/// salvage), `no_route` = dropped by routing (no route at a forwarder,
/// route discovery failed, buffer timeout or overflow, TTL; not ns-3's
/// DSR, whose Drop trace is not per data packet), `queue` = interface queue overflow or (ns-3) queue
/// lifetime; `other` = the rest (other reasons, and packets still in flight
/// or in buffers at the end). From ns-3's drop counters (not its per-packet
/// fates) `other` can be negative: those counters count every dropped copy
/// of a packet (DSR's maintenance buffer retransmits), so the groups are not
/// per data packet; [`Fate::counts_copies`] says so.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Fate {
    pub n: usize,
    pub offered: f64,
    pub delivered: f64,
    pub refused: f64,
    pub arp: f64,
    pub mac: f64,
    pub no_route: f64,
    pub queue: f64,
    pub other: f64,
    /// Each packet counted once (manetlab, ns-2's trace, ns-3's fates), or
    /// from drop counters that may count copies (ns-3's counters).
    pub per_packet: bool,
}

/// The loss groups of [`Fate`] with their names (the report's columns).
pub const GROUPS: [&str; 6] = ["refused at source", "ARP", "MAC retries", "no route", "queue", "other / in flight"];

impl Fate {
    pub fn groups(&self) -> [f64; 6] {
        [self.refused, self.arp, self.mac, self.no_route, self.queue, self.other]
    }

    /// The counters count copies: their residual "other / in flight" is
    /// negative (more drops than packets lost), so the groups cannot be
    /// compared packet for packet.
    pub fn counts_copies(&self) -> bool {
        !self.per_packet && self.other < -0.5
    }

    /// The loss groups as table cells; a negative residual of counters that
    /// count copies is shown as such.
    pub fn group_cells(&self) -> Vec<String> {
        let mut v: Vec<String> = self.groups().iter().map(|x| super::num(*x, 0)).collect();
        if self.counts_copies() {
            v[5] = format!("{} (counts copies)", super::num(self.other, 0));
        }
        v
    }

    fn finish(mut self, n: usize) -> Fate {
        let k = n.max(1) as f64;
        self.n = n;
        for v in [
            &mut self.offered,
            &mut self.delivered,
            &mut self.refused,
            &mut self.arp,
            &mut self.mac,
            &mut self.no_route,
            &mut self.queue,
        ] {
            *v /= k;
        }
        self.other = self.offered - self.delivered - self.refused - self.arp - self.mac - self.no_route - self.queue;
        self
    }

    /// From ns-3's per-packet fates: ARP = ArpL3Protocol's drops and the
    /// held packets ArpCache drops when a resolution fails; MAC = the retry
    /// limit; no route = IPv4's drops and packets the source's routing held
    /// until they were dropped unseen (never handed to a MAC, sent more than
    /// 30 s before the end: DSR's send buffer); queue = MAC queue drops;
    /// other = in flight or held at the end, or dropped silently after a
    /// hop (DSR's maintenance buffer, its Drop trace).
    pub fn of_ns3_fates(rows: &[&Ns3Fates]) -> Fate {
        let mut f = Fate { per_packet: true, ..Fate::default() };
        for r in rows {
            f.offered += r.offered as f64;
            f.delivered += r.delivered as f64;
            f.refused += r.offered.saturating_sub(r.sent) as f64;
            f.arp += (r.last_arp + r.last_arp_giveup) as f64;
            f.mac += r.last_mac_retry as f64;
            f.no_route += (r.last_ip + r.never_to_mac_old) as f64;
            f.queue += r.last_mac_other as f64;
        }
        f.finish(rows.len())
    }

    pub fn of_ns3(rows: &[&Ns3Counters]) -> Fate {
        let mut f = Fate::default();
        for r in rows {
            f.offered += r.offered as f64;
            f.delivered += r.received as f64;
            f.refused += r.refused as f64;
            f.arp += r.arp_drop as f64;
            f.mac += r.mac_retry_data as f64;
            // ns-3's DSR Drop trace counts control packets and copies too
            // (its maintenance buffer retransmits data packets), so it is
            // left out; its MAC drops count every copy that failed.
            f.no_route += (r.ip_noroute + r.ip_route_error + r.ip_ttl) as f64;
            f.queue += (r.mac_lifetime_data + r.mac_enqueue_data) as f64;
        }
        f.finish(rows.len())
    }

    pub fn of_ns2(rows: &[&Ns2Counters]) -> Fate {
        let mut f = Fate { per_packet: true, ..Fate::default() };
        for r in rows {
            f.offered += r.offered as f64;
            f.delivered += r.received as f64;
            f.arp += r.arp as f64;
            f.mac += r.mac as f64;
            f.no_route += r.no_route as f64;
            f.queue += r.queue as f64;
        }
        f.finish(rows.len())
    }

    pub fn of_ours(protocol: &str, rows: &[&Outcome]) -> Fate {
        let mut f = Fate { per_packet: true, ..Fate::default() };
        for r in rows {
            f.offered += r.offered as f64;
            f.delivered += r.received as f64;
            // ns-3's OLSR refuses at the socket what manetlab's drops NRTE at the source.
            if protocol == "olsr" {
                f.refused += r.source_nrte as f64;
            }
            for (reason, &n) in &r.data_drops {
                let n = n as f64;
                match reason.as_str() {
                    "ARP" => f.arp += n,
                    "RET" | "CBK" => f.mac += n,
                    "NRTE" | "TTL" | "LOOP" => f.no_route += n,
                    "IFQ" => f.queue += n,
                    _ => {}
                }
            }
            if protocol == "olsr" {
                f.no_route -= r.source_nrte as f64;
            }
        }
        f.finish(rows.len())
    }
}

/// Control packets handed to the MAC by kind (each hop), mean per run.
pub fn control_of_ns3(protocol: &str, rows: &[&Ns3Counters]) -> BTreeMap<String, f64> {
    let k = rows.len().max(1) as f64;
    let mut m = BTreeMap::new();
    let mut add = |name: &str, v: u64| *m.entry(name.to_string()).or_insert(0.0) += v as f64 / k;
    for r in rows {
        match protocol {
            "aodv" => {
                add("RREQ", r.rreq_orig + r.rreq_fwd);
                add("RREQ originated", r.rreq_orig);
                add("RREP", r.rrep);
                add("HELLO", r.hello);
                add("RERR", r.rerr);
            }
            "olsr" => {
                add("OLSR packets", r.olsr_packets);
                add("HELLO", r.olsr_hello);
                add("TC", r.olsr_tc);
            }
            _ => {}
        }
        add("MAC drops of control (retries)", r.mac_retry_ctl);
    }
    m
}

pub fn control_of_ours(protocol: &str, rows: &[&Outcome]) -> BTreeMap<String, f64> {
    let k = rows.len().max(1) as f64;
    let mut m = BTreeMap::new();
    for r in rows {
        for (kind, &n) in &r.routing_sent {
            *m.entry(kind.clone()).or_insert(0.0) += n as f64 / k;
        }
        if protocol == "aodv" {
            // manetlab's own events (ns-3 has no counter for them).
            for e in ["route_discoveries", "route_discovery_failures", "rreq_rate_limited", "neighbours_lost"] {
                let n = r.routing_events.get(e).copied().unwrap_or(0);
                *m.entry(format!("event {e}")).or_insert(0.0) += n as f64 / k;
            }
        }
        if protocol == "olsr" {
            // One message per packet in manetlab.
            let p: u64 = r.routing_sent.values().sum();
            *m.entry("OLSR packets".into()).or_insert(0.0) += p as f64 / k;
        }
        *m.entry("MAC drops of control (retries)".into()).or_insert(0.0) += r.control_ret as f64 / k;
    }
    m
}
