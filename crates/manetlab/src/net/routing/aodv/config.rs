//! AODV parameters (RFC 3561 §10) and the values derived from them.

use crate::sim::Time;
use super::Aodv;
use crate::net::routing::{NetEnv, Routing, RoutingConfig, RoutingModel};
use crate::sim::params::{ParamError, ParamErrorKind, Params};

/// How a node learns that a neighbour it routes through is gone (§6.11).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LinkDetection {
    /// HELLO messages (§6.9): a neighbour not heard from for
    /// ALLOWED_HELLO_LOSS × HELLO_INTERVAL (plus a 100 ms slack) is lost.
    /// MAC failures only drop the packet (reason RET).
    Hello,
    /// Link-layer feedback: the MAC giving up on a unicast frame breaks the
    /// link. No HELLOs are sent (ns-2's `AODV_LINK_LAYER_DETECTION`).
    Mac,
    /// Both (ns-3's default).
    Both,
}

impl LinkDetection {
    pub fn name(self) -> &'static str {
        match self {
            LinkDetection::Hello => "hello",
            LinkDetection::Mac => "mac",
            LinkDetection::Both => "both",
        }
    }
    pub fn uses_hello(self) -> bool {
        matches!(self, LinkDetection::Hello | LinkDetection::Both)
    }
    pub fn uses_mac(self) -> bool {
        matches!(self, LinkDetection::Mac | LinkDetection::Both)
    }
}

/// When a node may send the next RREQ of a discovery, and with which TTL.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RreqTiming {
    /// RFC 3561 §6.3-§6.4: an expanding ring from TTL_START (or the last
    /// known hop count + TTL_INCREMENT), a timer per RREQ,
    /// RING_TRAVERSAL_TIME for a ring and NET_TRAVERSAL_TIME × 2^k (binary
    /// exponential backoff) at NET_DIAMETER; the next RREQ goes out when
    /// it expires.
    Rfc,
    /// ns-2.35 `aodv.cc` (`sendRequest`, `PerHopTime`, `recvReply`,
    /// `rt_resolve`, `rt_purge`): the wait is 2 × TTL × the per-hop
    /// discovery latency measured on the last (up to 3) discoveries of
    /// that destination (NODE_TRAVERSAL_TIME before any), times the number
    /// of network-wide RREQs so far, at most 10 s; once it has passed, the
    /// next RREQ goes out when the node originates another packet for the
    /// destination or at the next 0.5 s poll of the route table while
    /// packets wait. The TTL grows from the hop count the route had when
    /// it last went down, and a destination that never had a route gets a
    /// network-wide RREQ at once (`rt_last_hop_count` = INFINITY2). See
    /// docs/aodv.md.
    Ns2,
}

impl RreqTiming {
    pub fn name(self) -> &'static str {
        match self {
            RreqTiming::Rfc => "rfc",
            RreqTiming::Ns2 => "ns2",
        }
    }
}

