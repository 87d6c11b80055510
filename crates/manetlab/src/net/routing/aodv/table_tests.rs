//! Unit tests of AODV's route and neighbour table (`table.rs`).

use super::*;

fn t(ms: u64) -> Time {
    Time::from_ms(ms)
}
fn offer(dst: NodeId, seq: u32, hops: u8, nh: NodeId) -> Offer {
    Offer { dst, seq, hops, next_hop: nh, lifetime: t(3000), keep_longer: false }
}

#[test]
fn sequence_numbers_wrap() {
    assert!(seq_newer(5, 4));
    assert!(!seq_newer(4, 5));
    assert!(!seq_newer(7, 7));
    assert!(seq_at_least(7, 7));
    // Across the wrap: 1 is newer than 0xFFFF_FFF0.
    assert!(seq_newer(1, 0xFFFF_FFF0));
    assert!(!seq_newer(0xFFFF_FFF0, 1));
    // Half the space away: the signed difference decides.
    assert!(seq_newer(0x8000_0000u32.wrapping_sub(1), 0));
    assert!(!seq_newer(0x8000_0001, 0));
}

#[test]
fn update_rules() {
    let mut rt = RouteTable::new(t(15_000), t(2100));
    let now = t(0);
    assert!(rt.offer(offer(9, 10, 4, 1), now), "new entry");
    assert!(!rt.offer(offer(9, 9, 1, 2), now), "older seq refused, even if shorter");
    assert!(!rt.offer(offer(9, 10, 4, 2), now), "same seq, same length refused");
    assert!(!rt.offer(offer(9, 10, 5, 2), now), "same seq, longer refused");
    assert!(rt.offer(offer(9, 10, 3, 2), now), "same seq, shorter accepted");
    assert_eq!(rt.get(9).unwrap().next_hop, 2);
    assert!(rt.offer(offer(9, 11, 8, 3), now), "newer seq accepted, even if longer");
    assert_eq!((rt.get(9).unwrap().hops, rt.get(9).unwrap().seq), (8, 11));
    // Wrap-around: 2 is newer than 0xFFFF_FFFF.
    assert!(rt.offer(offer(7, 0xFFFF_FFFF, 2, 1), now));
    assert!(rt.offer(offer(7, 2, 5, 1), now));
    // Unknown sequence number (neighbour entry): any offer wins.
    rt.neighbour(5, t(3000), now);
    assert!(!rt.get(5).unwrap().valid_seq);
    assert!(rt.offer(offer(5, 0, 1, 5), now));
    assert!(rt.get(5).unwrap().valid_seq);
}

#[test]
fn invalid_route_takes_same_seq_but_not_older() {
    let mut rt = RouteTable::new(t(15_000), t(2100));
    let now = t(0);
    rt.offer(offer(9, 10, 2, 1), now);
    rt.add_precursor(9, 4);
    rt.add_precursor(9, 4);
    rt.add_precursor(9, 6);
    let (seq, pre) = rt.invalidate(9, None, t(100)).unwrap();
    assert_eq!(seq, 11, "link break increments the destination sequence number");
    assert_eq!(pre, vec![4, 6], "precursors handed over once each");
    assert!(rt.precursors(9).is_empty());
    assert!(rt.active(9, t(100)).is_none());
    assert_eq!(rt.get(9).unwrap().lifetime, t(15_100), "deleted DELETE_PERIOD later");
    assert!(!rt.offer(offer(9, 10, 1, 2), t(200)), "the old sequence number cannot revive it");
    assert!(rt.offer(offer(9, 11, 3, 2), t(200)), "same (incremented) sequence number revives an invalid route");
    assert!(rt.active(9, t(200)).is_some());
    // A RERR's sequence number is adopted if newer.
    let (seq, _) = rt.invalidate(9, Some(20), t(300)).unwrap();
    assert_eq!(seq, 20);
    let (seq, _) = rt.invalidate(9, Some(3), t(300)).unwrap();
    assert_eq!(seq, 20, "an older RERR sequence number is ignored");
}

/// `use_active` is `active` then `refresh` of the same entry.
#[test]
fn use_active_is_active_then_refresh() {
    for (state_broken, now, until) in [(false, 1000, 4000), (false, 1000, 2000), (false, 3000, 6000), (true, 1000, 4000)] {
        let (mut a, mut b) = (RouteTable::new(t(15_000), t(2100)), RouteTable::new(t(15_000), t(2100)));
        for rt in [&mut a, &mut b] {
            rt.offer(offer(9, 1, 2, 1), t(0)); // expires at 3 s
            if state_broken {
                rt.invalidate(9, None, t(500));
            }
        }
        let (now, until) = (t(now), t(until));
        let nh = a.active(9, now).map(|r| r.next_hop);
        a.refresh(9, until, now);
        assert_eq!(b.use_active(9, until, now), nh);
        assert_eq!(a.get(9), b.get(9));
        assert_eq!(b.use_active(7, until, now), None, "no entry");
    }
}

