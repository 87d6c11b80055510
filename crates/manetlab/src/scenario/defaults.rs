//! The defaults of the scenario keys, written out: [`fill`] adds every
//! default a scenario leaves out to its text, so `scenario.resolved.toml`
//! shows the whole setup (`docs/scenario.md` lists the same values).
//!
//! Each candidate key is kept only if the scenario with it checks and
//! builds exactly the same runs (same `SimConfig` for its seed, same
//! outputs asked for); keys that do not apply (AODV keys under DSR, TCP
//! keys on a CBR flow, a value that depends on another key) are left out.
//! So filling never changes a run, and a wrong entry here is skipped
//! rather than obeyed.
//!
//! The keys are tried in groups (issue 25: trying them one at a time
//! re-parsed the scenario ~110 times, 11 of the 15 ms a short run took):
//! the candidates of every section and flow go in together and are all
//! kept if the scenario still makes the same runs (one parse; one per
//! section until session 13); a group that does not is split in halves
//! until the keys at fault are found, each then tried alone with its
//! other values, as one at a time. The few keys that are often refused
//! ([`ALONE`]) are tried alone after the group. The search works on a copy
//! and the kept keys are written in the order one at a time writes them. A key the scenario's model refuses
//! ("'routing.salvage' is not used by protocol = \"aodv\"") takes the
//! rest of its family with it (every DSR key under AODV) without a parse
//! each. The test `grouped_fill_writes_what_one_at_a_time_wrote` checks
//! the result byte for byte against the one-at-a-time search
//! ([`fill_one_by_one`]) on every scenario of the repository.

use super::Scenario;
use std::cell::RefCell;
use toml_edit::{DocumentMut, Item, Table, Value};

/// (section, key, candidate values in TOML syntax; the first that leaves
/// the run unchanged is written).
type Entry = (&'static str, &'static str, &'static [&'static str]);

