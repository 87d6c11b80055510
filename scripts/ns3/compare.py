#!/usr/bin/env python3
"""manetlab's TCP chain (scripts/ns3/chain.toml, profile ns3) beside ns-3.37
(scripts/ns3/results/tcp_chain.log from scripts/ns3/run.sh).

Runs manetlab at 1..10 hops with the same seeds count and writes
scripts/ns3/results/compare-TAG.md (one row per hop count: ns-3 mean,
manetlab mean, ratio, within 10 %) and manetlab-TAG.csv (every run).

Usage: python3 scripts/ns3/compare.py [--tag TAG] [--seeds N] [--set key=value ...]
"""
import argparse, csv, os, re, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def ns3_results():
    out = {}
    for line in open(os.path.join(HERE, "results", "tcp_chain.log")):
        m = re.match(r"RESULT hops=(\d+) seed=(\d+) spacing=\S+ goodput_kbps=(\S+)", line)
        if m:
            out.setdefault(int(m[1]), {})[int(m[2])] = float(m[3])
    return out


def manetlab(hops, seeds, extra):
    exe = os.environ.get("MANETLAB", os.path.join(ROOT, "target", "release", "manetlab"))
    with tempfile.TemporaryDirectory() as d:
        cmd = [exe, "--jobs", "1", "run", os.path.join(HERE, "chain.toml"), "-q", "--out", d,
               "--runs", str(seeds), "--set", f"topology.nodes={hops + 1}", "--set", f"flow.0.dst={hops}"]
        for e in extra:
            cmd += ["--set", e]
        subprocess.run(cmd, check=True)
        rows = list(csv.DictReader(open(os.path.join(d, "flows.csv"))))
        return [float(r["goodput_bps"]) / 1000 for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tag", default="ns3")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    ref = ns3_results()
    rows, runs = [], []
    for h in range(1, 11):
        if h not in ref:
            continue
        ours = manetlab(h, a.seeds, a.set)
        theirs = list(ref[h].values())
        n3, ml = statistics.mean(theirs), statistics.mean(ours)
        ratio = ml / n3 if n3 > 0 else float("nan")
        rows.append((h, n3, ml, ratio, len(theirs), len(ours)))
        runs += [(h, i + 1, g) for i, g in enumerate(ours)]
        print(f"{h} hops: ns-3 {n3:.1f} manetlab {ml:.1f} ratio {ratio:.2f}", file=sys.stderr)
    res = os.path.join(HERE, "results")
    with open(os.path.join(res, f"manetlab-{a.tag}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["hops", "seed", "goodput_kbps"])
        w.writerows(runs)
    with open(os.path.join(res, f"compare-{a.tag}.md"), "w") as f:
        f.write(f"TCP chain, ns-3.37 vs manetlab profile ns3 (extra: {' '.join(a.set) or 'none'})\n\n")
        f.write("| hops | ns-3 kbit/s | manetlab kbit/s | ratio | within 10 % | seeds (ns-3 / manetlab) |\n|---|---|---|---|---|---|\n")
        for h, n3, ml, r, k3, km in rows:
            f.write(f"| {h} | {n3:.1f} | {ml:.1f} | {r:.2f} | {'yes' if abs(r - 1) <= 0.10 else 'no'} | {k3} / {km} |\n")


if __name__ == "__main__":
    main()
