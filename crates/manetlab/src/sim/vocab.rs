//! The words every layer shares: node ids and addresses, positions.
//! (Drop reasons are in `drop.rs`, packet uids and fates in `fate.rs`.)

/// Node identifier, also used as IP and MAC address.
pub type NodeId = u32;
/// Broadcast address at IP and MAC level.
pub const BROADCAST: NodeId = u32::MAX;
/// Flow id of packets that belong to no application flow (routing, ARP).
pub const FLOW_NONE: u32 = u32::MAX;

/// A point in metres. `z` is the ground height of the node (antenna height
/// is added by the radio).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Position {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Position {
    pub fn new(x: f64, y: f64) -> Self {
        Position { x, y, z: 0.0 }
    }
    /// Nodes `0..n` on a line `spacing` metres apart (node 0 at x = 0).
    pub fn chain(n: usize, spacing: f64) -> Vec<Position> {
        (0..n).map(|i| Position::new(i as f64 * spacing, 0.0)).collect()
    }
    /// `rows` x `cols` grid, node id = row * cols + col.
    pub fn grid(rows: usize, cols: usize, spacing: f64) -> Vec<Position> {
        (0..rows * cols).map(|i| Position::new((i % cols) as f64 * spacing, (i / cols) as f64 * spacing)).collect()
    }
    pub fn distance(&self, o: &Position) -> f64 {
        ((self.x - o.x).powi(2) + (self.y - o.y).powi(2) + (self.z - o.z).powi(2)).sqrt()
    }
}
