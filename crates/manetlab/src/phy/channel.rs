//! The shared channel: who hears a transmission, at what power, and when.
//!
//! Receivers are found through a uniform grid whose cell side is the
//! distance at which the received power falls below the carrier-sense
//! threshold. Under the threshold reception model a signal below that
//! threshold has no effect at all (ns-2 discards it), so looking only at the
//! 3 x 3 cells around the sender is exact, not an approximation: every radio
//! that could sense the frame is found, and the cost of a transmission is
//! proportional to the number of radios in carrier-sense range, not to the
//! number of nodes.
//!
//! With mobility, positions are evaluated at the instant of each
//! transmission. The grid is rebuilt every `every` period from the
//! positions at that time (every twentieth of the reach at the top speed;
//! a quarter under fading, see `build`): a
//! radio within reach of the sender now was within reach + vmax · period
//! (`search`) of where the grid recorded it, so scanning every cell that
//! the disc of radius `search` around the sender's current position touches
//! stays exact. The cells are a third of `search` wide, so the scan reads
//! about 1.5 times the disc's area (before issue 25's change: the 3 x 3
//! cells of side reach + 2 · vmax · period around the sender, 4.1 times).
//! Without fading draws a frame reads the sender's neighbour list instead
//! (`near.rs`: every node within reach + slack, reused while nodes cannot
//! have crossed the slack); the grid makes the lists.
//!
//! Under the SINR reception model the cull level is a tenth of the noise
//! floor instead (weaker signals still add interference, but less than 10 %
//! of the noise). Under log-normal shadowing the power of every frame at
//! every receiver is the mean of the propagation model times a draw from
//! that receiver's `Shadowing` stream; the grid then covers the distance at
//! which the *mean* power falls `SHADOWING_CULL_SIGMAS` (4) standard
//! deviations below the cull level, and a drawn power below the cull level
//! is discarded. A receiver beyond that distance would reach the cull level
//! with probability below 3.2e-5 per frame: the only approximation, and
//! only under shadowing.

use super::fading::Fading;
use super::{PhyMode, RadioConfig, SHADOWING_CULL_SIGMAS, SPEED_OF_LIGHT};
use crate::mobility::{Mover, Trajectory};
use crate::sim::NodeId;
use crate::sim::Position;
use crate::sim::Time;
use crate::wire::Frame;
use std::cell::RefCell;

#[path = "grid.rs"]
mod grid;
use grid::Grid;
#[path = "near.rs"]
mod near;

/// With mobility, grid cells per search radius (`Mobility::cell`).
const MOBILE_CELLS_PER_SEARCH: f64 = 3.0;
/// With mobility (and no fading), the grid is rebuilt when the fastest
/// node may have moved this share of the reach since the last build.
const REBUILD_SHARE: f64 = 0.05;

/// Index of a transmission in flight.
pub type TxId = u32;

/// A frame on the air.
#[derive(Clone, Debug)]
pub struct Transmission {
    pub sender: NodeId,
    pub frame: Frame,
    pub start: Time,
    pub end: Time,
    /// Receivers whose signal has not ended yet ([`Channel::begin`]; 0 for
    /// [`Channel::begin_at`]'s, held by their caller).
    pending: u32,
}

/// A radio that hears a transmission.
#[derive(Copy, Clone, Debug)]
pub struct Hearer {
    pub node: NodeId,
    /// Received power, watts.
    pub power: f64,
    pub delay: Time,
}

