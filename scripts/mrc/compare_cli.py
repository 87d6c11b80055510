#!/usr/bin/env python3
"""The mrc comparison tables from `manetlab run` outputs (a stand-in for
`manetlab study mrc` when only the CLI is at hand; same scenario, seeds and
metric definitions as crates/manetlab-studies/src/mrc.rs).

Usage: compare_cli.py DIR
  DIR/out-PROTO-vSPEED-pPAUSE/network.csv from
  `manetlab run PROTO-vSPEED-pPAUSE.toml --runs 3 --seed 1 --out ...`
  (the TOML files: write_scenarios.py). References are read from
  crates/manetlab-studies/data/reference/mrc/{ns3,ns2}-runs.csv.
"""
import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "../../crates/manetlab-studies/data/reference/mrc")
POINTS = [(1, 0), (20, 0), (20, 100)]
PROTOS = ["aodv", "dsr", "dsdv", "olsr"]
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571}


def agg(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return (m, 0.0, len(xs))
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return (m, T95.get(len(xs) - 1, 2.0) * sd / math.sqrt(len(xs)), len(xs))


def fmt(a, d):
    if a is None:
        return "-"
    m, ci, n = a
    return f"{m:.{d}f} ± {ci:.{d}f} (n={n})" if n > 1 else f"{m:.{d}f} (n=1)"


def dev(a, b):
    if a is None or b is None or b[0] == 0:
        return "-"
    return f"{(a[0] - b[0]) / b[0] * 100:+.0f}%"


def num(x):
    return float(x) if x not in ("", None) else None


def refs(name):
    path = os.path.join(REF, f"{name}-runs.csv")
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def main():
    d = sys.argv[1]
    ns3, ns2 = refs("ns3"), refs("ns2")
    rows = []
    for v, pause in POINTS:
        for p in PROTOS:
            f = os.path.join(d, f"out-{p}-v{v}-p{pause}", "network.csv")
            ours = list(csv.DictReader(open(f))) if os.path.exists(f) else []
            sel = lambda rs: [r for r in rs if r["protocol"].lower() == p
                              and float(r["max_speed"]) == v and float(r["pause"]) == pause]
            r3, r2 = sel(ns3), sel(ns2)
            m = {
                "pdr": (agg([num(r["delivery_ratio"]) for r in ours]),
                        agg([num(r["pdr"]) for r in r3]), agg([num(r["pdr"]) for r in r2]), 3),
                "goodput": (agg([int(r["data_received_packets"]) * 64 * 8 / 100 / 1e3 for r in ours]),
                            agg([num(r["goodput_kbps"]) for r in r3]),
                            agg([num(r["goodput_kbps"]) for r in r2]), 2),
                "delay": (agg([num(r["delay_mean_s"]) * 1e3 if r["delay_mean_s"] else None for r in ours]),
                          agg([num(r["delay_ms"]) for r in r3]), agg([num(r["delay_ms"]) for r in r2]), 1),
                "nrl": (agg([num(r["normalized_routing_load"]) for r in ours]),
                        agg([num(r["nrl"]) for r in r3]), agg([num(r["nrl"]) for r in r2]), 2),
            }
            drops = {}
            for r in ours:
                for k, x in r.items():
                    if k.startswith("drops_") and int(x):
                        drops[k[6:].upper()] = drops.get(k[6:].upper(), 0) + int(x)
            refused = sum(int(r["offered"]) - int(r["sent"]) for r in r3) if r3 else None
            rows.append((v, pause, p, m, drops, refused, r3))
    titles = {"pdr": "Packet delivery ratio", "goodput": "Goodput, all flows (kbit/s)",
              "delay": "Mean delay (ms)", "nrl": "Normalized routing load (routing packets per delivered packet)"}
    for key, title in titles.items():
        print(f"### {title}\n")
        print("| max speed (m/s) | pause (s) | protocol | ns-3.37 | ns-2.35 | manetlab | vs ns-3 | vs ns-2 |")
        print("|---:|---:|:---|---:|---:|---:|---:|---:|")
        for v, pause, p, m, _, _, _ in rows:
            o, a3, a2, dg = m[key]
            print(f"| {v} | {pause} | {p.upper()} | {fmt(a3, dg)} | {fmt(a2, dg)} | {fmt(o, dg)} | {dev(o, a3)} | {dev(o, a2)} |")
        print()
    print("### PDR within 15 % of the reference mean\n")
    print("| max speed (m/s) | pause (s) | protocol | vs ns-3.37 | vs ns-2.35 |")
    print("|---:|---:|:---|:---|:---|")
    ok = tot = 0
    for v, pause, p, m, _, _, _ in rows:
        o, a3, a2, _ = m["pdr"]
        cells = []
        for a in (a3, a2):
            if a is None or o is None:
                cells.append("-")
                continue
            w = abs(o[0] - a[0]) / a[0] <= 0.15
            ok += w
            tot += 1
            cells.append(("yes" if w else "**no**") + f" ({dev(o, a)})")
        print(f"| {v} | {pause} | {p.upper()} | {cells[0]} | {cells[1]} |")
    print(f"\n{ok} of {tot} comparisons within 15 %.\n")
    print("### Counters (manetlab drops by ns-2 reason, summed over runs; ns-3 packets refused at the source)\n")
    print("| max speed (m/s) | pause (s) | protocol | manetlab drops | ns-3 refused |")
    print("|---:|---:|:---|:---|---:|")
    for v, pause, p, _, drops, refused, _ in rows:
        ds = ", ".join(f"{k} {x}" for k, x in sorted(drops.items()))
        print(f"| {v} | {pause} | {p.upper()} | {ds} | {refused if refused is not None else '-'} |")
    print("\n### Topology (ns-3 runs; unit-disk graph of 138.5 m, every second of 100-200 s)\n")
    print("| max speed (m/s) | pause (s) | mean degree | flows connected |")
    print("|---:|---:|---:|---:|")
    for v, pause, p, _, _, _, r3 in rows:
        if p == "aodv" and r3:
            print(f"| {v} | {pause} | {fmt(agg([num(r['mean_degree']) for r in r3]), 2)} | "
                  f"{fmt(agg([num(r['connected']) for r in r3]), 3)} |")


if __name__ == "__main__":
    main()
