//! Per-node memory: the size of each layer's state (docs/performance.md,
//! "Large networks"). `cargo run --release --example sizes`
use std::mem::size_of;
fn main() {
    println!("Node {}", size_of::<manetlab::node::Node>());
    println!("  Radio {}", size_of::<manetlab::phy::radio::Radio>());
    println!("  Mac {}", size_of::<manetlab::mac::Mac>());
    println!("  Dcf {}", size_of::<manetlab::mac::dcf::Dcf>());
    println!("  RngStream {}", size_of::<manetlab::sim::RngStream>());
    println!("  Packet {}", size_of::<manetlab::net::Packet>());
    println!("  Frame {}", size_of::<manetlab::wire::frame::Frame>());
    println!("  NetStats {}", size_of::<manetlab::node::NetStats>());
    println!("  BeaconEndpoint {}", size_of::<manetlab::transport::beacon::BeaconEndpoint>());
    println!("  Trajectory {}", size_of::<manetlab::mobility::Trajectory>());
}