const SECTIONS: &[Entry] = &[
    ("run", "warmup", &["\"0s\""]),
    ("radio", "propagation", &["\"two-ray-ground\""]),
    ("radio", "reception", &["\"threshold\""]),
    ("radio", "fading", &["\"none\""]),
    ("radio", "tx_power", &["\"0.28183815W\""]),
    ("radio", "frequency", &["\"914MHz\""]),
    ("radio", "tx_gain", &["1"]),
    ("radio", "rx_gain", &["1"]),
    ("radio", "antenna_height", &["\"1.5m\""]),
    ("radio", "system_loss", &["1"]),
    ("radio", "rx_range", &["\"250m\""]),
    ("radio", "cs_range", &["\"550m\""]),
    ("radio", "capture_threshold", &["\"10dB\""]),
    ("radio", "capture_rule", &["\"ns2\""]),
    ("radio", "path_loss_exponent", &["2"]),
    ("radio", "reference_distance", &["\"1m\""]),
    ("radio", "shadowing_deviation", &["\"4dB\""]),
    ("radio", "shadowing", &["\"per-frame\""]),
    ("radio", "shadowing_decorrelation", &["\"20m\""]),
    ("radio", "nakagami_m", &["1"]),
    ("radio", "noise_figure", &["\"7dB\""]),
    ("mac", "protocol", &["\"dcf\""]),
    ("mac", "standard", &["\"dsss\""]),
    ("mac", "data_rate", &["\"2Mbps\"", "\"6Mbps\""]),
    ("mac", "basic_rate", &["\"2Mbps\"", "\"6Mbps\"", "\"1Mbps\""]),
    ("mac", "preamble", &["\"long\""]),
    ("mac", "rts_threshold", &["\"0B\""]),
    ("mac", "short_retry_limit", &["7"]),
    ("mac", "long_retry_limit", &["4"]),
    ("mac", "cw_min", &["31", "15"]),
    ("mac", "cw_max", &["1023"]),
    ("mac", "edca", &["false"]),
    ("mac", "rate_control", &["\"constant\""]),
    ("mac", "tdma_max_packet", &["1500"]),
    ("mac", "tdma_guard", &["\"20us\""]),
    ("queue", "kind", &["\"droptail\""]),
    ("queue", "limit", &["50"]),
    ("queue", "control_first", &["true"]),
    ("queue", "key", &["\"src\""]),
    ("routing", "protocol", &["\"static\""]),
    // AODV
    ("routing", "link_detection", &["\"both\""]),
    ("routing", "hello_interval", &["\"1s\"", "\"2s\""]),
    ("routing", "allowed_hello_loss", &["2"]),
    ("routing", "active_route_timeout", &["\"3s\""]),
    ("routing", "node_traversal_time", &["\"40ms\""]),
    ("routing", "net_diameter", &["35"]),
    ("routing", "ttl_start", &["1"]),
    ("routing", "ttl_increment", &["2"]),
    ("routing", "ttl_threshold", &["7"]),
    ("routing", "rreq_retries", &["2"]),
    ("routing", "rreq_ratelimit", &["10"]),
    ("routing", "rerr_ratelimit", &["10"]),
    ("routing", "local_repair", &["false"]),
    ("routing", "gratuitous_rrep", &["false"]),
    ("routing", "dest_only", &["false"]),
    ("routing", "buffer_size", &["64", "500"]),
    ("routing", "buffer_timeout", &["\"30s\""]),
    ("routing", "jitter", &["\"10ms\""]),
    ("routing", "rreq_timing", &["\"rfc\"", "\"ns2\""]),
    // DSR
    ("routing", "cache_replies", &["true"]),
    ("routing", "salvage", &["true"]),
    ("routing", "max_salvage", &["15"]),
    ("routing", "salvage_requests", &["1"]),
    ("routing", "buffer_check", &["true"]),
    ("routing", "snoop", &["true"]),
    ("routing", "ring_zero", &["true"]),
    ("routing", "propagate_last_error", &["true"]),
    ("routing", "nonprop_timeout", &["\"30ms\""]),
    ("routing", "request_period", &["\"500ms\""]),
    ("routing", "request_backoff_max", &["\"10s\""]),
    ("routing", "request_backoff_factor", &["4"]),
    ("routing", "request_backoff_persists", &["true"]),
    ("routing", "learn_at_destination", &["false"]),
    ("routing", "send_buffer", &["64"]),
    ("routing", "send_buffer_timeout", &["\"30s\""]),
    ("routing", "cache", &["\"path\""]),
    ("routing", "cache_size", &["64"]),
    ("routing", "flow_state", &["true"]),
    ("routing", "grat_replies", &["true"]),
    // DSDV
    ("routing", "update_interval", &["\"15s\""]),
    ("routing", "settling_time", &["\"5s\""]),
    ("routing", "mac_feedback", &["true"]),
    // OLSR
    ("routing", "tc_interval", &["\"5s\""]),
    ("routing", "willingness", &["3"]),
    ("arp", "mode", &["\"off\""]),
    ("arp", "max_requests", &["3"]),
    ("arp", "queue_limit", &["3"]),
    ("arp", "retry_interval", &["\"1s\""]),
    ("arp", "report_failure", &["true"]),
    ("arp", "dead_time", &["\"0s\""]),
    ("mobility", "model", &["\"static\""]),
    ("mobility", "pause", &["\"0s\""]),
    ("output", "trace", &["[]"]),
    ("output", "viz", &["false"]),
    ("output", "path_profile", &["false"]),
];

/// Keys of every `[[flow]]` (each kept only where it applies to the type).
const FLOW: &[(&str, &[&str])] = &[
    ("start", &["\"0s\""]),
    ("jitter", &["\"0s\""]),
    ("burst", &["1"]),
    ("variant", &["\"newreno\""]),
    ("mss", &["\"1460B\""]),
    ("max_window", &["20"]),
    ("initial_rto", &["\"3s\""]),
    ("min_rto", &["\"200ms\""]),
    ("max_rto", &["\"60s\""]),
    ("delayed_ack", &["false"]),
    ("timestamps", &["false"]),
    ("rto_reset_on_ack", &["false"]),
    ("initial_cwnd", &["1"]),
    ("limited_transmit", &["false"]),
    ("recovery", &["\"classic\""]),
    ("handshake", &["false"]),
    ("elfn", &["false"]),
    ("history_discounting", &["true"]),
];

/// The scenario the filled text must keep making, with its run's
/// configuration computed once (not once per candidate key): parsed from
/// the text to fill, or the scenario that text was written from
/// ([`fill_from_loaded`]).
struct Reference<'a> {
    scenario: std::borrow::Cow<'a, Scenario>,
    config: crate::config::SimConfig,
    options: String,
}

