//! The kim study as a [`Study`]: every point of every part is planned once
//! (shared points run once), run with every seed, then each part is
//! analysed in turn (`parts.rs`).

use super::*;
use manetlab::study::report::Blocks;
use manetlab::study::sweep::Job;
use manetlab::study::{Analysis, Check, ReportDoc, Runs, Study, StudyError, StudyInfo, StudyOptions};
use manetlab::BuildError;

/// Name, paper and one line, as `manetlab study --list` shows them.
pub const INFO: StudyInfo = StudyInfo {
        name: "kim",
        paper: "voip-tcp-coexistence.txt, table 1 and figures 4-5",
        about: "VoIP calls and TCP on a 4-hop 802.11a string behind a gateway: burstiness, TCP variants, priority, gateway control",
    };

/// What the analysis of every part works from.
pub(super) struct Ctx {
    pub plan: Plan,
    pub z: Sizes,
    pub dur: Time,
    pub pubd: Published,
}

impl Ctx {
    pub fn fig5(&self, n: u32, gw: Gw) -> Setup {
        Setup { gw, ..Setup::string(n, reno(1), self.dur) }
    }
    pub fn scal(&self, f: u32, d: u64, gw: Gw) -> Setup {
        Setup { internet_delay: Time::from_ms(d), gw, ..Setup::string(self.pubd.window.calls, reno(f), self.dur) }
    }
}

fn seeds(opts: &StudyOptions) -> Vec<u64> {
    (0..opts.seeds(1, 3) as u64).map(|k| opts.seed + k).collect()
}

/// Every point of the study.
pub(super) fn build(opts: &StudyOptions) -> Ctx {
    let z = Sizes::new(opts.quick);
    let dur = z.duration;
    let pubd = published();
    let mut c = Ctx { plan: Plan::new(seeds(opts)), z, dur, pubd };
    let (z, plan) = (&c.z, &mut c.plan);
    // (a) table 1.
    for burst in 1..=5 {
        for &n in &z.table1_calls {
            plan.add(&Setup::string(n, Data::Bursty { burst }, dur));
        }
        plan.add(&Setup::string(5, Data::Bursty { burst }, dur));
    }
    // (b) capacity.
    for &n in &z.alone_calls {
        plan.add(&Setup::string(n, Data::None, dur));
    }
    plan.add(&Setup::string(0, reno(1), dur));
    plan.add(&Setup::string(c.pubd.capacity.mixed_calls, reno(c.pubd.capacity.mixed_tcp_flows), dur));
    for &n in &z.table1_calls {
        plan.add(&Setup::string(n, reno(1), dur));
    }
    // (c) figure 4.
    for v in VARIANTS {
        plan.add(&Setup::string(0, Data::Tcp { flows: 1, variant: v }, dur));
        for &n in &z.fig4_calls {
            plan.add(&Setup::string(n, Data::Tcp { flows: 1, variant: v }, dur));
        }
    }
    // (d) priority vs hops.
    for &h in &z.prio_hops {
        for &n in &z.prio_calls {
            plan.add(&Setup { hops: h, ..Setup::string(n, Data::None, dur) });
            plan.add(&Setup { hops: h, scheme: Scheme::Edca, ..Setup::string(n, Data::None, dur) });
            for &s in &z.prio_schemes {
                plan.add(&Setup { hops: h, scheme: s, ..Setup::string(n, reno(1), dur) });
            }
        }
    }
    let mut more = Vec::new();
    // (e) figure 5.
    for &n in &z.fig5_calls {
        more.push(c.fig5(n, Gw::None));
        for &w in &z.fig5_windows {
            more.push(c.fig5(n, Gw::Window(w)));
        }
        for &r in &z.fig5_rates {
            more.push(c.fig5(n, Gw::Pacing(r)));
            more.push(c.fig5(n, Gw::AckPacing(r)));
        }
    }
    // (f) scalability: 3 calls, F flows, Internet delay d.
    for &f in &z.scal_flows {
        for &d in &z.scal_delays {
            for &w in &z.scal_windows {
                more.push(c.scal(f, d, Gw::Window(w)));
            }
            for &r in &z.scal_rates {
                more.push(c.scal(f, d, Gw::Pacing(r)));
            }
        }
    }
    for s in &more {
        c.plan.add(s);
    }
    c
}

#[derive(serde::Serialize)]
pub struct Findings {
    pub seeds: Vec<u64>,
    pub duration_s: f64,
    /// table1, capacity, variants, priority, fig5, scalability.
    #[serde(flatten)]
    pub parts: serde_json::Map<String, serde_json::Value>,
    /// What the report shows, part by part.
    #[serde(skip)]
    blocks: Blocks,
}

/// The study: table 1 and figures 4-5 of voip-tcp-coexistence.txt.
pub struct Kim;

impl Study for Kim {
    const INFO: StudyInfo = INFO;
    type Outcome = RunSummary;
    type Findings = Findings;

    fn plan(&self, opts: &StudyOptions) -> Vec<Job> {
        build(opts).plan.jobs().to_vec()
    }

    fn outcome(&self, _: &StudyOptions, cfg: &SimConfig) -> Result<RunSummary, BuildError> {
        Ok(RunSummary::of(&manetlab::Simulation::new(cfg.clone())?.run()))
    }

    fn analyse(&self, opts: &StudyOptions, runs: &Runs<RunSummary>) -> Result<Analysis<Findings>, StudyError> {
        let mut c = build(opts);
        c.plan.fill(runs.outcomes.clone());
        let mut blocks = Blocks::default();
        let mut checks = Vec::new();
        let mut parts = serde_json::Map::new();
        super::parts::all(&c, &mut blocks, &mut checks, &mut parts);
        let (ok, total) = c.plan.all_audits_balance();
        checks.push(Check::new("every run's packet audit balances", ok == total, format!("{ok} of {total}")));
        let findings = Findings { seeds: seeds(opts), duration_s: c.dur.as_secs_f64(), parts, blocks };
        Ok(Analysis { findings, checks })
    }

    fn report(&self, opts: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
        doc.title("Kim study: VoIP and TCP coexistence in a wireless multihop string (voip-tcp-coexistence.txt)");
        doc.para(format!(
            "Server -- wired link (100 Mbit/s, Internet delay 30 ms round trip) -- gateway -- 4 hops of 802.11a at 12 Mbit/s, \
             200 m apart -- client; static routes; drop-tail 50 and DCF unless stated; RTS/CTS before frames over {RTS_THRESHOLD} bytes \
             (the data frames). Calls are two-way G.729a (50 packets/s, 20-byte \
             voice) between the gateway (the IP-PBX side) and the client; a call is supported at MOS >= 3.6 in both directions. \
             TCP: bulk, server -> client, 1460-byte segments, window up to {TCP_WINDOW} segments (\"unrestricted\"). \
             {} s runs (first 3 s not measured), {} seed(s) per point{}. A number of calls is *acceptable* when the mean over \
             seeds of the worst call's MOS is >= 3.6; *calls supported* is the largest count such that it and every smaller \
             count tried are acceptable.",
            f.duration_s,
            f.seeds.len(),
            if opts.quick { " (quick mode: fewer points, shorter runs)" } else { "" }
        ));
        doc.play(&f.blocks)?;
        doc.checks("Checks");
        Ok(())
    }
}