pub struct Channel {
    radio: RadioConfig,
    /// Positions at time 0 (and always, for static nodes).
    positions: Vec<Position>,
    /// Present when any node moves.
    mobility: Option<Mobility>,
    /// Static nodes: each sender's hearers, computed on its first
    /// transmission (the topology never changes).
    hearer_cache: Vec<Option<Box<[Hearer]>>>,
    /// Static nodes without fading draws: the same hearers in arrival
    /// order (`hearers_by_arrival`), so a frame copies them instead of
    /// sorting them again (session 14), or reads them in place
    /// (`begin_cached`, session 21).
    arrival_cache: Vec<Option<Vec<Hearer>>>,
    /// Signals weaker than this are not delivered (the carrier-sense threshold).
    cull_power: f64,
    /// Shadowing and fading draws (`fading.rs`).
    fading: Fading,
    /// Under shadowing: drawn powers below this are discarded (`cull_power`
    /// is then the lower level that candidates' mean power must reach).
    shadow_cull: f64,
    grid: Grid,
    /// Square of the distance beyond which no radio reaches `cull_power`
    /// (the grid's reach; the propagation models are monotone in distance
    /// and heights, see `build`): the scan drops candidates beyond it
    /// before computing a power.
    reach_sq: f64,
    txs: Vec<Option<Transmission>>,
    free: Vec<TxId>,
    /// Scratch for [`sort_by_arrival`] (kept: no allocation per frame).
    sort_keys: Vec<u64>,
    sort_out: Vec<Hearer>,
    /// Scratch for `scan_mobile`'s candidates (kept: no allocation per frame).
    cand: Vec<Cand>,
    /// Moving nodes without fading draws, ids and delays that fit the
    /// packed keys: `hearers_by_arrival` takes [`Channel::arrivals_near`]
    /// (off in tests: the reference path).
    fused: bool,
    /// Per-sender neighbour lists (`near.rs`), when `fused`.
    near: Option<near::NearLists>,
}

struct Mobility {
    /// One per node: generated trajectories keep a small window of legs
    /// (memory independent of the run's length, issue 15 D4).
    movers: Vec<RefCell<Mover>>,
    /// Per node, a copy of the leg its trajectory follows now, side by side
    /// in one vector: the receiver search reads one 56-byte record per
    /// candidate instead of binary-searching each node's own leg list
    /// (and missing the cache on it). Transmission times never decrease, so
    /// a record is replaced only when its node starts a new leg.
    now_legs: Vec<NowLeg>,
    /// Positions when the grid was last built.
    at: Time,
    every: Time,
    /// Radius of the receiver search around the sender's current position:
    /// the reach plus the farthest a node moves between two grid builds
    /// (where the grid recorded a radio is within `vmax * every` of where
    /// it is now).
    search: f64,
    /// The grid's cell side: a third of `search`, so the cells the search
    /// disc touches cover about 1.5 times its area; see `scan_mobile`.
    cell: f64,
}

/// A candidate of the mobile receiver search within the reach: its squared
/// distance to the sender and its antenna's base height.
#[derive(Clone, Copy, Default)]
struct Cand {
    node: NodeId,
    d2: f64,
    z: f64,
}

/// `Time::from_secs_f64(d / SPEED_OF_LIGHT)`, the propagation delay over
/// `d` metres, without the call to libm's `round` (x86-64 before SSE4.1
/// has no rounding instruction): below 2^52 ns, `x as u64` is `x`'s
/// integer part exactly and `x - i` its fraction exactly, so rounding half
/// away from zero is `i + (fraction >= 0.5)`; anything else (NaN, zero and
/// below, 2^52 ns and above) takes the library path.
#[inline]
fn delay_of(d: f64) -> Time {
    secs_to_time(d / SPEED_OF_LIGHT)
}

/// `Time::from_secs_f64(s)` (see [`delay_of`]).
#[inline]
fn secs_to_time(s: f64) -> Time {
    let x = s * 1e9;
    if x > 0.0 && x < 4_503_599_627_370_496.0 {
        // (through i64: one conversion instruction each way, as u64 has not;
        // unchecked: 0 < x < 2^52 is within i64 and not NaN, so the
        // saturating `as` would give the same value, with five more
        // instructions per hearer)
        // SAFETY: `to_int_unchecked` needs x finite and its integer part
        // representable in i64: the test above.
        let i = unsafe { x.to_int_unchecked::<i64>() };
        Time(i as u64 + (x - i as f64 >= 0.5) as u64)
    } else {
        Time::from_secs_f64(s)
    }
}

/// The leg a node follows during [start, end) (see `Mobility::now_legs`).
#[derive(Clone, Copy)]
struct NowLeg {
    start: Time,
    end: Time,
    from: Position,
    vx: f64,
    vy: f64,
}

impl NowLeg {
    const EXPIRED: NowLeg =
        NowLeg { start: Time(u64::MAX), end: Time(0), from: Position { x: 0.0, y: 0.0, z: 0.0 }, vx: 0.0, vy: 0.0 };
}

