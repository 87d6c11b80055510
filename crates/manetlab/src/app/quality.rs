//! Voice quality of VoIP calls: per-direction loss, one-way delay
//! distribution, playout-deadline misses, and the MOS by the E-model.
//!
//! **E-model.** ITU-T G.107 as simplified by Cole and Rosenbluth ("Voice
//! over IP performance monitoring", ACM CCR 31(2), 2001, eqs. for R with
//! default G.107 values):
//!
//! `R = 94.2 - Id - Ie`,
//! `Id = 0.024 d + 0.11 (d - 177.3) H(d - 177.3)` (d = mouth-to-ear delay, ms),
//! `Ie = gamma1 + gamma2 ln(1 + gamma3 e)` (e = total loss fraction),
//!
//! with (gamma1, gamma2, gamma3) = (11, 40, 10) for G.729a (and (0, 30, 15)
//! for G.711), and MOS from R by G.107 Annex B:
//! `MOS = 1 + 0.035 R + 7e-6 R (R - 60) (100 - R)` for 0 < R < 100.
//!
//! **Playout.** A fixed playout buffer of `playout` (60 ms) anchored at the
//! fastest packet of the direction: a packet whose one-way delay exceeds the
//! smallest delay by more than `playout` misses its deadline and counts as
//! lost. The mouth-to-ear delay is the mean network delay of the packets
//! played plus `playout` plus the codec delay (25 ms), which is how the
//! coexistence paper (Kim, Niculescu, Hong, fig. 2) reads its MOS chart:
//! MOS 3.6 needs every packet within 160 ms, or 98 % within 104 ms.

use crate::sim::Time;
use serde::Serialize;

/// Loss-impairment parameters of a codec (Cole and Rosenbluth, table 1).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Codec {
    pub gamma1: f64,
    pub gamma2: f64,
    pub gamma3: f64,
}

impl Codec {
    pub const G729A: Codec = Codec { gamma1: 11.0, gamma2: 40.0, gamma3: 10.0 };
    pub const G711: Codec = Codec { gamma1: 0.0, gamma2: 30.0, gamma3: 15.0 };
}

/// A call is supported at or above this MOS (the paper's "GSM quality").
pub const MOS_SUPPORTED: f64 = 3.6;

/// Delay impairment `Id` for a mouth-to-ear delay of `d_ms`.
pub fn delay_impairment(d_ms: f64) -> f64 {
    0.024 * d_ms + if d_ms > 177.3 { 0.11 * (d_ms - 177.3) } else { 0.0 }
}

/// Equipment impairment `Ie` for a total loss fraction `loss` (0..1).
pub fn loss_impairment(codec: Codec, loss: f64) -> f64 {
    codec.gamma1 + codec.gamma2 * (1.0 + codec.gamma3 * loss.clamp(0.0, 1.0)).ln()
}

/// The rating factor R.
pub fn r_factor(codec: Codec, d_ms: f64, loss: f64) -> f64 {
    94.2 - delay_impairment(d_ms) - loss_impairment(codec, loss)
}

/// MOS from R (G.107 Annex B).
pub fn mos_from_r(r: f64) -> f64 {
    if r <= 0.0 {
        1.0
    } else if r >= 100.0 {
        4.5
    } else {
        1.0 + 0.035 * r + 7e-6 * r * (r - 60.0) * (100.0 - r)
    }
}

/// MOS for a mouth-to-ear delay and a total loss fraction.
pub fn mos(codec: Codec, d_ms: f64, loss: f64) -> f64 {
    mos_from_r(r_factor(codec, d_ms, loss))
}

/// Quality parameters of a call.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct VoiceQuality {
    pub codec: Codec,
    /// Playout (jitter) buffer.
    pub playout: Time,
    /// Codec (vocoder) delay.
    pub codec_delay: Time,
}

impl Default for VoiceQuality {
    fn default() -> Self {
        VoiceQuality { codec: Codec::G729A, playout: Time::from_ms(60), codec_delay: Time::from_ms(25) }
    }
}

/// What one end of a call records (defined in `transport/`, whose
/// `Endpoint::voip_record` hands it to the report).
pub use crate::transport::VoipRecord;
