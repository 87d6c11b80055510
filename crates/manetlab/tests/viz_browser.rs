//! The browser viewer in a real browser: headless Chromium opens `viz.html`
//! of a recorded run from disk and drives it through its own controls (the
//! page's self-test, `#selftest` in the address: the time slider, the flow
//! drop-down), then reports what it drew. Checked here against the
//! simulator and the ns-2 trace of the same run: no console errors; as many
//! nodes drawn as the scenario has; after scrubbing to t every node is where
//! its trajectory puts it (within a pixel) and is painted there; selecting a
//! flow highlights exactly the hops the trace says its latest delivered
//! packet took; a screenshot is not blank.
//!
//! Needs Chromium (`chromium`, `chromium-browser`, `google-chrome`, or the
//! path in `MANETLAB_CHROMIUM`); without one the test says so and passes
//! without checking (`.ci/run` installs Debian's `chromium`).

use manetlab::metrics::trace::{Ns2Format, Ns2Sink, Tee, TraceSink};
use manetlab::metrics::viz::{page, VizOptions, VizRecorder};
use manetlab::scenario::Scenario;
use manetlab::sim::Time;
use manetlab::Simulation;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const SCENARIO: &str = include_str!("data/viz.toml");

fn chromium() -> Option<String> {
    let mut candidates: Vec<String> = std::env::var("MANETLAB_CHROMIUM").into_iter().collect();
    candidates.extend(["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"].map(String::from));
    candidates.into_iter().find(|c| {
        Command::new(c).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
    })
}