impl Mobility {
    /// Where `node` is at `t`: bit for bit `Trajectory::position(t)` (the
    /// same leg, the same arithmetic), from the cached leg when `t` falls
    /// in it.
    #[inline]
    fn position(&mut self, node: NodeId, t: Time) -> Position {
        let mut c = &self.now_legs[node as usize];
        if !(c.start <= t && t < c.end) {
            c = self.next_leg(node, t);
        }
        let dt = (t.saturating_sub(c.start)).as_secs_f64();
        Position { x: c.from.x + c.vx * dt, y: c.from.y + c.vy * dt, z: c.from.z }
    }

    /// Caches the last leg of `node` starting at or before `t`, as
    /// `Trajectory::leg_at` (once per leg and node: out of the search loop).
    #[cold]
    #[inline(never)]
    fn next_leg(&mut self, node: NodeId, t: Time) -> &NowLeg {
        let (l, end) = self.movers[node as usize].get_mut().leg_span(t);
        let c = &mut self.now_legs[node as usize];
        *c = NowLeg { start: l.start, end, from: l.from, vx: l.vx, vy: l.vy };
        c
    }
}

/// The leg `node` follows at `t`: from `now_legs` (refreshed there first if
/// stale, as `next_leg`).
#[cold]
#[inline(never)]
fn fresh_leg(movers: &mut [RefCell<Mover>], now_legs: &mut [NowLeg], node: NodeId, t: Time) -> NowLeg {
    let c = &mut now_legs[node as usize];
    if !(c.start <= t && t < c.end) {
        let (l, end) = movers[node as usize].get_mut().leg_span(t);
        *c = NowLeg { start: l.start, end, from: l.from, vx: l.vx, vy: l.vy };
    }
    *c
}

impl Channel {
    /// A channel for static nodes at `positions`.
    pub fn new(radio: &RadioConfig, positions: Vec<Position>) -> Channel {
        Self::with_mobility(radio, positions, Vec::new())
    }

    /// A channel whose nodes follow `trajectories` (empty or all static =
    /// static nodes at `positions`).
    pub fn with_mobility(radio: &RadioConfig, positions: Vec<Position>, trajectories: Vec<Trajectory>) -> Channel {
        Self::build(radio, &PhyMode::default(), 0, positions, trajectories)
    }

    /// The channel of a run: the reception model in `radio` (with the PHY
    /// mode `phy`) sets the cull level; `seed` keys the shadowing streams.
    pub fn build(
        radio: &RadioConfig,
        phy: &PhyMode,
        seed: u64,
        positions: Vec<Position>,
        trajectories: Vec<Trajectory>,
    ) -> Channel {
        let cull_power = radio.cull_power(phy);
        let sigma = radio.propagation.sigma_db();
        let fading = Fading::new(&radio.fading, sigma, seed, positions.len());
        // Candidates: mean power within SHADOWING_CULL_SIGMAS deviations of
        // the cull level, plus the fading margin.
        let margin_db = SHADOWING_CULL_SIGMAS * sigma + radio.fading.fading_margin_db();
        let mean_cull = cull_power * 10f64.powf(-margin_db / 10.0);
        // Heights differ per node (z); use the largest antenna height for the
        // cull distance so the grid never misses a radio above the threshold.
        let max_z = positions.iter().map(|p| p.z).fold(0.0f64, f64::max);
        let h = radio.antenna_height_m + max_z;
        let reach = radio.propagation.distance_for_power(radio, mean_cull, h, h) * 1.000_001 + 1e-6;
        let vmax = trajectories.iter().map(|t| t.max_speed()).fold(0.0, f64::max);
        let mobility = (vmax > 0.0).then(|| {
            // Rebuild when nodes may have moved a twentieth of the reach
            // (the search then reads 1.05^2 / 1.25^2 = 0.71 times the cells
            // of the quarter used before session 11; a rebuild is one
            // position per node, far fewer than the candidates it saves).
            // Under fading the draws follow the grid's order, so the grid
            // keeps the geometry it always had (same outputs).
            let share = if fading.is_active() { 0.25 } else { REBUILD_SHARE };
            let every = Time::from_secs_f64((share * reach / vmax).max(0.01));
            let now_legs = vec![NowLeg::EXPIRED; trajectories.len()];
            let movers = trajectories.into_iter().map(|t| RefCell::new(Mover::new(t))).collect();
            let search = reach + vmax * every.as_secs_f64();
            Mobility { movers, now_legs, at: Time::ZERO, every, search, cell: search / MOBILE_CELLS_PER_SEARCH }
        });
        let cell = mobility.as_ref().map_or(reach, |m| m.cell);
        let grid = Grid::new(&positions, cell);
        let reach_sq = reach * reach;
        let near = match &mobility {
            Some(m) if !fading.is_active() => near::NearLists::new(positions.len(), reach, vmax, m.every),
            _ => None,
        };
        Channel {
            radio: radio.clone(),
            hearer_cache: vec![None; positions.len()],
            arrival_cache: vec![None; positions.len()],
            positions,
            mobility,
            cull_power: mean_cull,
            fading,
            shadow_cull: cull_power,
            grid,
            reach_sq,
            txs: Vec::with_capacity(64),
            free: Vec::new(),
            sort_keys: Vec::new(),
            sort_out: Vec::new(),
            cand: Vec::new(),
            fused: near.is_some(),
            near,
        }
    }

