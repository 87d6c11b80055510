#!/usr/bin/env python3
"""manetlab vs ns-2.35 on TCP chains (1-10 hops, DSR / AODV / static) and on
random-waypoint setdest files (DSR / AODV), for docs/profiles.md.

ns-2.35 numbers are read from results/s4.log (chains) and results/rwp.log
(random waypoint), written by run_reference.sh s4 / rwp. manetlab is run here
with the same parameters (the `manetlab` binary: MANETLAB env var, default
target/release/manetlab), every run's goodput is written to
data/ns2-compare/manetlab-<tag>.csv and the table (per point: ns-2.35 mean,
manetlab mean, ratio) to data/ns2-compare/table-<tag>.md.

Usage: python3 scripts/ns2/compare_profiles.py [--tag TAG] [--only chains|rwp]
       [--set key=value ...]   (extra manetlab overrides for every run)
       [--seeds N --ns2-log LOG --hops 9 --moves 4,5,8]   (more seeds on chosen
       points, against an ns-2 log with as many, e.g. results/aodv10.log)
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
BIN = os.environ.get("MANETLAB", os.path.join(ROOT, "target", "release", "manetlab"))
SEEDS = [1, 2, 3]
# ns-2.35's AODV as run by manet.tcl: link-layer detection, no HELLOs, local repair on,
# and its non-RFC behaviours (`ns2_quirks`, issue 24 item 3; --no-quirks leaves them off).
AODV_NS2 = ["routing.link_detection=mac", "routing.local_repair=true"]
AODV_QUIRKS = ["routing.ns2_quirks=true"]
# ns-2.35's AODV constants (aodv/aodv.h), with --ns2-constants.
AODV_NS2_CONSTANTS = ["routing.active_route_timeout=10s", "routing.ttl_start=5", "routing.net_diameter=30",
                      "routing.rreq_retries=3", "routing.node_traversal_time=30ms"]


def ns2_results(log, keyre):
    """{point: [goodput_bps per seed]} from a run_reference.sh log."""
    out = defaultdict(list)
    label = None
    for line in open(os.path.join(HERE, "results", log)):
        if line.startswith("RUN "):
            m = re.search(keyre, line)
            label = m.groups() if m else None
        elif line.startswith("RESULT all") and label:
            out[label].append(float(re.search(r"goodput_bps=([\d.]+)", line).group(1)))
            label = None
    return out


def manetlab(scenario, sets, runs):
    with tempfile.TemporaryDirectory() as d:
        cmd = [BIN, "run", scenario, "--seed", "1", "--runs", str(runs), "--out", d]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        js = json.load(open(os.path.join(d, "summary.json")))
        return [r["flows"][0]["goodput_bps"] for r in js["replications"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tag", default="current")
    ap.add_argument("--only", choices=["chains", "rwp"])
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--protocols", default="dsr,aodv,static")
    ap.add_argument("--no-quirks", action="store_true")
    ap.add_argument("--ns2-constants", action="store_true")
    ap.add_argument("--seeds", type=int, default=len(SEEDS))
    ap.add_argument("--ns2-log", help="one ns-2 log for chains and rwp (default s4.log / rwp.log)")
    ap.add_argument("--hops", default="1,2,3,4,5,6,7,8,9,10")
    ap.add_argument("--moves", default="1,2,3,4,5,6,7,8")
    a = ap.parse_args()
    seeds = list(range(1, a.seeds + 1))
    hops = [int(x) for x in a.hops.split(",") if x]
    moves = [int(x) for x in a.moves.split(",") if x]
    protos = a.protocols.split(",")
    aodv = AODV_NS2 + ([] if a.no_quirks else AODV_QUIRKS) + (AODV_NS2_CONSTANTS if a.ns2_constants else [])
    rows, table = [], []
    if a.only in (None, "chains"):
        ns = ns2_results(a.ns2_log or "s4.log", r"rtg=(\w+) hops=(\d+) seed=\d+")
        chain = os.path.join(ROOT, "scenarios", "chain-tcp.toml")
        for proto in [p for p in ["dsr", "aodv", "static"] if p in protos]:
            for h in hops:
                sets = [f"topology.nodes={h + 1}", f"flow.0.dst={h}", f"routing.protocol={proto}",
                        "arp.mode=ns2", "run.duration=200s", "flow.0.start=1s"]
                if proto == "aodv":
                    sets += aodv
                g = manetlab(chain, sets + a.set, len(seeds))
                rows += [("chain", proto, h, s, x) for s, x in zip(seeds, g)]
                ref = ns.get(("DSR" if proto == "static" else proto.upper(), str(h)))
                table.append(("chain TCP", proto, f"{h} hops", ref, g, proto == "static"))
                print(table[-1][:3], [round(x / 1e3, 1) for x in g], file=sys.stderr)
    if a.only in (None, "rwp"):
        ns = ns2_results(a.ns2_log or "rwp.log", r"rtg=(\w+) moves=(\d+) seed=\d+")
        sc = os.path.join(HERE, "rwp.toml")
        for proto in [p for p in ["dsr", "aodv"] if p in protos]:
            for m in moves:
                sets = [f"routing.protocol={proto}", f"mobility.file=moves/rwp30-{m}.tcl"]
                if proto == "aodv":
                    sets += aodv
                g = manetlab(sc, sets + a.set, len(seeds))
                rows += [("rwp", proto, m, s, x) for s, x in zip(seeds, g)]
                table.append(("random waypoint TCP", proto, f"rwp30-{m}", ns.get((proto.upper(), str(m))), g, False))
                print(table[-1][:3], [round(x / 1e3, 1) for x in g], file=sys.stderr)
    out = os.path.join(ROOT, "data", "ns2-compare")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"manetlab-{a.tag}.csv"), "w") as f:
        f.write("kind,protocol,point,seed,goodput_bps\n")
        for r in rows:
            f.write(f"{r[0]},{r[1]},{r[2]},{r[3]},{r[4]:.1f}\n")
    with open(os.path.join(out, f"table-{a.tag}.md"), "w") as f:
        f.write("| scenario | routing | point | ns-2.35 kbit/s | manetlab kbit/s | ratio |\n|---|---|---|---|---|---|\n")
        for kind, proto, point, ref, g, is_static in table:
            mg = statistics.mean(g) / 1e3
            if ref:
                mr = statistics.mean(ref) / 1e3
                ratio = f"{mg / mr:.2f}" if mr > 0 else "n/a"
                refs = f"{mr:.1f}" + (" (DSR)" if is_static else "")
            else:
                ratio, refs = "n/a", "n/a"
            f.write(f"| {kind} | {proto} | {point} | {refs} | {mg:.1f} | {ratio} |\n")
    print(open(os.path.join(out, f"table-{a.tag}.md")).read())


if __name__ == "__main__":
    main()
