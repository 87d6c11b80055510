//! Static routing: a next-hop table per node, fixed for the whole run.

use super::{Origin, RouteCtx, Routing};
use crate::net::{NodeId, Packet, BROADCAST};
use crate::sim::params::{ParamError, ParamErrorKind, Params};
use crate::sim::DropReason;
use crate::sim::Position;
use std::collections::VecDeque;

const NO_ROUTE: NodeId = NodeId::MAX - 1;

pub struct StaticRouting {
    /// next_hop[dst]; NO_ROUTE where unreachable.
    next_hop: Vec<NodeId>,
}

impl StaticRouting {
    pub fn from_table(next_hop: Vec<NodeId>) -> Self {
        StaticRouting { next_hop }
    }
    pub fn next_hop(&self, dst: NodeId) -> Option<NodeId> {
        match self.next_hop.get(dst as usize) {
            Some(&h) if h != NO_ROUTE => Some(h),
            _ => None,
        }
    }
}

impl Routing for StaticRouting {
    fn name(&self) -> &'static str {
        "static"
    }
    /// Routes or drops at once: holds nothing.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
    fn route_table(&self, _now: crate::sim::Time, out: &mut Vec<super::RouteEntry>) {
        for (dst, &h) in self.next_hop.iter().enumerate() {
            if h != NO_ROUTE && h as usize != dst {
                out.push(super::RouteEntry { dst: dst as NodeId, next_hop: h, hops: None, valid: true, seq: None });
            }
        }
    }
    fn route(&mut self, ctx: &mut RouteCtx, mut pkt: Packet, _origin: Origin) {
        if pkt.dst == BROADCAST {
            pkt.next_hop = BROADCAST;
            return ctx.transmit(pkt);
        }
        match self.next_hop(pkt.dst) {
            Some(h) => {
                pkt.next_hop = h;
                ctx.transmit(pkt);
            }
            None => ctx.drop(pkt, DropReason::Nrte),
        }
    }
}

/// Builds every node's next-hop table: shortest hop paths over links of at
/// most `range` metres (ties broken towards the lowest node id, so tables are
/// deterministic), then explicit `paths` override the entries they cover.
pub fn build_tables(positions: &[Position], range: f64, paths: &[Vec<NodeId>]) -> Vec<Vec<NodeId>> {
    build_tables_wired(positions, range, paths, &[], &[])
}

