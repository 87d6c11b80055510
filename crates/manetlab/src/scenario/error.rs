//! Scenario errors: where (file:line:column or the `--set` override that
//! caused it) and what, with a message naming what is allowed.

use std::fmt;

/// The class of a scenario error.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The file could not be read.
    Io,
    /// Not valid TOML (or not UTF-8).
    Syntax,
    /// A key or section the format does not have.
    UnknownKey,
    /// A required key or section is absent.
    MissingKey,
    /// A value of the wrong TOML type (a number where a string is expected...).
    WrongType,
    /// A value of the right type that does not parse: bad unit, unknown name.
    BadValue,
    /// A value outside its allowed range (a node index past the last node...).
    OutOfRange,
    /// Values that contradict each other (rx_range with rx_threshold...).
    Inconsistent,
    /// A malformed `--set key=value` override.
    BadOverride,
}

/// A problem with a scenario, located in its file or in an override.
///
/// Displays as `origin:line:column: message`, as `origin: --set key=value:
/// message` when an override caused it, or `origin: message` when it has no
/// position (a missing section).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    pub(crate) kind: ErrorKind,
    pub(crate) origin: String,
    pub(crate) position: Option<(usize, usize)>,
    pub(crate) override_arg: Option<String>,
    pub(crate) message: String,
}

impl ScenarioError {
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// 1-based line in the scenario file, when the error has one.
    pub fn line(&self) -> Option<usize> {
        self.position.map(|p| p.0)
    }
    /// 1-based column (in characters) in the scenario file.
    pub fn column(&self) -> Option<usize> {
        self.position.map(|p| p.1)
    }
    /// The `--set` argument that caused the error, if one did.
    pub fn override_arg(&self) -> Option<&str> {
        self.override_arg.as_deref()
    }
    /// The file (or name) the scenario came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }
    /// The message without its location.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.override_arg, self.position) {
            // A profile's default (`scenario/profile.rs`) names itself.
            (Some(arg), _) if arg.starts_with("profile ") => write!(f, "{}: {}: {}", self.origin, arg, self.message),
            (Some(arg), _) => write!(f, "{}: --set {}: {}", self.origin, arg, self.message),
            (None, Some((line, col))) => write!(f, "{}:{}:{}: {}", self.origin, line, col, self.message),
            (None, None) => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

/// Where an error points before it is mapped back to the user's file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum At {
    Nowhere,
    /// A byte offset in the effective (overridden) text.
    Offset(usize),
    /// The override with this index.
    Override(usize),
}

/// An error before it is located: class, position in the effective text, message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Diag {
    pub kind: ErrorKind,
    pub at: At,
    pub msg: String,
}

impl Diag {
    pub fn new(kind: ErrorKind, at: At, msg: impl Into<String>) -> Diag {
        Diag { kind, at, msg: msg.into() }
    }
    pub fn at(kind: ErrorKind, offset: usize, msg: impl Into<String>) -> Diag {
        Diag::new(kind, At::Offset(offset), msg)
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut off = offset.min(text.len());
    while !text.is_char_boundary(off) {
        off -= 1;
    }
    let before = &text[..off];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters() {
        let t = "ab\nc€d\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, 7), (2, 3));
        assert_eq!(line_col(t, 5), (2, 2)); // inside '€': backs up to its start
        assert_eq!(line_col(t, 999), (3, 1));
    }

    #[test]
    fn display_forms() {
        let mut e = ScenarioError {
            kind: ErrorKind::UnknownKey,
            origin: "x.toml".into(),
            position: Some((12, 9)),
            override_arg: None,
            message: "unknown field".into(),
        };
        assert_eq!(e.to_string(), "x.toml:12:9: unknown field");
        e.override_arg = Some("mac.data_rate=3Mbps".into());
        assert_eq!(e.to_string(), "x.toml: --set mac.data_rate=3Mbps: unknown field");
        e.override_arg = None;
        e.position = None;
        assert_eq!(e.to_string(), "x.toml: unknown field");
    }
}
