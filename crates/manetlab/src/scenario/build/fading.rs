//! `[radio]` keys of the fading and shadowing processes (`phy/fading.rs`):
//! `fading = "none" | "nakagami"`, `nakagami_m`, `shadowing = "per-frame" |
//! "correlated"`, `shadowing_decorrelation`, `shadowing_coherence_time`.

use super::{choice, err, refuse_unused_keys};
use crate::phy::{FadingConfig, RadioConfig, ShadowingProcess};
use crate::scenario::error::{Diag, ErrorKind};
use crate::scenario::file::RadioSection;

/// Default decorrelation distance of correlated shadowing, metres
/// (Gudmundson measured tens to hundreds of metres outdoors; indoor values
/// are a few metres).
pub const DEFAULT_DECORRELATION_M: f64 = 20.0;

pub(super) fn fading(r: &RadioSection, radio: &mut RadioConfig) -> Result<(), Diag> {
    let mut f = FadingConfig::default();
    let nakagami = match &r.fading {
        Some(v) => choice(v, "radio.fading", &[("none", false), ("nakagami", true), ("rayleigh", true)])?,
        None => false,
    };
    if nakagami {
        let rayleigh = r.fading.as_ref().is_some_and(|v| v.get_ref() == "rayleigh");
        let m = match &r.nakagami_m {
            Some(m) if rayleigh => {
                return Err(err(
                    ErrorKind::Inconsistent,
                    m,
                    "'radio.nakagami_m' does not apply with fading = \"rayleigh\" (m = 1)",
                ))
            }
            Some(m) => {
                let v = *m.get_ref();
                if !(v.is_finite() && v >= 0.5) {
                    return Err(err(
                        ErrorKind::OutOfRange,
                        m,
                        "'radio.nakagami_m' must be at least 0.5 (1 = Rayleigh)",
                    ));
                }
                v
            }
            None => 1.0,
        };
        f.nakagami_m = Some(m);
    } else {
        refuse_unused_keys(
            "radio",
            "fading",
            "none",
            &[],
            [("nakagami_m", r.nakagami_m.as_ref().map(|v| v.span().start))],
        )?;
    }
    let correlated = match &r.shadowing {
        Some(v) => {
            let c = choice(v, "radio.shadowing", &[("per-frame", false), ("correlated", true)])?;
            if radio.propagation.sigma_db() <= 0.0 && c {
                return Err(err(
                    ErrorKind::Inconsistent,
                    v,
                    "'radio.shadowing' = \"correlated\" needs propagation = \"shadowing\" with a deviation above 0 dB",
                ));
            }
            c
        }
        None => false,
    };
    let given = [
        ("shadowing_decorrelation", r.shadowing_decorrelation.as_ref().map(|v| v.span().start)),
        ("shadowing_coherence_time", r.shadowing_coherence_time.as_ref().map(|v| v.span().start)),
    ];
    if correlated {
        let d = match &r.shadowing_decorrelation {
            Some(d) if d.get_ref().0 <= 0.0 => {
                return Err(err(ErrorKind::OutOfRange, d, "'radio.shadowing_decorrelation' must be greater than zero"))
            }
            Some(d) => d.get_ref().0,
            None => DEFAULT_DECORRELATION_M,
        };
        let tc = match &r.shadowing_coherence_time {
            Some(t) if t.get_ref().0.as_ns() == 0 => {
                return Err(err(ErrorKind::OutOfRange, t, "'radio.shadowing_coherence_time' must be greater than zero"))
            }
            Some(t) => Some(t.get_ref().0.as_secs_f64()),
            None => None,
        };
        f.shadowing = ShadowingProcess::Correlated { decorrelation_m: d, coherence_s: tc };
    } else {
        refuse_unused_keys("radio", "shadowing", "per-frame", &[], given)?;
    }
    radio.fading = f;
    Ok(())
}
