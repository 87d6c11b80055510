//! A fast, deterministic hasher for small integer keys (node ids, pairs of
//! them): one rotate, xor and multiply per word, the "Fx" hash of rustc
//! (`rustc-hash`). `std`'s default SipHash is keyed at random and costs
//! ~20 ns per lookup; maps keyed by node id sit on per-packet paths
//! (AODV's routing table and neighbour list, docs/performance.md).
//!
//! Only the lookups use the hash: code that walks such a map in an order
//! that can reach an output sorts what it walks.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Odd 64-bit multiplier (rustc's `FxHasher`; ~2^64 / golden ratio).
const K: u64 = 0x517c_c1b7_2722_0a95;

#[derive(Clone, Copy, Default)]
pub struct IdHasher(u64);

impl IdHasher {
    #[inline(always)]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap()));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }
    #[inline(always)]
    fn write_u8(&mut self, x: u8) {
        self.add(x as u64);
    }
    #[inline(always)]
    fn write_u16(&mut self, x: u16) {
        self.add(x as u64);
    }
    #[inline(always)]
    fn write_u32(&mut self, x: u32) {
        self.add(x as u64);
    }
    #[inline(always)]
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }
    #[inline(always)]
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type IdBuild = BuildHasherDefault<IdHasher>;
/// A `HashMap` with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, IdBuild>;
/// A `HashSet` with [`IdHasher`].
pub type IdSet<K> = HashSet<K, IdBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn consecutive_ids_spread_over_buckets_and_tags() {
        // hashbrown takes the bucket from the low bits and a 7-bit tag from
        // the top bits: both must vary for consecutive node ids.
        let b = IdBuild::default();
        let mut low = std::collections::BTreeSet::new();
        let mut top = std::collections::BTreeSet::new();
        for id in 0u32..1024 {
            let h = b.hash_one(id);
            low.insert(h & 1023);
            top.insert(h >> 57);
        }
        assert_eq!(low.len(), 1024, "low 10 bits a bijection of 0..1024");
        assert!(top.len() > 100, "top 7 bits take most of their 128 values: {}", top.len());
        assert_ne!(b.hash_one((3u32, 4u32)), b.hash_one((4u32, 3u32)));
    }
}
