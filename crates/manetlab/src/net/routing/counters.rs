//! Control-plane counters kept cheaply while a run goes on.
//!
//! [`RoutingStats`] (the report type, read by the CLI, `output/nodes.rs`,
//! the studies and tests) keys its counters by `String` in `BTreeMap`s: a
//! lookup is a tree walk with a `memcmp` per key. A protocol counts a
//! received control message on every copy it hears, which at 1,000 nodes is
//! a large share of all events (perf on the mrc family at 1,000 nodes:
//! `RoutingStats::bump` 10 % plus `memcmp` 5 % of the CPU).
//! [`RoutingCounters`] has the same counting methods but keys its counters
//! by the `&'static str` names the protocols pass (string literals and
//! `MsgKind::name`), found by comparing the pointer first, and turns them
//! into a [`RoutingStats`] once, at the end of the run
//! ([`RoutingCounters::to_stats`]). The report is the same: a name is in a
//! map iff it was counted at least once (even by `add_event(name, 0)`), and
//! the maps are ordered by name.

use super::{MsgCount, RoutingStats};

/// One counter list: names in first-use order, each once. The first `N`
/// live inside the struct (no pointer to follow to a cold heap block: a
/// node's counters are touched on every control message it hears), the
/// rest in `more`.
#[derive(Clone, Debug)]
struct Slots<V, const N: usize> {
    inline: [(&'static str, V); N],
    len: usize,
    more: Vec<(&'static str, V)>,
}

impl<V: Default + Copy, const N: usize> Default for Slots<V, N> {
    fn default() -> Self {
        Slots { inline: [("", V::default()); N], len: 0, more: Vec::new() }
    }
}

impl<V: Default + Copy, const N: usize> Slots<V, N> {
    /// The counter of `name`, created (zero) on first use.
    #[inline]
    fn slot(&mut self, name: &'static str) -> &mut V {
        // The same literal is usually the same pointer: one compare of the
        // (address, length) pair per entry, no byte comparison.
        if let Some(i) = self.inline[..self.len].iter().position(|(k, _)| std::ptr::eq(*k, name)) {
            return &mut self.inline[i].1;
        }
        self.slot_slow(name)
    }
    #[cold]
    fn slot_slow(&mut self, name: &'static str) -> &mut V {
        if let Some(i) = self.more.iter().position(|(k, _)| std::ptr::eq(*k, name)) {
            return &mut self.more[i].1;
        }
        if let Some(i) = self.inline[..self.len].iter().position(|(k, _)| *k == name) {
            return &mut self.inline[i].1;
        }
        if let Some(i) = self.more.iter().position(|(k, _)| *k == name) {
            return &mut self.more[i].1;
        }
        if self.len < N {
            self.inline[self.len] = (name, V::default());
            self.len += 1;
            return &mut self.inline[self.len - 1].1;
        }
        self.more.push((name, V::default()));
        &mut self.more.last_mut().unwrap().1
    }
    fn iter(&self) -> impl Iterator<Item = &(&'static str, V)> {
        self.inline[..self.len].iter().chain(&self.more)
    }
}

/// A protocol's running counters; [`RoutingCounters::to_stats`] gives the
/// report. Same methods as [`RoutingStats`].
#[derive(Clone, Debug, Default)]
pub struct RoutingCounters {
    sent: Slots<MsgCount, 6>,
    received: Slots<MsgCount, 6>,
    events: Slots<u64, 8>,
}

impl RoutingCounters {
    pub fn count_sent(&mut self, kind: &'static str, bytes: u32) {
        self.sent.slot(kind).add(bytes);
    }
    pub fn count_received(&mut self, kind: &'static str, bytes: u32) {
        self.received.slot(kind).add(bytes);
    }
    pub fn event(&mut self, name: &'static str) {
        self.add_event(name, 1);
    }
    /// Adds `c` (packets and bytes counted elsewhere) to the received
    /// messages of kind `kind`.
    pub fn add_received(&mut self, kind: &'static str, c: MsgCount) {
        let s = self.received.slot(kind);
        s.packets += c.packets;
        s.bytes += c.bytes;
    }
    pub fn add_event(&mut self, name: &'static str, n: u64) {
        *self.events.slot(name) += n;
    }
    /// The counters as the report type (maps ordered by name).
    pub fn to_stats(&self) -> RoutingStats {
        let mut s = RoutingStats::default();
        for (k, c) in self.sent.iter() {
            let e = s.sent.entry(k.to_string()).or_default();
            e.packets += c.packets;
            e.bytes += c.bytes;
        }
        for (k, c) in self.received.iter() {
            let e = s.received.entry(k.to_string()).or_default();
            e.packets += c.packets;
            e.bytes += c.bytes;
        }
        for (k, v) in self.events.iter() {
            s.add_event(k, *v);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NAMES: [&str; 12] = [
        "RREQ",
        "RREP",
        "RERR",
        "HELLO",
        "RERR-ELFN",
        "RREP-ACK",
        "TC",
        "rreq_duplicates",
        "link_breaks",
        "a",
        "b",
        "c",
    ];

    /// A name with the same content as `NAMES[i]` but another address, as
    /// two codegen units may give the same literal.
    fn elsewhere(i: usize) -> &'static str {
        Box::leak(NAMES[i].to_string().into_boxed_str())
    }

    proptest! {
        /// Any sequence of counting calls gives the same report as the
        /// same calls on `RoutingStats` (the reference).
        #[test]
        fn same_report_as_routing_stats(
            ops in proptest::collection::vec((0u8..4, 0usize..12, any::<bool>(), 0u32..3000), 0..200)
        ) {
            let mut fast = RoutingCounters::default();
            let mut slow = RoutingStats::default();
            for (op, i, alias, x) in ops {
                let name = if alias { elsewhere(i) } else { NAMES[i] };
                match op {
                    0 => { fast.count_sent(name, x); slow.count_sent(name, x); }
                    1 => { fast.count_received(name, x); slow.count_received(name, x); }
                    2 => { fast.event(name); slow.event(name); }
                    _ => { fast.add_event(name, (x % 3) as u64); slow.add_event(name, (x % 3) as u64); }
                }
            }
            prop_assert_eq!(fast.to_stats(), slow);
        }
    }

    #[test]
    fn counts_and_zero_events() {
        let mut c = RoutingCounters::default();
        c.count_received("RREQ", 48);
        c.count_received("RREQ", 52);
        c.count_sent("RREP", 44);
        c.add_event("route_discoveries", 0);
        c.event("link_breaks");
        c.event(elsewhere(8));
        let s = c.to_stats();
        assert_eq!(s.received["RREQ"], MsgCount { packets: 2, bytes: 100 });
        assert_eq!(s.sent_of("RREP"), 1);
        assert_eq!(s.events.get("route_discoveries"), Some(&0), "named even when counted zero times");
        assert_eq!(s.event_count("link_breaks"), 2, "same name at two addresses is one counter");
        assert_eq!(s.events.keys().collect::<Vec<_>>(), ["link_breaks", "route_discoveries"]);
    }
}
