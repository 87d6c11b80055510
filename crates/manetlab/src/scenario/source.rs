//! The scenario text, `--set` overrides spliced into it, and mapping error
//! positions back to the user's file.
//!
//! Overrides edit the TOML text itself (replace a value, or insert a
//! `key = value` line under the right table header), so the typed parse sees
//! one ordinary document. A piece table records which bytes of the edited text
//! came from the file and which from which override: an error inside an
//! override's bytes is reported against that `--set`, any other error at its
//! line and column in the original file.

use super::error::{line_col, At, Diag, ErrorKind, ScenarioError};
use std::ops::Range;
use toml_edit::{ImDocument, InlineTable, Item, Table, Value};

#[derive(Copy, Clone, Debug)]
enum Origin {
    /// Bytes of the original text starting at this offset.
    File(usize),
    /// Bytes written by the override with this index.
    Override(usize),
}

#[derive(Copy, Clone, Debug)]
struct Piece {
    from: Origin,
    len: usize,
}

impl Piece {
    fn slice(self, skip: usize, len: usize) -> Piece {
        let from = match self.from {
            Origin::File(o) => Origin::File(o + skip),
            f => f,
        };
        Piece { from, len }
    }
}

/// The original text, the effective text after overrides, and the map
/// between them.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    pub origin: String,
    original: String,
    pub text: String,
    pieces: Vec<Piece>,
    overrides: Vec<String>,
}

impl Source {
    pub fn new(origin: &str, text: &str) -> Source {
        Source {
            origin: origin.to_string(),
            original: text.to_string(),
            text: text.to_string(),
            pieces: vec![Piece { from: Origin::File(0), len: text.len() }],
            overrides: Vec::new(),
        }
    }

    /// Converts a diagnostic into a located error.
    pub fn error(&self, d: Diag) -> ScenarioError {
        let (position, override_arg) = match d.at {
            At::Nowhere => (None, None),
            At::Override(i) => (None, self.overrides.get(i).cloned()),
            At::Offset(off) => match self.map(off) {
                Origin::File(o) => (Some(line_col(&self.original, o)), None),
                Origin::Override(i) => (None, self.overrides.get(i).cloned()),
            },
        };
        ScenarioError { kind: d.kind, origin: self.origin.clone(), position, override_arg, message: d.msg }
    }

    /// Where byte `off` of the effective text came from.
    fn map(&self, off: usize) -> Origin {
        let mut pos = 0;
        let mut last = Origin::File(self.original.len());
        for p in &self.pieces {
            if p.len == 0 {
                continue;
            }
            if off < pos + p.len {
                return p.slice(off - pos, 0).from;
            }
            pos += p.len;
            last = p.slice(p.len, 0).from;
        }
        last
    }

    /// Replaces `range` of the effective text with `new`, written by override `idx`.
    fn splice(&mut self, range: Range<usize>, new: &str, idx: usize) {
        let (a, b) = (range.start, range.end);
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut pos = 0;
        for p in self.pieces.drain(..) {
            let (ps, pe) = (pos, pos + p.len);
            pos = pe;
            if ps < a {
                before.push(p.slice(0, pe.min(a) - ps));
            }
            if pe > b {
                let s = ps.max(b);
                after.push(p.slice(s - ps, pe - s));
            }
        }
        before.push(Piece { from: Origin::Override(idx), len: new.len() });
        before.extend(after);
        self.pieces = before;
        self.text.replace_range(a..b, new);
    }

    /// Applies one `--set key=value` override.
    pub fn apply_override(&mut self, arg: &str) -> Result<(), Diag> {
        self.apply_labelled(arg, arg)
    }

    /// Writes `key=value` as [`Source::apply_override`] does, but errors in
    /// its bytes name `label` (a profile's default, `scenario/profile.rs`).
    pub fn apply_default(&mut self, label: &str, arg: &str) -> Result<(), Diag> {
        self.apply_labelled(label, arg)
    }