/// Runs headless Chromium with `args` (a 90 s limit); returns (stdout, stderr).
fn run_chromium(bin: &str, dir: &Path, args: &[String]) -> (String, String) {
    let profile = dir.join("profile");
    let mut child = Command::new(bin)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"])
        .args(["--window-size=1280,900", "--force-device-scale-factor=1", "--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let o = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let e = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("chromium did not finish in 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (o.join().unwrap(), e.join().unwrap())
}

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);
impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The hops (transmitter, receiver) of flow `flow`'s latest packet
/// delivered at or before `t`, from the ns-2 trace: its destination agent's
/// `r` lines give the packet, the MAC `r` lines of that uid the hops.
/// Only deliveries inside the recording window (from `from` on) count: the
/// page knows nothing recorded before it.
fn trace_hops(trace: &str, flow: u32, dst: u32, from: u64, t: u64) -> BTreeSet<(u32, u32)> {
    let field = |l: &str, k: &str| -> Option<String> {
        let mut it = l.split_whitespace();
        while let Some(w) = it.next() {
            if w == k {
                return it.next().map(String::from);
            }
        }
        None
    };
    let ns = |s: &str| {
        let (a, b) = s.split_once('.').unwrap();
        a.parse::<u64>().unwrap() * 1_000_000_000 + b.parse::<u64>().unwrap()
    };
    let mut uid = None;
    for l in trace.lines().filter(|l| l.starts_with("r ")) {
        let at = ns(&field(l, "-t").unwrap());
        if at > t {
            break;
        }
        if at < from {
            continue;
        }
        if field(l, "-Nl").as_deref() == Some("AGT")
            && field(l, "-Ni").as_deref() == Some(&dst.to_string())
            && field(l, "-If").as_deref() == Some(&flow.to_string())
        {
            uid = field(l, "-Ii");
        }
    }
    let Some(uid) = uid else { return BTreeSet::new() };
    trace
        .lines()
        .filter(|l| l.starts_with("r ") && field(l, "-Nl").as_deref() == Some("MAC"))
        .filter(|l| field(l, "-Ii").as_deref() == Some(uid.as_str()))
        .filter(|l| !matches!(field(l, "-It").as_deref(), Some("RTS" | "CTS" | "ACK")))
        .map(|l| {
            let from = u32::from_str_radix(&field(l, "-Ms").unwrap(), 16).unwrap();
            (from, field(l, "-Ni").unwrap().parse().unwrap())
        })
        .collect()
}

#[test]
fn viewer_in_headless_chromium() {
    let Some(bin) = chromium() else {
        eprintln!("SKIPPED viewer_in_headless_chromium: no Chromium found (install Debian's `chromium`, or set MANETLAB_CHROMIUM)");
        return;
    };
    let sc = Scenario::from_str(SCENARIO, "viz.toml").unwrap();
    let cfg = sc.config(sc.seed());
    let trajs = cfg.mobility.trajectories(&cfg.nodes);
    let positions = cfg.nodes.clone();
    let flows: Vec<(u32, u32)> = cfg.flows.iter().map(|f| (f.src, f.dst)).collect();
    let mut sim = Simulation::new(cfg).unwrap();
    let opts = VizOptions { from: Time::from_secs(8), to: Some(Time::from_secs(16)), ..VizOptions::default() };
    let (rec, handle) = VizRecorder::new(sim.config(), &sc.name, opts);
    let buf = Shared::default();
    let sinks: Vec<Box<dyn TraceSink>> =
        vec![Box::new(rec), Box::new(Ns2Sink::new(buf.clone(), Ns2Format::New, &positions))];
    sim.set_tracer(Box::new(Tee(sinks)));
    sim.run();
    let trace = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    let json = handle.lock().unwrap().to_json();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viz-browser");
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("viz.html");
    std::fs::write(&html, page::html(&json)).unwrap();
    let url = format!("file://{}", html.display());

    // The self-test: scrub to three times, select each flow at each.
    let times = [9.25, 11.5, 14.75];
    let list = times.map(|t| t.to_string()).join(",");
    let (dom, log) = run_chromium(
        &bin,
        &dir,
        &["--virtual-time-budget=3000".into(), "--dump-dom".into(), format!("{url}#selftest&times={list}")],
    );
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "the page wrote to the console: {console:#?}");
    let start = dom.find("id=\"selftest\"").expect("the page has its self-test element");
    let body = &dom[start..];
    let text = &body[body.find('>').unwrap() + 1..body.find("</pre>").unwrap()];
    let text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    assert!(!text.is_empty(), "the self-test ran (page errors stop it); browser log:\n{log}");
    let r: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["errors"].as_array().unwrap().len(), 0, "page errors: {}", r["errors"]);
    let n = positions.len();
    assert_eq!(r["nodes"].as_u64().unwrap() as usize, n);
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.len(), times.len());
    let mut highlighted = 0;
    for (step, &ts) in steps.iter().zip(&times) {
        let t = step["t"].as_u64().unwrap();
        assert!((t as f64 / 1e9 - ts).abs() < 1e-3, "the slider moved to {t} ns for {ts} s");
        assert_eq!(step["drawn"].as_u64().unwrap() as usize, n, "nodes drawn at {ts} s");
        let v = &step["view"];
        let (scale, ox, oy) = (v["scale"].as_f64().unwrap(), v["ox"].as_f64().unwrap(), v["oy"].as_f64().unwrap());
        let mut painted = 0;
        for (k, tr) in trajs.iter().enumerate() {
            let p = tr.position(Time(t));
            let (ex, ey) = (ox + p.x * scale, oy - p.y * scale);
            let s = step["nodes"][k].as_array().unwrap();
            let (x, y) = (s[0].as_f64().unwrap(), s[1].as_f64().unwrap());
            assert!(
                (x - ex).abs() <= 1.0 && (y - ey).abs() <= 1.0,
                "node {k} at {ts} s: drawn at ({x:.2}, {y:.2}), trajectory says ({ex:.2}, {ey:.2})"
            );
            let rgb: Vec<u64> = s[2..5].iter().map(|c| c.as_u64().unwrap()).collect();
            painted += (rgb == [31, 119, 180]) as usize;
        }
        // Node discs are painted at those points (a neighbour's id label may
        // cover a centre now and then).
        eprintln!("{ts} s: {painted} of {n} node centres painted");
        assert!(painted * 10 >= n * 8, "{painted} of {n} node centres have the node colour at {ts} s");
        for (f, &(_, dst)) in flows.iter().enumerate() {
            let page: BTreeSet<(u32, u32)> = step["flows"][f]["hops"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| (h[0].as_u64().unwrap() as u32, h[1].as_u64().unwrap() as u32))
                .collect();
            let want = trace_hops(&trace, f as u32, dst, 8_000_000_000, t);
            assert_eq!(page, want, "flow {f} at {ts} s: highlighted hops vs the ns-2 trace");
            highlighted += !page.is_empty() as usize;
        }
    }
    eprintln!("{highlighted} flow/time pairs with a highlighted route; canvas variance {}", r["canvasVariance"]);
    assert!(highlighted >= times.len() * flows.len() / 2, "most flow/time pairs have a route: {highlighted}");
    assert!(r["canvasVariance"].as_f64().unwrap() > 100.0, "canvas variance {}", r["canvasVariance"]);
    assert!(r["panel"].as_u64().unwrap() > 100, "the node panel shows node 0's state");

    // A screenshot is not blank.
    let png_path = dir.join("shot.png");
    let _ = std::fs::remove_file(&png_path);
    run_chromium(
        &bin,
        &dir,
        &[
            "--virtual-time-budget=2000".into(),
            format!("--screenshot={}", png_path.display()),
            format!("{url}#t=11.5&flow=0&node=3"),
        ],
    );
    let decoder = png::Decoder::new(std::fs::File::open(&png_path).expect("chromium wrote the screenshot"));
    let mut reader = decoder.read_info().unwrap();
    let mut img = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut img).unwrap();
    let ch = info.color_type.samples();
    let px: Vec<f64> =
        img[..info.buffer_size()].chunks(ch).map(|p| (p[0] as f64 + p[1] as f64 + p[2] as f64) / 3.0).collect();
    let mean = px.iter().sum::<f64>() / px.len() as f64;
    let var = px.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / px.len() as f64;
    let colours: BTreeSet<&[u8]> = img[..info.buffer_size()].chunks(ch).collect();
    eprintln!("screenshot: variance {var:.1}, {} colours", colours.len());
    assert!((info.width, info.height) == (1280, 900), "{}x{}", info.width, info.height);
    assert!(var > 100.0 && colours.len() > 50, "screenshot variance {var:.1}, {} colours", colours.len());
}