/// AODV configuration. Defaults are RFC 3561's (§10), except the send
/// buffer (ns-2's 64 packets / 30 s) and the link detection (`Both`).
/// `repr(C)`: the fields read for every packet heard (link detection,
/// HELLO interval and loss, active route timeout) come first, within the
/// `Aodv` box's hot lines (`Aodv`, docs/performance.md "Fifth sitting").
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct AodvConfig {
    pub link_detection: LinkDetection,
    /// HELLO_INTERVAL.
    pub hello_interval: Time,
    /// ALLOWED_HELLO_LOSS.
    pub allowed_hello_loss: u32,
    /// ACTIVE_ROUTE_TIMEOUT.
    pub active_route_timeout: Time,
    /// NODE_TRAVERSAL_TIME: conservative one-hop traversal time.
    pub node_traversal_time: Time,
    /// NET_DIAMETER: most hops between two nodes; the widest RREQ TTL.
    pub net_diameter: u8,
    /// Expanding ring search (§6.4): TTL_START, TTL_INCREMENT, TTL_THRESHOLD.
    /// `ttl_start = net_diameter` disables the ring.
    pub ttl_start: u8,
    pub ttl_increment: u8,
    pub ttl_threshold: u8,
    /// RREQ_RETRIES: further RREQs at TTL = NET_DIAMETER after the first.
    pub rreq_retries: u32,
    /// RREQ_RATELIMIT: RREQs a node may originate per second.
    pub rreq_ratelimit: u32,
    /// RERR_RATELIMIT: RERRs a node may send per second (excess ones are
    /// not sent, and counted).
    pub rerr_ratelimit: u32,
    /// Local repair of a broken link by the upstream node (§6.12).
    pub local_repair: bool,
    /// Set the 'G' flag on RREQs (gratuitous RREP to the destination, §6.6.3).
    pub gratuitous_rrep: bool,
    /// Set the 'D' flag on RREQs (only the destination replies).
    pub dest_only: bool,
    /// Packets buffered awaiting a route (all destinations together).
    pub buffer_size: usize,
    /// How long a packet may wait in the buffer.
    pub buffer_timeout: Time,
    /// Originated and forwarded RREQs, RERR broadcasts and HELLOs are
    /// delayed by a uniform draw in [0, jitter] from the node's routing
    /// stream (ns-2: 10 ms; RFC 5148). Zero turns jitter off.
    pub jitter: Time,
    /// Reproduce three ns-2.35 `aodv/aodv.cc` behaviours that are not
    /// RFC 3561 (off by default; the ns-2 comparison runs turn it on):
    /// a relay in local repair keeps the route's sequence number and hop
    /// count and rejects an equal-sequence RREP that is not strictly
    /// shorter (`recvReply`); a discovery that exhausts its retries drops
    /// the buffered packets and sends no RREQ for 10 s (`sendRequest`,
    /// MAX_RREQ_TIMEOUT), also during a repair, which goes on as a
    /// discovery instead of failing at its first timeout; the repair's
    /// give-up timer is scheduled with an absolute time as its delay
    /// (`local_rt_repair`), so it fires at 2 × start + wait. Local repair
    /// is tried only past the middle of the route (`rt_ll_failed`:
    /// `num_forwards > rt_hops`). See docs/aodv.md.
    pub ns2_quirks: bool,
    /// When the next RREQ of a discovery may go out. The scenario key
    /// `rreq_timing` defaults to `"ns2"` when `ns2_quirks = true` and to
    /// `"rfc"` otherwise.
    pub rreq_timing: RreqTiming,
}

impl Default for AodvConfig {
    fn default() -> Self {
        AodvConfig {
            link_detection: LinkDetection::Both,
            hello_interval: Time::from_secs(1),
            allowed_hello_loss: 2,
            active_route_timeout: Time::from_secs(3),
            node_traversal_time: Time::from_ms(40),
            net_diameter: 35,
            ttl_start: 1,
            ttl_increment: 2,
            ttl_threshold: 7,
            rreq_retries: 2,
            rreq_ratelimit: 10,
            rerr_ratelimit: 10,
            local_repair: false,
            gratuitous_rrep: false,
            dest_only: false,
            buffer_size: 64,
            buffer_timeout: Time::from_secs(30),
            jitter: Time::from_ms(10),
            ns2_quirks: false,
            rreq_timing: RreqTiming::Rfc,
        }
    }
}

/// Slack added to the HELLO loss timeout (AODV-UU's ROUTE_TIMEOUT_SLACK), so
/// that a HELLO delayed by jitter or queueing is not taken for a lost one.
pub const HELLO_SLACK: Time = Time::from_ms(100);
/// TIMEOUT_BUFFER of RING_TRAVERSAL_TIME.
pub const TIMEOUT_BUFFER: u64 = 2;
/// LOCAL_ADD_TTL (§6.12).
pub const LOCAL_ADD_TTL: u8 = 2;
/// ns-2.35 `MAX_RREQ_TIMEOUT` (`aodv.h`): with `ns2_quirks`, how long a
/// node sends no RREQ for a destination after its retries ran out.
pub const NS2_MAX_RREQ_TIMEOUT: Time = Time::from_secs(10);
/// ns-2.35 `RouteCacheTimer` period (`aodv.cc`, FREQUENCY 0.5 s): with
/// `rreq_timing = "ns2"`, a discovery whose wait has passed asks again at
/// the next multiple of this while packets wait.
pub const NS2_POLL_INTERVAL: Time = Time::from_ms(500);
/// ns-2.35 `MAX_HISTORY` (`aodv_rtable.h`): discovery latencies kept per
/// destination for `PerHopTime`.
pub const NS2_LATENCY_HISTORY: usize = 3;
/// ns-2.35 `INFINITY2` (`aodv_rtable.h`, 0xff): the hop count of a route
/// entry that was never up (`rt_last_hop_count` starts at it).
pub const NS2_INFINITY: u8 = 0xff;
/// K of DELETE_PERIOD = K × max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL).
pub const DELETE_PERIOD_K: u64 = 5;

