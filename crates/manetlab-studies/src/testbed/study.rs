//! The testbed study as a [`Study`]: plan, run, analyse.

use super::*;
use manetlab::study::sweep::Job;
use manetlab::study::{Analysis, Check, ReportDoc, Runs, Study, StudyError, StudyInfo, StudyOptions};
use manetlab::BuildError;
use serde::Serialize;

/// Name, paper and one line, as `manetlab study --list` shows them.
pub const INFO: StudyInfo = StudyInfo {
    name: "testbed",
    paper: "testbed-tcp-udp-interaction.txt, table 1 and figures 2, 3, 5, 7",
    about: "TCP/UDP interaction in the APE testbed scenarios S1-S3, threshold and SINR reception",
};

/// Runs per cell and the S1 rate sweep: quick 3 seeds, rates 1-5 Mbit/s for
/// 8 s; full 5 seeds, 0.5-5 Mbit/s for 30 s.
pub(super) struct Size {
    pub seeds: u64,
    pub sweep_rates: Vec<f64>,
    pub sweep_dur: Time,
}

impl Size {
    pub fn of(opts: &StudyOptions) -> Size {
        Size {
            seeds: opts.seeds(3, 5) as u64,
            sweep_rates: if opts.quick {
                vec![1.0, 2.0, 3.0, 4.0, 5.0]
            } else {
                (1..=10).map(|i| i as f64 * 0.5).collect()
            },
            sweep_dur: Time::from_secs(if opts.quick { 8 } else { 30 }),
        }
    }
}

/// Received vs transmitted rate (Mbit/s) of the S1 sweep, per model.
#[derive(Serialize)]
pub struct SweepCurve {
    pub model: &'static str,
    pub points: Vec<(f64, f64)>,
}

#[derive(Serialize)]
pub struct Findings {
    pub seeds: u64,
    pub quick: bool,
    pub cells: Vec<Cell>,
    pub sweep: Vec<SweepCurve>,
    pub observations: Vec<(String, String)>,
    pub diagnosis: Vec<Cell>,
    /// The first seed's series per (model, scenario), for the figures.
    #[serde(skip)]
    pub(super) series: Vec<(Model, Scenario, RunSeries)>,
}

impl Findings {
    pub(super) fn cell(&self, m: Model, s: Scenario) -> &Cell {
        &self.cells[Model::ALL.iter().position(|x| *x == m).unwrap() * 3 + s as usize]
    }
}

/// The study: table 1 and figures 2, 3, 5, 7 of testbed-tcp-udp-interaction.txt.
pub struct Testbed;

impl Study for Testbed {
    const INFO: StudyInfo = INFO;
    type Outcome = RunOut;
    type Findings = Findings;

    fn plan(&self, opts: &StudyOptions) -> Vec<Job> {
        let Size { seeds, sweep_rates, sweep_dur } = Size::of(opts);
        let dur = |s: Scenario| s.duration();
        let mut jobs = Vec::new();
        for model in Model::ALL {
            for scn in Scenario::ALL {
                for k in 0..seeds {
                    let seed = opts.seed + k;
                    let cfg = config(scn, model, seed, UDP_BPS, dur(scn), k == 0);
                    jobs.push(Job::new(format!("{}/{}/seed={seed}", model.name(), scn.name()), cfg));
                }
            }
            for &r in &sweep_rates {
                for k in 0..seeds.min(3) {
                    let seed = opts.seed + k;
                    let cfg = config(Scenario::S1, model, seed, r * 1e6, sweep_dur, false);
                    jobs.push(Job::new(format!("{}/S1-sweep/rate={r}/seed={seed}", model.name()), cfg));
                }
            }
        }
        for d in Diag::ALL {
            for &model in d.models() {
                for k in 0..seeds {
                    let seed = opts.seed + k;
                    jobs.push(Job::new(
                        format!("{}/{}/seed={seed}", model.name(), d.key()),
                        diag_config(d, model, seed),
                    ));
                }
            }
        }
        jobs
    }

    fn outcome(&self, opts: &StudyOptions, cfg: &SimConfig) -> Result<RunOut, BuildError> {
        // The first seed of every scenario keeps its series for the figures.
        run_one(cfg, cfg.seed == opts.seed && cfg.duration != Size::of(opts).sweep_dur)
    }

