//! The DCF in the MAC registry (`mac/mod.rs`): how the scenario file
//! selects it and how one node's instance is built; the kernel's calls
//! forward to the state machine in `dcf.rs`.

use super::super::edca::AccessCategory;
use super::super::{MacConfig, MacEnv, MacKind, MacModel, MacProtocol, RateCount};
use super::{Dcf, Frame, MacAction, MacAddr, MacStats, MacTimer};
use crate::sim::params::{ParamError, Params};
use crate::sim::{Purpose, RngStream, Time};
use crate::wire::Packet;

impl MacModel for Dcf {
    const NAMES: &'static [&'static str] = &["dcf", "802.11"];
    const KEYS: &'static [&'static str] = &[];
    fn parse(_p: &dyn Params) -> Result<MacKind, ParamError> {
        Ok(MacKind::Dcf)
    }
    fn build(cfg: &MacConfig, env: &MacEnv) -> Dcf {
        // ns-2 sets the NAV to EIFS past a frame that was captured out.
        let nav_on_capture = env.radio.capture_rule == crate::phy::CaptureRule::Ns2;
        let rng = RngStream::new(env.seed, env.node as u64, Purpose::MacBackoff, 0);
        crate::mac::rate::dcf_with_rate_control(
            Dcf::new(env.node, cfg, nav_on_capture, rng),
            cfg,
            env.radio,
            env.seed,
            env.node,
        )
    }
}

impl MacProtocol for Dcf {
    #[inline]
    fn can_accept(&self) -> bool {
        Dcf::can_accept(self)
    }
    fn set_reports(&mut self, tx_success: bool, overheard: bool) {
        Dcf::set_reports(self, tx_success, overheard)
    }
    #[inline]
    fn current(&self) -> Option<&Packet> {
        Dcf::current(self)
    }
    #[inline]
    fn tx_frame(&self) -> &Frame {
        Dcf::tx_frame(self)
    }
    #[inline]
    fn stats(&self) -> MacStats {
        self.stats
    }
    #[inline]
    fn enqueue(&mut self, now: Time, pkt: Packet, out: &mut Vec<MacAction>) {
        Dcf::enqueue(self, now, pkt, out)
    }
    #[inline]
    fn enqueue_ref(&mut self, now: Time, pkt: &Packet, out: &mut Vec<MacAction>) {
        Dcf::enqueue_ac_ref(self, now, pkt, AccessCategory::BestEffort, out)
    }
    #[inline]
    fn on_timer(&mut self, now: Time, kind: MacTimer, gen: u32, out: &mut Vec<MacAction>) {
        Dcf::on_timer(self, now, kind, gen, out)
    }
    #[inline]
    fn on_tx_end(&mut self, now: Time, out: &mut Vec<MacAction>) {
        Dcf::on_tx_end(self, now, out)
    }
    #[inline]
    fn on_rx_end(&mut self, now: Time, decoded: Option<&Frame>, idle: bool, out: &mut Vec<MacAction>) {
        Dcf::on_rx_end(self, now, decoded, idle, out)
    }
    #[inline]
    fn on_sense_busy(&mut self, now: Time) {
        Dcf::on_sense_busy(self, now)
    }
    #[inline]
    fn on_captured_out(&mut self, now: Time, end: Time, out: &mut Vec<MacAction>) {
        Dcf::on_captured_out(self, now, end, out)
    }
    #[inline]
    fn on_signal_end(&mut self, now: Time, idle: bool, out: &mut Vec<MacAction>) {
        Dcf::on_signal_end(self, now, idle, out)
    }
    #[inline]
    fn is_edca(&self) -> bool {
        Dcf::is_edca(self)
    }
    #[inline]
    fn can_accept_ac(&self, ac: AccessCategory) -> bool {
        Dcf::can_accept_ac(self, ac)
    }
    #[inline]
    fn enqueue_ac(&mut self, now: Time, pkt: Packet, ac: AccessCategory, out: &mut Vec<MacAction>) {
        Dcf::enqueue_ac(self, now, pkt, ac, out)
    }
    #[inline]
    fn on_rx_power(&mut self, src: MacAddr, power_w: f64) {
        Dcf::on_rx_power(self, src, power_w)
    }
    #[inline]
    fn set_expiry(&mut self, at: Time) {
        Dcf::set_expiry(self, at)
    }
    #[inline]
    fn on_queue_enqueue(&mut self, now: Time, out: &mut Vec<MacAction>) {
        Dcf::on_queue_enqueue(self, now, out)
    }
    fn timer_live(&self, kind: MacTimer, gen: u32) -> bool {
        Dcf::timer_live(self, kind, gen)
    }
    fn rate_counts(&self) -> Vec<RateCount> {
        Dcf::rate_counts(self)
    }
    fn held(&self, f: &mut dyn FnMut(&Packet)) {
        Dcf::held(self, f)
    }
}
