//! Random variation of the received power around the propagation model's
//! mean (`docs/phy.md#fading-and-shadowing`):
//!
//! * **Shadowing** (log-normal, σ dB from the `shadowing` propagation
//!   model), either drawn independently for every frame at every receiver
//!   (ns-2's `Shadowing`, the default), or **correlated** per link: a
//!   Gauss-Markov process in dB whose autocorrelation at a displacement d is
//!   exp(−d / d_corr) (M. Gudmundson, "Correlation model for shadow fading
//!   in mobile radio systems", Electronics Letters 27(23), 1991), d being
//!   the distance the two ends moved (sum of both) since the link's last
//!   frame, optionally times exp(−Δt / t_c) for changes of the
//!   surroundings with time. One value per unordered pair of nodes: the
//!   same both ways (reciprocity). A static link keeps one draw for the
//!   whole run unless a coherence time is given.
//! * **Nakagami-m fading** per frame (M. Nakagami, 1960): the power is the
//!   mean times a Gamma(m, 1/m) draw (mean 1); m = 1 is Rayleigh fading
//!   (exponentially distributed power), larger m is milder (m → ∞: none).
//!
//! Streams: per-frame shadowing draws from the receiver's `Shadowing`
//! stream (index 0), correlated shadowing from one `Shadowing` stream per
//! link (index 1, entity = the pair), fading from the receiver's `Fading`
//! stream: a node's or link's draws do not depend on other nodes.

use super::channel::Hearer;
use crate::sim::{NodeId, Position, Purpose, RngStream, Time};
use std::collections::HashMap;

/// How shadowing varies.
#[derive(Copy, Clone, Debug, PartialEq, Default)]
pub enum ShadowingProcess {
    /// An independent draw per frame and receiver (ns-2).
    #[default]
    PerFrame,
    /// Per link, exponentially correlated over the distance moved
    /// (`decorrelation_m`) and optionally over time (`coherence_s`).
    Correlated { decorrelation_m: f64, coherence_s: Option<f64> },
}

/// Fading and the shadowing process (`[radio] fading`, `nakagami_m`,
/// `shadowing`, `shadowing_decorrelation`, `shadowing_coherence_time`).
#[derive(Copy, Clone, Debug, PartialEq, Default)]
pub struct FadingConfig {
    /// Per-frame Nakagami-m fading with this m (≥ 0.5); `None`: none.
    pub nakagami_m: Option<f64>,
    pub shadowing: ShadowingProcess,
}

impl FadingConfig {
    /// How far (dB) a frame's power may exceed the mean through fading
    /// with probability above ~3e-5 (the channel's cull margin): Gamma(m)
    /// tails, 10.2 dB for m ≥ 1 (P = e^-10.4 for m = 1), 12.4 dB down to
    /// m = 0.5.
    pub fn fading_margin_db(&self) -> f64 {
        match self.nakagami_m {
            None => 0.0,
            Some(m) if m >= 1.0 => 10.2,
            Some(_) => 12.4,
        }
    }
}

