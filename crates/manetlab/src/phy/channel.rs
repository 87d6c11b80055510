//! The shared channel: who hears a transmission, at what power, when.

use crate::config::Position;

pub type TxId = u32;
pub struct Channel;

/// Neighbour lists for links of at most `range` metres (O(n log n)-ish via a
/// grid; used at build time for static routes and connectivity reports).
pub fn connectivity(positions: &[Position], range: f64) -> Vec<Vec<u32>> {
    let n = positions.len();
    let mut adj = vec![Vec::new(); n];
    for i in 0..n {
        for j in (i + 1)..n {
            if positions[i].distance(&positions[j]) <= range {
                adj[i].push(j as u32);
                adj[j].push(i as u32);
            }
        }
    }
    adj
}
