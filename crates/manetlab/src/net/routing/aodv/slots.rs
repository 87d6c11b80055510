//! A hash table from node id to a small value with the key in the value's
//! cache line: open addressing with linear probing, Fibonacci hashing,
//! load factor at most 1/2, deletion by backward shift (Knuth, TAOCP vol. 3,
//! §6.4, Algorithm R). A look-up that finds its key at its home slot reads
//! one cache line when a slot is 64 bytes; `std`'s map (hashbrown) reads its
//! control group and then the bucket, two lines at random per packet heard,
//! the misses that dominate AODV at 1,000-2,000 nodes (docs/performance.md,
//! "Fifth sitting").
//!
//! The walk order ([`IdSlots::iter`]) depends on the keys and the history of
//! insertions: callers whose walk can reach an output sort what they walk,
//! as with `sim::idhash`.

use crate::net::NodeId;

/// Marks a free slot (no node has this id: ids are below 2^31).
const FREE: NodeId = NodeId::MAX;
/// Slots of a table's first allocation.
const MIN_SLOTS: usize = 16;

#[derive(Clone, Debug)]
pub(super) struct Slot<V> {
    key: NodeId,
    value: V,
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
    /// Scratch for `retain` (kept: no allocation per call).
    gone: Vec<NodeId>,
}

impl<V> Default for IdSlots<V> {
    fn default() -> Self {
        IdSlots { slots: Vec::new(), len: 0, shift: 64, gone: Vec::new() }
    }
}

/// Odd 64-bit multiplier (~2^64 / golden ratio).
const K: u64 = 0x9E37_79B9_7F4A_7C15;

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
            let k = self.slots[i].key;
            if k == key {
                return Some(i);
            }
            if k == FREE {
                return None;
            }
            i = (i + 1) & mask;
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
        debug_assert!(key != FREE);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let k = self.slots[i].key;
            if k == key {
                return &mut self.slots[i].value;
            }
            if k == FREE {
                self.slots[i].key = key;
                self.len += 1;
                return &mut self.slots[i].value;
            }
            i = (i + 1) & mask;
        }
    }
    fn grow(&mut self) {
        let n = (self.slots.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot { key: FREE, value: V::default() }; n]);
        self.shift = 64 - n.trailing_zeros();
        let mask = n - 1;
        for s in old.into_iter().filter(|s| s.key != FREE) {
            let mut i = self.home(s.key);
            while self.slots[i].key != FREE {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
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
        self.slots[i] = Slot { key: FREE, value: V::default() };
        self.len -= 1;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            if self.slots[j].key == FREE {
                return;
            }
            let h = self.home(self.slots[j].key);
            // The key at j stays iff its home is in (i, j], cyclically.
            let stays = if i <= j { i < h && h <= j } else { i < h || h <= j };
            if !stays {
                self.slots.swap(i, j);
                i = j;
            }
        }
    }
    /// Keeps the entries for which `f` returns true; `f` sees every entry
    /// once, in slot order.
    pub fn retain(&mut self, mut f: impl FnMut(NodeId, &mut V) -> bool) {
        let mut gone = std::mem::take(&mut self.gone);
        for s in self.slots.iter_mut().filter(|s| s.key != FREE) {
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
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, &V)> {
        self.slots.iter().filter(|s| s.key != FREE).map(|s| (s.key, &s.value))
    }
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.slots.iter_mut().filter(|s| s.key != FREE).map(|s| &mut s.value)
    }
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
                let k = k * 64; // multiples: many share the top bits of k * K
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
                    _ => { if let Some(x) = t.get_mut(k) { *x += v; } if let Some(x) = m.get_mut(&k) { *x += v; } }
                }
                proptest::prop_assert_eq!(t.len(), m.len());
                let mut all: Vec<(NodeId, u32)> = t.iter().map(|(k, &v)| (k, v)).collect();
                all.sort_unstable();
                proptest::prop_assert_eq!(all, m.iter().map(|(&k, &v)| (k, v)).collect::<Vec<_>>());
                for q in (0..200).map(|q| q * 64) {
                    proptest::prop_assert_eq!(t.get(q), m.get(&q));
                }
                proptest::prop_assert!(t.slots.is_empty() || t.len() * 2 <= t.slots.len(), "load at most 1/2");
            }
        }
    }
}