    /// Positions at time 0.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Whether any node moves.
    pub fn is_mobile(&self) -> bool {
        self.mobility.is_some()
    }

    /// Where `node` is at `t`.
    #[inline]
    pub fn position(&self, node: NodeId, t: Time) -> Position {
        match &self.mobility {
            None => self.positions[node as usize],
            Some(m) => m.movers[node as usize].borrow_mut().position(t),
        }
    }

    /// Brings the grid up to date for transmissions at `now` (mobile nodes).
    /// The test inline (a static network's frames: session 24 found it
    /// called, ~16 instructions a frame), the update out of line.
    #[inline(always)]
    pub fn refresh(&mut self, now: Time) {
        if let Some(m) = &self.mobility {
            if now >= m.at + m.every {
                self.regrid(now);
            }
        }
    }

    /// [`Channel::refresh`]'s update.
    #[inline(never)]
    fn regrid(&mut self, now: Time) {
        let Some(m) = self.mobility.as_mut() else { return };
        m.at = now;
        let pos: Vec<Position> = m.movers.iter().map(|t| t.borrow_mut().position(now)).collect();
        self.grid = Grid::new(&pos, m.cell);
    }

    /// Received power at `to` of a transmission from `from` at time `t`.
    pub fn power_between(&self, from: NodeId, to: NodeId, t: Time) -> f64 {
        let (a, b) = (self.position(from, t), self.position(to, t));
        let h = self.radio.antenna_height_m;
        self.radio.propagation.rx_power(&self.radio, a.distance(&b), h + a.z, h + b.z)
    }

    /// Every radio except `sender` that receives the sender's signal at or
    /// above the carrier-sense threshold, with power and propagation delay,
    /// for a transmission starting at `now` (call `refresh(now)` first).
    pub fn hearers(&mut self, sender: NodeId, now: Time, out: &mut Vec<Hearer>) {
        self.find_hearers(sender, now, out, true);
    }

    /// [`Channel::hearers`] sorted by (propagation delay, node) instead of
    /// node: the order in which their first bits arrive, ties by node (what
    /// the kernel needs to queue a frame's signals, `simulation/frames.rs`).
    /// One sort per frame, of `u64` keys ([`sort_by_arrival`]).
    ///
    /// Static nodes without fading hear the same hearers at the same powers
    /// and delays on every frame, so their arrival order is sorted once per
    /// sender and copied afterwards (the sort is a function of its input:
    /// the same result).
    pub fn hearers_by_arrival(&mut self, sender: NodeId, now: Time, out: &mut Vec<Hearer>) {
        if self.fused {
            self.arrivals_near(sender, now, out);
            return;
        }
        let cached = self.mobility.is_none() && !self.fading.is_active();
        if cached {
            if let Some(h) = self.arrival_cache[sender as usize].as_deref() {
                out.clear();
                out.extend_from_slice(h);
                return;
            }
        }
        self.find_hearers(sender, now, out, false);
        sort_by_arrival(out, &mut self.sort_keys, &mut self.sort_out);
        if cached {
            self.arrival_cache[sender as usize] = Some(out.clone());
        }
    }

