//! Reading a model's scenario section without knowing TOML.
//!
//! A model (a routing protocol, ...) owns its section of the scenario file:
//! its keys, defaults, ranges and cross-checks live beside it, written
//! against [`Params`]. The scenario layer (`scenario/`) implements `Params`
//! over the parsed file: it decodes values with their units ("10ms",
//! "2Mbps") and turns a [`ParamError`] into a file:line:column message. A
//! [`Loc`] is an opaque position the scenario layer hands out with each
//! value and maps back when a model reports an error there.

use super::Time;

/// Where a value was written (opaque to models).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Loc(pub usize);

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Located<T> {
    pub v: T,
    pub at: Loc,
}

/// What is wrong with a value (the scenario layer's error kinds).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamErrorKind {
    UnknownKey,
    MissingKey,
    WrongType,
    BadValue,
    OutOfRange,
    Inconsistent,
}

/// An error in a model's section, at a position (None: the section itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub kind: ParamErrorKind,
    pub at: Option<Loc>,
    pub msg: String,
}

impl ParamError {
    pub fn new(kind: ParamErrorKind, at: Loc, msg: impl Into<String>) -> ParamError {
        ParamError { kind, at: Some(at), msg: msg.into() }
    }
}

/// The keys of one section, decoded on demand. Every getter returns
/// `Ok(None)` for an absent key and an error for a present key of the wrong
/// type or with a malformed value.
pub trait Params {
    /// The section name used in messages (`routing` in `'routing.jitter'`).
    fn section(&self) -> &str;
    /// Nodes in the topology (for keys naming nodes).
    fn nodes(&self) -> u64;
    /// A duration with its unit ("10ms", "1.5s").
    fn duration(&self, key: &str) -> Result<Option<Located<Time>>, ParamError>;
    /// A non-negative integer that fits 32 bits.
    fn uint(&self, key: &str) -> Result<Option<Located<u32>>, ParamError>;
    fn flag(&self, key: &str) -> Result<Option<Located<bool>>, ParamError>;
    /// A finite number (integer or float, no unit).
    fn number(&self, key: &str) -> Result<Option<Located<f64>>, ParamError>;
    /// A whole number of bytes with its unit ("1460B", "1.5KB").
    fn bytes(&self, key: &str) -> Result<Option<Located<u32>>, ParamError>;
    /// A data rate in bit/s, greater than zero, with its unit ("2Mbps").
    fn rate(&self, key: &str) -> Result<Option<Located<u64>>, ParamError>;
    fn text(&self, key: &str) -> Result<Option<Located<String>>, ParamError>;
    /// How a duration is written in messages ("20ms", "1.5s").
    fn show(&self, t: Time) -> String;
    /// A list of integer lists (e.g. static routing's node sequences).
    #[allow(clippy::type_complexity)]
    fn uint_lists(&self, key: &str) -> Result<Option<Located<Vec<Located<Vec<Located<u32>>>>>>, ParamError>;
}

impl dyn Params + '_ {
    fn err(&self, kind: ParamErrorKind, at: Loc, msg: String) -> ParamError {
        ParamError::new(kind, at, msg)
    }

    /// A duration that must be greater than zero:
    /// `'<section>.<key>' must be greater than zero`.
    pub fn positive_duration(&self, key: &str) -> Result<Option<Located<Time>>, ParamError> {
        match self.duration(key)? {
            Some(d) if d.v == Time::ZERO => Err(self.err(
                ParamErrorKind::OutOfRange,
                d.at,
                format!("'{}.{key}' must be greater than zero", self.section()),
            )),
            d => Ok(d),
        }
    }

    /// An integer in `lo..=hi`: `'<section>.<key>' must be from lo to hi, got v`.
    pub fn uint_in(&self, key: &str, lo: u32, hi: u32) -> Result<Option<u32>, ParamError> {
        match self.uint(key)? {
            Some(s) if !(lo..=hi).contains(&s.v) => Err(self.err(
                ParamErrorKind::OutOfRange,
                s.at,
                format!("'{}.{key}' must be from {lo} to {hi}, got {}", self.section(), s.v),
            )),
            s => Ok(s.map(|s| s.v)),
        }
    }

    /// A name from `options` (case-insensitive), listing them on failure.
    pub fn choice<T: Copy>(&self, key: &str, options: &[(&str, T)]) -> Result<Option<Located<T>>, ParamError> {
        let Some(s) = self.text(key)? else { return Ok(None) };
        let name = s.v.trim();
        match options.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
            Some((_, t)) => Ok(Some(Located { v: *t, at: s.at })),
            None => {
                let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
                Err(self.err(
                    ParamErrorKind::BadValue,
                    s.at,
                    format!(
                        "unknown value {:?} for '{}.{key}'; expected one of: {}",
                        name,
                        self.section(),
                        names.join(", ")
                    ),
                ))
            }
        }
    }

    /// A section-level error (no position: the scenario layer points at the
    /// key that chose the model).
    pub fn missing(&self, key: &str, why: &str) -> ParamError {
        ParamError {
            kind: ParamErrorKind::MissingKey,
            at: None,
            msg: format!("missing '{}.{key}': {why}", self.section()),
        }
    }

    /// An error at `at` whose message names `'<section>.<key>'` where the
    /// text says `{key}`.
    pub fn error(&self, kind: ParamErrorKind, at: Loc, key: &str, msg: &str) -> ParamError {
        ParamError::new(kind, at, msg.replace("{key}", &format!("'{}.{key}'", self.section())))
    }

    /// Sets `*dst` from the key if given.
    pub fn set_flag(&self, key: &str, dst: &mut bool) -> Result<(), ParamError> {
        if let Some(v) = self.flag(key)? {
            *dst = v.v;
        }
        Ok(())
    }

    /// Sets `*dst` from a positive duration if given.
    pub fn set_positive(&self, key: &str, dst: &mut Time) -> Result<(), ParamError> {
        if let Some(v) = self.positive_duration(key)? {
            *dst = v.v;
        }
        Ok(())
    }

    /// A node index: `'<key>' = v is not a node: the topology has N nodes (0 to N-1)`.
    pub fn node_index(&self, v: &Located<u32>, key: &str) -> Result<u32, ParamError> {
        let n = self.nodes();
        if v.v as u64 >= n {
            let nodes = if n == 1 { "1 node (0)".to_string() } else { format!("{n} nodes (0 to {})", n - 1) };
            return Err(self.err(
                ParamErrorKind::OutOfRange,
                v.at,
                format!("'{key}' = {} is not a node: the topology has {nodes}", v.v),
            ));
        }
        Ok(v.v)
    }
}
