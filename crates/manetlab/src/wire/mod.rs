//! Formats on the air and on the wire, as smoltcp's `wire` module: the
//! 802.11 frame, the IP-like packet and its typed body, and the headers of
//! every protocol carried (TCP, TFRC, ARP, AODV, DSR, the ELFN notice).
//! Plain `Copy` data with sizes; no behaviour of any protocol lives here.
//! Every layer above may name these types; this folder names only `sim/`.

pub mod aodv;
pub mod arp;
pub mod board;
pub mod dsr;
pub mod elfn;
pub mod frame;
pub mod packet;
pub mod source_route;
pub mod tfrc;

pub use crate::sim::{NodeId, BROADCAST, FLOW_NONE};
pub use elfn::LinkFailureNotice;
pub use frame::{Frame, FrameKind, MacAddr};
pub use packet::{Body, Packet, TcpSeg, IP_HEADER_BYTES, UDP_HEADER_BYTES};
