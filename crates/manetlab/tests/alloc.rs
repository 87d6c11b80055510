//! The hot path allocates nothing per event: after a warm-up, simulating
//! hundreds of thousands more events performs only a handful of
//! allocations (amortised growth of the packet-fate table) with UDP over
//! static routes, and fewer than one per thousand events with TCP over AODV
//! (routing-table and TCP bookkeeping).

mod common;
use common::*;
use manetlab::config::SimConfig;
use manetlab::sim::Time;
use manetlab::Simulation;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// Allocations made by this thread. Per thread, because the test
    /// harness's own threads allocate while a test measures (printing
    /// another test's result, starting and ending its thread): a
    /// process-wide counter saw 2 allocations in a quiet run and 16 under
    /// load. A `const` cell has no destructor, so it needs no allocation.
    static MINE: Cell<u64> = const { Cell::new(0) };
}

/// This thread's allocations so far.
fn allocs() -> u64 {
    MINE.with(|c| c.get())
}

fn count() {
    // `try_with`: a thread's last deallocations may run after its locals.
    let _ = MINE.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One measurement at a time (the counters are per thread; this keeps the
/// two runs from competing for the cache).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn steady_state_allocates_almost_nothing() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The benchmark's saturated 2-hop chain (11 Mbit/s, 1470-byte CBR at 5 Mbit/s).
    let mut cfg = base(SimConfig::chain_positions(3, 200.0), 40);
    cfg.mac.phy = dsss(11.0, 1.0);
    cfg.mac.rts_threshold = None;
    cfg.flows = vec![cbr("u", 2, 0, 1470, 5e6, 0.0)];
    let mut sim = Simulation::new(cfg).unwrap();
    sim.run_until(Time::from_secs(10));
    let (a0, e0) = (allocs(), sim.events());
    sim.run_until(Time::from_secs(40));
    let (a1, e1) = (allocs(), sim.events());
    let (allocs, events) = (a1 - a0, e1 - e0);
    println!("{events} events, {allocs} allocations after the warm-up");
    assert!(events > 200_000, "{events}");
    // Only the packet-fate table grows (one byte per packet, doubling): a
    // few reallocations, never one per event or per packet.
    assert!(allocs <= 8, "{allocs} allocations in {events} events");
}

#[test]
fn tcp_over_aodv_steady_state_allocates_almost_nothing() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    use manetlab::net::routing::{AodvConfig, RoutingConfig};
    use manetlab::phy::CaptureRule;
    let mut cfg = manetlab::study::chain_table::config(4, 1, Time::from_secs(60), CaptureRule::Ns2);
    cfg.routing = RoutingConfig::Aodv(AodvConfig::default());
    let mut sim = Simulation::new(cfg).unwrap();
    sim.run_until(Time::from_secs(20));
    let (a0, e0) = (allocs(), sim.events());
    sim.run_until(Time::from_secs(60));
    let (allocs, events) = (allocs() - a0, sim.events() - e0);
    println!("TCP over AODV: {events} events, {allocs} allocations after the warm-up");
    assert!(events > 100_000, "{events}");
    assert!(allocs * 1000 < events, "{allocs} allocations in {events} events");
}
