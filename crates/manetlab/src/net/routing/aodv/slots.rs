//! A hash table from node id to a small value with the key in the value's
//! cache line: open addressing with linear probing, Fibonacci hashing,
//! load factor at most 1/2, deletion by backward shift (Knuth, TAOCP vol. 3,
//! §6.4, Algorithm R). A look-up that finds its key at its home slot reads
//! one cache line (AODV's slot is 32 bytes: `table.rs`); `std`'s map (hashbrown) reads its
//! control group and then the bucket, two lines at random per packet heard,
//! the misses that dominate AODV at 1,000-2,000 nodes (docs/performance.md,
//! "Fifth sitting").
//!
//! The walk order ([`IdSlots::iter`]) depends on the keys and the history of
//! insertions: callers whose walk can reach an output sort what they walk,
//! as with `sim::idhash`.
//!
//! Walks read a bitmap of the used slots (`occ`, one bit per slot: 64 B for
//! 512 slots) and visit only the used slots' lines. The table is at most
//! half full (and never shrinks), so a walk that read every slot touched
//! two to four times the lines it needed: AODV's once-a-second walks
//! (`purge`, the neighbour timer's `take_lost`) were 6 % of the 400-node
//! movement file's time, memory-bound (docs/performance.md, "Session 13
//! (branch s13big)"). The probe of a look-up still reads the slot's own
//! `used` flag (the key's line), not the bitmap.

use crate::net::NodeId;

/// Slots of a table's first allocation.
const MIN_SLOTS: usize = 16;

/// `repr(C, align(32))`: the key, the flag, then the value (at offset 6
/// for AODV's 26-byte `packed(2)` entry): a 32-byte slot, two per cache
/// line, never across two (the table's allocation has the slot's
/// alignment).
#[derive(Clone, Debug)]
#[repr(C, align(32))]
pub(super) struct Slot<V> {
    key: NodeId,
    /// The slot holds `key` (any id is a valid key, `BROADCAST` too; the
    /// flag sits in the key's padding).
    used: bool,
    value: V,
}

impl<V: Default> Slot<V> {
    fn free() -> Slot<V> {
        Slot { key: 0, used: false, value: V::default() }
    }
}

/// `repr(C)`: what a look-up reads (the slots' address and length, the
/// shift) first.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct IdSlots<V> {
    slots: Vec<Slot<V>>,
    /// 64 - log2(slots.len()): the home slot is the top bits of key * K.
    shift: u32,
    len: usize,
    /// Bit `i % 64` of word `i / 64` is `slots[i].used` (a boxed slice:
    /// 16 bytes, so `Aodv`'s hot fields stay in their five lines).
    occ: Box<[u64]>,
    /// Scratch for `retain` (kept: no allocation per call).
    gone: Vec<NodeId>,
}

impl<V> Default for IdSlots<V> {
    fn default() -> Self {
        IdSlots { slots: Vec::new(), len: 0, shift: 64, occ: Box::default(), gone: Vec::new() }
    }
}

/// Odd 64-bit multiplier (~2^64 / golden ratio).
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// Starts loading the cache line of `p` (a hint: no effect on any value;
/// any address may be given, none is read).
#[inline(always)]
pub(super) fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: PREFETCHT0 is a hint with no architectural effect: it
        // loads nothing into the program and cannot fault, whatever the
        // address (SSE is part of the x86_64 baseline).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

