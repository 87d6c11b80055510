//! IEEE 802.11 DCF (in progress).
pub struct Dcf;
pub enum MacEvent {}
pub enum MacTimer {}