impl Reference<'_> {
    fn new(scenario: std::borrow::Cow<'_, Scenario>) -> Reference<'_> {
        let config = scenario.config(scenario.seed());
        let options = format!("{:?}{:?}", scenario.viz_options, scenario.sweep);
        Reference { scenario, config, options }
    }
}

/// Whether scenario `a` makes the same runs as the reference and asks for
/// the same outputs.
fn same(a: &Scenario, r: &Reference) -> bool {
    let b = &r.scenario;
    a.seed() == b.seed()
        && a.replications == b.replications
        && a.name == b.name
        && a.output_dir == b.output_dir
        && a.trace == b.trace
        && a.viz == b.viz
        && a.config(a.seed()) == r.config
        && format!("{:?}{:?}", a.viz_options, a.sweep) == r.options
}

#[cfg(test)]
thread_local! {
    /// Scenario parses by [`fill`] and [`fill_one_by_one`] on this thread.
    pub(crate) static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn parse(doc: &DocumentMut, origin: &str) -> Option<Scenario> {
    parse_text(&doc.to_string(), origin)
}

fn parse_text(text: &str, origin: &str) -> Option<Scenario> {
    #[cfg(test)]
    PARSES.with(|p| p.set(p.get() + 1));
    Scenario::from_str(text, origin).ok()
}

/// Tries the candidates of one absent key at `place`; keeps the first that
/// leaves the run unchanged.
#[cfg(test)]
fn try_key(
    doc: &mut DocumentMut,
    reference: &Reference,
    origin: &str,
    place: &dyn Fn(&mut DocumentMut) -> Option<&mut Table>,
    key: &str,
    values: &[&str],
) {
    if place(doc).is_none_or(|t| t.contains_key(key)) {
        return;
    }
    for v in values {
        let Ok(value) = v.parse::<Value>() else { continue };
        if let Some(t) = place(doc) {
            t.insert(key, Item::Value(value));
        }
        if parse(doc, origin).is_some_and(|s| same(&s, reference)) {
            return;
        }
        if let Some(t) = place(doc) {
            t.remove(key);
        }
    }
}

/// A family of keys a model does not use, seen by `build.rs::refuse_unused`
/// while the reference scenario was checked: the scenario refuses any of
/// them, whatever its value, as long as the selector (`protocol`, `type`,
/// `propagation`...) keeps the value it has, which every scenario that
/// makes the same runs does.
#[derive(Clone, Debug)]
pub(crate) struct Unused {
    /// `radio`, `routing`, `flow.0`, ...
    pub prefix: String,
    /// The keys the chosen model uses.
    pub uses: Vec<String>,
    pub family: Family,
}

/// The keys an [`Unused`] speaks for.
#[derive(Clone, Debug)]
pub(crate) enum Family {
    Keys(Vec<String>),
    /// Every key of the section but these.
    AllBut(Vec<String>),
}

impl Unused {
    fn refuses(&self, prefix: &str, key: &str) -> bool {
        self.prefix == prefix
            && !self.uses.iter().any(|u| u == key)
            && match &self.family {
                Family::Keys(k) => k.iter().any(|x| x == key),
                Family::AllBut(e) => !e.iter().any(|x| x == key),
            }
    }
}

thread_local! {
    /// The families seen while a scenario is checked (`None`: not
    /// recording; a parse is synchronous, on one thread). Every parse
    /// records its own ([`start_recording`]) and keeps them in the
    /// [`Scenario`].
    static UNUSED: RefCell<Option<Vec<Unused>>> = const { RefCell::new(None) };
}

/// Whether the families are being recorded (`build.rs` builds one only then).
pub(crate) fn recording() -> bool {
    UNUSED.with(|c| c.borrow().is_some())
}

/// Starts recording the families of a parse; returns what an enclosing
/// parse had recorded so far, for [`stop_recording`].
pub(crate) fn start_recording() -> Option<Vec<Unused>> {
    UNUSED.with(|c| c.borrow_mut().replace(Vec::new()))
}

/// The families recorded since [`start_recording`], which gave `outer`
/// (put back).
pub(crate) fn stop_recording(outer: Option<Vec<Unused>>) -> Vec<Unused> {
    UNUSED.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer)).unwrap_or_default()
}

pub(crate) fn record_unused(u: Unused) {
    UNUSED.with(|c| {
        if let Some(v) = c.borrow_mut().as_mut() {
            v.push(u);
        }
    })
}