#[test]
fn expiry_purge_and_refresh() {
    let mut rt = RouteTable::new(t(15_000), t(2100));
    rt.offer(offer(9, 1, 2, 1), t(0)); // expires at 3 s
    rt.refresh(9, t(4000), t(1000));
    assert!(rt.active(9, t(3500)).is_some(), "refreshed by use");
    assert!(rt.active(9, t(4000)).is_none(), "expired");
    rt.purge(t(4000));
    assert_eq!(rt.get(9).unwrap().state, RouteState::Invalid);
    rt.refresh(9, t(9000), t(4000));
    assert_eq!(rt.get(9).unwrap().state, RouteState::Invalid, "refresh does not revive");
    rt.purge(t(18_999));
    assert!(rt.get(9).is_some());
    rt.purge(t(19_000));
    assert!(rt.get(9).is_none(), "deleted DELETE_PERIOD after expiry");
}

#[test]
fn reverse_routes_keep_a_longer_lifetime() {
    let mut rt = RouteTable::new(t(15_000), t(2100));
    let mut o = offer(3, 1, 2, 1);
    o.lifetime = t(6000);
    rt.offer(o, t(0));
    let o2 = Offer { seq: 2, lifetime: t(5000), keep_longer: true, ..o };
    assert!(rt.offer(o2, t(10)));
    assert_eq!(rt.get(3).unwrap().lifetime, t(6000));
    let o3 = Offer { seq: 3, lifetime: t(5000), keep_longer: false, ..o };
    assert!(rt.offer(o3, t(10)));
    assert_eq!(rt.get(3).unwrap().lifetime, t(5000));
}

#[test]
fn routes_via_a_neighbour_in_order() {
    let mut rt = RouteTable::new(t(15_000), t(2100));
    for (d, nh) in [(8, 2), (3, 2), (5, 4), (2, 2)] {
        rt.offer(offer(d, 1, 1, nh), t(0));
    }
    assert_eq!(rt.active_via(2, t(0)), vec![2, 3, 8]);
    rt.add_precursor(3, 4);
    rt.add_precursor(8, 4);
    assert_eq!(rt.precursors(3), [4]);
    rt.remove_precursor(4);
    assert!(rt.iter().all(|r| rt.precursors(r.dst).is_empty()));
}

proptest::proptest! {
    /// The walks whose order can reach an output come out in
    /// destination order, as from the `BTreeMap` the table was: `iter`
    /// strictly increasing, `active_via` the in-order filter of it; and
    /// the table holds the destinations a `BTreeSet` model says.
    #[test]
    fn walks_in_destination_order(ops in proptest::collection::vec((0u8..6, 0u32..60, 0u32..6, 0u64..40), 0..300)) {
        let mut rt = RouteTable::new(t(15_000), t(2100));
        let mut model = std::collections::BTreeSet::new();
        let mut now = t(0);
        for (op, dst, nh, dt) in ops {
            now += t(dt * 100);
            match op {
                0 => { rt.offer(Offer { dst, seq: nh, hops: 2, next_hop: nh, lifetime: now + t(3000), keep_longer: dt % 2 == 0 }, now); model.insert(dst); }
                1 => { rt.neighbour(dst, now + t(3000), now); model.insert(dst); }
                2 => { rt.invalidate(dst, None, now); }
                3 => { rt.add_precursor(dst, nh); rt.remove_precursor(nh / 2); }
                4 => { rt.refresh(dst, now + t(5000), now); rt.learn_seq(dst, nh); }
                _ => {
                    rt.purge(now);
                    model.retain(|&d| rt.get(d).is_some());
                }
            }
            let dsts: Vec<NodeId> = rt.iter().map(|r| r.dst).collect();
            proptest::prop_assert_eq!(&dsts, &model.iter().copied().collect::<Vec<_>>());
            let via: Vec<NodeId> = rt.iter().filter(|r| r.next_hop == nh && r.is_active(now)).map(|r| r.dst).collect();
            proptest::prop_assert_eq!(rt.active_via(nh, now), via);
            proptest::prop_assert_eq!(rt.len(), model.len());
        }
    }
}

#[test]
fn silent_neighbours_are_lost() {
    let mut n = RouteTable::new(t(15_000), t(2100));
    n.heard(4, t(1000));
    n.heard(2, t(2000));
    assert_eq!(n.next_expiry(), Some(t(3100)));
    assert!(n.take_lost(t(3099)).is_empty());
    assert_eq!(n.next_expiry(), Some(t(3100)), "the walk's own answer");
    n.heard(4, t(3000)); // any packet keeps it
    assert_eq!(n.next_expiry(), Some(t(4100)));
    assert_eq!(n.take_lost(t(4100)), vec![2]);
    assert!(n.is_neighbour(4) && !n.is_neighbour(2));
    assert_eq!(n.next_expiry(), Some(t(5100)));
    assert_eq!(n.take_lost(t(10_000)), vec![4]);
    assert!(n.neighbour_count() == 0 && n.next_expiry().is_none());
    assert!(n.entries.is_empty(), "neither a route nor a neighbour: no entry");
}

