//! Constant rate: every DATA frame at the configured `data_rate` (the
//! behaviour of ns-2 and of manetlab without rate control).

use super::RateControl;
use crate::mac::frame::MacAddr;
use crate::sim::Time;

pub struct Constant {
    rate: u64,
}

impl Constant {
    pub fn new(rate: u64) -> Constant {
        Constant { rate }
    }
}

impl RateControl for Constant {
    fn data_rate(&mut self, _now: Time, _dst: MacAddr, _bytes: u32, _attempt: u32) -> u64 {
        self.rate
    }
    fn on_data_ok(&mut self, _now: Time, _dst: MacAddr, _rate: u64, _attempt: u32) {}
    fn on_data_failed(&mut self, _now: Time, _dst: MacAddr, _rate: u64, _attempt: u32) {}
}