impl AodvConfig {
    /// NET_TRAVERSAL_TIME = 2 × NODE_TRAVERSAL_TIME × NET_DIAMETER.
    pub fn net_traversal_time(&self) -> Time {
        self.node_traversal_time * (2 * self.net_diameter as u64)
    }
    /// PATH_DISCOVERY_TIME = 2 × NET_TRAVERSAL_TIME.
    pub fn path_discovery_time(&self) -> Time {
        self.net_traversal_time() * 2
    }
    /// MY_ROUTE_TIMEOUT = 2 × ACTIVE_ROUTE_TIMEOUT.
    pub fn my_route_timeout(&self) -> Time {
        self.active_route_timeout * 2
    }
    /// RING_TRAVERSAL_TIME = 2 × NODE_TRAVERSAL_TIME × (TTL + TIMEOUT_BUFFER).
    pub fn ring_traversal_time(&self, ttl: u8) -> Time {
        self.node_traversal_time * (2 * (ttl as u64 + TIMEOUT_BUFFER))
    }
    /// DELETE_PERIOD = 5 × max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL) (the
    /// RFC's choice when HELLOs are used; also used with MAC detection).
    pub fn delete_period(&self) -> Time {
        self.active_route_timeout.max(self.hello_interval) * DELETE_PERIOD_K
    }
    /// Silence after which a neighbour is lost (HELLO detection).
    pub fn neighbour_timeout(&self) -> Time {
        self.hello_interval * self.allowed_hello_loss as u64 + HELLO_SLACK
    }
    /// Lifetime a HELLO advertises: ALLOWED_HELLO_LOSS × HELLO_INTERVAL.
    pub fn hello_lifetime(&self) -> Time {
        self.hello_interval * self.allowed_hello_loss as u64
    }
    /// MAX_REPAIR_TTL = 0.3 × NET_DIAMETER.
    pub fn max_repair_ttl(&self) -> u8 {
        ((self.net_diameter as u32 * 3) / 10) as u8
    }
    /// How long to wait for a RREP after the `k`-th RREQ (from 0) at
    /// NET_DIAMETER: NET_TRAVERSAL_TIME × 2^k (binary exponential backoff, §6.3).
    pub fn backoff_wait(&self, k: u32) -> Time {
        self.net_traversal_time() * (1u64 << k.min(20))
    }
    /// The TTL after a ring attempt at `ttl` timed out (§6.4): grow by
    /// TTL_INCREMENT until TTL_THRESHOLD is passed, then NET_DIAMETER.
    pub fn next_ring_ttl(&self, ttl: u8) -> u8 {
        let next = ttl as u32 + self.ttl_increment as u32;
        if ttl >= self.net_diameter || next > self.ttl_threshold as u32 || next >= self.net_diameter as u32 {
            self.net_diameter
        } else {
            next as u8
        }
    }
}

// ---- The `[routing]` section (`protocol = "aodv"`) and the registration as a
// `RoutingModel`: keys, ranges and cross-checks.


impl RoutingModel for Aodv {
    const NAME: &'static str = "aodv";
    const KEYS: &'static [&'static str] = &[
        "link_detection",
        "hello_interval",
        "allowed_hello_loss",
        "active_route_timeout",
        "node_traversal_time",
        "net_diameter",
        "ttl_start",
        "ttl_increment",
        "ttl_threshold",
        "rreq_retries",
        "rreq_ratelimit",
        "rerr_ratelimit",
        "local_repair",
        "gratuitous_rrep",
        "dest_only",
        "buffer_size",
        "buffer_timeout",
        "jitter",
        "ns2_quirks",
        "rreq_timing",
    ];

    fn parse(p: &dyn Params) -> Result<RoutingConfig, ParamError> {
        parse(p).map(RoutingConfig::Aodv)
    }

    fn build(cfg: &RoutingConfig, env: &NetEnv) -> Result<Vec<Box<dyn Routing>>, String> {
        let RoutingConfig::Aodv(c) = cfg else { unreachable!("AODV built from {cfg:?}") };
        Ok((0..env.positions.len()).map(|id| Box::new(Aodv::new(id as _, c.clone())) as Box<dyn Routing>).collect())
    }
}

