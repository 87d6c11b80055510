//! Unit-test harness for routing protocols: one protocol instance driven
//! directly, its timers fired in time order, its other actions collected.

use super::{NetAction, RouteCtx, Routing};
use crate::net::NodeId;
use crate::sim::FateTable;
use crate::sim::{Purpose, RngStream, Time};

pub struct Harness<R> {
    pub proto: R,
    pub me: NodeId,
    pub now: Time,
    pub timers: Vec<(Time, u64)>,
    pub rng: RngStream,
    pub uids: FateTable,
    /// Actions other than timers, in order, since the last `take`.
    pub out: Vec<NetAction>,
}

impl<R: Routing> Harness<R> {
    pub fn new(me: NodeId, proto: R) -> Self {
        Harness {
            proto,
            me,
            now: Time::ZERO,
            timers: Vec::new(),
            rng: RngStream::new(1, me as u64, Purpose::Routing, 0),
            uids: FateTable::default(),
            out: Vec::new(),
        }
    }
    /// Runs `f` on the protocol with a context at the current time.
    pub fn call(&mut self, f: impl FnOnce(&mut R, &mut RouteCtx)) {
        let mut acts = Vec::new();
        let mut ctx =
            RouteCtx { now: self.now, node: self.me, out: &mut acts, rng: &mut self.rng, uids: &mut self.uids };
        f(&mut self.proto, &mut ctx);
        for a in acts {
            match a {
                NetAction::Timer { at, token } => self.timers.push((at, token)),
                a => self.out.push(a),
            }
        }
    }
    /// Fires timers in time order up to and including `t`.
    pub fn run_until(&mut self, t: Time) {
        while let Some(i) = (0..self.timers.len()).filter(|&i| self.timers[i].0 <= t).min_by_key(|&i| self.timers[i]) {
            let (at, tok) = self.timers.remove(i);
            self.now = at;
            self.call(|a, ctx| a.on_timer(ctx, tok));
        }
        self.now = t;
    }
    pub fn take(&mut self) -> Vec<NetAction> {
        std::mem::take(&mut self.out)
    }
}
