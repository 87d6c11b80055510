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

pub struct Node {
    pub id: NodeId,
    pub radio: Radio,
    pub mac: Mac,
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
