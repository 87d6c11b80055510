//! MPR selection: the heuristic of RFC 3626 §8.3.1, as a pure function.

use super::config::{WILL_ALWAYS, WILL_NEVER};
use crate::net::NodeId;

/// The MPR set of node `me` (sorted).
///
/// `neighbours`: the symmetric 1-hop neighbours with their willingness;
/// `two_hop`: the 2-hop neighbour set as (neighbour, node reachable through
/// it) pairs. Steps (§8.3.1): N2 is the strict 2-hop neighbourhood (not
/// `me`, not a symmetric neighbour, reachable through a neighbour whose
/// willingness is not WILL_NEVER); 1. every WILL_ALWAYS neighbour is an
/// MPR; 3. so is every neighbour that is the only one reaching some node of
/// N2; 4. while N2 has uncovered nodes, add the neighbour with the highest
/// willingness among those covering some, ties broken by the most nodes
/// covered (reachability), then by the degree D(y) (its symmetric
/// neighbours outside N and `me`), then by the lowest address (the RFC
/// leaves this last tie open). The optional step 5 (removing redundant
/// MPRs) is not applied.
pub fn select(me: NodeId, neighbours: &[(NodeId, u8)], two_hop: &[(NodeId, NodeId)]) -> Vec<NodeId> {
    let is_nbr = |x: NodeId| neighbours.iter().any(|&(n, _)| n == x);
    let will = |x: NodeId| neighbours.iter().find(|&&(n, _)| n == x).map_or(WILL_NEVER, |&(_, w)| w);
    // Usable (via, target) pairs: via in N (willingness not NEVER), target in N2.
    let pairs: Vec<(NodeId, NodeId)> = two_hop
        .iter()
        .copied()
        .filter(|&(via, t)| t != me && !is_nbr(t) && is_nbr(via) && will(via) != WILL_NEVER)
        .collect();
    let mut n2: Vec<NodeId> = pairs.iter().map(|&(_, t)| t).collect();
    n2.sort_unstable();
    n2.dedup();
    let mut mprs: Vec<NodeId> = neighbours.iter().filter(|&&(_, w)| w == WILL_ALWAYS).map(|&(n, _)| n).collect();
    let mut covered = vec![false; n2.len()];
    let cover = |mprs: &[NodeId], covered: &mut Vec<bool>| {
        for (i, &t) in n2.iter().enumerate() {
            if !covered[i] && pairs.iter().any(|&(v, x)| x == t && mprs.contains(&v)) {
                covered[i] = true;
            }
        }
    };
    cover(&mprs, &mut covered);
    // Step 3: sole providers.
    for &t in &n2 {
        let mut vias = pairs.iter().filter(|&&(_, x)| x == t).map(|&(v, _)| v);
        let first = vias.next().expect("in N2 through some neighbour");
        if vias.all(|v| v == first) && !mprs.contains(&first) {
            mprs.push(first);
        }
    }
    cover(&mprs, &mut covered);
    // Step 4: greedy by willingness, reachability, degree.
    let degree = |y: NodeId| {
        let mut d: Vec<NodeId> =
            two_hop.iter().filter(|&&(v, t)| v == y && t != me && !is_nbr(t)).map(|&(_, t)| t).collect();
        d.sort_unstable();
        d.dedup();
        d.len()
    };
    while covered.iter().any(|&c| !c) {
        let mut best: Option<(u8, usize, usize, std::cmp::Reverse<NodeId>)> = None;
        for &(y, w) in neighbours {
            if w == WILL_NEVER || mprs.contains(&y) {
                continue;
            }
            let reach = n2.iter().enumerate().filter(|&(i, &t)| !covered[i] && pairs.contains(&(y, t))).count();
            if reach == 0 {
                continue;
            }
            let key = (w, reach, degree(y), std::cmp::Reverse(y));
            if best.is_none_or(|b| key > b) {
                best = Some(key);
            }
        }
        let Some((_, _, _, std::cmp::Reverse(y))) = best else { break };
        mprs.push(y);
        cover(&mprs, &mut covered);
    }
    mprs.sort_unstable();
    mprs
}

#[cfg(test)]
mod tests {
    use super::super::config::{WILL_ALWAYS, WILL_DEFAULT, WILL_HIGH, WILL_LOW, WILL_NEVER};
    use super::*;

    fn d(ns: &[NodeId]) -> Vec<(NodeId, u8)> {
        ns.iter().map(|&n| (n, WILL_DEFAULT)).collect()
    }

    #[test]
    fn sole_provider_then_degree() {
        // 0's neighbours 1, 2, 3; 1 reaches {4, 5}, 2 reaches {5, 6}, 3 reaches {6}.
        // Step 3: 4 only through 1. Left: 6, through 2 or 3 (reach 1 each):
        // D(2) = 2 > D(3) = 1, so 2.
        let th = [(1, 4), (1, 5), (2, 5), (2, 6), (3, 6)];
        assert_eq!(select(0, &d(&[1, 2, 3]), &th), vec![1, 2]);
    }

    #[test]
    fn strict_two_hop_only() {
        // Neighbours listing me or each other add nothing: no MPR needed.
        let th = [(1, 0), (1, 2), (2, 1), (2, 0)];
        assert!(select(0, &d(&[1, 2]), &th).is_empty());
    }

    #[test]
    fn willingness_rules() {
        // 3 is WILL_ALWAYS: an MPR although it covers nothing. 1 is WILL_NEVER:
        // never an MPR, and 5 (only through 1) is not in N2.
        let n = [(1, WILL_NEVER), (2, WILL_DEFAULT), (3, WILL_ALWAYS), (4, WILL_HIGH)];
        let th = [(1, 5), (2, 6), (2, 7), (4, 6)];
        // 7 only through 2 (step 3); 6 is then covered: 4 is not needed.
        assert_eq!(select(0, &n, &th), vec![2, 3]);
        // Higher willingness beats higher reachability: 4 (HIGH, reaches 8
        // and 9) before 2 and 6 (LOW, reach 8, 9 and 10); then 10 is left:
        // 2 and 6 tie on willingness, reach and degree: the lower address.
        let n = [(2, WILL_LOW), (4, WILL_HIGH), (6, WILL_LOW)];
        let th = [(2, 8), (2, 9), (4, 8), (4, 9), (6, 9), (6, 8), (6, 10), (2, 10)];
        assert_eq!(select(0, &n, &th), vec![2, 4]);
    }

    #[test]
    fn greedy_by_reachability() {
        // 1 reaches 5, 6, 7; 2 reaches 5; 3 reaches 6, 7, 8; 4 reaches 8.
        // Nothing has a sole provider except... none (5: 1, 2; 6: 1, 3; 7: 1, 3; 8: 3, 4).
        // Greedy: 1 and 3 both reach three; D equal (3): the lower address, 1;
        // then 8 is left: 3 and 4 reach it, D(3) = 3 > D(4) = 1: 3.
        let th = [(1, 5), (1, 6), (1, 7), (2, 5), (3, 6), (3, 7), (3, 8), (4, 8)];
        assert_eq!(select(0, &d(&[1, 2, 3, 4]), &th), vec![1, 3]);
    }
}
