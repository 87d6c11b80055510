//! The gupta study as a [`Study`]: plan, run, analyse.

use super::*;
use manetlab::study::sweep::{Aggregate, Job};
use manetlab::study::{Analysis, Check, ReportDoc, Runs, Study, StudyError, StudyInfo};
use manetlab::BuildError;
use serde::Serialize;
use std::collections::BTreeMap;

/// Name, paper and one line, as `manetlab study --list` shows them.
pub const INFO: StudyInfo = StudyInfo {
    name: "gupta",
    paper: "backpressure-tcp-udp.txt, figures 2-6",
    about: "8 TCP clients starved by 2 UDP flows on a 13x13 grid: retry limits, fair queueing, backpressure",
};

#[derive(Deserialize)]
pub(super) struct Published {
    pub source: String,
    pub relative_goodput_percent: std::collections::BTreeMap<String, f64>,
    pub claims: std::collections::BTreeMap<String, f64>,
}

pub(super) fn published() -> Published {
    toml::from_str(include_str!("../../data/published/gupta.toml")).expect("data/published/gupta.toml is valid")
}

/// The schemes, cases, seeds and duration a run of the study uses.
pub struct Plan {
    pub schemes: Vec<Scheme>,
    pub cases: Vec<Case>,
    pub seeds: u32,
    pub duration: Time,
    /// Schemes run in the "UDP through the server" variant
    /// (`Routes::Pinned`), in the same cases.
    pub pinned: Vec<Scheme>,
}

impl Plan {
    pub fn of(opts: &StudyOptions) -> Plan {
        if opts.quick {
            Plan {
                schemes: vec![
                    Scheme::Default,
                    Scheme::Retry,
                    Scheme::Fq(ClassKey::Src),
                    Scheme::Fq(ClassKey::Dst),
                    Scheme::Bp { key: ClassKey::Src, k: 1, knowledge: Knowledge::Oracle },
                    Scheme::Tdma { fq: false },
                    Scheme::Tdma { fq: true },
                ],
                cases: vec![Case::Encircle],
                seeds: opts.runs.unwrap_or(3),
                duration: Time::from_secs(30),
                pinned: vec![Scheme::Default, Scheme::Fq(ClassKey::Src), Scheme::Fq(ClassKey::Dst)],
            }
        } else {
            Plan {
                schemes: Scheme::all(),
                cases: vec![Case::Encircle, Case::OpenSide],
                seeds: opts.runs.unwrap_or(10),
                duration: Time::from_secs(150),
                pinned: vec![Scheme::Default, Scheme::Retry, Scheme::Fq(ClassKey::Src), Scheme::Fq(ClassKey::Dst)],
            }
        }
    }
}

/// Results of one scheme in one case, over the seeds.
pub(super) struct Row {
    pub scheme: Scheme,
    pub case: Case,
    pub routes: Routes,
    pub outcomes: Vec<Outcome>,
    pub initial: f64,
}

impl Row {
    pub fn tcp(&self) -> Aggregate {
        Aggregate::of(self.outcomes.iter().map(|o| o.tcp_bps() / 1e3))
    }
    pub fn relative(&self) -> Aggregate {
        Aggregate::of(self.outcomes.iter().map(|o| 100.0 * o.tcp_bps() / self.initial))
    }
    pub fn udp_injected(&self) -> f64 {
        mean(self.outcomes.iter().map(|o| o.udp_injected.iter().sum::<u64>() as f64))
    }
    pub fn udp_delivered(&self) -> f64 {
        mean(self.outcomes.iter().map(|o| o.udp_delivered.iter().sum::<u64>() as f64))
    }
    pub fn server_forwarded(&self) -> f64 {
        mean(self.outcomes.iter().map(|o| o.server_forwarded as f64))
    }
    pub fn ack_share(&self) -> f64 {
        mean(self.outcomes.iter().map(|o| o.ack_share()))
    }
    pub fn udp_kbps(&self) -> f64 {
        mean(self.outcomes.iter().map(|o| o.udp_bps.iter().sum::<f64>() / 1e3))
    }
}