#[test]
fn a_neighbour_and_its_route_share_an_entry_and_outlive_each_other() {
    let mut rt = RouteTable::new(t(15_000), t(2100));
    rt.heard(7, t(0));
    rt.neighbour(7, t(3000), t(0));
    assert_eq!((rt.entries.len(), rt.len(), rt.neighbour_count()), (1, 1, 1));
    assert_eq!(std::mem::size_of::<Entry>(), 26);
    assert_eq!(std::mem::size_of::<super::super::slots::Slot<Entry>>(), 32, "two slots per cache line");
    assert_eq!(std::mem::align_of::<super::super::slots::Slot<Entry>>(), 32, "never across two lines");
    // The neighbour is lost, the (invalid) route stays.
    assert_eq!(rt.take_lost(t(2100)), vec![7]);
    assert!(!rt.is_neighbour(7) && rt.get(7).is_some());
    // Heard again, the route is purged: the neighbour stays.
    rt.heard(7, t(5000));
    rt.purge(t(5000));
    assert_eq!(rt.get(7).unwrap().state, RouteState::Invalid);
    rt.purge(t(18_000));
    assert!(rt.get(7).is_none() && rt.is_neighbour(7) && rt.is_empty());
    assert!(rt.iter().next().is_none() && rt.active_via(7, t(18_000)).is_empty());
    rt.remove_neighbour(7);
    assert!(rt.entries.is_empty());
}

proptest::proptest! {
    /// The shared table answers every question as the two maps it
    /// replaced (`table_reference.rs`) did, after any sequence of
    /// route and neighbour operations.
    #[test]
    fn same_as_the_two_maps(ops in proptest::collection::vec((0u8..12, 0u32..24, 0u32..8, 0u64..30), 0..400)) {
        use super::super::table_reference::{OldNeighbours, OldRouteTable};
        let (dp, nt) = (t(15_000), t(2100));
        let mut rt = RouteTable::new(dp, nt);
        let (mut old, mut nbs) = (OldRouteTable::new(dp), OldNeighbours::new(nt));
        let mut now = t(0);
        for (op, d, x, dt) in ops {
            now += t(dt * 60);
            match op {
                0 => {
                    let o = Offer { dst: d, seq: x / 2, hops: (x % 4) as u8 + 1, next_hop: x, lifetime: now + t(dt * 200), keep_longer: dt % 2 == 0 };
                    proptest::prop_assert_eq!(rt.offer(o, now), old.offer(o, now));
                }
                1 => { rt.neighbour(d, now + t(3000), now); old.neighbour(d, now + t(3000), now); }
                2 => proptest::prop_assert_eq!(rt.invalidate(d, (x % 2 == 0).then_some(x), now), old.invalidate(d, (x % 2 == 0).then_some(x), now)),
                3 => proptest::prop_assert_eq!(rt.start_repair(d, now + t(500), x % 2 == 0), old.start_repair(d, now + t(500), x % 2 == 0).map(|r| r.view())),
                4 => { rt.add_precursor(d, x); old.add_precursor(d, x); }
                5 => { rt.remove_precursor(x); old.remove_precursor(x); }
                6 => { rt.refresh(d, now + t(4000), now); old.refresh(d, now + t(4000), now); rt.learn_seq(d, x); old.learn_seq(d, x); }
                7 => { rt.purge(now); old.purge(now); }
                8 | 9 => { rt.heard(d, now); nbs.heard(d, now); }
                10 => { rt.remove_neighbour(d); nbs.remove(d); }
                _ => proptest::prop_assert_eq!(rt.take_lost(now), nbs.take_lost(now)),
            }
            proptest::prop_assert_eq!(rt.next_expiry(), nbs.next_expiry());
            proptest::prop_assert_eq!(rt.neighbour_count(), nbs.len());
            proptest::prop_assert_eq!(rt.len(), old.len());
            proptest::prop_assert_eq!(rt.iter().collect::<Vec<_>>(), old.iter().map(|r| r.view()).collect::<Vec<_>>());
            proptest::prop_assert_eq!(rt.active_via(x, now), old.active_via(x, now));
            // The one-walk variant: the same destinations, and "some
            // route lists x as a precursor" exactly when removing x as
            // a precursor changes the table.
            let (via, listed) = rt.active_via_and_precursor(x, now);
            proptest::prop_assert_eq!(&via, &old.active_via(x, now));
            let mut cut = rt.clone();
            cut.remove_precursor(x);
            let lists = |rt: &RouteTable| (0..24).map(|k| rt.precursors(k).to_vec()).collect::<Vec<_>>();
            proptest::prop_assert_eq!(listed, lists(&cut) != lists(&rt));
            for k in 0..24 {
                proptest::prop_assert_eq!(rt.get(k), old.get(k).map(|r| r.view()));
                proptest::prop_assert_eq!(rt.active(k, now), old.active(k, now).map(|r| r.view()));
                proptest::prop_assert_eq!(rt.precursors(k), old.get(k).map_or(&[][..], |r| &r.precursors[..]), "precursors of {}", k);
                proptest::prop_assert_eq!(rt.is_neighbour(k), nbs.contains(k));
                let live = rt.get(k).is_some() || rt.is_neighbour(k);
                proptest::prop_assert_eq!(rt.entries.contains_key(k), live, "an entry iff a route or a neighbour");
            }
        }
    }
}