/// A standard normal deviate (Box-Muller, one of the pair).
pub fn standard_normal(rng: &mut RngStream) -> f64 {
    let u1 = 1.0 - rng.unit(); // (0, 1]
    let u2 = rng.unit();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A Gamma(shape `k`, scale 1) deviate: Marsaglia & Tsang, "A simple
/// method for generating gamma variables", ACM TOMS 26(3), 2000; for
/// k < 1 boosted as Gamma(k + 1) · U^(1/k).
pub fn gamma(rng: &mut RngStream, k: f64) -> f64 {
    if k < 1.0 {
        let u = 1.0 - rng.unit();
        return gamma(rng, k + 1.0) * u.powf(1.0 / k);
    }
    let d = k - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = standard_normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = 1.0 - rng.unit();
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// One link's correlated shadowing state.
struct LinkShadow {
    db: f64,
    at: Time,
    a: Position,
    b: Position,
    rng: RngStream,
}

enum Shadow {
    None,
    PerFrame { sigma: f64, rngs: Vec<RngStream> },
    Correlated { sigma: f64, d_corr: f64, t_corr: Option<f64>, seed: u64, links: HashMap<u64, LinkShadow> },
}

/// The channel's random power variation.
pub struct Fading {
    shadow: Shadow,
    nakagami: Option<(f64, Vec<RngStream>)>,
}

impl Fading {
    /// `sigma_db` is the propagation model's shadowing deviation.
    pub fn new(cfg: &FadingConfig, sigma_db: f64, seed: u64, nodes: usize) -> Fading {
        let shadow = if sigma_db <= 0.0 {
            Shadow::None
        } else {
            match cfg.shadowing {
                ShadowingProcess::PerFrame => Shadow::PerFrame {
                    sigma: sigma_db,
                    rngs: (0..nodes).map(|n| RngStream::new(seed, n as u64, Purpose::Shadowing, 0)).collect(),
                },
                ShadowingProcess::Correlated { decorrelation_m, coherence_s } => Shadow::Correlated {
                    sigma: sigma_db,
                    d_corr: decorrelation_m,
                    t_corr: coherence_s,
                    seed,
                    links: HashMap::new(),
                },
            }
        };
        let nakagami = cfg
            .nakagami_m
            .map(|m| (m, (0..nodes).map(|n| RngStream::new(seed, n as u64, Purpose::Fading, 0)).collect()));
        Fading { shadow, nakagami }
    }

    /// Whether anything varies (otherwise `apply` is a no-op).
    pub fn is_active(&self) -> bool {
        !matches!(self.shadow, Shadow::None) || self.nakagami.is_some()
    }

    /// Scales the mean powers of `out` (hearers of `sender` at `now`) by
    /// this frame's shadowing and fading draws, and drops those below
    /// `cull` watts. `pos` gives a node's position at `now`.
    pub fn apply(
        &mut self,
        sender: NodeId,
        now: Time,
        pos: impl Fn(NodeId) -> Position,
        out: &mut Vec<Hearer>,
        cull: f64,
    ) {
        match &mut self.shadow {
            Shadow::None => {}
            Shadow::PerFrame { sigma, rngs } => {
                for h in out.iter_mut() {
                    h.power *= 10f64.powf(*sigma * standard_normal(&mut rngs[h.node as usize]) / 10.0);
                }
            }
            Shadow::Correlated { sigma, d_corr, t_corr, seed, links } => {
                let ps = pos(sender);
                for h in out.iter_mut() {
                    let (lo, hi) = if sender < h.node { (sender, h.node) } else { (h.node, sender) };
                    let (pa, pb) = if sender < h.node { (ps, pos(h.node)) } else { (pos(h.node), ps) };
                    let key = ((lo as u64) << 32) | hi as u64;
                    let l = links.entry(key).or_insert_with(|| {
                        let mut rng = RngStream::new(*seed, key, Purpose::Shadowing, 1);
                        let db = *sigma * standard_normal(&mut rng);
                        LinkShadow { db, at: now, a: pa, b: pb, rng }
                    });
                    let moved = l.a.distance(&pa) + l.b.distance(&pb);
                    let mut rho = if moved > 0.0 { (-moved / *d_corr).exp() } else { 1.0 };
                    if let Some(tc) = t_corr {
                        rho *= (-(now.saturating_sub(l.at)).as_secs_f64() / *tc).exp();
                    }
                    if rho < 1.0 {
                        l.db = rho * l.db + (1.0 - rho * rho).sqrt() * *sigma * standard_normal(&mut l.rng);
                        (l.at, l.a, l.b) = (now, pa, pb);
                    }
                    h.power *= 10f64.powf(l.db / 10.0);
                }
            }
        }
        if let Some((m, rngs)) = self.nakagami.as_mut() {
            for h in out.iter_mut() {
                h.power *= gamma(&mut rngs[h.node as usize], *m) / *m;
            }
        }
        if self.is_active() {
            out.retain(|h| h.power >= cull);
        }
    }

    /// The correlated shadowing of link (a, b) in dB, if it has been drawn.
    pub fn link_shadow_db(&self, a: NodeId, b: NodeId) -> Option<f64> {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        match &self.shadow {
            Shadow::Correlated { links, .. } => links.get(&(((lo as u64) << 32) | hi as u64)).map(|l| l.db),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
