//! What a scenario implies, for `manetlab check`: radio ranges in metres,
//! rates and RTS use, and the topology at t = 0 (node degree, isolated
//! nodes, connectivity, each flow's shortest path in hops).
//!
//! Ranges are those of the mean path loss (shadowing and fading spread
//! them), with both antennas at `radio.antenna_height`: the receive range
//! is where the power falls to `rx_threshold`, the carrier-sense range to
//! `cs_threshold`, and the interference range where another sender's power
//! falls to `rx_threshold / capture_threshold`, i.e. the distance within
//! which it still corrupts a frame received at the edge of the receive
//! range (ns-2's capture rule). Links at t = 0 are pairs of radio nodes
//! within the receive range.

use crate::config::SimConfig;
use std::collections::{HashMap, VecDeque};
use std::fmt;

/// The topology at t = 0 under the receive range.
#[derive(Clone, Debug, PartialEq)]
pub struct Connectivity {
    pub mean_degree: f64,
    pub isolated: Vec<u32>,
    /// Connected components of the graph (1 = connected).
    pub components: usize,
    /// Per flow: shortest path in hops, or None (no path at t = 0).
    pub flow_hops: Vec<Option<u32>>,
}

/// What the radio, MAC and topology of a run imply.
#[derive(Clone, Debug, PartialEq)]
pub struct Physics {
    pub rx_range_m: f64,
    pub cs_range_m: f64,
    pub interference_range_m: f64,
    pub data_rate_bps: u64,
    pub basic_rate_bps: u64,
    /// RTS/CTS before frames longer than this many bytes; None: never.
    pub rts_threshold: Option<u32>,
    pub connectivity: Connectivity,
}

impl Physics {
    /// Derives the physics of `cfg` (positions at t = 0: `cfg.nodes`).
    pub fn of(cfg: &SimConfig) -> Physics {
        let r = &cfg.radio;
        let rx = r.rx_range();
        Physics {
            rx_range_m: rx,
            cs_range_m: r.cs_range(),
            interference_range_m: r.range_for_power(r.rx_threshold_w / r.capture_ratio.max(1.0)),
            data_rate_bps: cfg.mac.phy.data_rate,
            basic_rate_bps: cfg.mac.phy.basic_rate,
            rts_threshold: cfg.mac.rts_threshold,
            connectivity: connectivity(cfg, rx),
        }
    }
}

/// Links within `range` among radio nodes (a grid of `range`-sized cells:
/// linear in nodes for bounded density), components by BFS.
fn connectivity(cfg: &SimConfig, range: f64) -> Connectivity {
    let n = cfg.nodes.len();
    let radio = |i: usize| !cfg.wired.wired_only.contains(&(i as u32));
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    if range.is_finite() && range > 0.0 {
        let cell = |x: f64| (x / range).floor() as i64;
        let mut grid: HashMap<(i64, i64), Vec<u32>> = HashMap::new();
        for (i, p) in cfg.nodes.iter().enumerate() {
            if radio(i) {
                grid.entry((cell(p.x), cell(p.y))).or_default().push(i as u32);
            }
        }
        for (i, p) in cfg.nodes.iter().enumerate() {
            if !radio(i) {
                continue;
            }
            let (cx, cy) = (cell(p.x), cell(p.y));
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for &j in grid.get(&(cx + dx, cy + dy)).map_or(&[][..], |v| v.as_slice()) {
                        if j as usize != i && p.distance(&cfg.nodes[j as usize]) <= range {
                            adj[i].push(j);
                        }
                    }
                }
            }
        }
    }
    // Wired links join their ends too.
    for l in &cfg.wired.links {
        adj[l.a as usize].push(l.b);
        adj[l.b as usize].push(l.a);
    }
    let mut comp = vec![usize::MAX; n];
    let mut components = 0;
    for s in 0..n {
        if comp[s] != usize::MAX {
            continue;
        }
        comp[s] = components;
        let mut q = VecDeque::from([s]);
        while let Some(u) = q.pop_front() {
            for &v in &adj[u] {
                if comp[v as usize] == usize::MAX {
                    comp[v as usize] = components;
                    q.push_back(v as usize);
                }
            }
        }
        components += 1;
    }
    let hops = |src: u32, dst: u32| -> Option<u32> {
        let (s, d) = (src as usize, dst as usize);
        if s >= n || d >= n || comp[s] != comp[d] {
            return None;
        }
        let mut dist = vec![u32::MAX; n];
        dist[s] = 0;
        let mut q = VecDeque::from([s]);
        while let Some(u) = q.pop_front() {
            if u == d {
                return Some(dist[u]);
            }
            for &v in &adj[u] {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u] + 1;
                    q.push_back(v as usize);
                }
            }
        }
        None
    };
    let degree_sum: usize = adj.iter().map(Vec::len).sum();
    Connectivity {
        mean_degree: if n == 0 { 0.0 } else { degree_sum as f64 / n as f64 },
        isolated: (0..n).filter(|&i| adj[i].is_empty()).map(|i| i as u32).collect(),
        components,
        flow_hops: cfg.flows.iter().map(|f| hops(f.src, f.dst)).collect(),
    }
}

