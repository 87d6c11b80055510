//! The DCF's reports that carry a packet nobody may need: a success
//! ([`MacAction::TxSuccess`], read only by backpressure) and a data frame
//! overheard for another node ([`MacAction::Overheard`], read by
//! backpressure and by a protocol that listens, `Routing::wants_overheard`).
//! The kernel turns them off when nothing reads them
//! (`simulation/build.rs`): each would copy the packet twice (out of the
//! entity or frame, into the action vector) for a work item carried out
//! as nothing (`Simulation::mac_item`).

use super::*;

impl Dcf {
    /// Whether to push [`MacAction::TxSuccess`] and [`MacAction::Overheard`]
    /// (both on when built). Off, nothing else changes: the MAC's state,
    /// counters and other actions are the same.
    pub fn set_reports(&mut self, tx_success: bool, overheard: bool) {
        self.report_success = tx_success;
        self.report_overheard = overheard;
    }

    /// The active entity's packet was acknowledged (or its broadcast
    /// sent): it leaves the MAC, reported as [`MacAction::TxSuccess`] if
    /// asked ([`Dcf::set_reports`]).
    pub(super) fn succeeded(&mut self, out: &mut Vec<MacAction>) {
        let cur = &mut self.acs[self.ai()].current;
        debug_assert!(cur.is_some(), "a success without a packet");
        if self.report_success {
            if let Some(p) = cur.take() {
                out.push(MacAction::TxSuccess(p));
            }
        } else {
            *cur = None;
        }
    }
}