pub(super) fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        s / n as f64
    }
}

impl Plan {
    /// Initial (no UDP) runs of the pinned variant: one per retry setting
    /// the pinned schemes use.
    fn pinned_inits(&self) -> Vec<Scheme> {
        [Scheme::Default, Scheme::Retry]
            .into_iter()
            .filter(|&i| self.pinned.iter().any(|&s| (s == Scheme::Default) == (i == Scheme::Default)))
            .collect()
    }
}

/// Initial (no UDP) goodput, kbit/s.
#[derive(Serialize)]
pub struct Initial {
    pub default: f64,
    pub retry: f64,
    pub tdma: f64,
}

/// One row of results.json: a scheme in a case.
#[derive(Serialize)]
pub struct RowSummary {
    pub case: &'static str,
    pub scheme: String,
    pub tcp_kbps: f64,
    pub relative_percent: f64,
    pub relative_ci95: f64,
    pub udp_injected: f64,
    pub udp_delivered: f64,
    pub udp_kbps: f64,
    pub server_forwarded: f64,
    pub routes: &'static str,
    pub ack_share_percent: f64,
}

#[derive(Serialize)]
pub struct Findings {
    pub seeds: usize,
    pub duration_s: f64,
    pub initial_kbps: Initial,
    pub initial_pinned_kbps: BTreeMap<String, f64>,
    pub rows: Vec<RowSummary>,
    #[serde(skip)]
    pub(super) plan: Plan,
    #[serde(skip)]
    pub(super) results: Vec<Row>,
    /// Outcomes of the initial runs of the default scheme (figure 2).
    #[serde(skip)]
    pub(super) initial_default: Vec<Outcome>,
}

impl Findings {
    pub(super) fn row(&self, case: Case, s: Scheme) -> Option<&Row> {
        self.results.iter().find(|r| r.case == case && r.scheme == s && r.routes == Routes::Aodv)
    }
}

/// The study: figures 2-6 of backpressure-tcp-udp.txt.
pub struct Gupta;

impl Study for Gupta {
    const INFO: StudyInfo = INFO;
    type Outcome = Outcome;
    type Findings = Findings;

    fn plan(&self, opts: &StudyOptions) -> Vec<Job> {
        let plan = Plan::of(opts);
        let seeds: Vec<u64> = (0..plan.seeds as u64).map(|i| opts.seed + i).collect();
        let mut jobs = Vec::new();
        // Initial (no UDP) for each retry setting, and for TDMA (5 x 5 grid).
        for s in [Scheme::Default, Scheme::Retry, Scheme::Tdma { fq: false }] {
            for &seed in &seeds {
                jobs.push(Job::new(
                    format!("initial/{}/seed={seed}", s.id()),
                    config(s, Case::Encircle, false, seed, plan.duration),
                ));
            }
        }
        for &case in &plan.cases {
            for &s in &plan.schemes {
                for &seed in &seeds {
                    jobs.push(Job::new(
                        format!("{}/{}/seed={seed}", case.name(), s.id()),
                        config(s, case, true, seed, plan.duration),
                    ));
                }
            }
        }
        // "UDP through the server": initial (no UDP) for each retry setting the
        // pinned schemes use, then the schemes.
        let pinned_inits = plan.pinned_inits();
        for &s in &pinned_inits {
            for &seed in &seeds {
                jobs.push(Job::new(
                    format!("initial-pinned/{}/seed={seed}", s.id()),
                    config_with(s, Case::Encircle, false, seed, plan.duration, Routes::Pinned),
                ));
            }
        }
        for &case in &plan.cases {
            for &s in &plan.pinned {
                for &seed in &seeds {
                    jobs.push(Job::new(
                        format!("pinned/{}/{}/seed={seed}", case.name(), s.id()),
                        config_with(s, case, true, seed, plan.duration, Routes::Pinned),
                    ));
                }
            }
        }
        jobs
    }

