//! Simulator profiles: `[run] profile = "ns2" | "ns3" | "cmu1999"`.
//!
//! Where ns-2.35, ns-3 and the 1999 CMU papers' set-up choose differently
//! (reception model, propagation, RTS, ARP, queue, routing constants, TCP
//! defaults), a profile sets every such default at once. The table is
//! [`CHOICES`]: one row per choice, each with the scenario keys the `ns3`
//! and `cmu1999` profiles write. `ns2` writes nothing: manetlab's defaults
//! *are* the ns2 profile, so a file without a profile runs as before.
//! docs/profiles.md shows the same table with the reference's source and
//! the measured effect of every row.
//!
//! The profile is applied at one point, [`apply`], on the scenario text
//! after the `--set` overrides and before the typed parse: a key is written
//! only where the text does not already have it (or a key it conflicts
//! with), so explicit keys and overrides always win. Bytes written by a
//! profile are reported as coming from it in error messages
//! (`--set profile ns3: radio.reception = "sinr"`).
//!
//! `manetlab explain` switches rows one at a time between two profiles
//! through a [`Selection`].

use super::error::{At, Diag, ErrorKind};
use super::source::Source;
use std::collections::BTreeMap;
use toml_edit::{ImDocument, Item, Table};

/// A simulator whose defaults a scenario can take.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Profile {
    /// ns-2.35 with the CMU wireless extensions: manetlab's defaults.
    #[default]
    Ns2,
    /// ns-3.37 defaults (YansWifiPhy, AdhocWifiMac, ArpCache, TcpSocketBase).
    Ns3,
    /// The 1999 CMU papers' ns-2 set-up (tcp-manet-elfn.txt §3): ns2 with
    /// TCP-Reno, window 8, 6 s initial RTO and ns-2's ARP.
    Cmu1999,
}

