//! OLSR parameters: the constants of RFC 3626 §18.

use crate::sim::Time;
use super::Olsr;
use crate::net::routing::{NetEnv, Routing, RoutingConfig, RoutingModel};
use crate::sim::params::{ParamError, Params};

/// Willingness values (§18.8).
pub const WILL_NEVER: u8 = 0;
pub const WILL_LOW: u8 = 1;
pub const WILL_DEFAULT: u8 = 3;
pub const WILL_HIGH: u8 = 6;
pub const WILL_ALWAYS: u8 = 7;

#[derive(Clone, Debug, PartialEq)]
pub struct OlsrConfig {
    /// HELLO_INTERVAL (2 s).
    pub hello_interval: Time,
    /// TC_INTERVAL (5 s).
    pub tc_interval: Time,
    /// This node's willingness to carry traffic (WILL_DEFAULT).
    pub willingness: u8,
}

impl Default for OlsrConfig {
    fn default() -> Self {
        OlsrConfig { hello_interval: Time::from_secs(2), tc_interval: Time::from_secs(5), willingness: WILL_DEFAULT }
    }
}

impl OlsrConfig {
    /// NEIGHB_HOLD_TIME = 3 x REFRESH_INTERVAL (the HELLO interval).
    pub fn neighb_hold_time(&self) -> Time {
        self.hello_interval * 3
    }
    /// TOP_HOLD_TIME = 3 x TC_INTERVAL.
    pub fn top_hold_time(&self) -> Time {
        self.tc_interval * 3
    }
    /// DUP_HOLD_TIME (30 s).
    pub fn dup_hold_time(&self) -> Time {
        Time::from_secs(30)
    }
    /// MAXJITTER = HELLO_INTERVAL / 4 (RFC 5148 §5.4, as RFC 3626 §18.2 suggests).
    pub fn max_jitter(&self) -> Time {
        Time::from_ns(self.hello_interval.as_ns() / 4)
    }
}

// ---- The `[routing]` section (`protocol = "olsr"`) and the registration as
// a `RoutingModel`.

impl RoutingModel for Olsr {
    const NAME: &'static str = "olsr";
    const KEYS: &'static [&'static str] = &["hello_interval", "tc_interval", "willingness"];

    fn parse(p: &dyn Params) -> Result<RoutingConfig, ParamError> {
        let mut c = OlsrConfig::default();
        p.set_positive("hello_interval", &mut c.hello_interval)?;
        p.set_positive("tc_interval", &mut c.tc_interval)?;
        if let Some(v) = p.uint_in("willingness", 0, 7)? {
            c.willingness = v as u8;
        }
        Ok(RoutingConfig::Olsr(c))
    }

    fn build(cfg: &RoutingConfig, env: &NetEnv) -> Result<Vec<Box<dyn Routing>>, String> {
        let RoutingConfig::Olsr(c) = cfg else { unreachable!("OLSR built from {cfg:?}") };
        Ok((0..env.positions.len())
            .map(|id| Box::new(Olsr::new(id as _, c.clone(), env.board.clone())) as Box<dyn Routing>)
            .collect())
    }
}
