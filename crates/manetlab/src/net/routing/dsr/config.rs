//! DSR parameters. Defaults follow the CMU implementation in ns-2
//! (`dsr/dsragent.cc`, `dsr/sr_forwarder`, `dsr/requesttable`): see the table
//! in `docs/dsr.md`.

use crate::sim::Time;
use super::mobicache::CacheKind;
use super::Dsr;
use crate::net::routing::{NetEnv, Routing, RoutingConfig, RoutingModel};
use crate::sim::params::{ParamError, ParamErrorKind, Params};

#[derive(Clone, Debug, PartialEq)]
pub struct DsrConfig {
    /// Intermediate nodes answer route requests from their route caches
    /// (ns-2: always on; the ELFN paper turns it off in section 5.1).
    pub cache_replies: bool,
    /// A node whose link breaks re-sends the packet on another cached route
    /// (`dsragent_salvage_with_cache`).
    pub salvage: bool,
    /// Most times one packet may be salvaged (ns-2 `MAX_SALVAGE_COUNT`).
    pub max_salvage: u8,
    /// A relay with no cached route for a packet it cannot forward keeps
    /// it in its send buffer and sends at most this many non-propagating
    /// route requests for it per request cycle; the packet goes if a route
    /// comes before the request backoff allows the next request, else it is
    /// dropped (ns-2.35 `dsragent.cc` `NEW_SALVAGE_LOGIC`,
    /// `dsr_salvage_max_requests` = 1, `dsr_salvage_allow_propagating` =
    /// 0). 0: the relay drops the packet at once (CBK).
    pub salvage_requests: u32,
    /// Packets in the send buffer go as soon as a route to their
    /// destination is in the cache, however it was learnt, checked every
    /// 30-60 ms (ns-2.35 `sendBufferCheck`, `BUFFER_CHECK` 30 ms + U(0, 30
    /// ms)). `false`: only a route reply releases them.
    pub buffer_check: bool,
    /// Learn routes and route errors from overheard packets (promiscuous
    /// tap, `dsragent_use_tap`).
    pub snoop: bool,
    /// Path cache: also learn from the source routes of overheard route
    /// replies and errors, as ns-2.35's tap does for every overheard
    /// source-routed packet but requests (`routecache.cc`
    /// `pre_noticeRouteUsed`, `cache_use_overheard_routes`: this node, the
    /// transmitter, the rest). The mobicache always does.
    pub snoop_control: bool,
    /// Send a non-propagating (TTL 1, "ring 0") request first
    /// (`dsragent_ring_zero_search`).
    pub ring_zero: bool,
    /// How long to wait for an answer to the non-propagating request
    /// (ns-2 `arp_timeout`, 30 ms).
    pub nonprop_timeout: Time,
    /// Propagating requests for one target: after the k-th, the next may go
    /// `request_period` × `request_backoff_factor`^k later (ns-2.35
    /// `dsragent.cc` BackOffTest: `rt_rq_period` 500 ms × 4^k) ...
    pub request_period: Time,
    /// ... capped at this (ns-2 `rt_rq_max_period`, 10 s).
    pub request_backoff_max: Time,
    /// Growth of the gap between propagating requests (ns-2: 4, i.e.
    /// 0.5, 2, 8, 10, 10 ... s).
    pub request_backoff_factor: u32,
    /// The backoff state of a target (requests sent, time of the last) is
    /// kept between discoveries and cleared only by a route reply for it
    /// (ns-2's request table, reset in acceptRouteReply): after a failed
    /// discovery the next one waits. `false`: every discovery starts afresh.
    pub request_backoff_persists: bool,
    /// The destination of a data packet learns the reversed source route
    /// from it. ns-2.35 does not (its target only caches the reversed
    /// record of the route requests it answers), so `false` there.
    pub learn_at_destination: bool,
    /// Piggyback the last route error on the next route request
    /// (`dsragent_propagate_last_error`).
    pub propagate_last_error: bool,
    /// Send buffer: packets awaiting a route (ns-2 `SEND_BUF_SIZE` 64) ...
    pub send_buffer: usize,
    /// ... dropped (NRTE) after this long (`SEND_TIMEOUT`, 30 s).
    pub send_buffer_timeout: Time,
    /// Which route cache: manetlab's single path list, or ns-2.35's
    /// two-level mobicache with its learning rules (`mobicache.rs`).
    pub cache: CacheKind,
    /// Most paths in the path cache (ns-2's primary + secondary caches hold
    /// 30 + 64 paths; the mobicache has those sizes fixed).
    pub cache_size: usize,
    /// Cached paths expire this long after they were last learnt (None: never,
    /// as the CMU cache).
    pub cache_timeout: Option<Time>,
    /// ns-2.35's flow-state extension as far as it hides routes: a source
    /// shows a route on the air only in the first 3 packets of a flow (one
    /// per route and destination) and then once every 5 s; its other
    /// packets carry no source route (0 header bytes), so relays and
    /// listeners learn nothing from them (`dsragent.cc`
    /// `dsragent_enable_flowstate`, `END_TO_END_COUNT` 2,
    /// `min_adv_interval` 5 s, `default_flow_timeout` 60 s).
    pub flow_state: bool,
    /// Route shortening: a node that overhears a data packet it will
    /// receive later on the packet's source route sends the source a
    /// gratuitous route reply without the nodes in between (ns-2.35
    /// `dsragent_send_grat_replies`, `sendRouteShortening`; at most one per
    /// route and second, `grat_hold_down_time`). Needs `snoop`.
    pub grat_replies: bool,
    /// Route requests, originated and forwarded, wait a uniform jitter in
    /// [0, jitter] from the node's routing stream (ns-2 `RREQ_JITTER`, 10 ms;
    /// RFC 5148). Zero turns jitter off.
    pub jitter: Time,
}