    /// [`Channel::hearers_by_arrival`] read in place, with the
    /// transmission begun (session 21): once a sender's arrival order is
    /// cached (static nodes without fading draws; never with `fused`, which
    /// only moving nodes take) and not empty, and `slot` takes it (gives
    /// the slot to begin the frame in: [`Channel::begin_at`]), the frame is
    /// begun there and the cached list is returned with the slot, to be
    /// read (not changed) while the frame's signals are written. `None`:
    /// nothing begun, nothing changed. (Session 20 lent the list to the
    /// kernel's `hearers` and took it back per frame.)
    #[inline(always)]
    pub fn begin_cached(
        &mut self,
        sender: NodeId,
        frame: &Frame,
        start: Time,
        end: Time,
        slot: impl FnOnce(&[Hearer]) -> Option<TxId>,
    ) -> Option<(TxId, &[Hearer])> {
        let h = match self.arrival_cache.get(sender as usize) {
            Some(Some(h)) if !h.is_empty() => h,
            _ => return None,
        };
        let id = slot(h)?;
        Self::begin_slot(&mut self.txs, id, sender, frame, start, end);
        Some((id, h))
    }

    /// The receiver search; `by_node`: sort the result by node (otherwise
    /// the order is the grid's).
    fn find_hearers(&mut self, sender: NodeId, now: Time, out: &mut Vec<Hearer>, by_node: bool) {
        if self.mobility.is_none() {
            if self.hearer_cache[sender as usize].is_none() {
                let mut v = Vec::new();
                self.scan(sender, now, &mut v);
                self.hearer_cache[sender as usize] = Some(v.into_boxed_slice());
            }
            out.clear();
            out.extend_from_slice(self.hearer_cache[sender as usize].as_deref().unwrap());
        } else {
            self.scan_mobile(sender, now, out);
            if by_node {
                out.sort_unstable_by_key(|h| h.node);
            }
        }
        if self.fading.is_active() {
            let (positions, mobility) = (&self.positions, &self.mobility);
            let pos = |n: NodeId| match mobility {
                None => positions[n as usize],
                Some(m) => m.movers[n as usize].borrow_mut().position(now),
            };
            self.fading.apply(sender, now, pos, out, self.shadow_cull);
        }
    }

    /// The grid search behind `hearers`.
    fn scan(&self, sender: NodeId, now: Time, out: &mut Vec<Hearer>) {
        out.clear();
        let p = &self.position(sender, now);
        let (cx, cy) = self.grid.coords(p);
        let h = self.radio.antenna_height_m;
        for gy in cy.saturating_sub(1)..=(cy + 1).min(self.grid.rows - 1) {
            for gx in cx.saturating_sub(1)..=(cx + 1).min(self.grid.cols - 1) {
                for &n in self.grid.span(gy * self.grid.cols + gx, gy * self.grid.cols + gx) {
                    if n == sender {
                        continue;
                    }
                    let q = &self.position(n, now);
                    let d = p.distance(q);
                    let power = self.radio.propagation.rx_power(&self.radio, d, h + p.z, h + q.z);
                    if power >= self.cull_power {
                        out.push(Hearer { node: n, power, delay: Time::from_secs_f64(d / SPEED_OF_LIGHT) });
                    }
                }
            }
        }
        // Grid order depends on cell layout only; sort so that event order
        // is by node id, independent of the grid geometry.
        out.sort_unstable_by_key(|h| h.node);
    }