/// The reference scenario, and the families of keys it refuses.
fn reference(doc: &DocumentMut, origin: &str) -> Option<(Scenario, Vec<Unused>)> {
    let s = parse(doc, origin)?;
    let unused = s.unused().map(<[Unused]>::to_vec).unwrap_or_default();
    Some((s, unused))
}

/// Keys tried alone rather than in a group: those whose default depends
/// on other keys (the standard, the transmit power) and is often refused
/// (a group holding a refused key costs a split per level).
const ALONE: &[(&str, &str)] = &[
    ("radio", "rx_range"),
    ("radio", "cs_range"),
    ("mac", "data_rate"),
    ("mac", "basic_rate"),
    ("mac", "cw_min"),
    ("mac", "cw_max"),
];

/// Whether candidate `c` cannot leave the run unchanged, seen from the
/// reference run's configuration without a parse: `build/radio.rs` copies
/// `mac.cw_min` / `mac.cw_max` into `MacConfig` as given (`None` when
/// absent), so a value written where the reference has none changes the
/// run, whatever the value (3 of the 7 parses of the benchmark scenarios).
/// Only ever refuses: a key wrongly refused here would be missing from the
/// file, never change a run (and `grouped_fill_writes_what_one_at_a_time_wrote`
/// would fail).
///
/// `radio.rx_range` / `radio.cs_range`: `build/radio.rs` sets the threshold
/// to the power received at that distance (`RadioConfig::set_ranges`, the
/// last step of the radio's build), so a distance at which the reference
/// radio's power is not exactly its threshold changes the run.
fn refused_by_reference(c: &Candidate, cfg: &crate::config::SimConfig) -> bool {
    let range = |threshold: f64| {
        c.values.iter().all(|v| {
            v.as_str()
                .and_then(|t| t.parse::<super::units::Distance>().ok())
                .is_none_or(|d| cfg.radio.rx_power(d.0) != threshold)
        })
    };
    match (c.place, c.key) {
        (Place::Section("mac"), "cw_min") => cfg.mac.cw_min.is_none(),
        (Place::Section("mac"), "cw_max") => cfg.mac.cw_max.is_none(),
        (Place::Section("radio"), "rx_range") => range(cfg.radio.rx_threshold_w),
        (Place::Section("radio"), "cs_range") => range(cfg.radio.cs_threshold_w),
        // `aodv/config.rs` refuses HELLO settings when no HELLOs are sent
        // (ns-2.35's build, `link_detection = "mac"`: the ns-2 benchmark
        // scenarios; 24 more parses each without this).
        (Place::Section("routing"), "hello_interval" | "allowed_hello_loss") => {
            matches!(&cfg.routing, crate::net::routing::RoutingConfig::Aodv(a) if !a.link_detection.uses_hello())
        }
        _ => false,
    }
}

/// Puts first the value of candidate `c` that the reference run has, where
/// the table's first value is refused because another key sets a different
/// default: `routing.rreq_timing` is `"ns2"` under `ns2_quirks = true`
/// (`aodv/config.rs`). One at a time writes the same value (the first one
/// tried is refused, the second kept); grouped, the refused first value
/// split the whole group (13 more parses on the ns-2 benchmark scenarios).
fn first_value_of_reference(c: &mut Candidate, cfg: &crate::config::SimConfig) {
    if let (Place::Section("routing"), "rreq_timing", crate::net::routing::RoutingConfig::Aodv(a)) =
        (c.place, c.key, &cfg.routing)
    {
        if a.rreq_timing == crate::net::routing::aodv::RreqTiming::Ns2 {
            c.values.reverse();
        }
    }
}

/// Where a candidate key goes.
#[derive(Clone, Copy)]
enum Place {
    Section(&'static str),
    Flow(usize),
}

impl Place {
    fn table(self, doc: &mut DocumentMut) -> Option<&mut Table> {
        match self {
            Place::Section(s) => doc.get_mut(s).and_then(Item::as_table_mut),
            Place::Flow(i) => doc.get_mut("flow").and_then(Item::as_array_of_tables_mut).and_then(|a| a.get_mut(i)),
        }
    }