    fn apply_labelled(&mut self, label: &str, arg: &str) -> Result<(), Diag> {
        let idx = self.overrides.len();
        self.overrides.push(label.to_string());
        let bad = |msg: String| Diag::new(ErrorKind::BadOverride, At::Override(idx), msg);
        let Some((key, value)) = arg.split_once('=') else {
            return Err(bad("expected key=value, e.g. --set mac.data_rate=11Mbps".into()));
        };
        let segs: Vec<&str> = key.split('.').map(str::trim).collect();
        if segs.iter().any(|s| s.is_empty()) {
            return Err(bad(format!("'{}' is not a key path such as mac.data_rate or flow.0.rate", key.trim())));
        }
        let value = value_text(value);
        let doc = ImDocument::parse(self.text.as_str())
            .map_err(|_| bad("cannot apply overrides to a file that is not valid TOML".into()))?;
        let mut edits = Vec::new();
        let start = Cursor { node: Node::Table(doc.as_table()), anchor: Anchor::Root, depth: 0 };
        plan(&self.text, start, &mut Vec::new(), &segs, &value, &mut edits).map_err(bad)?;
        drop(doc);
        // Later offsets first, so earlier ones stay valid.
        edits.sort_by_key(|e| std::cmp::Reverse(e.0.start));
        for (range, new) in edits {
            self.splice(range, &new, idx);
        }
        Ok(())
    }
}

/// The TOML text of an override's value: itself if it is a TOML value
/// (`5`, `true`, `[[2, 1, 0]]`, `"x"`), else the same text as a string.
fn value_text(raw: &str) -> String {
    let raw = raw.trim();
    if !raw.is_empty() && raw.parse::<Value>().is_ok() {
        raw.to_string()
    } else {
        Value::from(raw).to_string().trim().to_string()
    }
}

#[derive(Copy, Clone)]
enum Node<'a> {
    Table(&'a Table),
    Inline(&'a InlineTable),
    Tables(&'a toml_edit::ArrayOfTables),
    Value(&'a Value),
}

fn node_of_item(i: &Item) -> Option<Node<'_>> {
    match i {
        Item::Table(t) => Some(Node::Table(t)),
        Item::ArrayOfTables(a) => Some(Node::Tables(a)),
        Item::Value(Value::InlineTable(t)) => Some(Node::Inline(t)),
        Item::Value(v) => Some(Node::Value(v)),
        Item::None => None,
    }
}

fn child<'a>(n: Node<'a>, key: &str) -> Option<Node<'a>> {
    match n {
        Node::Table(t) => t.get(key).and_then(node_of_item),
        Node::Inline(t) => t.get(key).map(|v| match v {
            Value::InlineTable(it) => Node::Inline(it),
            v => Node::Value(v),
        }),
        _ => None,
    }
}

/// Where new keys of the current table can be written.
#[derive(Copy, Clone)]
enum Anchor {
    /// At the top of the document.
    Root,
    /// Under the table header starting at this offset.
    Header(usize),
    /// Inside the inline table whose span ends here; whether it is empty.
    Inline { end: usize, empty: bool },
}

#[derive(Copy, Clone)]
struct Cursor<'a> {
    node: Node<'a>,
    anchor: Anchor,
    /// How many path segments the anchor's table has.
    depth: usize,
}

fn quoted_key(k: &str) -> String {
    toml_edit::Key::new(k).display_repr().into_owned()
}