/// As [`build_tables`], over radio links between nodes that have a radio
/// (all but `wired_only`) plus the point-to-point links `wires`.
pub fn build_tables_wired(
    positions: &[Position],
    range: f64,
    paths: &[Vec<NodeId>],
    wires: &[(NodeId, NodeId)],
    wired_only: &[NodeId],
) -> Vec<Vec<NodeId>> {
    let n = positions.len();
    let mut adj = crate::phy::channel::connectivity(positions, range);
    if !wires.is_empty() || !wired_only.is_empty() {
        for (u, nb) in adj.iter_mut().enumerate() {
            if wired_only.contains(&(u as NodeId)) {
                nb.clear();
            } else {
                nb.retain(|v| !wired_only.contains(v));
            }
        }
        for &(a, b) in wires {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        for nb in adj.iter_mut() {
            nb.sort_unstable();
            nb.dedup();
        }
    }
    let mut tables = vec![vec![NO_ROUTE; n]; n];
    // BFS from every destination; parent pointers give next hops towards it.
    let mut queue = VecDeque::with_capacity(n);
    let mut dist = vec![u32::MAX; n];
    for dst in 0..n {
        dist.iter_mut().for_each(|d| *d = u32::MAX);
        dist[dst] = 0;
        queue.clear();
        queue.push_back(dst);
        tables[dst][dst] = dst as NodeId;
        while let Some(u) = queue.pop_front() {
            for &v in &adj[u] {
                let v = v as usize;
                if dist[v] == u32::MAX {
                    dist[v] = dist[u] + 1;
                    tables[v][dst] = u as NodeId;
                    queue.push_back(v);
                }
            }
        }
    }
    // Explicit paths: forward entries, and the reverse unless given separately.
    let given: std::collections::HashSet<(NodeId, NodeId)> =
        paths.iter().filter(|p| p.len() >= 2).map(|p| (p[0], *p.last().unwrap())).collect();
    for p in paths.iter().filter(|p| p.len() >= 2) {
        let dst = *p.last().unwrap();
        for w in p.windows(2) {
            tables[w[0] as usize][dst as usize] = w[1];
        }
        let src = p[0];
        if !given.contains(&(dst, src)) {
            for w in p.windows(2) {
                tables[w[1] as usize][src as usize] = w[0];
            }
        }
    }
    tables
}

/// `routing.protocol = "static"`: key `paths`, explicit node sequences.
impl super::RoutingModel for StaticRouting {
    const NAME: &'static str = "static";
    const KEYS: &'static [&'static str] = &["paths"];
    const ON_WIRED_ONLY: bool = true;

    fn parse(p: &dyn Params) -> Result<super::RoutingConfig, ParamError> {
        let mut paths = Vec::new();
        let mut seen: std::collections::HashMap<(u32, u32), usize> = std::collections::HashMap::new();
        for (i, path) in p.uint_lists("paths")?.into_iter().flat_map(|l| l.v).enumerate() {
            let key = format!("{}.paths.{i}", p.section());
            if path.v.len() < 2 {
                return Err(ParamError::new(
                    ParamErrorKind::BadValue,
                    path.at,
                    format!("'{key}' must list at least a source and a destination"),
                ));
            }
            let mut nodes = Vec::with_capacity(path.v.len());
            for (j, hop) in path.v.iter().enumerate() {
                let v = p.node_index(hop, &format!("{key}.{j}"))?;
                if nodes.contains(&v) {
                    return Err(ParamError::new(
                        ParamErrorKind::BadValue,
                        hop.at,
                        format!("'{key}' visits node {v} twice"),
                    ));
                }
                nodes.push(v);
            }
            let pair = (nodes[0], nodes[nodes.len() - 1]);
            if let Some(prev) = seen.insert(pair, i) {
                return Err(ParamError::new(
                    ParamErrorKind::Inconsistent,
                    path.at,
                    format!(
                        "'{key}' is a second path from {} to {} (the first is {}.paths.{prev})",
                        pair.0,
                        pair.1,
                        p.section()
                    ),
                ));
            }
            paths.push(nodes);
        }
        Ok(super::RoutingConfig::Static { paths })
    }

    fn build(cfg: &super::RoutingConfig, env: &super::NetEnv) -> Result<Vec<Box<dyn Routing>>, String> {
        let super::RoutingConfig::Static { paths } = cfg else { unreachable!("static routing built from {cfg:?}") };
        let n = env.positions.len();
        if let Some(p) = paths.iter().find(|p| p.iter().any(|&x| x as usize >= n)) {
            return Err(format!("routing path {p:?} names a node that does not exist"));
        }
        Ok(build_tables_wired(env.positions, env.rx_range, paths, env.wires, env.wired_only)
            .into_iter()
            .map(|t| Box::new(StaticRouting::from_table(t)) as Box<dyn Routing>)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn chain_tables() {
        let pos = Position::chain(4, 200.0);
        let t = build_tables(&pos, 250.0, &[]);
        assert_eq!(t[0][3], 1);
        assert_eq!(t[3][0], 2);
        assert_eq!(t[1][1], 1);
        let r = StaticRouting::from_table(t[0].clone());
        assert_eq!(r.next_hop(3), Some(1));
    }
    #[test]
    fn explicit_path_overrides() {
        let pos = Position::grid(2, 2, 200.0);
        let t = build_tables(&pos, 250.0, &[vec![0, 2, 3]]);
        assert_eq!(t[0][3], 2);
        assert_eq!(t[3][0], 2);
    }
    #[test]
    fn partition_has_no_route() {
        let pos = vec![Position::new(0.0, 0.0), Position::new(1000.0, 0.0)];
        let t = build_tables(&pos, 250.0, &[]);
        assert_eq!(StaticRouting::from_table(t[0].clone()).next_hop(1), None);
    }
}
