//! Drop reasons, named as in ns-2 traces.

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// No route to the destination.
    Nrte,
    /// Interface queue full.
    Ifq,
    /// MAC retry limit exhausted.
    Ret,
    /// Lost in a collision at the receiver.
    Col,
    /// Received with errors (below threshold, or while transmitting).
    Err,
    /// TTL expired.
    Ttl,
    /// ARP could not resolve, or its buffer overflowed.
    Arp,
    /// Routing loop detected.
    Loop,
    /// Dropped by a link-failure callback.
    Cbk,
    /// Still held when the run ended.
    End,
    /// Duplicate frame discarded by the MAC.
    Dup,
    /// Not injected: the source's application was held back by backpressure.
    Bps,
    /// A gateway shaper's FIFO was full (`net/gateway.rs`).
    Pace,
}

impl DropReason {
    pub const ALL: [DropReason; 13] = [
        DropReason::Nrte,
        DropReason::Ifq,
        DropReason::Ret,
        DropReason::Col,
        DropReason::Err,
        DropReason::Ttl,
        DropReason::Arp,
        DropReason::Loop,
        DropReason::Cbk,
        DropReason::End,
        DropReason::Dup,
        DropReason::Bps,
        DropReason::Pace,
    ];
    /// The ns-2 trace code.
    pub fn code(self) -> &'static str {
        match self {
            DropReason::Nrte => "NRTE",
            DropReason::Ifq => "IFQ",
            DropReason::Ret => "RET",
            DropReason::Col => "COL",
            DropReason::Err => "ERR",
            DropReason::Ttl => "TTL",
            DropReason::Arp => "ARP",
            DropReason::Loop => "LOOP",
            DropReason::Cbk => "CBK",
            DropReason::End => "END",
            DropReason::Dup => "DUP",
            DropReason::Bps => "BPS",
            DropReason::Pace => "PACE",
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
}
