//! One point of the mrc study's paired comparison with chosen options, for
//! diagnosing a row: per movement file, PDR and the data packets' fate.
//! `cargo run --release -p manetlab-studies --example mrc_diag -- PROTOCOL SPEED PAUSE [RUNS] [OPTION...]`
//! OPTION: `dsdv-ns3` (DsdvConfig::ns3 instead of the study's DSDV
//! settings), `dsdv-ns2` (DsdvConfig::ns2; `arp-ns2` also sets it), `adv-seq`, `break-nh` (one DSDV switch each), `arp-ns2`,
//! `arp-report` (ns-3's ARP, every loss to routing), `queue-ns2` (ns-2's 50-packet interface queue with control first).
use manetlab::net::arp::ArpConfig;
use manetlab::net::routing::RoutingConfig;
use manetlab::study::{Study, StudyOptions};
use manetlab_studies::mrc::{config_with, scale, ArpVariant, Movement, Mrc};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (p, v, pause) = (args[0].as_str(), args[1].parse::<f64>().unwrap(), args[2].parse::<f64>().unwrap());
    let runs: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(5);
    let has = |o: &str| args.iter().any(|a| a == o);
    let opts = StudyOptions::new("/tmp/mrc_diag");
    let s = scale(&opts);
    let mut tot = [0f64; 8];
    for run in 1..=runs {
        let arp = if has("arp-ns2") {
            ArpVariant::Ns2
        } else if has("arp-report") {
            ArpVariant::Ns3Reported
        } else {
            ArpVariant::Ns3
        };
        let mut cfg = config_with(p, v, pause, opts.seed + run - 1, s, arp, Movement::File(run));
        if let RoutingConfig::Dsdv(c) = &mut cfg.routing {
            if has("dsdv-ns3") {
                *c = manetlab::net::routing::DsdvConfig::ns3();
            }
            if has("dsdv-ns2") {
                *c = manetlab::net::routing::DsdvConfig::ns2();
            }
            c.advertise_new_seq |= has("adv-seq");
            c.break_from_next_hop_only |= has("break-nh");
        }
        if has("queue-ns2") {
            cfg.queue.limit = 50;
            cfg.queue.control_first = true;
        }
        if has("arp-4") {
            if let ArpConfig::Queue { max_requests, .. } = &mut cfg.arp {
                *max_requests = 4;
            }
        }
        let o = Mrc.outcome(&opts, &cfg).unwrap();
        let d = |k: &str| o.data_drops.get(k).copied().unwrap_or(0) as f64;
        let row = [
            o.received as f64,
            d("ARP"),
            d("RET") + d("CBK"),
            d("NRTE") + d("TTL") + d("LOOP"),
            d("IFQ"),
            o.arp_failures as f64,
            o.arp_dead_drops as f64,
            o.routing_tx as f64,
        ];
        println!(
            "run {run}: pdr {:.3} delivered {} arp {} mac {} noroute {} ifq {} arp_failures {} dead_drops {} routing_tx {}",
            o.pdr.unwrap_or(0.0),
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            row[5],
            row[6],
            row[7]
        );
        for (t, x) in tot.iter_mut().zip(row) {
            *t += x / runs as f64;
        }
    }
    println!("mean: delivered {:.0} (pdr {:.3}) arp {:.0} mac {:.0} noroute {:.0} ifq {:.0} arp_failures {:.0} dead_drops {:.0} routing_tx {:.0}",
        tot[0], tot[0] / 3986.0, tot[1], tot[2], tot[3], tot[4], tot[5], tot[6], tot[7]);
}
