//! Interface queues between the network layer and the MAC.
//!
//! A queue discipline is a `QueueDisc`: it may serve packets out of arrival
//! order (fair queueing, backpressure), so the MAC asks it for the next
//! packet instead of popping a FIFO.

pub mod backpressure;
mod ifq;
pub mod lifetime;

pub use backpressure::{Backpressure, BackpressureConfig, Knowledge};
pub use droptail::DropTail;
pub use fq::FairQueue;
pub use ifq::Ifq;
pub use lifetime::Lifetime;
pub use priority::Priority;

use crate::sim::params::{ParamError, Params};
use crate::sim::RngStream;
use crate::wire::Packet;

#[derive(Clone, Debug, PartialEq)]
pub struct QueueConfig {
    pub kind: QueueKind,
    /// Packets the queue holds at most.
    pub limit: usize,
    /// Routing control packets go ahead of data (ns-2's PriQueue).
    pub control_first: bool,
    /// Hop-by-hop per-flow backpressure (`None` = off).
    pub backpressure: Option<BackpressureConfig>,
    /// Packets that waited longer than this are dropped instead of sent
    /// (ns-3's `WifiMacQueue` `MaxDelay`; `None` = no limit; `lifetime.rs`).
    pub max_delay: Option<crate::sim::Time>,
    /// The lifetime also ends the packet the MAC holds (ns-3.37: the MPDU
    /// being retried stays at the head of its `WifiMacQueue`;
    /// `mac/dcf/ns3.rs`). Only with `max_delay`.
    pub expire_in_flight: bool,
}

/// What a fair queue (or backpressure) classifies packets by.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ClassKey {
    /// IP source address.
    Src,
    /// IP destination address.
    Dst,
    /// The neighbour the packet is sent to.
    NextHop,
    /// The neighbour the packet was received from (the node itself for
    /// locally originated packets).
    PrevHop,
    /// (source, destination, protocol, source port, destination port).
    FiveTuple,
}

impl ClassKey {
    pub const ALL: [ClassKey; 5] =
        [ClassKey::Src, ClassKey::Dst, ClassKey::NextHop, ClassKey::PrevHop, ClassKey::FiveTuple];
    pub fn name(self) -> &'static str {
        match self {
            ClassKey::Src => "src",
            ClassKey::Dst => "dst",
            ClassKey::NextHop => "next-hop",
            ClassKey::PrevHop => "prev-hop",
            ClassKey::FiveTuple => "flow",
        }
    }
}

/// The registry of queue disciplines: one line per discipline, naming
/// the [`QueueKind`] variant (with its fields, if it has any) and the
/// module and type implementing [`QueueModel`] (its `kind` names, its
/// `[queue]` keys and their parser, how it is built). The macro declares
/// the module, the variant, the dispatch and the [`DISCIPLINES`] table
/// from which the scenario layer reads `[queue]`; nothing else in the tree
/// names a discipline.
macro_rules! disciplines {
    ($( $(#[$doc:meta])* $variant:ident
        $({ $( $(#[$fdoc:meta])* $field:ident : $fty:ty ),* $(,)? })?
        $(( $tty:ty ))?
        => $module:ident :: $model:ident, )*) => {
        $( pub mod $module; )*

        /// Which discipline the interface queue runs: one variant per
        /// registered discipline.
        #[derive(Copy, Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum QueueKind {
            $( $(#[$doc])* $variant $({ $( $(#[$fdoc])* $field : $fty ),* })? $(( $tty ))?, )*
        }

        impl QueueKind {
            /// The discipline's canonical `kind` name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( QueueKind::$variant { .. } => <$module::$model as QueueModel>::NAMES[0], )*
                }
            }
        }

        /// One node's interface queue (`ifq.rs`: a drop-tail FIFO is
        /// called directly).
        pub fn build(cfg: &QueueConfig, env: &QueueEnv) -> Ifq {
            Ifq::new(match cfg.kind {
                $( QueueKind::$variant { .. } => <$module::$model as QueueModel>::build(cfg, env), )*
            })
        }

        /// Every registered discipline, in registration order.
        pub const DISCIPLINES: &[Discipline] = &[
            $( Discipline {
                names: <$module::$model as QueueModel>::NAMES,
                keys: <$module::$model as QueueModel>::KEYS,
                parse: <$module::$model as QueueModel>::parse,
            }, )*
        ];
    };
}

disciplines! {
    /// First in, first out; a full queue refuses (`droptail.rs`).
    DropTail => droptail::DropTail,
    /// One sub-queue per class, served in turn (`queue/fq.rs`).
    Fair {
        key: ClassKey,
        /// Deficit round robin quantum in bytes; `None` = per-packet round robin.
        quantum: Option<u32>,
        /// Packets one class may hold (the total is `QueueConfig::limit`).
        class_limit: usize,
    } => fq::FairQueue,
    /// Strict priority: control, voice (DSCP EF), rest (`priority.rs`).
    Priority => priority::Priority,
    /// Random Early Detection (Floyd and Jacobson 1993, `queue/red.rs`).
    Red(red::RedParams) => red::Red,
}

/// A queue discipline as the scenario file and the kernel see it,
/// implemented beside the discipline and registered in [`disciplines!`].
pub trait QueueModel {
    /// Its `queue.kind` names, case-insensitive: canonical first, aliases
    /// after.
    const NAMES: &'static [&'static str];
    /// The `[queue]` keys it reads besides the common ones (`kind`,
    /// `limit`, `control_first`, `backpressure`); any other key is refused
    /// ("'queue.x' is not used by kind = ...").
    const KEYS: &'static [&'static str];
    /// Its variant of [`QueueKind`] from the `[queue]` section.
    fn parse(p: &dyn Params) -> Result<QueueKind, ParamError>;
    /// One node's queue; `cfg.kind` is this discipline's variant.
    fn build(cfg: &QueueConfig, env: &QueueEnv) -> Box<dyn QueueDisc>;
}

/// A registry entry: what the scenario layer needs to read `[queue]`.
pub struct Discipline {
    pub names: &'static [&'static str],
    pub keys: &'static [&'static str],
    pub parse: fn(&dyn Params) -> Result<QueueKind, ParamError>,
}