/// Finds the edits that set `rest` (relative to `cur`, at path `here`) to `value`.
fn plan(
    text: &str,
    cur: Cursor,
    here: &mut Vec<String>,
    rest: &[&str],
    value: &str,
    edits: &mut Vec<(Range<usize>, String)>,
) -> Result<(), String> {
    let Some((&key, tail)) = rest.split_first() else { return Ok(()) };
    let path = |here: &[String], k: &str| {
        let mut p = here.join(".");
        if !p.is_empty() {
            p.push('.');
        }
        p.push_str(k);
        p
    };
    let found = child(cur.node, key);
    if tail.is_empty() {
        let span = match found {
            Some(Node::Value(v)) => v.span(),
            Some(Node::Inline(t)) => t.span(),
            Some(Node::Table(_)) => {
                return Err(format!(
                    "'{}' is a section, not a value; set one of its keys, e.g. {}.<key>=...",
                    path(here, key),
                    path(here, key)
                ))
            }
            Some(Node::Tables(_)) => {
                return Err(format!(
                    "'{}' is a list of [[{}]] sections; set a key of one of them, e.g. {}.0.<key>=...",
                    path(here, key),
                    key,
                    path(here, key)
                ))
            }
            None => return insert(text, cur, here, rest, value, edits),
        };
        let span = span.ok_or_else(|| format!("cannot locate '{}' in the file", path(here, key)))?;
        edits.push((span, value.to_string()));
        return Ok(());
    }
    match found {
        None => insert(text, cur, here, rest, value, edits),
        Some(Node::Value(_)) => Err(format!(
            "'{}' is a single value, not a section; set it whole, e.g. {}=...",
            path(here, key),
            path(here, key)
        )),
        Some(Node::Table(t)) => {
            let next = if t.is_dotted() || t.is_implicit() {
                Cursor { node: Node::Table(t), ..cur }
            } else {
                let start = t.span().map_or(0, |s| s.start);
                Cursor { node: Node::Table(t), anchor: Anchor::Header(start), depth: here.len() + 1 }
            };
            here.push(key.to_string());
            plan(text, next, here, tail, value, edits)?;
            here.pop();
            Ok(())
        }
        Some(Node::Inline(t)) => {
            let span = t.span().ok_or_else(|| format!("cannot locate '{}' in the file", path(here, key)))?;
            let next = Cursor {
                node: Node::Inline(t),
                anchor: Anchor::Inline { end: span.end, empty: t.is_empty() },
                depth: here.len() + 1,
            };
            here.push(key.to_string());
            plan(text, next, here, tail, value, edits)?;
            here.pop();
            Ok(())
        }
        Some(Node::Tables(a)) => {
            let (&which, tail) = tail.split_first().unwrap_or((&"", &[]));
            let listed = format!(
                "the file has {} [[{key}]] section{} (numbered from 0)",
                a.len(),
                if a.len() == 1 { "" } else { "s" }
            );
            let indices: Vec<usize> = if which == "*" {
                (0..a.len()).collect()
            } else {
                match which.parse::<usize>() {
                    Ok(i) if i < a.len() => vec![i],
                    Ok(i) => return Err(format!("there is no {}.{i}: {}", path(here, key), listed)),
                    Err(_) => {
                        return Err(format!(
                            "'{}.{which}': pick a [[{key}]] section by number (from 0) or '*' for all, e.g. {}.0.{which}=...",
                            path(here, key),
                            path(here, key)
                        ))
                    }
                }
            };
            if tail.is_empty() {
                return Err(format!(
                    "name a key of the [[{key}]] section, e.g. {}.{which}.<key>=...; a whole section cannot be set",
                    path(here, key)
                ));
            }
            for i in indices {
                let Some(t) = a.get(i) else { continue };
                let start = t.span().map_or(0, |s| s.start);
                let next = Cursor { node: Node::Table(t), anchor: Anchor::Header(start), depth: here.len() + 2 };
                here.push(key.to_string());
                here.push(i.to_string());
                plan(text, next, here, tail, value, edits)?;
                here.truncate(here.len() - 2);
            }
            Ok(())
        }
    }
}

/// Inserts `rest = value` (a possibly dotted key) into the table at `here`.
fn insert(
    text: &str,
    cur: Cursor,
    here: &[String],
    rest: &[&str],
    value: &str,
    edits: &mut Vec<(Range<usize>, String)>,
) -> Result<(), String> {
    if let Some(bad) = rest.iter().find(|s| **s == "*" || s.parse::<usize>().is_ok()) {
        let mut p = here.to_vec();
        p.extend(rest.iter().map(|s| s.to_string()));
        return Err(format!("'{}' does not exist in the file (no section to take '{}' from)", p.join("."), bad));
    }
    let key: Vec<String> = here[cur.depth.min(here.len())..]
        .iter()
        .map(String::as_str)
        .chain(rest.iter().copied())
        .map(quoted_key)
        .collect();
    let line = format!("{} = {}", key.join("."), value);
    let edit = match cur.anchor {
        Anchor::Root => {
            let at = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
            (at..at, format!("{line}\n"))
        }
        Anchor::Header(start) => match text.get(start..).and_then(|t| t.find('\n')) {
            Some(nl) => (start + nl + 1..start + nl + 1, format!("{line}\n")),
            None => (text.len()..text.len(), format!("\n{line}\n")),
        },
        Anchor::Inline { end, empty } => {
            let close = end.saturating_sub(1);
            if text.as_bytes().get(close) != Some(&b'}') {
                return Err(format!("cannot add a key to the inline table '{}'", here.join(".")));
            }
            (close..close, if empty { format!(" {line} ") } else { format!(", {line} ") })
        }
    };
    edits.push(edit);
    Ok(())
}

// ---------------------------------------------------------------------------
// Locating keys and rewriting parser messages

fn contains(span: Option<Range<usize>>, off: usize) -> bool {
    match span {
        Some(s) if s.start == s.end => off == s.start,
        Some(s) => s.start <= off && off < s.end,
        None => false,
    }
}