impl Profile {
    pub const ALL: [Profile; 3] = [Profile::Ns2, Profile::Ns3, Profile::Cmu1999];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Ns2 => "ns2",
            Profile::Ns3 => "ns3",
            Profile::Cmu1999 => "cmu1999",
        }
    }

    /// Case-insensitive; `ns-2`, `ns-3` are accepted too.
    pub fn parse(s: &str) -> Option<Profile> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "ns2" | "ns-2" | "ns2.35" | "ns-2.35" => Some(Profile::Ns2),
            "ns3" | "ns-3" | "ns3.37" | "ns-3.37" => Some(Profile::Ns3),
            "cmu1999" | "cmu-1999" | "cmu" => Some(Profile::Cmu1999),
            _ => None,
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// When a setting applies.
#[derive(Copy, Clone, Debug)]
pub enum When {
    Always,
    /// `routing.protocol` is this (case-insensitive).
    Routing(&'static str),
    /// Written into every `[[flow]]` of type `tcp`/`ftp`.
    TcpFlows,
    /// `radio.propagation` is this (after the settings before it).
    Propagation(&'static str),
    /// `radio.reception` is this (after the settings before it).
    Reception(&'static str),
}

/// One scenario key a profile writes.
#[derive(Copy, Clone, Debug)]
pub struct Setting {
    /// Dotted key; for [`When::TcpFlows`] the key inside the flow.
    pub key: &'static str,
    /// TOML value text.
    pub value: &'static str,
    pub when: When,
    /// Not written when the text has any of these keys (e.g. `radio.rx_range`
    /// for `radio.rx_threshold`: the file chose the range itself).
    pub unless: &'static [&'static str],
}

const fn s(key: &'static str, value: &'static str) -> Setting {
    Setting { key, value, when: When::Always, unless: &[] }
}
const fn tcp(key: &'static str, value: &'static str) -> Setting {
    Setting { key, value, when: When::TcpFlows, unless: &[] }
}

/// A row of the profile table: one modelling choice.
#[derive(Copy, Clone, Debug)]
pub struct Choice {
    /// Short id (`explain` names rows by it).
    pub id: &'static str,
    pub title: &'static str,
    /// What ns-2 (manetlab's default) does, for the reader.
    pub ns2: &'static str,
    /// Keys the ns3 profile writes (empty: same as ns2, or not mapped).
    pub ns3: &'static [Setting],
    /// Keys the cmu1999 profile writes.
    pub cmu1999: &'static [Setting],
}

impl Choice {
    /// The keys profile `p` writes for this row (`ns2`: none).
    pub fn settings(&self, p: Profile) -> &'static [Setting] {
        match p {
            Profile::Ns2 => &[],
            Profile::Ns3 => self.ns3,
            Profile::Cmu1999 => self.cmu1999,
        }
    }
}

/// The profile table (docs/profiles.md has it with sources and effects).
pub const CHOICES: &[Choice] = &[
    Choice {
        id: "reception",
        title: "reception model",
        ns2: "threshold (receive threshold + capture ratio)",
        // ns-3 YansWifiPhy: InterferenceHelper + TableBasedErrorRateModel
        // (DSSS rates: DsssErrorRateModel), noise figure 7 dB (= manetlab's).
        ns3: &[s("radio.reception", "\"sinr\"")],
        cmu1999: &[],
    },
    Choice {
        id: "cca",
        title: "clear channel assessment (SINR reception)",
        ns2: "busy while any signal at or above the carrier-sense threshold is on the air",
        // ns-3.37 WifiPhy CcaEdThreshold -62 dBm: a signal the PHY is not
        // receiving holds the medium only at or above it (phy-entity.cc,
        // wifi-phy.cc SwitchMaybeToCcaBusy); CcaSensitivity -82 dBm applies
        // to the frame being received, and to every frame the PHY dropped
        // (receiving, transmitting, preamble not detected) except one
        // abandoned for a transmission: cca_sensitivity_hold (session 10:
        // with ns-3's TCP on both sides it closes the 5-10-hop gap,
        // docs/profiles.md).
        ns3: &[
            Setting {
                key: "radio.energy_detection_threshold",
                value: "\"-62dBm\"",
                when: When::Reception("sinr"),
                unless: &[],
            },
            Setting { key: "radio.cca_sensitivity_hold", value: "true", when: When::Reception("sinr"), unless: &[] },
        ],
        cmu1999: &[],
    },
    Choice {
        id: "preamble-detection",
        title: "preamble detection (SINR reception)",
        ns2: "none: a frame above the receive threshold is locked onto whatever the interference",
        // ns-3.37 ThresholdPreambleDetectionModel (threshold-preamble-
        // detection-model.cc): Threshold 4 dB SNR (with interference),
        // MinimumRssi -82 dBm (= the ns3 receive threshold below).
        ns3: &[Setting {
            key: "radio.preamble_detection_threshold",
            value: "\"4dB\"",
            when: When::Reception("sinr"),
            unless: &[],
        }],
        cmu1999: &[],
    },
    Choice {
        id: "capture",
        title: "capture rule (threshold reception)",
        ns2: "ns2: the frame being received survives a 10 dB weaker newcomer",
        // Only used with reception = "threshold": a stronger later frame
        // takes the receiver over, as ns-3's frame capture would.
        ns3: &[s("radio.capture_rule", "\"stronger-wins\"")],
        cmu1999: &[],
    },
    Choice {
        id: "propagation",
        title: "propagation, power and thresholds",
        ns2: "two-ray ground, 914 MHz, 24.5 dBm, 250 m receive / 550 m carrier sense",
        // ns-3 LogDistancePropagationLossModel (exponent 3, 46.6777 dB at
        // 1 m = Friis at 5.15 GHz), YansWifiPhy TxPowerStart 16.0206 dBm;
        // ThresholdPreambleDetectionModel locks at -82 dBm (RxSensitivity
        // -101 dBm only culls; CcaEdThreshold -62 dBm: row "cca"):
        // receive = carrier-sense threshold = -82 dBm.
        ns3: &[
            s("radio.propagation", "\"shadowing\""),
            Setting {
                key: "radio.shadowing_deviation",
                value: "\"0dB\"",
                when: When::Propagation("shadowing"),
                unless: &[],
            },
            Setting {
                key: "radio.path_loss_exponent",
                value: "3.0",
                when: When::Propagation("shadowing"),
                unless: &[],
            },
            Setting {
                key: "radio.reference_distance",
                value: "\"1m\"",
                when: When::Propagation("shadowing"),
                unless: &[],
            },
            s("radio.frequency", "\"5.15GHz\""),
            s("radio.tx_power", "\"16.0206dBm\""),
            Setting { key: "radio.rx_threshold", value: "\"-82dBm\"", when: When::Always, unless: &["radio.rx_range"] },
            Setting { key: "radio.cs_threshold", value: "\"-82dBm\"", when: When::Always, unless: &["radio.cs_range"] },
        ],
        cmu1999: &[],
    },
    Choice {
        id: "rts",
        title: "RTS/CTS default",
        ns2: "every unicast frame (RTSThreshold_ 0)",
        // ns-3 WifiRemoteStationManager RtsCtsThreshold 65535: never.
        ns3: &[s("mac.rts_threshold", "\"off\"")],
        cmu1999: &[],
    },
    Choice {
        id: "retry-counters",
        title: "DCF retry counters",
        ns2: "per frame (mac-802_11.cc resets ssrc_/slrc_ for every packet)",
        // ns-3.37 WifiRemoteStationManager m_ssrc[ac]/m_slrc[ac]: one pair
        // per station and AC, reset only by success or a retry-limit drop
        // (mac/dcf/ns3.rs).
        ns3: &[s("mac.retry_counters", "\"station\"")],
        cmu1999: &[],
    },
    Choice {
        id: "immediate-access",
        title: "DCF access without backoff",
        ns2: "only on a medium idle for DIFS already when the frame arrives",
        // ns-3.37 ChannelAccessManager::NeedBackoffUponAccess: no backoff
        // if the medium is idle at the instant the frame is queued
        // (mac/dcf/ns3.rs).
        ns3: &[s("mac.immediate_access", "\"idle-now\"")],
        cmu1999: &[],
    },
    Choice {
        id: "arp",
        title: "ARP",
        ns2: "off (addresses known); [arp] mode = \"ns2\" models ns-2's one-packet ARP",
        // ns-3 ArpCache: PendingQueueSize 3, MaxRetries 3, WaitReplyTimeout 1 s.
        ns3: &[s("arp.mode", "\"queue\"")],
        // The CMU set-up ran ns-2's ARP (tcp-manet-elfn.txt §3).
        cmu1999: &[s("arp.mode", "\"ns2\"")],
    },
    Choice {
        id: "queue",
        title: "interface queue",
        ns2: "drop-tail 50 packets, routing control first (PriQueue)",
        // ns-3 WifiMacQueue (wifi-mac-queue.cc): MaxSize 500 packets, no
        // control lane, MaxDelay 500 ms (a packet older than that is dropped
        // when the MAC reaches it, and so is the MPDU the MAC is retrying:
        // it stays at the head of the queue; mac/dcf/ns3.rs).
        ns3: &[
            s("queue.limit", "500"),
            s("queue.control_first", "false"),
            s("queue.max_delay", "\"500ms\""),
            s("queue.expire_in_flight", "true"),
        ],
        cmu1999: &[],
    },
    Choice {
        id: "aodv",
        title: "AODV constants and HELLOs",
        ns2: "RFC 3561 constants, HELLO + MAC detection, no local repair, no gratuitous RREP",
        // ns-3 aodv-routing-protocol.cc: GratuitousReply true; HELLOs on
        // (1 s, loss 2) and layer-2 failure callbacks: link_detection both.
        ns3: &[Setting { key: "routing.gratuitous_rrep", value: "true", when: When::Routing("aodv"), unless: &[] }],
        cmu1999: &[],
    },
    Choice {
        id: "dsdv",
        title: "DSDV updates and link breaks",
        ns2: "MAC feedback breaks links; only changed routes advertised early; any newer break believed",
        // ns-3.37 dsdv-routing-protocol.cc: no layer-2 feedback; RecvDsdv
        // advertises a newer sequence number with the same metric at once
        // and believes a break only from the next hop; RouteOutput and
        // RouteInput forward to the next hop's own route (docs/dsdv.md).
        ns3: &[
            Setting { key: "routing.mac_feedback", value: "false", when: When::Routing("dsdv"), unless: &[] },
            Setting { key: "routing.advertise_new_seq", value: "true", when: When::Routing("dsdv"), unless: &[] },
            Setting {
                key: "routing.break_from_next_hop_only",
                value: "true",
                when: When::Routing("dsdv"),
                unless: &[],
            },
            Setting { key: "routing.resolve_next_hop", value: "true", when: When::Routing("dsdv"), unless: &[] },
        ],
        cmu1999: &[],
    },
    Choice {
        id: "tcp-variant",
        title: "TCP congestion control and loss recovery",
        ns2: "NewReno",
        // ns-3.37: SocketType TcpCubic (tcp-l4-protocol.cc) with
        // TcpPrrRecovery over the non-SACK scoreboard (Sack is off in
        // scripts/ns3/tcp_chain.cc), InitialCwnd 10, LimitedTransmit on
        // (docs/profiles.md, "With profile = ns3 against ns-3.37",
        // session 10).
        ns3: &[
            tcp("variant", "\"cubic-ns3\""),
            tcp("recovery", "\"ns3-prr\""),
            tcp("initial_cwnd", "10"),
            tcp("limited_transmit", "true"),
        ],
        // The ELFN paper's TCP-Reno.
        cmu1999: &[tcp("variant", "\"reno\"")],
    },
    Choice {
        id: "tcp-mss",
        title: "TCP segment size",
        ns2: "1460 B (packetSize_ as the papers set it)",
        // ns-3 TcpSocket SegmentSize 536.
        ns3: &[tcp("mss", "\"536B\"")],
        cmu1999: &[],
    },
    Choice {
        id: "tcp-delack",
        title: "TCP delayed ACKs",
        ns2: "off (TCPSink ACKs every segment)",
        // ns-3 TcpSocket DelAckCount 2, DelAckTimeout 200 ms.
        ns3: &[tcp("delayed_ack", "true")],
        cmu1999: &[],
    },
    Choice {
        id: "tcp-rto",
        title: "TCP RTO bounds",
        ns2: "min 200 ms, initial 3 s",
        // ns-3 TcpSocketBase MinRto 1 s (initial: 1 s estimate + 4 x 0.5 s
        // = 3 s); Timestamp on (an RTT sample per ACK, EstimateRtt; 12 B
        // option); every new ACK recomputes the RTO (NewAck).
        ns3: &[tcp("min_rto", "\"1s\""), tcp("timestamps", "true"), tcp("rto_reset_on_ack", "true")],
        // tcp-manet-elfn.txt §3: initial RTO 6 s.
        cmu1999: &[tcp("initial_rto", "\"6s\"")],
    },
    Choice {
        id: "tcp-window",
        title: "TCP window",
        ns2: "20 segments (window_)",
        // ns-3 RcvBufSize 131072 B / 536 B = 244 segments.
        ns3: &[tcp("max_window", "244")],
        // tcp-manet-elfn.txt §3: window 8.
        cmu1999: &[tcp("max_window", "8")],
    },
    Choice {
        id: "tcp-handshake",
        title: "TCP connection set-up",
        ns2: "none (one-way Agent/TCP starts established)",
        ns3: &[tcp("handshake", "true")],
        cmu1999: &[],
    },
];

/// Which profile each row takes: a base, and rows switched to another
/// profile (what `manetlab explain` varies).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    /// Overrides `run.profile` when set.
    pub base: Option<Profile>,
    /// Row id -> profile.
    pub rows: BTreeMap<&'static str, Profile>,
}