    /// `scan` for moving nodes (in grid order, unsorted), in two passes.
    /// The first reads each candidate's position from the per-node leg
    /// cache and keeps those within the reach on their squared distance
    /// (exactly the radios `scan` keeps: a dropped one is below the cull
    /// level at any antenna height up to the highest, as the grid assumes),
    /// without a branch per candidate; the second computes the distance,
    /// power and delay of the kept ones only, with the two-ray terms that
    /// depend on the heights computed once per frame
    /// ([`Propagation::at_heights`](super::Propagation::at_heights)). The
    /// arithmetic is the same operations in the same order as before (and
    /// as `scan`), so the powers and delays are the same bits; and the
    /// candidates keep the grid's order (cells by row, then column, nodes
    /// by id within a cell), which the fading draws follow.
    fn scan_mobile(&mut self, sender: NodeId, now: Time, out: &mut Vec<Hearer>) {
        out.clear();
        let Channel { mobility, grid, radio, reach_sq, cull_power, cand, .. } = self;
        let m = mobility.as_mut().expect("scan_mobile without mobility");
        let p = m.position(sender, now);
        let reach_sq = *reach_sq;
        // Every cell that the disc of radius `search` around p touches: a
        // radio within reach of p now was recorded within `search` of p.
        cand.clear();
        grid.disc_rows(&p, m.search, |first, end| {
            let row = &grid.nodes[first..end];
            // Pass 1: every candidate is written, the index advances past
            // the kept ones only.
            let mut k = cand.len();
            cand.resize(k + row.len(), Cand::default());
            for &n in row {
                let q = m.position(n, now);
                let (dx, dy, dz) = (p.x - q.x, p.y - q.y, p.z - q.z);
                let d2 = dx * dx + dy * dy + dz * dz;
                cand[k] = Cand { node: n, d2, z: q.z };
                // (`far` rather than `d2 <= reach_sq`: a NaN is kept, as
                // the single-pass search's skip did; `&` keeps it one flag
                // operation, where `||` with `is_nan` became a branch)
                let far = d2 > reach_sq;
                k += ((n != sender) & !far) as usize;
            }
            cand.truncate(k);
        });
        // Pass 2: the hearers among the kept candidates.
        let h = radio.antenna_height_m;
        let level = radio.propagation.at_heights(radio, h + p.z, h + p.z);
        for c in cand.iter() {
            // `p.distance(&q)`: the same sum of squares.
            let d = c.d2.sqrt();
            let power = if c.z.to_bits() == p.z.to_bits() {
                level.power(d)
            } else {
                radio.propagation.rx_power(radio, d, h + p.z, h + c.z)
            };
            if power >= *cull_power {
                out.push(Hearer { node: c.node, power, delay: delay_of(d) });
            }
        }
    }

    /// Puts a frame on the air; `receivers` is how many signal ends will be
    /// reported through `signal_ended`.
    /// The frame is copied once, from the MAC straight into its slot.
    /// (The kernel uses [`Channel::begin_at`] instead; the two are not
    /// mixed on one channel.)
    pub fn begin(&mut self, sender: NodeId, frame: &Frame, start: Time, end: Time, receivers: u32) -> TxId {
        Self::begin_in(&mut self.txs, &mut self.free, sender, frame, start, end, receivers)
    }

    /// Puts a frame on the air in slot `id`, chosen by the caller, who
    /// holds the slot until it puts another frame there (session 23: the
    /// kernel's slot is the index of the frame's stream, `simulation/frames.rs`,
    /// held until the stream is freed, which happens once only passed-over
    /// ends are left: they read nothing from the slot): no receiver count, no
    /// free list, no release ([`Channel::signal_ended`] is for
    /// [`Channel::begin`]'s transmissions). The frame is copied once, from
    /// the MAC straight into its slot.
    #[inline(always)]
    pub fn begin_at(&mut self, id: TxId, sender: NodeId, frame: &Frame, start: Time, end: Time) {
        Self::begin_slot(&mut self.txs, id, sender, frame, start, end)
    }

    /// [`Channel::begin_at`] on the field it changes (so that
    /// `begin_cached` can hold the arrival cache meanwhile).
    #[inline(always)]
    fn begin_slot(
        txs: &mut Vec<Option<Transmission>>,
        id: TxId,
        sender: NodeId,
        frame: &Frame,
        start: Time,
        end: Time,
    ) {
        if txs.len() <= id as usize {
            grow_slots(txs, id);
        }
        // (written in place: a `get_mut` with the value built before the
        // test copied the frame twice, through the stack)
        let slot = &mut txs[id as usize];
        if frame.packet.is_none() {
            // A control frame (ACK, CTS, RTS; half the chains' frames):
            // its header fields without the 192-byte `memcpy` (session 23).
            *slot = Some(Transmission { sender, frame: Frame { packet: None, ..*frame }, start, end, pending: 0 });
        } else {
            *slot = Some(Transmission { sender, frame: *frame, start, end, pending: 0 });
        }
    }

