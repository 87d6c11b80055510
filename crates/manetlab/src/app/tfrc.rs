//! Traffic type `tfrc`: TCP-Friendly Rate Control (RFC 5348,
//! `transport/tfrc/`) carrying an application that offers `rate` of
//! payload (greedy without it) in packets of `packet_size` bytes.

use super::{payload_size, Endpoints, FlowEnv, Traffic, TrafficModel};
use crate::sim::params::{ParamError, Params};
use crate::transport::tfrc::{TfrcConfig, TfrcReceiver, TfrcSender, DATA_HEADER_BYTES};

/// The `tfrc` traffic type.
pub struct Tfrc;

impl TrafficModel for Tfrc {
    const NAME: &'static str = "tfrc";
    const TYPES: &'static [&'static str] = &["tfrc"];
    const KEYS: &'static [&'static str] = &["packet_size", "rate", "history_discounting"];

    fn parse(p: &dyn Params) -> Result<Traffic, ParamError> {
        let mut tfrc = TfrcConfig::default();
        let what = "the MSDU limit less IP, UDP and TFRC headers";
        if let Some(s) = payload_size(p, super::MAX_UDP_PAYLOAD - DATA_HEADER_BYTES, what)? {
            tfrc.packet_size = s;
        }
        p.set_flag("history_discounting", &mut tfrc.history_discounting)?;
        Ok(Traffic::Tfrc { tfrc, rate_bps: p.rate("rate")?.map(|r| r.v) })
    }

    fn endpoints(cfg: &Traffic, f: &FlowEnv) -> Endpoints {
        let Traffic::Tfrc { tfrc, rate_bps } = cfg else { unreachable!("a tfrc flow") };
        Endpoints {
            sender: Box::new(TfrcSender::new(f.flow, f.port, f.dst, tfrc.clone(), *rate_bps, f.start, f.stop)),
            sink: Box::new(TfrcReceiver::new(f.flow, f.port, tfrc)),
        }
    }
}