impl Selection {
    pub fn of(p: Profile) -> Selection {
        Selection { base: Some(p), rows: BTreeMap::new() }
    }
    /// This selection with row `id` taken from `p`.
    pub fn with(mut self, id: &'static str, p: Profile) -> Selection {
        self.rows.insert(id, p);
        self
    }
}

/// Reads `run.profile` from the text (after overrides). Returns the
/// profile and, if the key is present, where it is.
pub(crate) fn profile_of(text: &str) -> Result<Profile, Diag> {
    let Ok(doc) = ImDocument::parse(text) else { return Ok(Profile::Ns2) };
    profile_in(&doc)
}

/// [`profile_of`] on the text already parsed.
fn profile_in(doc: &ImDocument<&str>) -> Result<Profile, Diag> {
    let Some(item) = doc.get("run").and_then(|r| r.get("profile")) else { return Ok(Profile::Ns2) };
    let at = item.span().map_or(At::Nowhere, |s| At::Offset(s.start));
    let bad = |msg: String| Diag::new(ErrorKind::BadValue, at, msg);
    let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
    match item.as_str() {
        Some(v) => Profile::parse(v).ok_or_else(|| {
            bad(format!("unknown value {:?} for 'run.profile'; expected one of: {}", v.trim(), names.join(", ")))
        }),
        None => Err(bad(format!("'run.profile' is a name, one of: {}", names.join(", ")))),
    }
}