    /// The key prefix in messages (`radio`, `flow.0`).
    fn prefix(self) -> String {
        match self {
            Place::Section(s) => s.to_string(),
            Place::Flow(i) => format!("flow.{i}"),
        }
    }
}

struct Candidate {
    place: Place,
    prefix: String,
    key: &'static str,
    /// The values that parse, in the table's order.
    values: Vec<Value>,
}

impl Candidate {
    /// A candidate whose values are parsed later ([`Candidate::parse`]):
    /// most candidates are ruled out first (a key the scenario has, a
    /// family its model refuses), and parsing the ~110 tables' values was
    /// ~0.3 M instructions of a short run's ~6 M (session 21).
    fn new(place: Place, key: &'static str) -> Candidate {
        Candidate { place, prefix: place.prefix(), key, values: Vec::new() }
    }

    /// Parses `values` (TOML text) into [`Candidate::values`], those that parse.
    fn parse(mut self, values: &[&str]) -> Candidate {
        self.values = values.iter().filter_map(|v| v.parse::<Value>().ok()).collect();
        self
    }
}

/// The grouped search (module docs): the same keys as trying them one at a
/// time, in the same order.
struct Search<'a> {
    doc: &'a mut DocumentMut,
    origin: &'a str,
    reference: &'a Reference<'a>,
    unused: Vec<Unused>,
    /// Checks made so far, and the text of the first if it passed.
    checks: usize,
    first: Option<String>,
}

impl Search<'_> {
    /// Whether the scenario makes the same runs. The text of the first
    /// check is kept when it passes ([`fill_with`]).
    fn same(&mut self) -> bool {
        let text = self.doc.to_string();
        self.checks += 1;
        let same = parse_text(&text, self.origin).is_some_and(|s| same(&s, self.reference));
        if same && self.checks == 1 {
            self.first = Some(text);
        }
        same
    }

    fn set(&mut self, c: &Candidate, v: &Value) {
        if let Some(t) = c.place.table(self.doc) {
            t.insert(c.key, Item::Value(v.clone()));
        }
    }

    fn unset(&mut self, c: &Candidate) {
        if let Some(t) = c.place.table(self.doc) {
            t.remove(c.key);
        }
    }

    /// Keeps, in order, every candidate of `group` that trying them one at
    /// a time would keep.
    fn group(&mut self, group: &[&Candidate]) {
        let group: Vec<&Candidate> =
            group.iter().copied().filter(|c| c.place.table(self.doc).is_some_and(|t| !t.contains_key(c.key))).collect();
        if group.is_empty() {
            return;
        }
        for c in &group {
            self.set(c, &c.values[0]);
        }
        if self.same() {
            return;
        }
        // Removed newest first: each key is the last of its table then.
        for c in group.iter().rev() {
            self.unset(c);
        }
        if let [c] = group[..] {
            for v in &c.values[1..] {
                self.set(c, v);
                if self.same() {
                    return;
                }
                self.unset(c);
            }
            return;
        }
        let (a, b) = group.split_at(group.len() / 2);
        self.group(a);
        self.group(b);
    }
}

/// `doc` (a scenario) with every applicable default written out. `origin`
/// anchors relative paths as when the scenario was loaded. A text that does
/// not check is left as it is.
pub fn fill(doc: &mut DocumentMut, origin: &str) -> Filled {
    let Some((reference, unused)) = reference(doc, origin) else { return Filled::Doc };
    let reference = &Reference::new(std::borrow::Cow::Owned(reference));
    // The movement file is read and parsed once, not once per parse.
    MOVEMENT_MEMO.with(|m| *m.borrow_mut() = Some(None));
    let filled = fill_with(doc, origin, reference, unused);
    MOVEMENT_MEMO.with(|m| *m.borrow_mut() = None);
    filled
}

