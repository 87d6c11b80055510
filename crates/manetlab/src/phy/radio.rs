//! One node's radio receiver: threshold reception and capture.

/// What happens when a second frame arrives during a reception.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaptureRule {
    /// ns-2: the frame being received survives iff it is at least the
    /// capture ratio stronger than the newcomer; a later frame is never
    /// decoded.
    Ns2,
    /// ns-3 frame capture: a later frame at least the capture ratio stronger
    /// than the current one takes the receiver over (the first is lost).
    StrongerWins,
}

pub struct Radio;
pub enum RxOutcome {}