fn parse(p: &dyn Params) -> Result<AodvConfig, ParamError> {
    let mut c = AodvConfig::default();
    let s = p.section();
    if let Some(d) = p.choice(
        "link_detection",
        &[("hello", LinkDetection::Hello), ("mac", LinkDetection::Mac), ("both", LinkDetection::Both)],
    )? {
        c.link_detection = d.v;
    }
    if !c.link_detection.uses_hello() {
        let hello_keys = [
            ("hello_interval", p.duration("hello_interval")?.map(|v| v.at)),
            ("allowed_hello_loss", p.uint("allowed_hello_loss")?.map(|v| v.at)),
        ];
        for (key, at) in hello_keys {
            if let Some(at) = at {
                return Err(ParamError::new(
                    ParamErrorKind::Inconsistent,
                    at,
                    format!("'{s}.{key}' has no effect with link_detection = \"mac\" (no HELLOs are sent); use \"hello\" or \"both\", or remove it"),
                ));
            }
        }
    }
    p.set_positive("hello_interval", &mut c.hello_interval)?;
    p.set_positive("active_route_timeout", &mut c.active_route_timeout)?;
    p.set_positive("node_traversal_time", &mut c.node_traversal_time)?;
    p.set_positive("buffer_timeout", &mut c.buffer_timeout)?;
    if let Some(j) = p.duration("jitter")? {
        c.jitter = j.v;
    }
    if let Some(v) = p.uint_in("allowed_hello_loss", 1, 1000)? {
        c.allowed_hello_loss = v;
    }
    if let Some(v) = p.uint_in("net_diameter", 1, 255)? {
        c.net_diameter = v as u8;
    }
    if let Some(v) = p.uint_in("ttl_start", 1, 255)? {
        c.ttl_start = v as u8;
    }
    if let Some(v) = p.uint_in("ttl_increment", 1, 255)? {
        c.ttl_increment = v as u8;
    }
    if let Some(v) = p.uint_in("ttl_threshold", 1, 255)? {
        c.ttl_threshold = v as u8;
    }
    if let Some(v) = p.uint_in("rreq_retries", 0, 20)? {
        c.rreq_retries = v;
    }
    if let Some(v) = p.uint_in("rreq_ratelimit", 1, 1_000_000)? {
        c.rreq_ratelimit = v;
    }
    if let Some(v) = p.uint_in("rerr_ratelimit", 1, 1_000_000)? {
        c.rerr_ratelimit = v;
    }
    if let Some(v) = p.uint_in("buffer_size", 0, 1_000_000)? {
        c.buffer_size = v as usize;
    }
    if c.ttl_start > c.net_diameter {
        let at = match p.uint("ttl_start")? {
            Some(v) => v.at,
            None => p.uint("net_diameter")?.expect("one of them was given").at,
        };
        return Err(ParamError::new(
            ParamErrorKind::Inconsistent,
            at,
            format!("'{s}.ttl_start' ({}) must not exceed '{s}.net_diameter' ({})", c.ttl_start, c.net_diameter),
        ));
    }
    p.set_flag("local_repair", &mut c.local_repair)?;
    p.set_flag("gratuitous_rrep", &mut c.gratuitous_rrep)?;
    p.set_flag("dest_only", &mut c.dest_only)?;
    p.set_flag("ns2_quirks", &mut c.ns2_quirks)?;
    c.rreq_timing = match p.choice("rreq_timing", &[("rfc", RreqTiming::Rfc), ("ns2", RreqTiming::Ns2)])? {
        Some(t) => t.v,
        None if c.ns2_quirks => RreqTiming::Ns2,
        None => RreqTiming::Rfc,
    };
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_derived_values() {
        let c = AodvConfig::default();
        assert_eq!(c.net_traversal_time(), Time::from_ms(2800));
        assert_eq!(c.path_discovery_time(), Time::from_ms(5600));
        assert_eq!(c.my_route_timeout(), Time::from_secs(6));
        assert_eq!(c.delete_period(), Time::from_secs(15));
        assert_eq!(c.ring_traversal_time(1), Time::from_ms(240));
        assert_eq!(c.ring_traversal_time(7), Time::from_ms(720));
        assert_eq!(c.max_repair_ttl(), 10);
        assert_eq!(c.neighbour_timeout(), Time::from_ms(2100));
        assert_eq!(c.backoff_wait(2), Time::from_ms(11_200));
    }

    #[test]
    fn expanding_ring_ttls() {
        let c = AodvConfig::default();
        let mut ttls = vec![c.ttl_start];
        while *ttls.last().unwrap() < c.net_diameter {
            ttls.push(c.next_ring_ttl(*ttls.last().unwrap()));
        }
        assert_eq!(ttls, vec![1, 3, 5, 7, 35]);
        let c = AodvConfig { ttl_start: 2, ttl_increment: 3, ttl_threshold: 7, ..AodvConfig::default() };
        assert_eq!(c.next_ring_ttl(2), 5);
        assert_eq!(c.next_ring_ttl(5), 35, "8 would pass the threshold: NET_DIAMETER");
        let small = AodvConfig { net_diameter: 4, ..AodvConfig::default() };
        assert_eq!(small.next_ring_ttl(3), 4, "never beyond NET_DIAMETER");
    }
}
