//! The counters of one DCF (`MacStats`; reports and `nodes.csv` show
//! every field, `output/nodes.rs`).

/// Counters of one MAC.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MacStats {
    pub data_sent: u64,
    pub rts_sent: u64,
    pub cts_sent: u64,
    pub ack_sent: u64,
    pub broadcast_sent: u64,
    /// Retransmission attempts (RTS or DATA sent again).
    pub retries: u64,
    /// RTS frames not answered by a CTS.
    pub rts_failures: u64,
    /// DATA frames not answered by an ACK.
    pub ack_failures: u64,
    /// Packets dropped after the retry limit (link-failure signals).
    pub retry_drops: u64,
    pub unicast_success: u64,
    pub duplicates: u64,
    /// Bytes this MAC put on the air (all frame kinds).
    pub bytes_on_air: u64,
    /// Time spent transmitting, ns.
    pub airtime_ns: u64,
    /// EDCA: access categories that lost an internal collision.
    pub internal_collisions: u64,
    /// EDCA: frames sent inside a TXOP without a new backoff.
    pub txop_continuations: u64,
}