/// [`fill`] of `doc`, the text `loaded` was checked from (its
/// `effective_toml`) with `[run] name`, `seed`, `replications` and `profile`
/// set to what `loaded` runs (`output/manifest.rs`), taking `loaded` as
/// the reference instead of parsing `doc` again (0.45 M instructions of a
/// short run's 5 M, session 23). Only where that parse is the same
/// scenario for what [`same`] compares: every key `doc` adds is set to the
/// value `loaded` has for it (a scenario is a function of its text, and
/// `loaded` was checked from that text without them: `run.name` gives the
/// name, otherwise the file's stem; `run.profile` is applied alone), the
/// seed is one TOML writes as it is (below 2^63), the replications are
/// `loaded`'s seeds, and there is no sweep (the axes' positions in the text
/// move with the added keys); `loaded` was parsed without a profile
/// selection and so holds the key families its models refuse. Returns
/// `None` (nothing done) otherwise. The tests
/// `output::manifest::tests::grouped_fill_writes_what_one_at_a_time_wrote`
/// (every scenario of the repository) and its `_in_every_variant`
/// (ignored: other profiles, routing protocols, OFDM) compare the file
/// written this way with the one `fill` writes from the parsed text.
pub fn fill_from_loaded(doc: &mut DocumentMut, loaded: &Scenario, seeds: &[u64]) -> Option<Filled> {
    let unused = loaded.unused()?;
    let seeds_of_loaded = seeds.len() == loaded.replications as usize && seeds.iter().copied().eq(loaded.seeds());
    if !seeds_of_loaded || seeds.first().is_none_or(|&s| s > i64::MAX as u64) {
        return None;
    }
    if !loaded.sweep.dims.is_empty() || !loaded.sweep.offsets.is_empty() {
        return None;
    }
    let reference = &Reference::new(std::borrow::Cow::Borrowed(loaded));
    MOVEMENT_MEMO.with(|m| *m.borrow_mut() = Some(None));
    let filled = fill_with(doc, loaded.origin(), reference, unused.to_vec());
    MOVEMENT_MEMO.with(|m| *m.borrow_mut() = None);
    Some(filled)
}

/// Adds the sections of [`SECTIONS`] that `doc` lacks, empty, in order.
fn add_sections(doc: &mut DocumentMut) {
    for (i, (section, _, _)) in SECTIONS.iter().enumerate() {
        if (i == 0 || SECTIONS[i - 1].0 != *section) && !doc.contains_key(section) {
            let mut t = Table::new();
            t.set_implicit(false);
            doc.insert(section, Item::Table(t));
        }
    }
}

/// Removes the sections that stayed empty (nothing applied).
fn remove_empty_sections(doc: &mut DocumentMut) {
    let empty: Vec<String> =
        doc.iter().filter(|(_, v)| v.as_table().is_some_and(|t| t.is_empty())).map(|(k, _)| k.to_string()).collect();
    for k in empty {
        doc.remove(&k);
    }
}

/// The grouped search (module docs) over the whole scenario: every
/// candidate but the [`ALONE`] ones, of every section and flow, goes in at
/// once (issue 25: one parse for what took one per section, 7 parses
/// instead of 17 on the benchmark scenarios; 2 with [`refused_by_reference`]), split in halves where the
/// scenario then makes other runs; the [`ALONE`] keys are then tried one by
/// one. The search runs on a copy; the kept keys are written into `doc` in
/// the order trying them one at a time writes them.
fn fill_with(doc: &mut DocumentMut, origin: &str, reference: &Reference<'_>, unused: Vec<Unused>) -> Filled {
    let mut scratch = doc.clone();
    add_sections(&mut scratch);
    let flows = scratch.get("flow").and_then(Item::as_array_of_tables).map_or(0, |a| a.len());
    let mut search = Search { doc: &mut scratch, origin, reference, unused, checks: 0, first: None };
    // The same candidates, in the same order, as when every one was parsed
    // first and then filtered: the filters that need no values go first.
    let all: Vec<Candidate> = SECTIONS
        .iter()
        .map(|(section, key, values)| (Candidate::new(Place::Section(section), key), *values))
        .chain(
            (0..flows)
                .flat_map(|f| FLOW.iter().map(move |(key, values)| (Candidate::new(Place::Flow(f), key), *values))),
        )
        .filter(|(c, _)| {
            !search.unused.iter().any(|u| u.refuses(&c.prefix, c.key))
                && c.place.table(search.doc).is_some_and(|t| !t.contains_key(c.key))
        })
        .map(|(c, values)| {
            let mut c = c.parse(values);
            first_value_of_reference(&mut c, &reference.config);
            c
        })
        .filter(|c| !c.values.is_empty() && !refused_by_reference(c, &reference.config))
        .collect();
    let list: Vec<&Candidate> = all.iter().collect();
    let alone = |c: &Candidate| {
        let section = match c.place {
            Place::Section(s) => s,
            Place::Flow(_) => "flow",
        };
        ALONE.contains(&(section, c.key))
    };
    let (alone, grouped): (Vec<&Candidate>, Vec<&Candidate>) = list.iter().partition(|c| alone(c));
    search.group(&grouped);
    let alone_none = alone.is_empty();
    for c in alone {
        search.group(&[c]);
    }
    // Every candidate kept at the first check, none left to try alone and
    // no section empty: `doc` is about to become the copy as it is (the
    // same sections added the same way, then every candidate inserted in
    // the list's order, which is the group's; nothing to remove), so the
    // text checked is the filled text (`Filled::Text`, one printing of the
    // document fewer; session 23).
    if search.checks == 1 && alone_none && !has_empty_section(search.doc) {
        if let Some(text) = search.first.take() {
            return Filled::Text(text);
        }
    }
    // What the search kept, in the order trying one at a time writes it.
    let kept: Vec<(&Candidate, Value)> = list
        .iter()
        .filter_map(|&c| {
            let t = c.place.table(search.doc)?;
            Some((c, t.get(c.key)?.as_value()?.clone()))
        })
        .collect();
    add_sections(doc);
    for (c, v) in kept {
        if let Some(t) = c.place.table(doc) {
            t.insert(c.key, Item::Value(v));
        }
    }
    remove_empty_sections(doc);
    Filled::Doc
}