/// What a discipline may use when one node's queue is built.
pub struct QueueEnv {
    pub node: u32,
    /// The run's seed: a randomised discipline draws from
    /// `RngStream::new(seed, node, Purpose::Queue, 0)` ([`QueueEnv::rng`]).
    pub seed: u64,
}

impl QueueEnv {
    /// The node's queue random stream.
    pub fn rng(&self) -> RngStream {
        RngStream::new(self.seed, self.node as u64, crate::sim::Purpose::Queue, 0)
    }
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            kind: QueueKind::DropTail,
            limit: 50,
            control_first: true,
            backpressure: None,
            max_delay: None,
            expire_in_flight: false,
        }
    }
}

/// An interface queue discipline.
pub trait QueueDisc: Send {
    /// Offers a packet; on refusal the packet is handed back for accounting.
    /// A discipline may instead accept it and push out another packet
    /// (fair queueing: the longest class's last), returned as the `Err`;
    /// callers tell the two apart by `uid`.
    /// (`Packet` is a deliberately unboxed `Copy` value; with DSR's source
    /// route it is 152 bytes, above clippy's 128-byte `Err` threshold.)
    #[allow(clippy::result_large_err)]
    fn enqueue(&mut self, pkt: Packet) -> Result<(), Packet>;
    /// [`QueueDisc::enqueue`] of a copy of `*pkt`: a discipline that stores
    /// packets may copy it once, straight into its storage, instead of the
    /// caller making the copy the by-value call takes and the discipline
    /// moving it again.
    #[allow(clippy::result_large_err)]
    fn enqueue_ref(&mut self, pkt: &Packet) -> Result<(), Packet> {
        self.enqueue(*pkt)
    }
    /// Whether [`QueueDisc::enqueue`] would hand `pkt` itself back and
    /// change nothing (a full drop-tail queue): the kernel then drops it
    /// without moving ~150 bytes in and out of the call. `false` is always
    /// a correct answer (the packet is then offered as usual).
    fn refuses(&self, _pkt: &Packet) -> bool {
        false
    }
    /// Whether `enqueue(pkt)` followed at once by `dequeue()` would hand
    /// `pkt` back and leave the queue as it was (an empty FIFO): the kernel
    /// then gives it straight to an idle MAC. `false` is always correct.
    fn passes_through(&self, _pkt: &Packet) -> bool {
        false
    }
    /// The next packet the MAC should send, if any.
    fn dequeue(&mut self) -> Option<Packet>;
    /// The packet [`QueueDisc::dequeue`] would return now, read in place,
    /// or `None` when the queue is empty or the discipline does not say
    /// (the kernel then calls `dequeue`). Changes nothing.
    fn peek_next(&self) -> Option<&Packet> {
        None
    }
    /// Removes the packet [`QueueDisc::peek_next`] showed (only called
    /// right after it returned one): what `dequeue` does, without handing
    /// the packet out.
    fn discard_next(&mut self) {
        unreachable!("discard_next without peek_next")
    }
    /// The next packet, in the discipline's order, for which `eligible`
    /// holds; packets it refuses stay where they are (backpressure: a
    /// blocked flow does not block the others).
    fn dequeue_where(&mut self, eligible: &mut dyn FnMut(&Packet) -> bool) -> Option<Packet>;
    /// The next packet for an 802.11e MAC's access category `ac`. A queue
    /// without classes hands everything to AC_BE.
    fn dequeue_ac(&mut self, ac: crate::mac::edca::AccessCategory) -> Option<Packet> {
        match ac {
            crate::mac::edca::AccessCategory::BestEffort => self.dequeue(),
            crate::mac::edca::AccessCategory::Voice => None,
        }
    }
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Removes every packet whose next hop is `next_hop` (used when a link
    /// breaks and routing wants them back), appending them to `out`.
    fn drain_next_hop(&mut self, next_hop: u32, out: &mut Vec<Packet>);
    /// Visits every held packet (end-of-run audit).
    fn for_each(&self, f: &mut dyn FnMut(&Packet));
    /// The drop-tail FIFO itself, which the kernel's [`Ifq`] then calls
    /// directly (a copy of it); `None` for any other discipline.
    fn as_droptail(&self) -> Option<&DropTail> {
        None
    }
}

/// Moves every packet for `next_hop` from `q` to `out`, keeping the order
/// of both; returns how many moved. (Shared by the disciplines'
/// `drain_next_hop`.)
pub(crate) fn drain_to(q: &mut std::collections::VecDeque<Packet>, next_hop: u32, out: &mut Vec<Packet>) -> usize {
    let before = out.len();
    let mut i = 0;
    while i < q.len() {
        if q[i].next_hop == next_hop {
            out.push(q.remove(i).expect("index in range"));
        } else {
            i += 1;
        }
    }
    out.len() - before
}
