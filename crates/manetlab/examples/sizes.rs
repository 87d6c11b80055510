//! Sizes of the values the kernel moves around and of the per-node state
//! (docs/performance.md, "Large networks"). `cargo run --release --example sizes`
use std::mem::size_of;
fn main() {
    println!("Packet {}", size_of::<manetlab::net::Packet>());
    println!("Frame {}", size_of::<manetlab::mac::Frame>());
    println!("MacAction {}", size_of::<manetlab::mac::MacAction>());
    println!("NetAction {}", size_of::<manetlab::net::routing::NetAction>());
    println!("EndpointAction {}", size_of::<manetlab::transport::EndpointAction>());
    println!("Body {}", size_of::<manetlab::net::Body>());
    println!("Node {}", size_of::<manetlab::node::Node>());
    println!("  Radio {}", size_of::<manetlab::phy::radio::Radio>());
    println!("  Mac {}", size_of::<manetlab::mac::Mac>());
    println!("  Dcf {}", size_of::<manetlab::mac::dcf::Dcf>());
    println!("  RngStream {}", size_of::<manetlab::sim::RngStream>());
    println!("  NetStats {}", size_of::<manetlab::node::NetStats>());
    println!("  BeaconEndpoint {}", size_of::<manetlab::app::beacon::BeaconEndpoint>());
    println!("  Trajectory {}", size_of::<manetlab::mobility::Trajectory>());
}