    /// [`Channel::begin`] on the two fields it changes.
    #[inline(always)]
    fn begin_in(
        txs: &mut Vec<Option<Transmission>>,
        free: &mut Vec<TxId>,
        sender: NodeId,
        frame: &Frame,
        start: Time,
        end: Time,
        receivers: u32,
    ) -> TxId {
        match free.pop() {
            Some(id) => {
                txs[id as usize] = Some(Transmission { sender, frame: *frame, start, end, pending: receivers });
                id
            }
            None => {
                txs.push(Some(Transmission { sender, frame: *frame, start, end, pending: receivers }));
                (txs.len() - 1) as TxId
            }
        }
    }

    pub fn get(&self, id: TxId) -> &Transmission {
        self.txs[id as usize].as_ref().expect("transmission released early")
    }

    /// One receiver is done with the transmission; frees it after the last.
    pub fn signal_ended(&mut self, id: TxId) {
        let slot = &mut self.txs[id as usize];
        let t = slot.as_mut().expect("transmission released early");
        t.pending -= 1;
        if t.pending == 0 {
            *slot = None;
            self.free.push(id);
        }
    }

    /// `k` receivers are done with the transmission (the kernel's run of
    /// signal ends, `simulation/frames_runs.rs`, releases them together):
    /// [`Channel::signal_ended`] `k` times, in one step.
    pub fn signals_ended(&mut self, id: TxId, k: u32) {
        let slot = &mut self.txs[id as usize];
        let t = slot.as_mut().expect("transmission released early");
        debug_assert!(k <= t.pending);
        t.pending -= k;
        if t.pending == 0 {
            *slot = None;
            self.free.push(id);
        }
    }

    /// Transmissions currently held: [`Channel::begin`]'s in flight or
    /// awaiting receivers; every slot ever filled by [`Channel::begin_at`]
    /// (its slots are never released; the caller knows which are live).
    pub fn in_flight(&self) -> impl Iterator<Item = &Transmission> {
        self.txs.iter().flatten()
    }
}

/// `txs` made long enough for slot `id` (`Channel::begin_slot`; once per
/// new slot).
#[cold]
#[inline(never)]
fn grow_slots(txs: &mut Vec<Option<Transmission>>, id: TxId) {
    txs.resize_with(id as usize + 1, || None);
}

/// Neighbour lists for links of at most `range` metres (build-time helper
/// for static routes and connectivity reports).
pub fn connectivity(positions: &[Position], range: f64) -> Vec<Vec<u32>> {
    let n = positions.len();
    let grid = Grid::new(positions, range.max(1e-3));
    let mut adj = vec![Vec::new(); n];
    for (i, p) in positions.iter().enumerate() {
        let (cx, cy) = grid.coords(p);
        for gy in cy.saturating_sub(1)..=(cy + 1).min(grid.rows - 1) {
            for gx in cx.saturating_sub(1)..=(cx + 1).min(grid.cols - 1) {
                for &j in grid.span(gy * grid.cols + gx, gy * grid.cols + gx) {
                    if j as usize != i && p.distance(&positions[j as usize]) <= range {
                        adj[i].push(j);
                    }
                }
            }
        }
        adj[i].sort_unstable();
    }
    adj
}

/// Buckets of [`sort_keys`]: the top bits of the largest key.
const BUCKET_BITS: u32 = 7;
/// [`sort_keys`] leaves shorter slices, and buckets fuller than this, to
/// the standard library's sort.
const BUCKET_MIN_LEN: usize = 24;
const BUCKET_MAX_FILL: u32 = 12;

