//! TCP over a static chain of 1..10 hops (tcp-manet-elfn.txt figure 1 setup).
use manetlab::config::{FlowConfig, SimConfig, Traffic};
use manetlab::phy::CaptureRule;
use manetlab::sim::Time;
use manetlab::transport::tcp::{DataSource, TcpConfig, TcpVariant};
use manetlab::Simulation;

fn main() {
    let rule = if std::env::args().any(|a| a == "sw") { CaptureRule::StrongerWins } else { CaptureRule::Ns2 };
    let secs: u64 = std::env::var("SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    for hops in 1..=10u32 {
        let mut g = Vec::new();
        let mut tos = 0;
        let mut rets = 0;
        for seed in 1..=3 {
            let mut cfg = SimConfig {
                duration: Time::from_secs(secs),
                nodes: SimConfig::chain_positions(hops as usize + 1, 200.0),
                seed,
                ..SimConfig::default()
            };
            cfg.radio.capture_rule = rule;
            cfg.warmup = Time::from_secs(10);
            let tcp = TcpConfig {
                max_window: 8,
                variant: TcpVariant::Reno,
                record_series: false,
                record_seq_log: false,
                ..TcpConfig::default()
            };
            cfg.flows = vec![FlowConfig {
                name: "tcp".into(),
                src: 0,
                dst: hops,
                traffic: Traffic::Tcp { tcp, data: DataSource::Bulk },
                start: Time::ZERO,
                stop: None,
            }];
            let r = Simulation::new(cfg).unwrap().run();
            assert!(r.audit.balances(), "{:?}", r.audit);
            g.push(r.flows[0].goodput_bps / 1e3);
            let t = r.flows[0].tcp.clone().unwrap();
            tos += t.timeouts;
            rets += r.mac_totals().retry_drops;
        }
        let m = g.iter().sum::<f64>() / g.len() as f64;
        println!(
            "{hops:2} hops: {m:7.1} kbit/s  {:?}  timeouts {tos} mac-drops {rets}",
            g.iter().map(|x| x.round()).collect::<Vec<_>>()
        );
    }
}
