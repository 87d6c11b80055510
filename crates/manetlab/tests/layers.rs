//! The import rule: no library module names a module of a layer above its
//! own. The order is `manetlab::LAYERS` (bottom first, documented in
//! `src/lib.rs` and docs/architecture.md). Every `crate::<module>` path in
//! the code of every source file under `src/` is checked (comments and test
//! modules, i.e. files named `tests.rs` or `*_tests.rs` (included with
//! `#[cfg(test)] #[path = ...] mod tests;`) and everything after a
//! `#[cfg(test)]` line, are skipped: tests may build whole runs).

use std::path::{Path, PathBuf};

/// A file of unit tests: `tests.rs`, or `<module>_tests.rs` beside the
/// module that includes it under `#[cfg(test)]`.
fn is_test_file(rel: &Path) -> bool {
    rel.file_name().and_then(|n| n.to_str()).is_some_and(|n| n == "tests.rs" || n.ends_with("_tests.rs"))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn layer_of(module: &str) -> Option<usize> {
    manetlab::LAYERS.iter().position(|l| l.contains(&module))
}

/// Top-level modules named by `crate::` paths in one line of code.
fn named(line: &str, out: &mut Vec<String>) {
    let code = match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    };
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + 7..];
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::X, b}`: every top-level name in the group.
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let top: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !top.is_empty() {
                    out.push(top);
                }
            }
        } else {
            let top: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            out.push(top);
        }
    }
}

fn violations(src: &Path) -> Vec<String> {
    let mut all = Vec::new();
    files(src, &mut all);
    all.sort();
    let mut bad = Vec::new();
    for f in &all {
        let rel = f.strip_prefix(src).unwrap();
        if is_test_file(rel) || rel == Path::new("lib.rs") {
            continue;
        }
        let first = rel.components().next().unwrap().as_os_str().to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        let own = layer_of(&module)
            .unwrap_or_else(|| panic!("{}: module '{module}' is not in manetlab::LAYERS", f.display()));
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            let mut names = Vec::new();
            named(line, &mut names);
            for m in names {
                let Some(l) = layer_of(&m) else { continue };
                if l > own {
                    bad.push(format!(
                        "{}:{}: '{module}' imports '{m}' (a layer above): {}",
                        rel.display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    bad
}

#[test]
fn no_module_imports_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bad = violations(&src);
    assert!(bad.is_empty(), "{} upward imports:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn the_checker_sees_upward_imports() {
    // The parser finds plain, grouped and inline paths, and ignores comments.
    let mut v = Vec::new();
    named("use crate::net::{Packet, BROADCAST};", &mut v);
    named("use crate::{sim::Time, metrics::Report};", &mut v);
    named("    let x = crate::transport::tcp::TcpSummary::default(); // crate::study", &mut v);
    assert_eq!(v, ["net", "sim", "metrics", "transport"]);
    assert!(layer_of("sim") < layer_of("phy"));
    assert!(layer_of("phy") < layer_of("mac") && layer_of("mac") < layer_of("net"));
    assert!(layer_of("net") < layer_of("transport") && layer_of("transport") < layer_of("metrics"));
    // Every top-level module of the crate has a layer.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for e in std::fs::read_dir(&src).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().trim_end_matches(".rs").to_string();
        if name != "lib" {
            assert!(layer_of(&name).is_some(), "{name} has no layer");
        }
    }
}

/// A file's lines before its test module (`#[cfg(test)]`, other
/// attributes, then `mod tests`): a `#[cfg(test)]` on anything else (a
/// test-only helper or a reference module near the top) does not end the
/// count (review of session 22: AODV's `mod.rs` was counted as 29 lines).
fn code_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if !l.trim_start().starts_with("#[cfg(test)]") {
            continue;
        }
        let next = lines[i + 1..].iter().map(|l| l.trim_start()).find(|l| !l.starts_with("#["));
        if next.is_some_and(|l| l.starts_with("mod tests")) {
            return i;
        }
    }
    lines.len()
}

#[test]
fn code_lines_stop_at_the_test_module_only() {
    let text = "a\n#[cfg(test)]\nmod reference;\nb\n#[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod tests;\n";
    assert_eq!(code_lines(text), 4);
    assert_eq!(code_lines("a\nb\n"), 2);
}

#[test]
fn no_library_file_is_over_800_lines_and_the_loop_is_under_400() {
    // Test code aside (`tests.rs`, `*_tests.rs`, and the test module at a file's end);
    // `study/` is being moved to its own crate and is not counted.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut long = Vec::new();
    for f in &all {
        let rel = f.strip_prefix(&src).unwrap();
        if rel.starts_with("study") || is_test_file(rel) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let code = code_lines(&text);
        if code > 800 {
            long.push(format!("{}: {code} lines", rel.display()));
        }
    }
    assert!(long.is_empty(), "{long:?}");
    let kernel = std::fs::read_to_string(src.join("simulation/mod.rs")).unwrap();
    assert!(kernel.lines().count() < 400, "the event loop file has {} lines", kernel.lines().count());
}
