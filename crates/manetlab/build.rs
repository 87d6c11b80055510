//! Records the git commit the library is built from (when built from a git
//! checkout with `git` available) as `MANETLAB_GIT_COMMIT`, for the
//! `manifest.json` of every output folder. Without git it is left unset
//! and the manifest says `null`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=MANETLAB_GIT_COMMIT={commit}");
        // Rebuild when HEAD moves (a commit, a checkout).
        for p in ["HEAD", "logs/HEAD"] {
            if let Some(path) = git(&["rev-parse", "--git-path", p]) {
                let path = std::path::Path::new(&path);
                let abs = if path.is_absolute() {
                    path.to_path_buf()
                } else {
                    std::env::current_dir().unwrap_or_default().join(path)
                };
                println!("cargo:rerun-if-changed={}", abs.display());
            }
        }
    }
}