/// Applies the profile (`run.profile`, or the selection's) to the scenario
/// text: writes every setting of the chosen profile whose key the text
/// lacks. Returns the base profile. `parsed`: `src.text` already parsed.
pub(crate) fn apply(src: &mut Source, sel: &Selection, parsed: Option<&ImDocument<&str>>) -> Result<Profile, Diag> {
    let base = match (sel.base, parsed) {
        (Some(p), _) => p,
        (None, Some(doc)) => profile_in(doc)?,
        (None, None) => profile_of(&src.text)?,
    };
    for c in CHOICES {
        let p = sel.rows.get(c.id).copied().unwrap_or(base);
        for st in c.settings(p) {
            for key in keys_to_write(&src.text, st) {
                let label = format!("profile {p}: {key} = {}", st.value);
                src.apply_default(&label, &format!("{key}={}", st.value))?;
            }
        }
    }
    Ok(base)
}

/// The full keys `st` is to be written at in `text` (none, one, or one per TCP flow).
fn keys_to_write(text: &str, st: &Setting) -> Vec<String> {
    let Ok(doc) = ImDocument::parse(text) else { return Vec::new() };
    let root = doc.as_table();
    if st.unless.iter().any(|k| lookup(root, k).is_some()) {
        return Vec::new();
    }
    let str_is = |key: &str, want: &str| {
        lookup(root, key).and_then(|i| i.as_str().map(|v| v.trim().eq_ignore_ascii_case(want))).unwrap_or(false)
    };
    match st.when {
        When::TcpFlows => {
            let Some(flows) = root.get("flow").and_then(Item::as_array_of_tables) else { return Vec::new() };
            flows
                .iter()
                .enumerate()
                .filter(|(_, f)| {
                    f.get("type").and_then(Item::as_str).is_some_and(|t| {
                        let t = t.trim();
                        t.eq_ignore_ascii_case("tcp") || t.eq_ignore_ascii_case("ftp")
                    })
                })
                .filter(|(_, f)| !f.contains_key(st.key))
                .map(|(i, _)| format!("flow.{i}.{}", st.key))
                .collect()
        }
        When::Routing(p) if !str_is("routing.protocol", p) => Vec::new(),
        When::Propagation(p) if !str_is("radio.propagation", p) => Vec::new(),
        When::Reception(p) if !str_is("radio.reception", p) => Vec::new(),
        _ if lookup(root, st.key).is_some() => Vec::new(),
        _ => vec![st.key.to_string()],
    }
}

/// The item at a dotted key path of tables and inline tables, if present.
fn lookup<'a>(root: &'a Table, key: &str) -> Option<&'a Item> {
    let mut segs = key.split('.');
    let mut item = root.get(segs.next()?)?;
    for s in segs {
        item = item.get(s)?;
    }
    Some(item)
}

#[cfg(test)]
mod tests;