    fn analyse(&self, opts: &StudyOptions, runs: &Runs<RunOut>) -> Result<Analysis<Findings>, StudyError> {
        let Size { seeds, sweep_rates, sweep_dur } = Size::of(opts);
        let find = |key: &str| -> &RunOut { runs.get(key) };
        let pubd = published();
        let mut cells = Vec::new();
        for model in Model::ALL {
            for scn in Scenario::ALL {
                let rs: Vec<&RunOut> = (0..seeds)
                    .map(|k| find(&format!("{}/{}/seed={}", model.name(), scn.name(), opts.seed + k)))
                    .collect();
                cells.push(cell(scn, model, &rs));
            }
        }
        let c = |m: Model, s: Scenario| &cells[Model::ALL.iter().position(|x| *x == m).unwrap() * 3 + s as usize];
        let mut diag_cells: Vec<(Diag, Cell)> = Vec::new();
        for d in Diag::ALL {
            for &model in d.models() {
                let rs: Vec<&RunOut> =
                    (0..seeds).map(|k| find(&format!("{}/{}/seed={}", model.name(), d.key(), opts.seed + k))).collect();
                let mut x = cell(d.scenario(), model, &rs);
                x.scenario = d.about();
                diag_cells.push((d, x));
            }
        }
        let dc = |d: Diag, m: Model| diag_cells.iter().find(|(e, x)| *e == d && x.model == m.name()).map(|(_, x)| x);
        // Figure 2: received vs transmitted rate.
        let mut sweep_pts: Vec<(Model, Vec<(f64, f64)>)> = Vec::new();
        for model in Model::ALL {
            let mut pts = Vec::new();
            for &r in &sweep_rates {
                let rs: Vec<&RunOut> = (0..seeds.min(3))
                    .map(|k| find(&format!("{}/S1-sweep/rate={r}/seed={}", model.name(), opts.seed + k)))
                    .collect();
                let span = sweep_dur.as_secs_f64() - 1.0;
                let tx = rs.iter().map(|o| o.udp_transmitted as f64 * UDP_BYTES as f64 * 8.0 / span / 1e6).sum::<f64>()
                    / rs.len() as f64;
                let rx = rs.iter().map(|o| o.report.flows[0].goodput_bps / 1e6).sum::<f64>() / rs.len() as f64;
                pts.push((tx, rx));
            }
            sweep_pts.push((model, pts));
        }

        // Checks: the acceptance criterion, then the paper's observations.
        let mut checks = Vec::new();
        for model in Model::ALL {
            let d = |s| c(model, s).udp_delivery_pct.mean;
            checks.push(Check {
                what: format!("UDP delivery ratio S1 > S2 > S3 ({})", model.name()),
                passed: d(Scenario::S1) > d(Scenario::S2) && d(Scenario::S2) > d(Scenario::S3),
                detail: format!("{:.1} % > {:.1} % > {:.1} %", d(Scenario::S1), d(Scenario::S2), d(Scenario::S3)),
            });
        }
        let mut observations: Vec<(String, String)> = Vec::new();
        for model in Model::ALL {
            let m = model.name();
            for scn in [Scenario::S1, Scenario::S2] {
                let x = c(model, scn);
                observations.push((
                    format!("{}: UDP losses concentrated on hop 1 -> 0 ({m})", scn.name()),
                    format!(
                        "{}: loss 2->1 {:.2} %, 1->0 {:.2} %; jitter (sd of inter-packet time) 2->1 {:.1} ms, 1->0 {:.1} ms",
                        if x.udp_loss_10_pct.mean > x.udp_loss_21_pct.mean { "yes" } else { "no" },
                        x.udp_loss_21_pct.mean,
                        x.udp_loss_10_pct.mean,
                        x.jitter_21_ms.mean,
                        x.jitter_10_ms.mean
                    ),
                ));
            }
            if let Some(x) = dc(Diag::S1Hop10(245), model) {
                observations.push((
                    format!("S1 with hop 1 -> 0 near the receive range (245 m of 250): UDP losses concentrated on hop 1 -> 0 ({m})"),
                    format!(
                        "{}: delivery {:.2} %; loss 2->1 {:.2} %, 1->0 {:.2} %; jitter 2->1 {:.1} ms, 1->0 {:.1} ms",
                        if x.udp_loss_10_pct.mean > x.udp_loss_21_pct.mean { "yes" } else { "no" },
                        x.udp_delivery_pct.mean,
                        x.udp_loss_21_pct.mean,
                        x.udp_loss_10_pct.mean,
                        x.jitter_21_ms.mean,
                        x.jitter_10_ms.mean
                    ),
                ));
            }
            let (_, pts) = &sweep_pts[Model::ALL.iter().position(|x| *x == model).unwrap()];
            let best = pts.iter().copied().fold((0.0, 0.0), |a, p| if p.1 > a.1 { p } else { a });
            let max_tx = pts.iter().map(|p| p.0).fold(0.0, f64::max);
            observations.push((
                format!(
                    "S1 sweep: received rate peaks near {:.1} Mbit/s transmitted; transmitted never above {:.1} Mbit/s ({m})",
                    pubd.s1.best_transmitted_mbps.unwrap_or(f64::NAN),
                    pubd.s1.max_transmitted_mbps.unwrap_or(f64::NAN)
                ),
                format!(
                    "best received {:.2} Mbit/s at {:.2} Mbit/s transmitted; highest transmitted {:.2} Mbit/s",
                    best.1, best.0, max_tx
                ),
            ));
            let s3 = c(model, Scenario::S3);
            observations.push((
                format!("S3: TCP stalls at route changes ({m})"),
                format!(
                    "{}: longest TCP delivery gap around the 1->2 and 2->3 hop changes {:.2} s, in steady 1-hop periods {:.2} s",
                    if s3.tcp_gap_change_s.mean > 2.0 * s3.tcp_gap_steady_s.mean { "yes" } else { "no" },
                    s3.tcp_gap_change_s.mean,
                    s3.tcp_gap_steady_s.mean
                ),
            ));
            observations.push((
                format!("S3: UDP path broken at flow start, HELLO losses breaking routes ({m})"),
                format!(
                    "{}: UDP delivered {:.1} pkt/s in its first 10 s vs {:.1} pkt/s afterwards (16.3 offered); HELLO neighbour losses {:.1} per run, route discoveries {:.1}",
                    if s3.udp_rate_first10.mean < 0.8 * s3.udp_rate_after.mean { "yes" } else { "no" },
                    s3.udp_rate_first10.mean,
                    s3.udp_rate_after.mean,
                    s3.neighbours_lost,
                    s3.route_discoveries
                ),
            ));
            observations.push((
                format!(
                    "S3: route 1 -> 2 -> 3 hops at about {:?} s, back to 1 hop at the last ({m})",
                    pubd.s3.hop_change_s.clone().unwrap_or_default()
                ),
                {
                    let r = find(&format!("{m}/S3/seed={}", opts.seed));
                    let f = |o: Option<f64>| o.map_or("-".to_string(), |v| format!("{v:.1} s"));
                    format!(
                        "first seed: 2 hops from {}, 3 hops from {}, 1 hop again from {}; share of time at 1/2/3 hops (mean) {:.0}/{:.0}/{:.0} %",
                        f(r.tcp_hop_times[0]),
                        f(r.tcp_hop_times[1]),
                        f(r.tcp_hop_times[2]),
                        s3.tcp_hop_share[0] * 100.0,
                        s3.tcp_hop_share[1] * 100.0,
                        s3.tcp_hop_share[2] * 100.0
                    )
                },
            ));
        }

        let mut series = Vec::new();
        for model in Model::ALL {
            for scn in Scenario::ALL {
                if let Some(s) = &find(&format!("{}/{}/seed={}", model.name(), scn.name(), opts.seed)).series {
                    series.push((model, scn, s.clone()));
                }
            }
        }
        let _ = &sweep_rates;
        let findings = Findings {
            seeds,
            quick: opts.quick,
            cells,
            sweep: sweep_pts.into_iter().map(|(m, points)| SweepCurve { model: m.name(), points }).collect(),
            observations,
            diagnosis: diag_cells.into_iter().map(|(_, x)| x).collect(),
            series,
        };
        Ok(Analysis { findings, checks })
    }

    fn report(&self, opts: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
        super::report::write(opts, f, doc)
    }
}
