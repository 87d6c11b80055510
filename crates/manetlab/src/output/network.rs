//! `network`: one row per replication with the standard whole-network
//! MANET metrics (Broch, Maltz, Johnson, Hu & Jetcheva, "A performance
//! comparison of multi-hop wireless ad hoc network routing protocols",
//! MobiCom 1998): packet delivery ratio, (packet-weighted) mean delay,
//! routing overhead and normalized routing load, plus MAC counters and
//! drops by reason.

use super::flows::run_columns;
use super::table::{Column, Kind, Table, Value};
use crate::metrics::DropReason;
use crate::Report;

/// The columns of `network`.
pub fn network_columns() -> Vec<Column> {
    let mut c = run_columns();
    c.extend([
        Column::new("data_sent_packets", "", Kind::U64, "data packets sent by all flows' applications"),
        Column::new("data_received_packets", "", Kind::U64, "data packets received by all flows' applications"),
        Column::new("delivery_ratio", "", Kind::F64, "data_received_packets / data_sent_packets (null if none sent)"),
        Column::new("goodput_bps", "bit/s", Kind::F64, "sum of the flows' goodputs (null if the run has no flows)"),
        Column::new(
            "delay_mean_s",
            "s",
            Kind::F64,
            "mean one-way delay over every received data packet of every flow (null if none)",
        ),
        Column::new(
            "routing_packets",
            "",
            Kind::U64,
            "routing control packets transmitted, each hop counted (originated or forwarded)",
        ),
        Column::new("routing_bytes", "B", Kind::U64, "bytes of those routing control packets"),
        Column::new(
            "normalized_routing_load",
            "",
            Kind::F64,
            "routing_packets / data_received_packets (null if nothing was received)",
        ),
        Column::new("mac_data_sent", "", Kind::U64, "MAC DATA frame transmissions, retries included"),
        Column::new("mac_retries", "", Kind::U64, "MAC retransmission attempts (RTS or DATA)"),
        Column::new("radio_collisions", "", Kind::U64, "frames lost to collisions at receivers"),
    ]);
    for r in DropReason::ALL {
        c.push(Column::new(
            format!("drops_{}", r.code().to_ascii_lowercase()),
            "",
            Kind::U64,
            format!("packets (data and control) dropped with ns-2 reason {}, all nodes", r.code()),
        ));
    }
    c
}

/// `network`: one row per replication.
pub fn network(reports: &[Report]) -> Table {
    let mut t = Table::new("network", network_columns());
    for (k, r) in reports.iter().enumerate() {
        let sent: u64 = r.flows.iter().map(|f| f.sent_packets).sum();
        let got: u64 = r.flows.iter().map(|f| f.received_packets).sum();
        // Packet-weighted: each flow's mean times its packets.
        let delay_sum: f64 = r.flows.iter().filter_map(|f| f.delay_mean_s.map(|d| d * f.received_packets as f64)).sum();
        let routing = r.routing.sent_total();
        let mac = r.mac_totals();
        let radio = r.radio_totals();
        let mut row = vec![
            Value::U64(k as u64),
            Value::U64(r.seed),
            Value::U64(sent),
            Value::U64(got),
            Value::opt((sent > 0).then(|| got as f64 / sent as f64)),
            // Null without flows: no flow, no goodput to sum (and an empty
            // `f64` sum is -0.0).
            Value::opt((!r.flows.is_empty()).then(|| r.flows.iter().map(|f| f.goodput_bps).sum())),
            Value::opt((got > 0).then(|| delay_sum / got as f64)),
            Value::U64(routing.packets),
            Value::U64(routing.bytes),
            Value::opt((got > 0).then(|| routing.packets as f64 / got as f64)),
            Value::U64(mac.data_sent),
            Value::U64(mac.retries),
            Value::U64(radio.collisions),
        ];
        for reason in DropReason::ALL {
            let n: u64 = r.node_rows().filter_map(|nd| nd.drops.get(reason.code())).sum();
            row.push(Value::U64(n));
        }
        t.push(row);
    }
    t
}

/// Names of the metric columns of `network` (everything but replication
/// and seed), summarised in `network-summary`.
pub fn network_metrics() -> Vec<String> {
    network_columns().into_iter().skip(2).map(|c| c.name).collect()
}