/// The key path at byte `off` of the document (["radio", "rx_range"],
/// ["flow", "1"] for a whole [[flow]] table, ...), innermost first.
pub(crate) fn path_at(root: &Table, off: usize) -> Vec<String> {
    let mut path = Vec::new();
    locate_table(root, off, &mut path);
    path
}

fn locate_table(t: &Table, off: usize, path: &mut Vec<String>) -> bool {
    for (k, item) in t.iter() {
        path.push(k.to_string());
        if contains(t.key(k).and_then(|k| k.span()), off) || locate_item(item, off, path) {
            return true;
        }
        path.pop();
    }
    false
}

fn locate_item(item: &Item, off: usize, path: &mut Vec<String>) -> bool {
    match item {
        Item::Value(v) => locate_value(v, off, path),
        Item::Table(t) => locate_table(t, off, path) || contains(t.span(), off),
        Item::ArrayOfTables(a) => {
            for (i, t) in a.iter().enumerate() {
                path.push(i.to_string());
                if locate_table(t, off, path) || contains(t.span(), off) {
                    return true;
                }
                path.pop();
            }
            false
        }
        Item::None => false,
    }
}

fn locate_value(v: &Value, off: usize, path: &mut Vec<String>) -> bool {
    match v {
        Value::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                path.push(i.to_string());
                if locate_value(e, off, path) {
                    return true;
                }
                path.pop();
            }
        }
        Value::InlineTable(t) => {
            for (k, e) in t.iter() {
                path.push(k.to_string());
                if contains(t.key(k).and_then(|k| k.span()), off) || locate_value(e, off, path) {
                    return true;
                }
                path.pop();
            }
        }
        _ => {}
    }
    contains(v.span(), off)
}

/// Where the table at `path` starts (its header), for errors about a whole
/// section; `At::Nowhere` if it is not in the file.
pub(crate) fn section_at(root: &Table, path: &[&str]) -> At {
    let mut item: Option<&Item> = None;
    let mut table = Some(root);
    let mut i = 0;
    while i < path.len() {
        let Some(t) = table else { return At::Nowhere };
        item = t.get(path[i]);
        table = None;
        match item {
            Some(Item::Table(t)) => table = Some(t),
            Some(Item::ArrayOfTables(a)) => {
                i += 1;
                let Some(t) = path.get(i).and_then(|k| k.parse::<usize>().ok()).and_then(|k| a.get(k)) else {
                    return At::Nowhere;
                };
                table = Some(t);
            }
            _ => {}
        }
        i += 1;
    }
    let span = match (table, item) {
        (Some(t), _) => t.span().or_else(|| t.iter().find_map(|(k, _)| t.key(k).and_then(|k| k.span()))),
        (None, Some(Item::Value(v))) => v.span(),
        _ => None,
    };
    span.map_or(At::Nowhere, |s| At::Offset(s.start))
}

/// How a table is named in messages: `[radio]`, `[[flow]] #1`.
pub(crate) fn section_name(path: &[String]) -> String {
    match path {
        [] => "the top level".to_string(),
        [s, i] if (s == "flow" || s == "event") && i.parse::<usize>().is_ok() => format!("[[{s}]] #{i}"),
        p => format!("[{}]", p.join(".")),
    }
}

/// The backquoted words of a serde message, in order.
fn quoted_words(msg: &str) -> Vec<&str> {
    msg.split('`').skip(1).step_by(2).collect()
}

fn tidy(msg: &str) -> String {
    msg.trim().replace('`', "'").replace('\n', "; ")
}

/// The allowed name nearest to a misspelt one, if it is close enough to be a typo.
fn closest<'a>(name: &str, allowed: &[&'a str]) -> Option<&'a str> {
    let name: Vec<char> = name.to_lowercase().chars().collect();
    let (best, d) =
        allowed.iter().map(|a| (*a, edit_distance(&name, &a.chars().collect::<Vec<_>>()))).min_by_key(|x| x.1)?;
    (d <= 2.max(name.len() / 4) && d < name.len()).then_some(best)
}

/// Levenshtein distance.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Plain words for serde's names of expected types.
fn expected_words(e: &str) -> String {
    match e {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a non-negative integer".into(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "an integer".into(),
        "f32" | "f64" => "a number".into(),
        "a borrowed string" | "a string" => "a string".into(),
        "a boolean" => "true or false".into(),
        "a sequence" => "an array".into(),
        e if e.starts_with("struct ") || e == "a map" => "a table".into(),
        e => tidy(e),
    }
}

