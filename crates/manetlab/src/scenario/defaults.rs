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

use super::Scenario;
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
/// configuration computed once (not once per candidate key).
struct Reference {
    scenario: Scenario,
    config: crate::config::SimConfig,
    options: String,
}

impl Reference {
    fn new(scenario: Scenario) -> Reference {
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

fn parse(doc: &DocumentMut, origin: &str) -> Option<Scenario> {
    Scenario::from_str(&doc.to_string(), origin).ok()
}

/// Tries the candidates of one absent key at `place`; keeps the first that
/// leaves the run unchanged.
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

/// `doc` (a scenario) with every applicable default written out. `origin`
/// anchors relative paths as when the scenario was loaded. A text that does
/// not check is left as it is.
pub fn fill(doc: &mut DocumentMut, origin: &str) {
    let Some(reference) = parse(doc, origin) else { return };
    let reference = &Reference::new(reference);
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
    let empty: Vec<String> =
        doc.iter().filter(|(_, v)| v.as_table().is_some_and(|t| t.is_empty())).map(|(k, _)| k.to_string()).collect();
    for k in empty {
        doc.remove(&k);
    }
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
}