/// Sorts `keys` ascending: a counting pass into 2^`BUCKET_BITS` buckets by
/// the keys' top bits (below the largest key's highest bit), then an
/// insertion sort, which moves each key at most across its own bucket.
/// The keys of [`sort_by_arrival`] have the delay on top, and a frame's
/// hearers spread over the delays up to the reach (at 400 nodes ~70
/// hearers in ~120 buckets of 16 ns), so this is a few passes over the
/// keys where the standard library's quicksort was 4-5 % of the 400-node
/// run (docs/performance.md, "Session 12 (branch s12mob)"). Short slices,
/// and keys crowded into few buckets (the insertion sort would be
/// quadratic), take `sort_unstable`.
fn sort_keys(keys: &mut Vec<u64>) {
    let n = keys.len();
    if n < BUCKET_MIN_LEN || n > u32::MAX as usize / 2 {
        keys.sort_unstable();
        return;
    }
    let top = keys.iter().fold(0u64, |m, &k| m.max(k));
    let shift = (64 - top.leading_zeros()).saturating_sub(BUCKET_BITS);
    let mut start = [0u32; (1 << BUCKET_BITS) + 1];
    for &k in keys.iter() {
        start[(k >> shift) as usize + 1] += 1;
    }
    if start.iter().any(|&c| c > BUCKET_MAX_FILL) {
        keys.sort_unstable();
        return;
    }
    for b in 0..1 << BUCKET_BITS {
        start[b + 1] += start[b];
    }
    // Scatter into the second half, sort there, copy back.
    keys.resize(2 * n, 0);
    let (from, to) = keys.split_at_mut(n);
    for &k in from.iter() {
        let b = &mut start[(k >> shift) as usize];
        to[*b as usize] = k;
        *b += 1;
    }
    insertion_sort(to);
    keys.copy_within(n.., 0);
    keys.truncate(n);
}

/// Sorts `v` ascending by insertion (quadratic in the keys' displacement:
/// for keys already grouped by ordered buckets).
#[inline]
fn insertion_sort(v: &mut [u64]) {
    for i in 1..v.len() {
        insert_step(v, i);
    }
}

/// One step of an insertion sort: moves `v[i]` down into the sorted
/// `v[..i]`; returns how many places it moved.
#[inline(always)]
fn insert_step(v: &mut [u64], i: usize) -> usize {
    let k = v[i];
    let mut j = i;
    while j > 0 && v[j - 1] > k {
        v[j] = v[j - 1];
        j -= 1;
    }
    v[j] = k;
    i - j
}

/// Bits of the packed sort key (delay, node, index) of [`sort_by_arrival`].
const KEY_INDEX_BITS: u32 = 22;
const KEY_NODE_BITS: u32 = 21;

/// Sorts `v` by (delay, node). The hearers are packed into `u64` keys
/// (delay in ns, node, index in `v`), which sort as plain integers (the
/// standard library's branch-free small sorts for primitives), and `v` is
/// then gathered in key order: at 1,000 nodes a frame has ~50-100 hearers
/// and sorting the 24-byte records by a computed key was 8 % of the CPU
/// (docs/performance.md, "Fifth sitting"). The order is the same: nodes
/// are distinct, so (delay, node) is already a total order and the index
/// only rides along. Delays of 2^21 ns (629 km) or more, node ids of 2^21
/// or more, or 2^22 hearers fall back to sorting the records.
pub fn sort_by_arrival(v: &mut Vec<Hearer>, keys: &mut Vec<u64>, scratch: &mut Vec<Hearer>) {
    if v.len() < 2 {
        return;
    }
    let mut wide = (v.len() as u64) >> KEY_INDEX_BITS;
    keys.clear();
    keys.extend(v.iter().enumerate().map(|(i, h)| {
        wide |= (h.delay.0 >> (64 - KEY_INDEX_BITS - KEY_NODE_BITS)) | (h.node as u64 >> KEY_NODE_BITS);
        (h.delay.0 << (KEY_INDEX_BITS + KEY_NODE_BITS)) | ((h.node as u64) << KEY_INDEX_BITS) | i as u64
    }));
    if wide != 0 {
        v.sort_unstable_by_key(|h| (h.delay, h.node));
        return;
    }
    sort_keys(keys);
    scratch.clear();
    scratch.extend(keys.iter().map(|&k| v[(k & ((1 << KEY_INDEX_BITS) - 1)) as usize]));
    std::mem::swap(v, scratch);
}

#[cfg(test)]
#[path = "channel_tests.rs"]
mod tests;
