//! Network layer: the packet format, forwarding, and routing protocols.

pub mod arp;
pub use crate::wire::elfn;
pub mod gateway;
pub use crate::wire::packet;
pub mod routing;
pub mod wired;

pub use elfn::LinkFailureNotice;
pub use packet::{Body, NodeId, Packet, TcpSeg, BROADCAST, FLOW_NONE, IP_HEADER_BYTES, UDP_HEADER_BYTES};