impl Default for DsrConfig {
    fn default() -> Self {
        DsrConfig {
            cache_replies: true,
            salvage: true,
            max_salvage: 15,
            salvage_requests: 1,
            buffer_check: true,
            snoop: true,
            snoop_control: false,
            ring_zero: true,
            nonprop_timeout: Time::from_ms(30),
            request_period: Time::from_ms(500),
            request_backoff_max: Time::from_secs(10),
            request_backoff_factor: 4,
            request_backoff_persists: true,
            learn_at_destination: false,
            propagate_last_error: true,
            send_buffer: 64,
            send_buffer_timeout: Time::from_secs(30),
            cache: CacheKind::Path,
            cache_size: 64,
            cache_timeout: None,
            jitter: Time::from_ms(10),
            flow_state: true,
            grat_replies: true,
        }
    }
}

// ---- The `[routing]` section (`protocol = "dsr"`) and the registration as
// a `RoutingModel`.

impl RoutingModel for Dsr {
    const NAME: &'static str = "dsr";
    const KEYS: &'static [&'static str] = &[
        "cache_replies",
        "salvage",
        "max_salvage",
        "salvage_requests",
        "buffer_check",
        "snoop",
        "snoop_control",
        "ring_zero",
        "propagate_last_error",
        "nonprop_timeout",
        "request_period",
        "request_backoff_max",
        "request_backoff_factor",
        "request_backoff_persists",
        "learn_at_destination",
        "send_buffer",
        "send_buffer_timeout",
        "cache",
        "cache_size",
        "cache_timeout",
        "jitter",
        "flow_state",
        "grat_replies",
    ];

    fn parse(p: &dyn Params) -> Result<RoutingConfig, ParamError> {
        parse(p).map(RoutingConfig::Dsr)
    }

    fn build(cfg: &RoutingConfig, env: &NetEnv) -> Result<Vec<Box<dyn Routing>>, String> {
        let RoutingConfig::Dsr(c) = cfg else { unreachable!("DSR built from {cfg:?}") };
        Ok((0..env.positions.len()).map(|id| Box::new(Dsr::new(id as _, c.clone())) as Box<dyn Routing>).collect())
    }
}

fn parse(p: &dyn Params) -> Result<DsrConfig, ParamError> {
    let mut c = DsrConfig::default();
    p.set_positive("nonprop_timeout", &mut c.nonprop_timeout)?;
    p.set_positive("request_period", &mut c.request_period)?;
    p.set_positive("request_backoff_max", &mut c.request_backoff_max)?;
    p.set_positive("send_buffer_timeout", &mut c.send_buffer_timeout)?;
    c.cache_timeout = p.positive_duration("cache_timeout")?.map(|d| d.v);
    if let Some(j) = p.duration("jitter")? {
        c.jitter = j.v;
    }
    if c.request_backoff_max < c.request_period {
        let at = match p.duration("request_backoff_max")? {
            Some(v) => v.at,
            None => p.duration("request_period")?.expect("one of them was given").at,
        };
        let s = p.section();
        return Err(ParamError::new(
            ParamErrorKind::Inconsistent,
            at,
            format!(
                "'{s}.request_backoff_max' ({}) must not be less than '{s}.request_period' ({})",
                c.request_backoff_max,
                c.request_period
            ),
        ));
    }
    if let Some(v) = p.uint_in("max_salvage", 0, 255)? {
        c.max_salvage = v as u8;
    }
    if let Some(v) = p.uint_in("salvage_requests", 0, 15)? {
        c.salvage_requests = v;
    }
    if let Some(v) = p.uint_in("send_buffer", 0, 1_000_000)? {
        c.send_buffer = v as usize;
    }
    if let Some(v) = p.uint_in("cache_size", 1, 1_000_000)? {
        c.cache_size = v as usize;
    }
    if let Some(v) = p.uint_in("request_backoff_factor", 1, 16)? {
        c.request_backoff_factor = v;
    }
    if let Some(k) = p.choice("cache", &[("path", CacheKind::Path), ("mobicache", CacheKind::Mobicache)])? {
        c.cache = k.v;
    }
    if c.cache == CacheKind::Mobicache {
        for key in ["cache_size", "cache_timeout"] {
            let at = match key {
                "cache_size" => p.uint(key)?.map(|v| v.at),
                _ => p.duration(key)?.map(|v| v.at),
            };
            if let Some(at) = at {
                return Err(p.error(
                    ParamErrorKind::Inconsistent,
                    at,
                    key,
                    "{key} has no effect with cache = \"mobicache\" (30 primary + 64 secondary paths, no timeout, as ns-2.35); use cache = \"path\", or remove it",
                ));
            }
        }
    }
    p.set_flag("buffer_check", &mut c.buffer_check)?;
    p.set_flag("flow_state", &mut c.flow_state)?;
    p.set_flag("grat_replies", &mut c.grat_replies)?;
    p.set_flag("cache_replies", &mut c.cache_replies)?;
    p.set_flag("salvage", &mut c.salvage)?;
    p.set_flag("snoop", &mut c.snoop)?;
    p.set_flag("snoop_control", &mut c.snoop_control)?;
    p.set_flag("ring_zero", &mut c.ring_zero)?;
    p.set_flag("propagate_last_error", &mut c.propagate_last_error)?;
    p.set_flag("request_backoff_persists", &mut c.request_backoff_persists)?;
    p.set_flag("learn_at_destination", &mut c.learn_at_destination)?;
    Ok(c)
}