fn got_words(g: &str) -> String {
    match g {
        "sequence" => "an array".into(),
        "map" => "a table".into(),
        g => g.replace("floating point", "number").replace('`', ""),
    }
}

/// Rewrites a TOML/serde deserialization error as a diagnostic that names
/// the key and what is allowed.
pub(crate) fn describe_de_error(root: &Table, e: &toml::de::Error) -> Diag {
    describe_de(root, e.message(), e.span())
}

/// As [`describe_de_error`], from a serde message and the span it is at.
pub(crate) fn describe_de(root: &Table, msg: &str, span: Option<Range<usize>>) -> Diag {
    let at = span.clone().map_or(At::Nowhere, |s| At::Offset(s.start));
    // The root table is reported with an empty span at 0.
    let at_root = !matches!(&span, Some(s) if !s.is_empty());
    let path = match &span {
        Some(s) if !at_root => path_at(root, s.start),
        _ => Vec::new(),
    };
    let key = path.join(".");
    if let Some(rest) = msg.strip_prefix("unknown field ") {
        let words = quoted_words(rest);
        let (name, allowed) = words.split_first().map_or(("?", &[][..]), |(n, a)| (*n, a));
        let table = section_name(path.get(..path.len().saturating_sub(1)).unwrap_or(&[]));
        let what = if path.len() <= 1 {
            format!("unknown section '{name}'")
        } else {
            format!("unknown field '{name}' in {table}")
        };
        let hint = closest(name, allowed).map_or(String::new(), |c| format!(" (did you mean '{c}'?)"));
        return Diag::new(ErrorKind::UnknownKey, at, format!("{what}; expected one of: {}{hint}", allowed.join(", ")));
    }
    if let Some(rest) = msg.strip_prefix("missing field ") {
        let name = quoted_words(rest).first().copied().unwrap_or("?").to_string();
        if at_root {
            return Diag::new(ErrorKind::MissingKey, At::Nowhere, format!("missing required section [{name}]"));
        }
        return Diag::new(
            ErrorKind::MissingKey,
            at,
            format!("missing required key '{name}' in {}", section_name(&path)),
        );
    }
    let what = if key.is_empty() { "value".to_string() } else { format!("'{key}'") };
    if let Some(rest) = msg.strip_prefix("invalid type: ") {
        if let Some((got, exp)) = rest.split_once(", expected ") {
            // A dotted key under a value (`limit .a = 50`) makes a table
            // where a value belongs; serde then reports the inner key as
            // "got string, expected a string".
            if expected_words(exp) == "a string" && got.starts_with("string") && path.len() > 1 {
                let parent = path[..path.len() - 1].join(".");
                return Diag::new(
                    ErrorKind::WrongType,
                    at,
                    format!(
                        "wrong type for '{parent}': expected a single value, got a table (from the dotted key '{key}')"
                    ),
                );
            }
            return Diag::new(
                ErrorKind::WrongType,
                at,
                format!("wrong type for {what}: expected {}, got {}", expected_words(exp), got_words(got)),
            );
        }
    }
    if let Some(rest) = msg.strip_prefix("invalid value: ") {
        if let Some((got, exp)) = rest.split_once(", expected ") {
            let exp = match exp {
                "u32" => "an integer from 0 to 4294967295".to_string(),
                e => expected_words(e),
            };
            return Diag::new(
                ErrorKind::OutOfRange,
                at,
                format!("out-of-range value for {what}: expected {exp}, got {}", got_words(got)),
            );
        }
    }
    if msg.starts_with("invalid length ") || msg.starts_with("unknown variant ") {
        return Diag::new(ErrorKind::BadValue, at, format!("bad value for {what}: {}", tidy(msg)));
    }
    // Custom messages from the unit parsers already say what is allowed.
    Diag::new(ErrorKind::BadValue, at, format!("bad value for {what}: {msg}"))
}