    fn outcome(&self, _: &StudyOptions, cfg: &SimConfig) -> Result<Outcome, BuildError> {
        Outcome::measure(cfg)
    }

    fn analyse(&self, opts: &StudyOptions, runs: &Runs<Outcome>) -> Result<Analysis<Findings>, StudyError> {
        let plan = Plan::of(opts);
        let outcomes = &runs.outcomes;
        let n = plan.seeds as usize;
        let pinned_inits = plan.pinned_inits();
        let initial_default: Vec<Outcome> = outcomes[..n].to_vec();
        let initial_retry: Vec<Outcome> = outcomes[n..2 * n].to_vec();
        let initial_tdma: Vec<Outcome> = outcomes[2 * n..3 * n].to_vec();
        let init_mean = |v: &[Outcome]| mean(v.iter().map(|o| o.tcp_bps()));
        let (init_d, init_r, init_t) =
            (init_mean(&initial_default), init_mean(&initial_retry), init_mean(&initial_tdma));
        let mut rows = Vec::new();
        let mut i = 3 * n;
        for &case in &plan.cases {
            for &scheme in &plan.schemes {
                let initial = match scheme {
                    Scheme::Default => init_d,
                    Scheme::Tdma { .. } => init_t,
                    _ => init_r,
                };
                rows.push(Row { scheme, case, routes: Routes::Aodv, outcomes: outcomes[i..i + n].to_vec(), initial });
                i += n;
            }
        }
        let mut pinned_init = std::collections::BTreeMap::new();
        for &s in &pinned_inits {
            pinned_init.insert(s.id(), init_mean(&outcomes[i..i + n]));
            i += n;
        }
        for &case in &plan.cases {
            for &scheme in &plan.pinned {
                let initial =
                    pinned_init[&if scheme == Scheme::Default { Scheme::Default } else { Scheme::Retry }.id()];
                rows.push(Row { scheme, case, routes: Routes::Pinned, outcomes: outcomes[i..i + n].to_vec(), initial });
                i += n;
            }
        }
        let row =
            |case: Case, s: Scheme| rows.iter().find(|r| r.case == case && r.scheme == s && r.routes == Routes::Aodv);
        let prow =
            |case: Case, s: Scheme| rows.iter().find(|r| r.case == case && r.scheme == s && r.routes == Routes::Pinned);
        let audits_ok = outcomes.iter().all(|o| o.audit_balances);
        let _ = &rows;

        // Checks on case 1 (the paper's headline numbers).
        let c1 = Case::Encircle;
        let rel = |s: Scheme| row(c1, s).map(|r| r.relative().mean);
        let mut checks = Vec::new();
        let mut order = |what: &str, a: Scheme, b: Scheme, strict: bool| {
            if let (Some(x), Some(y)) = (rel(a), rel(b)) {
                let passed = if strict { x < y } else { x <= y };
                checks.push(Check {
                    what: format!("{what}: {} {} {}", a.label(), if strict { "<" } else { "<=" }, b.label()),
                    passed,
                    detail: format!("{x:.1}% vs {y:.1}% of initial"),
                });
            }
        };
        let bp1 = |key| Scheme::Bp { key, k: 1, knowledge: Knowledge::Oracle };
        order("paper ordering", Scheme::Default, Scheme::Retry, true);
        order("paper ordering", Scheme::Retry, Scheme::Fq(ClassKey::Src), true);
        order("paper ordering", Scheme::Fq(ClassKey::Src), Scheme::Fq(ClassKey::Dst), true);
        order("backpressure >= fair queueing", Scheme::Fq(ClassKey::Src), bp1(ClassKey::Src), false);
        order("backpressure >= fair queueing", Scheme::Fq(ClassKey::Dst), bp1(ClassKey::Dst), false);
        order("globally fair beats locally fair", Scheme::Fq(ClassKey::NextHop), Scheme::Fq(ClassKey::Src), true);
        order("globally fair beats locally fair", Scheme::Fq(ClassKey::PrevHop), Scheme::Fq(ClassKey::Src), true);
        if let (Some(fq), Some(bp)) = (row(c1, Scheme::Fq(ClassKey::Src)), row(c1, bp1(ClassKey::Src))) {
            let inj = 100.0 * bp.udp_injected() / fq.udp_injected();
            checks.push(Check {
                what: "backpressure: UDP sources inject far less than with FQ-src (paper: 22%)".into(),
                passed: inj < 50.0,
                detail: format!("injected {:.0} vs {:.0} ({inj:.0}%)", bp.udp_injected(), fq.udp_injected()),
            });
            let ratio = bp.udp_injected() / bp.udp_delivered().max(1.0);
            checks.push(Check {
                what: "backpressure: UDP injected / delivered (the source adapts to what is delivered)".into(),
                passed: true,
                detail: format!("{ratio:.1} (FQ-src: {:.1})", fq.udp_injected() / fq.udp_delivered().max(1.0)),
            });
        }
        if let (Some(fifo), Some(fq)) = (rel(Scheme::Tdma { fq: false }), rel(Scheme::Tdma { fq: true })) {
            checks.push(Check {
                // FIFO loses a quarter or more of the initial goodput and fair
                // queueing recovers part of it. Quick mode (30 s): 37% before
                // control packets could push data out of a full drop-tail
                // queue and HELLOs were sent every 9 s (routes broke under
                // saturation), 65% after; 150-s runs: 20% (case 1, 3 seeds).
                // docs/backpressure.md.
                what: "TDMA: a fair MAC alone is insufficient (FIFO < 75% of initial); fair queueing helps".into(),
                passed: fifo < 75.0 && fq > fifo,
                detail: format!("TDMA FIFO {fifo:.1}%, TDMA FQ-dst {fq:.1}% of the TDMA initial"),
            });
        }
        if let (Some(src), Some(dst)) = (prow(c1, Scheme::Fq(ClassKey::Src)), prow(c1, Scheme::Fq(ClassKey::Dst))) {
            let (x, y) = (src.relative().mean, dst.relative().mean);
            let wins = src.outcomes.iter().zip(&dst.outcomes).filter(|(a, b)| a.tcp_bps() < b.tcp_bps()).count();
            checks.push(Check {
                what: "with UDP through the server (pinned routes), FQ src < FQ dst".into(),
                passed: x < y,
                detail: format!(
                    "{x:.1}% vs {y:.1}% of initial, FQ dst ahead in {wins} of {n} seeds; ACK share of the server's \
                     frames {:.0}% vs {:.0}% (paper: up to 80% with FQ dst); UDP via server {:.0} / {:.0}",
                    src.ack_share(),
                    dst.ack_share(),
                    src.server_forwarded(),
                    dst.server_forwarded()
                ),
            });
        }
        checks.push(Check {
            what: "every run's packet audit balances".into(),
            passed: audits_ok,
            detail: String::new(),
        });

        let findings = Findings {
            seeds: n,
            duration_s: plan.duration.as_secs_f64(),
            initial_kbps: Initial { default: init_d / 1e3, retry: init_r / 1e3, tdma: init_t / 1e3 },
            initial_pinned_kbps: pinned_init.iter().map(|(k, v)| (k.clone(), v / 1e3)).collect(),
            rows: rows
                .iter()
                .map(|r| RowSummary {
                    case: r.case.name(),
                    scheme: r.scheme.id(),
                    tcp_kbps: r.tcp().mean,
                    relative_percent: r.relative().mean,
                    relative_ci95: r.relative().ci95,
                    udp_injected: r.udp_injected(),
                    udp_delivered: r.udp_delivered(),
                    udp_kbps: r.udp_kbps(),
                    server_forwarded: r.server_forwarded(),
                    routes: r.routes.name(),
                    ack_share_percent: r.ack_share(),
                })
                .collect(),
            plan,
            results: rows,
            initial_default,
        };
        Ok(Analysis { findings, checks })
    }

    fn report(&self, opts: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
        super::report::write(opts, f, doc)
    }
}
