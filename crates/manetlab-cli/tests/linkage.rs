//! What the `manetlab` binary loads at start. Every process paid the
//! dynamic loader's work for fontconfig, FreeType and their dependencies
//! (png, zlib, brotli, expat: 11 shared objects, ~0.3 ms of a short run's
//! ~2.3 ms CPU) although only figures use them; since session 21
//! (docs/performance.md) FreeType is built in (`.cargo/config.toml`) and
//! fontconfig is opened when the first figure is drawn (plotters'
//! `fontconfig-dlopen`). This checks the binary's `DT_NEEDED` entries.
// (x86-64 glibc builds only: a musl build is static, and other
// architectures' loaders have other names.)
#![cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]

fn u16_at(b: &[u8], o: usize) -> u64 {
    u16::from_le_bytes(b[o..o + 2].try_into().unwrap()) as u64
}
fn u32_at(b: &[u8], o: usize) -> u64 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as u64
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

/// The `DT_NEEDED` names of a 64-bit little-endian ELF file (the ELF-64
/// object file format: program headers at `e_phoff`, `PT_DYNAMIC` = 2,
/// `PT_LOAD` = 1; dynamic entries of 16 bytes, `DT_NEEDED` = 1,
/// `DT_STRTAB` = 5, whose address maps to the file through a `PT_LOAD`).
fn needed(elf: &[u8]) -> Vec<String> {
    assert_eq!(&elf[..5], b"\x7fELF\x02", "a 64-bit ELF file");
    let (phoff, phentsize, phnum) =
        (u64_at(elf, 0x20) as usize, u16_at(elf, 0x36) as usize, u16_at(elf, 0x38) as usize);
    let phdrs: Vec<(u64, u64, u64, u64)> = (0..phnum)
        .map(|i| {
            let p = phoff + i * phentsize;
            // p_type, p_offset, p_vaddr, p_filesz
            (u32_at(elf, p), u64_at(elf, p + 8), u64_at(elf, p + 16), u64_at(elf, p + 32))
        })
        .collect();
    let Some(&(_, dyn_off, _, dyn_size)) = phdrs.iter().find(|p| p.0 == 2) else {
        return Vec::new(); // static: nothing needed
    };
    let entries: Vec<(u64, u64)> = (0..dyn_size as usize / 16)
        .map(|i| (u64_at(elf, dyn_off as usize + 16 * i), u64_at(elf, dyn_off as usize + 16 * i + 8)))
        .take_while(|e| e.0 != 0)
        .collect();
    let strtab = entries.iter().find(|e| e.0 == 5).expect("DT_STRTAB").1;
    let (_, off, vaddr, _) =
        *phdrs.iter().find(|p| p.0 == 1 && p.2 <= strtab && strtab < p.2 + p.3).expect("DT_STRTAB in a PT_LOAD");
    let strtab = (strtab - vaddr + off) as usize;
    entries
        .iter()
        .filter(|e| e.0 == 1)
        .map(|e| {
            let s = &elf[strtab + e.1 as usize..];
            String::from_utf8_lossy(&s[..s.iter().position(|&c| c == 0).unwrap()]).into_owned()
        })
        .collect()
}

#[test]
fn the_binary_needs_only_the_c_runtime() {
    let elf = std::fs::read(env!("CARGO_BIN_EXE_manetlab")).unwrap();
    let needed = needed(&elf);
    assert!(needed.iter().any(|n| n.starts_with("libc.so")), "{needed:?}");
    for n in &needed {
        let base = n.split(".so").next().unwrap();
        assert!(
            ["libc", "libm", "libgcc_s", "libpthread", "libdl", "librt", "ld-linux-x86-64"].contains(&base),
            "the binary loads {n} at start (all: {needed:?}): figures' libraries belong at run time \
             (plotters' fontconfig-dlopen, FreeType built in by .cargo/config.toml)"
        );
    }
}
