//! Runs the `mrc` study through the same code path as `manetlab study mrc`
//! (`manetlab_studies::run`), for when the CLI is not built:
//! `cargo run --release -p manetlab-studies --example mrc_study -- OUT [--quick] [--runs N]`
//! (threads: RAYON_NUM_THREADS).
use manetlab_studies::StudyOptions;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args.first().expect("usage: mrc_study OUT [--quick] [--runs N]");
    let mut opts = StudyOptions::new(out);
    opts.quick = args.iter().any(|a| a == "--quick");
    opts.resume = args.iter().any(|a| a == "--resume");
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        opts.runs = Some(args[i + 1].parse().expect("--runs N"));
    }
    let t0 = std::time::Instant::now();
    let o = manetlab_studies::run("mrc", &opts, &|done, total| eprint!("\r{done}/{total} runs")).unwrap();
    eprintln!();
    let passed = o.checks.iter().filter(|c| c.passed).count();
    println!("{} runs, {:.1} s wall; {passed} of {} checks pass", o.runs, t0.elapsed().as_secs_f64(), o.checks.len());
}
