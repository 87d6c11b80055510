//! A node: one instance of every layer, bottom up.

use crate::mac::Mac;
use crate::metrics::DropReason;
use crate::net::routing::Routing;
use crate::net::NodeId;
use crate::phy::Radio;
use crate::queue::QueueDisc;
use crate::sim::RngStream;
use crate::transport::Endpoint;

/// Network-layer counters of one node.
#[derive(Clone, Debug, Default)]
pub struct NetStats {
    /// Drops at this node by reason (index = `DropReason::index`).
    pub drops: [u64; DropReason::ALL.len()],
    pub originated: u64,
    pub forwarded: u64,
    pub delivered: u64,
    pub link_failures: u64,
}

/// `repr(C)`: the radio (two aligned cache lines) and then the MAC, whose
/// carrier-sense fields come first, so that a signal start or end touches
/// the node's first four lines and nothing else (docs/performance.md,
/// "Large networks"; the tests below check the offsets).
#[repr(C)]
pub struct Node {
    pub radio: Radio,
    pub mac: Mac,
    pub id: NodeId,
    pub ifq: Box<dyn QueueDisc>,
    /// Present when the queue has a lifetime (`[queue] max_delay`).
    pub ifq_life: Option<crate::queue::Lifetime>,
    /// Present when ARP is on.
    pub arp: Option<crate::net::arp::Arp>,
    pub routing: Box<dyn Routing>,
    pub endpoints: Vec<Box<dyn Endpoint>>,
    pub routing_rng: RngStream,
    pub app_rng: RngStream,
    pub net: NetStats,
}

impl Node {
    pub fn endpoint_for_port(&self, port: u16) -> Option<usize> {
        self.endpoints.iter().position(|e| e.port() == port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radio_and_mac_lead_the_node() {
        assert_eq!(std::mem::offset_of!(Node, radio), 0);
        assert_eq!(std::mem::offset_of!(Node, mac), 128);
        // The DCF's hot fields (first 120 B of it, `mac/dcf.rs`) end within
        // the node's first four lines, whatever tag the `Mac` enum adds.
        assert!(std::mem::size_of::<Mac>() - std::mem::size_of::<crate::mac::dcf::Dcf>() <= 8);
    }

    /// A node is 32 cache lines (2048 B, a shift to index them): a field
    /// that pushes it over makes it 33 and every node array 3 % larger.
    #[test]
    fn node_is_32_lines() {
        assert!(std::mem::size_of::<Node>() <= 2048, "{}", std::mem::size_of::<Node>());
    }
}
