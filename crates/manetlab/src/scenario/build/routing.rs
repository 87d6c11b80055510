//! Section `[routing]`: `protocol` picks a registered protocol
//! (`net::routing::PROTOCOLS`), whose own parser, beside the protocol, reads
//! its keys through `sim::params::Params`; this file implements `Params`
//! over the TOML document (units, spans, messages) and refuses keys the
//! chosen protocol does not use.

use super::super::units::{DataRate, Size};
use super::*;
use crate::net::routing::{Protocol, PROTOCOLS};
use crate::sim::params::{Loc, Located, ParamError, ParamErrorKind, Params};
use serde::de::{DeserializeOwned, IntoDeserializer};
use toml_edit::{Item, TableLike};

pub(super) fn node_index(s: &Spanned<u32>, key: &str, n: u64) -> Result<u32, Diag> {
    let v = *s.get_ref();
    if v as u64 >= n {
        let nodes = if n == 1 { "1 node (0)".to_string() } else { format!("{n} nodes (0 to {})", n - 1) };
        return Err(err(ErrorKind::OutOfRange, s, format!("'{key}' = {v} is not a node: the topology has {nodes}")));
    }
    Ok(v)
}

/// A model's section of the document, read through [`Params`].
pub(super) struct TomlParams<'a> {
    pub section: &'a str,
    pub table: Option<&'a dyn TableLike>,
    pub root: &'a Table,
    pub nodes: u64,
}

fn param_kind(k: ErrorKind) -> ParamErrorKind {
    match k {
        ErrorKind::UnknownKey => ParamErrorKind::UnknownKey,
        ErrorKind::MissingKey => ParamErrorKind::MissingKey,
        ErrorKind::WrongType => ParamErrorKind::WrongType,
        ErrorKind::OutOfRange => ParamErrorKind::OutOfRange,
        ErrorKind::Inconsistent => ParamErrorKind::Inconsistent,
        _ => ParamErrorKind::BadValue,
    }
}

/// A model's error as a located diagnostic.
/// Refuses a key of `table` that is not in `allowed`, at its position, with
/// the list of the keys the section takes (serde's wording).
pub(super) fn refuse_unknown_keys(root: &Table, table: Option<&dyn TableLike>, allowed: &[&str]) -> Result<(), Diag> {
    if let Some(t) = table {
        for (k, _) in t.iter() {
            if !allowed.contains(&k) {
                let span = t.get_key_value(k).and_then(|(key, _)| key.span());
                let list: Vec<String> = allowed.iter().map(|a| format!("`{a}`")).collect();
                return Err(super::super::source::describe_de(
                    root,
                    &format!("unknown field `{k}`, expected one of {}", list.join(", ")),
                    span,
                ));
            }
        }
    }
    Ok(())
}

pub(super) fn diag(e: ParamError) -> Diag {
    let kind = match e.kind {
        ParamErrorKind::UnknownKey => ErrorKind::UnknownKey,
        ParamErrorKind::MissingKey => ErrorKind::MissingKey,
        ParamErrorKind::WrongType => ErrorKind::WrongType,
        ParamErrorKind::BadValue => ErrorKind::BadValue,
        ParamErrorKind::OutOfRange => ErrorKind::OutOfRange,
        ParamErrorKind::Inconsistent => ErrorKind::Inconsistent,
    };
    Diag::new(kind, e.at.map_or(At::Nowhere, |l| At::Offset(l.0)), e.msg)
}

pub(super) fn loc<T>(s: &Spanned<T>) -> Loc {
    Loc(s.span().start)
}

fn located<T>(s: Spanned<T>) -> Located<T> {
    let at = loc(&s);
    Located { v: s.into_inner(), at }
}

impl TomlParams<'_> {
    /// Decodes one key with serde (units and spans as in the whole-file
    /// parse; errors worded by `describe_de`).
    fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, ParamError> {
        let Some(item) = self.table.and_then(|t| t.get(key)) else { return Ok(None) };
        let value = match item.clone().into_value() {
            Ok(v) => v,
            Err(_) => return Ok(None),
        };
        T::deserialize(value.into_deserializer()).map(Some).map_err(|e| {
            let d = super::super::source::describe_de(self.root, e.message(), e.span());
            let at = match d.at {
                At::Offset(o) => Some(Loc(o)),
                _ => None,
            };
            ParamError { kind: param_kind(d.kind), at, msg: d.msg }
        })
    }
}