/// Whether a section of `doc` is an empty table ([`remove_empty_sections`]
/// would remove it).
fn has_empty_section(doc: &DocumentMut) -> bool {
    doc.iter().any(|(_, v)| v.as_table().is_some_and(|t| t.is_empty()))
}

/// What [`fill`] left: the filled document, or (where the search's first
/// check was of the filled document as it is) its text, `doc.to_string()`
/// of what the document would have been; `doc` is then not filled.
#[derive(Debug, PartialEq)]
pub enum Filled {
    Doc,
    Text(String),
}

thread_local! {
    /// While [`fill`] runs: the movement file last parsed (its text, node
    /// count and result), so that each of the scenario's parses does not
    /// parse it again (`build/mobility.rs`; 0.5 M instructions per parse
    /// for the 30-node benchmark's file). `None`: not filling.
    static MOVEMENT_MEMO: RefCell<Option<Option<MovementMemo>>> = const { RefCell::new(None) };
}

type MovementMemo = (String, usize, crate::mobility::ns2::MovementScript);

/// `parse_script(text, n)`, from the memo while [`fill`] runs (a file that
/// does not parse is parsed again each time: its error is reported once).
pub(crate) fn parse_movement(
    text: &str,
    n: usize,
) -> Result<crate::mobility::ns2::MovementScript, crate::mobility::ns2::MovementError> {
    let hit = MOVEMENT_MEMO.with(|m| match &*m.borrow() {
        Some(Some((t, k, s))) if *k == n && t == text => Some(s.clone()),
        _ => None,
    });
    if let Some(s) = hit {
        return Ok(s);
    }
    let r = crate::mobility::ns2::parse_script(text, n);
    if let Ok(s) = &r {
        MOVEMENT_MEMO.with(|m| {
            if let Some(slot) = m.borrow_mut().as_mut() {
                *slot = Some((text.to_string(), n, s.clone()));
            }
        });
    }
    r
}

/// [`fill`] as it was first written: each candidate key tried alone (the
/// reference the grouped search is tested against).
#[cfg(test)]
pub(crate) fn fill_one_by_one(doc: &mut DocumentMut, origin: &str) -> Filled {
    let Some(reference) = parse(doc, origin) else { return Filled::Doc };
    let reference = &Reference::new(std::borrow::Cow::Owned(reference));
    for (section, key, values) in SECTIONS {
        if !doc.contains_key(section) {
            let mut t = Table::new();
            t.set_implicit(false);
            doc.insert(section, Item::Table(t));
        }
        let sec = *section;
        try_key(doc, reference, origin, &move |d| d.get_mut(sec).and_then(Item::as_table_mut), key, values);
    }
    // Sections that stayed empty (nothing applied) go again.
    remove_empty_sections(doc);
    let flows = doc.get("flow").and_then(Item::as_array_of_tables).map_or(0, |a| a.len());
    for i in 0..flows {
        for (key, values) in FLOW {
            try_key(
                doc,
                reference,
                origin,
                &move |d| d.get_mut("flow").and_then(Item::as_array_of_tables_mut).and_then(|a| a.get_mut(i)),
                key,
                values,
            );
        }
    }
    Filled::Doc
}