fn mbps(b: u64) -> String {
    format!("{} Mbit/s", b as f64 / 1e6)
}

impl fmt::Display for Physics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "radio: receive range {:.1} m, carrier-sense range {:.1} m, interference range {:.1} m (mean path loss)",
            self.rx_range_m, self.cs_range_m, self.interference_range_m
        )?;
        let rts = match self.rts_threshold {
            None => "RTS/CTS off".to_string(),
            Some(0) => "RTS/CTS before every unicast frame".to_string(),
            Some(t) => format!("RTS/CTS for frames over {t} B"),
        };
        writeln!(f, "mac: data rate {}, basic rate {}, {rts}", mbps(self.data_rate_bps), mbps(self.basic_rate_bps))?;
        let c = &self.connectivity;
        let iso = if c.isolated.is_empty() {
            "no isolated nodes".to_string()
        } else {
            let shown: Vec<String> = c.isolated.iter().take(10).map(u32::to_string).collect();
            format!(
                "{} isolated node{} ({}{})",
                c.isolated.len(),
                if c.isolated.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if c.isolated.len() > 10 { ", ..." } else { "" }
            )
        };
        let conn = if c.components == 1 {
            "connected".to_string()
        } else {
            format!("not connected ({} components)", c.components)
        };
        writeln!(f, "topology at t = 0: mean degree {:.2}, {iso}, {conn}", c.mean_degree)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{FlowConfig, Position, Traffic};

    #[test]
    fn a_chain_at_200m_spacing_under_the_ns2_default_radio() {
        let mut cfg =
            SimConfig { nodes: (0..4).map(|i| Position::new(200.0 * i as f64, 0.0)).collect(), ..Default::default() };
        cfg.nodes.push(Position::new(5000.0, 0.0));
        let flow = |src, dst| FlowConfig {
            name: String::new(),
            src,
            dst,
            traffic: Traffic::Cbr {
                size: 512,
                interval: crate::sim::Time::from_secs(1),
                jitter: crate::sim::Time::ZERO,
            },
            start: crate::sim::Time::ZERO,
            stop: None,
        };
        cfg.flows = vec![flow(0, 3), flow(4, 0)];
        let p = Physics::of(&cfg);
        assert!((p.rx_range_m - 250.0).abs() < 1.0, "{}", p.rx_range_m);
        assert!((p.cs_range_m - 550.0).abs() < 2.0, "{}", p.cs_range_m);
        let c = &p.connectivity;
        assert_eq!(c.flow_hops, [Some(3), None]);
        assert_eq!(c.isolated, [4]);
        assert_eq!(c.components, 2);
        assert!((c.mean_degree - 6.0 / 5.0).abs() < 1e-9);
    }
}
