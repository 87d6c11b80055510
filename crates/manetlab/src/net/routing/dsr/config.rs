//! DSR parameters. Defaults follow the CMU implementation in ns-2
//! (`dsr/dsragent.cc`, `dsr/sr_forwarder`, `dsr/requesttable`): see the table
//! in `docs/dsr.md`.

use crate::sim::Time;

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
    /// Learn routes and route errors from overheard packets (promiscuous
    /// tap, `dsragent_use_tap`).
    pub snoop: bool,
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
    /// Most paths in the route cache (ns-2's primary + secondary caches hold
    /// 30 + 64 paths).
    pub cache_size: usize,
    /// Cached paths expire this long after they were last learnt (None: never,
    /// as the CMU cache).
    pub cache_timeout: Option<Time>,
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
            snoop: true,
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
            cache_size: 64,
            cache_timeout: None,
            jitter: Time::from_ms(10),
        }
    }
}
