//! Link flags of the `manetlab` binary.
//!
//! `-no-pie` (x86-64 Linux, GNU toolchain): the executable is loaded at a
//! fixed address, so the dynamic loader has no relative relocations to
//! apply at start (5,880 in a position-independent build: every pointer in
//! `.data.rel.ro`, 111 KB, written and so copied page by page, ~34 page
//! faults, in every process). The code is the same (it is compiled
//! position-independent either way; only the link differs), so a run's
//! instructions are unchanged; what goes is the executable's own address
//! randomisation (the shared libraries, stack and heap keep theirs).
//! docs/performance.md, session 21. `MANETLAB_PIE=1` at build time keeps a
//! position-independent executable.
fn main() {
    println!("cargo:rerun-if-env-changed=MANETLAB_PIE");
    let target = std::env::var("TARGET").unwrap_or_default();
    // A static build (`-C target-feature=+crt-static`) links `-static-pie`,
    // which `-no-pie` would contradict.
    let feats = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let static_crt = feats.split(',').any(|f| f == "crt-static");
    if target == "x86_64-unknown-linux-gnu" && !static_crt && std::env::var_os("MANETLAB_PIE").is_none_or(|v| v != "1")
    {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