impl Params for TomlParams<'_> {
    fn section(&self) -> &str {
        self.section
    }
    fn nodes(&self) -> u64 {
        self.nodes
    }
    fn duration(&self, key: &str) -> Result<Option<Located<Time>>, ParamError> {
        Ok(self.get::<Spanned<Duration>>(key)?.map(|s| Located { v: s.get_ref().0, at: loc(&s) }))
    }
    fn uint(&self, key: &str) -> Result<Option<Located<u32>>, ParamError> {
        Ok(self.get::<Spanned<u32>>(key)?.map(located))
    }
    fn flag(&self, key: &str) -> Result<Option<Located<bool>>, ParamError> {
        Ok(self.get::<Spanned<bool>>(key)?.map(located))
    }
    fn number(&self, key: &str) -> Result<Option<Located<f64>>, ParamError> {
        match self.get::<Spanned<f64>>(key)?.map(located) {
            Some(v) if !v.v.is_finite() => Err(ParamError::new(
                ParamErrorKind::BadValue,
                v.at,
                format!("'{}.{key}' must be a finite number", self.section),
            )),
            v => Ok(v),
        }
    }
    fn show(&self, t: Time) -> String {
        Duration(t).to_string()
    }
    fn bytes(&self, key: &str) -> Result<Option<Located<u32>>, ParamError> {
        Ok(self.get::<Spanned<Size>>(key)?.map(|s| Located { v: s.get_ref().0, at: loc(&s) }))
    }
    fn rate(&self, key: &str) -> Result<Option<Located<u64>>, ParamError> {
        Ok(self.get::<Spanned<DataRate>>(key)?.map(|s| Located { v: s.get_ref().0, at: loc(&s) }))
    }
    fn text(&self, key: &str) -> Result<Option<Located<String>>, ParamError> {
        Ok(self.get::<Spanned<String>>(key)?.map(located))
    }
    fn uint_lists(&self, key: &str) -> Result<Option<Located<Vec<Located<Vec<Located<u32>>>>>>, ParamError> {
        Ok(self.get::<Spanned<Vec<Spanned<Vec<Spanned<u32>>>>>>(key)?.map(|s| {
            let at = loc(&s);
            let v = s.into_inner().into_iter().map(|l| {
                let at = loc(&l);
                Located { v: l.into_inner().into_iter().map(located).collect(), at }
            });
            Located { v: v.collect(), at }
        }))
    }
}

/// A section read through a registry (routing protocols, queue
/// disciplines, MACs): refuses keys that neither the section (`common`)
/// nor any registered model reads, picks the model named by `selector`
/// (`names` of each entry, canonical first; absent: the first entry) and
/// refuses keys of other models. Returns the entry and the section as
/// [`Params`] for its parser.
#[allow(clippy::too_many_arguments)]
pub(super) fn select_model<'a, E>(
    root: &'a Table,
    section: &'static str,
    selector: &'static str,
    common: &'a [&'static str],
    entries: &'a [E],
    names: impl Fn(&'a E) -> &'a [&'static str],
    keys: impl Fn(&'a E) -> &'a [&'static str],
    n: u64,
) -> Result<(&'a E, TomlParams<'a>), Diag> {
    let item = root.get(section);
    let table = match item {
        None => None,
        Some(i) => match i.as_table_like() {
            Some(t) => Some(t),
            None => {
                let span = match i {
                    Item::Value(v) => v.span(),
                    _ => None,
                };
                return Err(super::super::source::describe_de(
                    root,
                    &format!("invalid type: {}, expected a map", i.type_name()),
                    span,
                ));
            }
        },
    };
    let p = TomlParams { section, table, root, nodes: n };
    let mut allowed: Vec<&str> = common.to_vec();
    allowed.push(selector);
    for k in entries.iter().flat_map(&keys) {
        if !allowed.contains(k) {
            allowed.push(k);
        }
    }
    refuse_unknown_keys(root, table, &allowed)?;
    let mut options: Vec<(&str, usize)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        options.push((names(e)[0], i));
    }
    for (i, e) in entries.iter().enumerate() {
        options.extend(names(e)[1..].iter().map(|&a| (a, i)));
    }
    let chosen = match (&p as &dyn Params).choice(selector, &options).map_err(diag)? {
        Some(e) => e.v,
        None => 0,
    };
    let entry = &entries[chosen];
    let given: Vec<(&str, Option<usize>)> = table
        .into_iter()
        .flat_map(|t| t.iter())
        .filter(|(k, _)| *k != selector && !common.contains(k))
        .map(|(k, i)| (k, i.as_value().and_then(|v| v.span()).map(|s| s.start)))
        .collect();
    let mut exempt: Vec<&str> = common.to_vec();
    exempt.push(selector);
    refuse_unused_keys_except(section, selector, names(entry)[0], keys(entry), &exempt, given)?;
    Ok((entry, p))
}

pub(super) fn routing(root: &Table, n: u64) -> Result<RoutingConfig, Diag> {
    let (protocol, p) = select_model(
        root,
        "routing",
        "protocol",
        &[],
        PROTOCOLS,
        |e: &Protocol| std::slice::from_ref(&e.name),
        |e: &Protocol| e.keys,
        n,
    )?;
    (protocol.parse)(&p).map_err(diag)
}
