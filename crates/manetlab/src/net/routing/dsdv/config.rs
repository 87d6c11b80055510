//! DSDV parameters. Defaults are ns-3's `dsdv` module attributes where the
//! paper (Perkins and Bhagwat, SIGCOMM 1994) gives no number; ns-2's values
//! where ns-3 has none (see `docs/dsdv.md`).

use crate::sim::Time;
use super::Dsdv;
use crate::net::routing::{NetEnv, Routing, RoutingConfig, RoutingModel};
use crate::sim::params::{ParamError, Params};

#[derive(Clone, Debug, PartialEq)]
pub struct DsdvConfig {
    /// Period of full dumps (ns-2 `perup_`, ns-3 `PeriodicUpdateInterval`: 15 s).
    pub update_interval: Time,
    /// Initial weighted settling time (ns-3 `SettlingTime` 5 s; ns-2 `wst0_` 6 s):
    /// a route change is advertised 2 x the settling time after the first
    /// arrival of its sequence number (route damping, paper §III.C).
    pub settling_time: Time,
    /// Weight of the old settling time in its running average (0.875).
    pub settling_weight: f64,
    /// A neighbour not heard for this many update intervals is lost
    /// (ns-2 `min_update_periods_` 3; ns-3 `Holdtimes` 3).
    pub hold_periods: u32,
    /// MAC retry failure breaks the link at once (ns-2.35's code can, with
    /// `Agent/DSDV set use_mac_ 1`, but its default `use_mac_ 0` only drops
    /// the packet, `DSDV_Agent::lost_link`; ns-3 has no such feedback).
    pub mac_feedback: bool,
    /// Packets from the local transport kept while there is no route
    /// (ns-3 `EnableBuffering`, `MaxQueueLen` 500, `MaxQueueTime` 30 s); 0
    /// drops them at once (NRTE), as ns-2 does.
    pub buffer_size: usize,
    pub buffer_timeout: Time,
    /// A newer sequence number with an unchanged metric is advertised at
    /// once in an incremental update (ns-3.37 `RecvDsdv`: "better sequence
    /// number and same metric ... advertised without WST", sent by the
    /// triggered update that ends every received update), so each node's
    /// fresh number floods the network within milliseconds of its dump.
    /// Off (ns-2 `dsdv.cc`, the paper's §III.B incremental updates): only a
    /// changed route is advertised before the next full dump.
    pub advertise_new_seq: bool,
    /// An infinite metric breaks the route only when it comes from the
    /// route's next hop (ns-3.37 `RecvDsdv`: "Delete route only if update
    /// was received from my nexthop neighbor"); off (ns-2, the paper): a
    /// newer sequence number with infinite metric breaks it whoever sends it.
    pub break_from_next_hop_only: bool,
    /// A packet goes to the next hop of this node's route to the route's
    /// next hop (ns-3.37 `RouteOutput`/`RouteInput` look the next hop up
    /// again and use that entry's gateway), and has no route when that
    /// entry is missing or broken; off: to the route's next hop.
    pub resolve_next_hop: bool,
}

impl Default for DsdvConfig {
    fn default() -> Self {
        DsdvConfig {
            update_interval: Time::from_secs(15),
            settling_time: Time::from_secs(5),
            settling_weight: 0.875,
            hold_periods: 3,
            mac_feedback: true,
            buffer_size: 500,
            buffer_timeout: Time::from_secs(30),
            advertise_new_seq: false,
            break_from_next_hop_only: false,
            resolve_next_hop: false,
        }
    }
}

impl DsdvConfig {
    /// ns-3.37's DSDV (`src/dsdv/model/dsdv-routing-protocol.cc`): no MAC
    /// feedback, buffering on, new sequence numbers advertised at once,
    /// breaks believed from the next hop only.
    pub fn ns3() -> Self {
        DsdvConfig {
            mac_feedback: false,
            advertise_new_seq: true,
            break_from_next_hop_only: true,
            resolve_next_hop: true,
            ..Self::default()
        }
    }

    /// ns-2.35's DSDV as its defaults run it (`dsdv/dsdv.cc`, `dsdv.h`,
    /// `ns-default.tcl`): `use_mac_ 0` (a MAC failure drops the packet, the
    /// link stays), `wst0_` 6 s, packets without a route held in a queue of
    /// `MAX_QUEUE_LENGTH` 5 per destination (the oldest dropped, no
    /// timeout: here one 5-packet buffer per node, which is the same for
    /// a node that sources one flow, and a timeout longer than any run),
    /// only changed metrics triggered (`TRIGGER_UPDATE_ON_FRESH_SEQNUM`
    /// undefined), a newer sequence number believed from any neighbour.
    pub fn ns2() -> Self {
        DsdvConfig {
            settling_time: Time::from_secs(6),
            mac_feedback: false,
            buffer_size: 5,
            buffer_timeout: Time::from_secs(1_000_000),
            ..Self::default()
        }
    }

    /// How long a neighbour may stay silent.
    pub fn hold_time(&self) -> Time {
        self.update_interval * self.hold_periods as u64
    }
}

// ---- The `[routing]` section (`protocol = "dsdv"`) and the registration as
// a `RoutingModel`.

impl RoutingModel for Dsdv {
    const NAME: &'static str = "dsdv";
    const KEYS: &'static [&'static str] =
        &[
            "update_interval",
            "settling_time",
            "mac_feedback",
            "buffer_size",
            "buffer_timeout",
            "advertise_new_seq",
            "break_from_next_hop_only",
            "resolve_next_hop",
        ];

    fn parse(p: &dyn Params) -> Result<RoutingConfig, ParamError> {
        let mut c = DsdvConfig::default();
        p.set_positive("update_interval", &mut c.update_interval)?;
        p.set_positive("settling_time", &mut c.settling_time)?;
        p.set_positive("buffer_timeout", &mut c.buffer_timeout)?;
        if let Some(v) = p.uint_in("buffer_size", 0, 1_000_000)? {
            c.buffer_size = v as usize;
        }
        p.set_flag("mac_feedback", &mut c.mac_feedback)?;
        p.set_flag("advertise_new_seq", &mut c.advertise_new_seq)?;
        p.set_flag("break_from_next_hop_only", &mut c.break_from_next_hop_only)?;
        p.set_flag("resolve_next_hop", &mut c.resolve_next_hop)?;
        Ok(RoutingConfig::Dsdv(c))
    }

    fn build(cfg: &RoutingConfig, env: &NetEnv) -> Result<Vec<Box<dyn Routing>>, String> {
        let RoutingConfig::Dsdv(c) = cfg else { unreachable!("DSDV built from {cfg:?}") };
        Ok((0..env.positions.len())
            .map(|id| Box::new(Dsdv::new(id as _, c.clone(), env.board.clone())) as Box<dyn Routing>)
            .collect())
    }
}
