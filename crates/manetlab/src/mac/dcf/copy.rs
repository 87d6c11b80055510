//! The DCF's copies of a packet written inline (session 22).
//!
//! A packet is 152 bytes; on baseline x86-64 LLVM writes a copy of up to
//! 128 bytes inline (eight 16-byte loads and stores) and calls `memcpy`
//! for anything larger: ~35 instructions a copy with the call and
//! glibc's size dispatch (`__memcpy_avx_unaligned_erms`, 29), against 20
//! inline. The DCF copies the packet of every frame it sends twice
//! (`load`: into its entity; `put_data_frame`: into the frame), so these
//! two copies are made here as a 128-byte and a 24-byte copy, each
//! written inline.

use crate::wire::Packet;
use std::mem::{size_of, MaybeUninit};

const SIZE: usize = size_of::<Option<Packet>>();
const HEAD: usize = 128;
const _: () = assert!(SIZE > HEAD);
// `Some(p)` is stored as `p`'s bytes (the discriminant in a niche of `p`):
// the sizes are equal, so the payload fills the whole value.
const _: () = assert!(size_of::<Option<Packet>>() == size_of::<Packet>());
// Both copies overwrite `*dst` without dropping it: sound only while a
// packet owns nothing (`Copy`).
const _: fn() = || {
    fn copy<T: Copy>() {}
    copy::<Packet>();
};

/// `SIZE` bytes from `s` to `d` as a 128-byte and a 24-byte copy, each
/// written inline.
///
/// # Safety
/// `s` valid for reads and `d` for writes of `SIZE` bytes, not overlapping.
#[inline(always)]
unsafe fn copy_bytes(d: *mut u8, s: *const u8) {
    // SAFETY: the caller's contract; `MaybeUninit` byte arrays carry
    // padding bytes as they are, unaligned reads and writes need no
    // alignment.
    unsafe {
        let head = std::ptr::read_unaligned(s as *const [MaybeUninit<u8>; HEAD]);
        let tail = std::ptr::read_unaligned(s.add(HEAD) as *const [MaybeUninit<u8>; SIZE - HEAD]);
        std::ptr::write_unaligned(d as *mut [MaybeUninit<u8>; HEAD], head);
        std::ptr::write_unaligned(d.add(HEAD) as *mut [MaybeUninit<u8>; SIZE - HEAD], tail);
    }
}

/// `*dst = *src`, byte for byte, in two copies LLVM writes inline.
#[inline(always)]
pub(super) fn copy_option(dst: &mut Option<Packet>, src: &Option<Packet>) {
    let s = src as *const Option<Packet> as *const u8;
    let d = dst as *mut Option<Packet> as *mut u8;
    // SAFETY: `s` and `d` point to two distinct `Option<Packet>`s of `SIZE`
    // bytes (`dst` is a unique reference, so they do not overlap), both
    // valid for reads / writes; the copy is done through `MaybeUninit`
    // byte arrays (padding included, never read as integers), unaligned;
    // after it `*dst` holds exactly the bytes of `*src`, a valid value of
    // the same type.
    unsafe { copy_bytes(d, s) }
}

/// `*dst = Some(*src)`, in two copies LLVM writes inline.
#[inline(always)]
pub(super) fn copy_some(dst: &mut Option<Packet>, src: &Packet) {
    let s = src as *const Packet as *const u8;
    let d = dst as *mut Option<Packet> as *mut u8;
    // SAFETY: as `copy_option`'s, `src` being a `Packet` of `SIZE` bytes
    // (the assertion above): `*dst` then holds the bytes of a valid
    // `Packet`, which as an `Option<Packet>` (same size, so the payload
    // at offset 0 and `None` a value no `Packet` takes) is `Some(*src)`.
    // The language guarantees this niche layout only for a few types
    // (`&T`, `Box`, `NonZero*`); for `Packet` it is what rustc does:
    // `tests::copies_are_assignments` and the debug assertion below check
    // it, and the equal sizes (asserted at compile time) leave the
    // payload no other offset.
    unsafe { copy_bytes(d, s) }
    debug_assert!(dst.as_ref().is_some_and(|p| std::ptr::eq(p as *const Packet as *const u8, d)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Body;
    use crate::sim::Time;

    /// Both copies give what an assignment gives, over packets of every
    /// body kind the wire has and from `None` and `Some` destinations.
    #[test]
    fn copies_are_assignments() {
        let bodies = [
            Body::Udp { sport: 1, dport: 2, seq: 3 },
            Body::Udp { sport: 65535, dport: 0, seq: u64::MAX },
        ];
        for (k, body) in bodies.into_iter().enumerate() {
            let p = Packet {
                uid: 7 + k as u64,
                src: 1,
                dst: 9,
                ttl: 3,
                dscp: 46,
                size: 1500,
                next_hop: 4,
                prev_hop: 2,
                created: Time(123_456_789),
                flow: 5,
                body,
                sr: Default::default(),
            };
            for start in [None, Some(Packet { uid: 99, ..p })] {
                let mut a = start;
                copy_some(&mut a, &p);
                assert_eq!(a, Some(p));
                let mut b = start;
                copy_option(&mut b, &Some(p));
                assert_eq!(b, Some(p));
                let mut c = start;
                copy_option(&mut c, &None);
                assert_eq!(c, None);
            }
        }
    }
}
