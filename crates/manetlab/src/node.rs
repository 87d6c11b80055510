//! A node: one instance of every layer, bottom up.

use crate::mac::Mac;
use crate::metrics::DropReason;
use crate::net::routing::Routing;
use crate::net::NodeId;
use crate::phy::Radio;
use crate::queue::Ifq;
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
    pub ifq: Ifq,
    /// Present when the queue has a lifetime (`[queue] max_delay`).
    pub ifq_life: Option<crate::queue::Lifetime>,
    /// Present when ARP is on.
    pub arp: Option<crate::net::arp::Arp>,
    pub routing: Box<dyn Routing>,
    pub endpoints: Vec<Box<dyn Endpoint>>,
    pub routing_rng: RngStream,
    pub app_rng: RngStream,
    pub net: NetStats,
    /// One cache line of nothing, so that a node spans an odd number of
    /// lines (33, not 32; asserted below): with a 2-KB stride line k of
    /// every node falls in one of two of the L1's 64 sets (8 ways), and
    /// the four hot lines of rwp30's 30 nodes competed 15 to a set; with
    /// 33 lines they spread over all sets (session 20, docs/performance.md:
    /// rwp30 ~0.96 of the 2-KB stride in paired CPU, the rest neutral).
    pub(crate) stride_pad: [u8; 64],
}

// An odd number of cache lines a node (see `stride_pad`).
const _: () =
    assert!(std::mem::size_of::<Node>().is_multiple_of(64) && !(std::mem::size_of::<Node>() / 64).is_multiple_of(2));

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

    /// A node is 33 cache lines (32 of fields and `stride_pad`): a field
    /// that pushes the fields over 32 lines makes it 34 and the
    /// compile-time check above (an odd count) fails: shrink the fields,
    /// or widen the pad to 35 lines (every node array 6 % larger).
    #[test]
    fn node_is_33_lines() {
        assert!(std::mem::size_of::<Node>() == 33 * 64, "{}", std::mem::size_of::<Node>());
    }
}
