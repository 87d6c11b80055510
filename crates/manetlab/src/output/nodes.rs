//! `nodes`: one row per (replication, node) with the node's counters:
//! network layer, drops by reason, every MAC and receiver counter, and the
//! routing control messages it sent and received. The MAC and radio
//! columns follow the fields of `MacStats` and `RadioStats` (`mac_<field>`,
//! `radio_<field>`), so a new counter appears here and in the docs without
//! a second definition.

use super::flows::run_columns;
use super::table::{Column, Kind, Table, Value};
use crate::mac::dcf::MacStats;
use crate::metrics::DropReason;
use crate::phy::radio::RadioStats;
use crate::Report;

/// The numeric fields of a counter struct, by name (serde_json's order).
fn fields<T: serde::Serialize>(v: &T) -> Vec<(String, serde_json::Value)> {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::Object(m)) => m.into_iter().collect(),
        _ => Vec::new(),
    }
}

fn kind_of(v: &serde_json::Value) -> Kind {
    if v.is_u64() {
        Kind::U64
    } else {
        Kind::F64
    }
}

fn cell(v: &serde_json::Value, k: Kind) -> Value {
    match k {
        Kind::U64 => v.as_u64().map_or(Value::Null, Value::U64),
        _ => Value::opt(v.as_f64()),
    }
}

/// The columns of `nodes`.
pub fn nodes_columns() -> Vec<Column> {
    let mut c = run_columns();
    c.extend([
        Column::new("node", "", Kind::U64, "node number"),
        Column::new("x_m", "m", Kind::F64, "x position at time 0"),
        Column::new("y_m", "m", Kind::F64, "y position at time 0"),
        Column::new("originated", "", Kind::U64, "packets the node's transport handed to its network layer"),
        Column::new("forwarded", "", Kind::U64, "packets the node forwarded"),
        Column::new("delivered", "", Kind::U64, "packets delivered to the node's transport"),
        Column::new("link_failures", "", Kind::U64, "links the MAC gave up on (retry limit)"),
    ]);
    for r in DropReason::ALL {
        c.push(Column::new(
            format!("drops_{}", r.code().to_ascii_lowercase()),
            "",
            Kind::U64,
            format!("packets dropped at this node with ns-2 reason {}", r.code()),
        ));
    }
    for (name, v) in fields(&MacStats::default()) {
        let unit = if name.ends_with("_ns") {
            "ns"
        } else if name.starts_with("bytes") {
            "B"
        } else {
            ""
        };
        c.push(Column::new(format!("mac_{name}"), unit, kind_of(&v), format!("MAC counter {name} (MacStats)")));
    }
    for (name, v) in fields(&RadioStats::default()) {
        c.push(Column::new(format!("radio_{name}"), "", kind_of(&v), format!("receiver counter {name} (RadioStats)")));
    }
    c.extend([
        Column::new("routing_sent_packets", "", Kind::U64, "routing control packets sent (originated or forwarded)"),
        Column::new("routing_sent_bytes", "B", Kind::U64, "bytes of those packets"),
        Column::new("routing_received_packets", "", Kind::U64, "routing control packets received"),
    ]);
    c
}

/// `nodes`: one row per replication and node.
pub fn nodes(reports: &[Report]) -> Table {
    let cols = nodes_columns();
    let mut t = Table::new("nodes", cols.clone());
    for (k, r) in reports.iter().enumerate() {
        for n in &r.nodes {
            let mut row = vec![
                Value::U64(k as u64),
                Value::U64(r.seed),
                Value::U64(n.id as u64),
                Value::f(n.x),
                Value::f(n.y),
                Value::U64(n.originated),
                Value::U64(n.forwarded),
                Value::U64(n.delivered),
                Value::U64(n.link_failures),
            ];
            for reason in DropReason::ALL {
                row.push(Value::U64(n.drops.get(reason.code()).copied().unwrap_or(0)));
            }
            let at = row.len();
            for (i, (_, v)) in fields(&n.mac).into_iter().chain(fields(&n.radio)).enumerate() {
                row.push(cell(&v, cols[at + i].kind));
            }
            let sent = n.routing.sent_total();
            let received: u64 = n.routing.received.values().map(|c| c.packets).sum();
            row.extend([Value::U64(sent.packets), Value::U64(sent.bytes), Value::U64(received)]);
            t.push(row);
        }
    }
    t
}
