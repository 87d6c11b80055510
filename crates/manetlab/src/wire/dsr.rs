//! DSR control messages (RFC 4728 §6) as plain `Copy` values.
//!
//! A message travels in an IP packet whose `sr` field is its DSR header:
//! the route record of a Route Request, or the source route that carries a
//! Route Reply or Route Error back. Sizes above IP (`l4_bytes`):
//!
//! | message | bytes above IP |
//! |---|---|
//! | Route Request, record of n addresses | 4 (DSR header) + 8 + 4n (+16 with a piggybacked error) |
//! | Route Reply of a route of n addresses | source route header + 4 + 4n |
//! | Route Error | source route header + 16 (+20 with an ELFN notice) |
//!
//! where the source route header is 4 + 4 × hops (`SourceRoute::header_bytes`).

use super::elfn::ELFN_BYTES;
use super::source_route::SourceRoute;
use super::{LinkFailureNotice, NodeId};

pub const DSR_FIXED_BYTES: u32 = 4;
pub const RREQ_OPTION_BYTES: u32 = 8;
pub const RREP_OPTION_BYTES: u32 = 4;
pub const RERR_OPTION_BYTES: u32 = 16;

/// A broken link `from` → `to` (reported by `from`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub from: NodeId,
    pub to: NodeId,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DsrMsg {
    /// Route Request (§6.2); the route record is the packet's `sr`, the
    /// initiator is `sr.hops[0]`. `last_error` is the initiator's most recent
    /// route error, piggybacked so that nodes drop it from their caches
    /// before answering (ns-2 `dsragent_propagate_last_error`).
    Rreq { target: NodeId, id: u32, last_error: Option<Link> },
    /// Route Reply (§6.3): the discovered route, initiator first; the packet's
    /// `sr` is the path the reply travels back on.
    Rrep { route: SourceRoute, from_cache: bool },
    /// Route Error (§6.4): the link `link` is broken. Travels on `sr` to the
    /// node that originated the failed packet's source route. `elfn`: the
    /// Explicit Link Failure Notice for that node's TCP sender, when the
    /// failed packet was a data segment it sent and asked for one
    /// (`wire/elfn.rs`).
    Rerr { link: Link, elfn: Option<LinkFailureNotice> },
}

/// Message kinds, for counters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MsgKind {
    Rreq,
    Rrep,
    Rerr,
}

impl MsgKind {
    pub fn name(self) -> &'static str {
        match self {
            MsgKind::Rreq => "RREQ",
            MsgKind::Rrep => "RREP",
            MsgKind::Rerr => "RERR",
        }
    }
}

impl DsrMsg {
    pub fn kind(&self) -> MsgKind {
        match self {
            DsrMsg::Rreq { .. } => MsgKind::Rreq,
            DsrMsg::Rrep { .. } => MsgKind::Rrep,
            DsrMsg::Rerr { .. } => MsgKind::Rerr,
        }
    }
    /// Size above IP of this message carried with DSR header `sr`.
    pub fn l4_bytes(&self, sr: &SourceRoute) -> u32 {
        match self {
            DsrMsg::Rreq { last_error, .. } => {
                DSR_FIXED_BYTES
                    + RREQ_OPTION_BYTES
                    + 4 * sr.len() as u32
                    + if last_error.is_some() { RERR_OPTION_BYTES } else { 0 }
            }
            DsrMsg::Rrep { route, .. } => sr.header_bytes() + RREP_OPTION_BYTES + 4 * route.len() as u32,
            DsrMsg::Rerr { elfn, .. } => {
                sr.header_bytes() + RERR_OPTION_BYTES + if elfn.is_some() { ELFN_BYTES } else { 0 }
            }
        }
    }
}