impl<V: Clone + Default> IdSlots<V> {
    #[inline]
    fn home(&self, key: NodeId) -> usize {
        ((key as u64).wrapping_mul(K) >> self.shift) as usize
    }
    #[inline]
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }
    /// The slot holding `key`, if any.
    #[inline]
    fn find(&self, key: NodeId) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let s = &self.slots[i];
            if !s.used {
                return None;
            }
            if s.key == key {
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }
    /// Starts loading `key`'s home slot into the cache (where a look-up of
    /// `key` starts; no effect on the table or on any result).
    #[inline]
    pub fn prefetch(&self, key: NodeId) {
        if !self.slots.is_empty() {
            prefetch_line(self.slots.as_ptr().wrapping_add(self.home(key)) as *const u8);
        }
    }
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[cfg(test)]
    pub fn contains_key(&self, key: NodeId) -> bool {
        self.find(key).is_some()
    }
    #[inline]
    pub fn get(&self, key: NodeId) -> Option<&V> {
        self.find(key).map(|i| &self.slots[i].value)
    }
    #[inline]
    pub fn get_mut(&mut self, key: NodeId) -> Option<&mut V> {
        self.find(key).map(|i| &mut self.slots[i].value)
    }
    /// The value of `key`, inserted as `V::default()` if absent.
    #[inline]
    pub fn get_or_default(&mut self, key: NodeId) -> &mut V {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let s = &self.slots[i];
            if !s.used {
                self.slots[i].key = key;
                self.slots[i].used = true;
                self.occ[i / 64] |= 1 << (i % 64);
                self.len += 1;
                return &mut self.slots[i].value;
            }
            if s.key == key {
                return &mut self.slots[i].value;
            }
            i = (i + 1) & mask;
        }
    }
    fn grow(&mut self) {
        let n = (self.slots.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot::free(); n]);
        self.occ = vec![0; n.div_ceil(64)].into_boxed_slice();
        self.shift = 64 - n.trailing_zeros();
        let mask = n - 1;
        for s in old.into_iter().filter(|s| s.used) {
            let mut i = self.home(s.key);
            while self.slots[i].used {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
            self.occ[i / 64] |= 1 << (i % 64);
        }
    }
    /// Removes `key` (if present).
    pub fn remove(&mut self, key: NodeId) {
        if let Some(i) = self.find(key) {
            self.remove_at(i);
        }
    }
    /// Empties slot `i` and moves later members of its cluster back so that
    /// every key stays reachable from its home slot (Algorithm R).
    fn remove_at(&mut self, mut i: usize) {
        let mask = self.mask();
        self.slots[i] = Slot::free();
        self.occ[i / 64] &= !(1 << (i % 64));
        self.len -= 1;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            if !self.slots[j].used {
                return;
            }
            let h = self.home(self.slots[j].key);
            // The key at j stays iff its home is in (i, j], cyclically.
            let stays = if i <= j { i < h && h <= j } else { i < h || h <= j };
            if !stays {
                self.slots.swap(i, j);
                self.occ[i / 64] |= 1 << (i % 64);
                self.occ[j / 64] &= !(1 << (j % 64));
                i = j;
            }
        }
    }
    /// Keeps the entries for which `f` returns true; `f` sees every entry
    /// once, in slot order.
    pub fn retain(&mut self, mut f: impl FnMut(NodeId, &mut V) -> bool) {
        let mut gone = std::mem::take(&mut self.gone);
        for i in used_slots(&self.occ) {
            let s = &mut self.slots[i];
            if !f(s.key, &mut s.value) {
                gone.push(s.key);
            }
        }
        for &k in &gone {
            self.remove(k);
        }
        gone.clear();
        self.gone = gone;
    }
    /// The entries in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, &V)> {
        used_slots(&self.occ).map(|i| (self.slots[i].key, &self.slots[i].value))
    }
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }
}

/// The indices of the set bits of `occ`, ascending.
#[inline]
fn used_slots(occ: &[u64]) -> impl Iterator<Item = usize> + '_ {
    occ.iter().enumerate().flat_map(|(w, &bits)| {
        let mut b = bits;
        std::iter::from_fn(move || {
            if b == 0 {
                return None;
            }
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            Some(w * 64 + i)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Same contents as a `BTreeMap` after any sequence of inserts,
        /// updates, removals and retains, on keys crowded into few home
        /// slots (long clusters, wrap-around, backward shifts).
        #[test]
        fn same_as_a_btreemap(ops in proptest::collection::vec((0u8..5, 0u32..200, 0u32..50), 0..500)) {
            let mut t: IdSlots<u32> = IdSlots::default();
            let mut m = std::collections::BTreeMap::new();
            for (op, k, v) in ops {
                // Multiples of 64 (many share the top bits of k * K), and
                // the largest id (BROADCAST) as a key like any other.
                let k = if k == 199 { NodeId::MAX } else { k * 64 };
                match op {
                    0 | 1 => { *t.get_or_default(k) = v; m.insert(k, v); }
                    2 => { t.remove(k); m.remove(&k); }
                    3 => {
                        let mut seen = Vec::new();
                        t.retain(|k, x| { seen.push(k); *x += 1; *x % 3 != 0 });
                        seen.sort_unstable();
                        proptest::prop_assert_eq!(seen, m.keys().copied().collect::<Vec<_>>(), "each entry once");
                        m.retain(|_, x| { *x += 1; *x % 3 != 0 });
                    }
                    _ => {
                        if let Some(x) = t.get_mut(k) { *x += v; }
                        if let Some(x) = m.get_mut(&k) { *x += v; }
                    }
                }
                proptest::prop_assert_eq!(t.len(), m.len());
                let mut all: Vec<(NodeId, u32)> = t.iter().map(|(k, &v)| (k, v)).collect();
                all.sort_unstable();
                proptest::prop_assert_eq!(all, m.iter().map(|(&k, &v)| (k, v)).collect::<Vec<_>>());
                for q in (0..199).map(|q| q * 64).chain([NodeId::MAX]) {
                    proptest::prop_assert_eq!(t.get(q), m.get(&q));
                }
                proptest::prop_assert!(t.slots.is_empty() || t.len() * 2 <= t.slots.len(), "load at most 1/2");
                for (i, s) in t.slots.iter().enumerate() {
                    proptest::prop_assert_eq!(s.used, t.occ[i / 64] >> (i % 64) & 1 == 1, "bitmap of slot {}", i);
                }
                let walked: Vec<NodeId> = t.iter().map(|(k, _)| k).collect();
                let in_order: Vec<NodeId> = t.slots.iter().filter(|s| s.used).map(|s| s.key).collect();
                proptest::prop_assert_eq!(walked, in_order, "walks in slot order");
            }
        }
    }
}
