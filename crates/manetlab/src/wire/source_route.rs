//! The DSR source route carried by packets (RFC 4728 §6.7, the Source Route
//! option; ns-2's `hdr_sr`). A plain `Copy` array, at most [`MAX_SR_LEN`]
//! addresses (ns-2's `MAX_SR_LEN`), stored as 16-bit node ids to keep
//! `Packet` small (DSR runs refuse node ids above `u16::MAX - 1`).
//!
//! The same type holds a route request's route record and a route reply's
//! discovered route.

use super::NodeId;

/// Most addresses in a source route (ns-2's `MAX_SR_LEN`).
pub const MAX_SR_LEN: usize = 16;

/// A node sequence `hops[0..len]` plus the forwarding state of a packet
/// travelling along it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SourceRoute {
    pub len: u8,
    /// Index of the node the packet is being sent to (the node that holds it
    /// once received). 0 for a route that is not being followed.
    pub cur: u8,
    /// How many times the packet was salvaged (RFC 4728 §8.4.7).
    pub salvaged: u8,
    /// ns-2.35's DSR flow state: the packet follows this route by the
    /// relays' flow tables and carries no source route on the air (0 header
    /// bytes, ns-2's default flow), so no node can learn the route from it.
    pub flow: bool,
    pub hops: [u16; MAX_SR_LEN],
}

impl Default for SourceRoute {
    fn default() -> Self {
        SourceRoute::EMPTY
    }
}

impl SourceRoute {
    pub const EMPTY: SourceRoute = SourceRoute { len: 0, cur: 0, salvaged: 0, flow: false, hops: [0; MAX_SR_LEN] };

    /// The route `path`; None if it is longer than [`MAX_SR_LEN`].
    pub fn from_path(path: &[NodeId]) -> Option<SourceRoute> {
        if path.len() > MAX_SR_LEN {
            return None;
        }
        let mut r = SourceRoute::EMPTY;
        for (i, &n) in path.iter().enumerate() {
            r.hops[i] = n as u16;
        }
        r.len = path.len() as u8;
        Some(r)
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn node(&self, i: usize) -> NodeId {
        self.hops[i] as NodeId
    }
    /// The addresses as node ids.
    pub fn path(&self) -> Vec<NodeId> {
        self.hops[..self.len()].iter().map(|&h| h as NodeId).collect()
    }
    pub fn contains(&self, n: NodeId) -> bool {
        self.hops[..self.len()].iter().any(|&h| h as NodeId == n)
    }
    pub fn position(&self, n: NodeId) -> Option<usize> {
        self.hops[..self.len()].iter().position(|&h| h as NodeId == n)
    }
    /// Appends `n`; false if the route is full.
    pub fn push(&mut self, n: NodeId) -> bool {
        if self.len() >= MAX_SR_LEN {
            return false;
        }
        self.hops[self.len()] = n as u16;
        self.len += 1;
        true
    }
    /// Bytes this route adds as a Source Route header: the 4-byte DSR fixed
    /// header plus 4 bytes per hop (ns-2 counts 4 + 4 × addresses; RFC 4728's
    /// option lists only the intermediate nodes; see `docs/dsr.md`).
    /// A flow-state packet (`flow`) carries none.
    pub fn header_bytes(&self) -> u32 {
        if self.flow {
            return 0;
        }
        4 + 4 * (self.len() as u32).saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_basics() {
        let r = SourceRoute::from_path(&[3, 1, 4]).unwrap();
        assert_eq!(r.path(), vec![3, 1, 4]);
        assert_eq!(r.position(4), Some(2));
        assert!(r.contains(1) && !r.contains(2));
        assert_eq!(r.header_bytes(), 12);
        assert!(SourceRoute::from_path(&[0; 17]).is_none());
        let mut f = SourceRoute::from_path(&[0; 16]).unwrap();
        assert!(!f.push(1));
    }
}