/// A syntax error from the TOML parser.
pub(crate) fn describe_syntax_error(e: &toml_edit::TomlError) -> Diag {
    let at = e.span().map_or(At::Nowhere, |s| At::Offset(s.start));
    Diag::new(ErrorKind::Syntax, at, format!("TOML syntax error: {}", tidy(e.message())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, ovs: &[&str]) -> Result<Source, Diag> {
        let mut s = Source::new("t.toml", text);
        for o in ovs {
            s.apply_override(o)?;
        }
        Ok(s)
    }

    #[test]
    fn replaces_existing_values_in_place() {
        let s = apply("[mac]\ndata_rate = \"2Mbps\" # data\n[run]\nx = 1\n", &["mac.data_rate=11Mbps"]).unwrap();
        assert_eq!(s.text, "[mac]\ndata_rate = \"11Mbps\" # data\n[run]\nx = 1\n");
        // Bytes after the edit still map to their original lines.
        let off = s.text.find("x = 1").unwrap();
        assert!(matches!(s.map(off), Origin::File(o) if line_col(&s.original, o) == (4, 1)));
        let off = s.text.find("11Mbps").unwrap();
        assert!(matches!(s.map(off), Origin::Override(0)));
    }

    #[test]
    fn inserts_missing_keys_and_sections() {
        let s = apply(
            "[mac]\n[[flow]]\nsrc = 1\n[[flow]]\nsrc = 2\n",
            &["mac.cw_min=15", "flow.1.rate=1Mbps", "queue.limit=10"],
        )
        .unwrap();
        assert_eq!(
            s.text,
            "queue.limit = 10\n[mac]\ncw_min = 15\n[[flow]]\nsrc = 1\n[[flow]]\nrate = \"1Mbps\"\nsrc = 2\n"
        );
        let doc: toml::Table = toml::from_str(&s.text).unwrap();
        assert_eq!(doc["queue"]["limit"].as_integer(), Some(10));
    }

    #[test]
    fn wildcard_sets_every_flow() {
        let s = apply("[[flow]]\nrate = \"1Mbps\"\n[[flow]]\nsrc = 2\n", &["flow.*.rate=3Mbps"]).unwrap();
        assert_eq!(s.text, "[[flow]]\nrate = \"3Mbps\"\n[[flow]]\nrate = \"3Mbps\"\nsrc = 2\n");
    }

    #[test]
    fn dotted_and_inline_tables() {
        let s = apply(
            "radio.tx_power = \"1W\"\nmac = { cw_min = 3 }\n",
            &["radio.rx_range=200m", "mac.cw_max=7", "mac.cw_min=1"],
        )
        .unwrap();
        let doc: toml::Table = toml::from_str(&s.text).unwrap();
        assert_eq!(doc["radio"]["rx_range"].as_str(), Some("200m"));
        assert_eq!(doc["mac"]["cw_max"].as_integer(), Some(7));
        assert_eq!(doc["mac"]["cw_min"].as_integer(), Some(1));
    }

    #[test]
    fn bad_overrides() {
        let e = apply("[mac]\n", &["mac.data_rate"]).unwrap_err();
        assert!(e.msg.contains("expected key=value"), "{e:?}");
        let e = apply("[[flow]]\nsrc = 1\n", &["flow.3.rate=1Mbps"]).unwrap_err();
        assert!(e.msg.contains("the file has 1 [[flow]] section "), "{e:?}");
        let e = apply("[[flow]]\nsrc = 1\n", &["flow.rate=1Mbps"]).unwrap_err();
        assert!(e.msg.contains("by number"), "{e:?}");
        let e = apply("[mac]\nx = 1\n", &["mac=3"]).unwrap_err();
        assert!(e.msg.contains("is a section"), "{e:?}");
        let e = apply("[mac]\nx = 1\n", &["mac.x.y=3"]).unwrap_err();
        assert!(e.msg.contains("single value"), "{e:?}");
        let e = apply("", &["flow.0.rate=3"]).unwrap_err();
        assert!(e.msg.contains("does not exist"), "{e:?}");
        let e = apply("", &["mac..x=3"]).unwrap_err();
        assert!(e.msg.contains("key path"), "{e:?}");
        assert_eq!(e.at, At::Override(0));
    }

    #[test]
    fn suggestions_for_typos() {
        assert_eq!(closest("rx_rnge", &["rx_range", "cs_range"]), Some("rx_range"));
        assert_eq!(closest("radi", &["run", "radio"]), Some("radio"));
        assert_eq!(closest("zzz", &["run", "radio"]), None);
        assert_eq!(edit_distance(&['a', 'b'], &[]), 2);
    }

    #[test]
    fn override_values() {
        assert_eq!(value_text(" 5 "), "5");
        assert_eq!(value_text("11Mbps"), "\"11Mbps\"");
        assert_eq!(value_text("[[2,1,0]]"), "[[2,1,0]]");
        assert_eq!(value_text("a\"b"), "'a\"b'");
        assert_eq!(value_text(""), "\"\"");
    }
}
