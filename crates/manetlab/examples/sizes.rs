fn main() {
    use std::mem::size_of;
    println!("Packet {}", size_of::<manetlab::net::Packet>());
    println!("Frame {}", size_of::<manetlab::mac::Frame>());
    println!("MacAction {}", size_of::<manetlab::mac::MacAction>());
    println!("NetAction {}", size_of::<manetlab::net::routing::NetAction>());
    println!("EndpointAction {}", size_of::<manetlab::transport::EndpointAction>());
    println!("Body {}", size_of::<manetlab::net::Body>());
}
