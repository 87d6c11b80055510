#!/usr/bin/env python3
"""Benchmark of the sweep run store (issue 20): a 10,000-run sweep of a tiny
scenario (2 nodes, one CBR flow, 1 s), run in N shards (separate
processes, like a Slurm array) and aggregated with `manetlab merge`.
Reports the peak memory (max RSS) of each process, the wall times and the
size of the store, and checks the merged sweep.csv against an unsharded
run's when --check is given.

    python3 scripts/bench_store.py [--cli target/release/manetlab] [--runs 10000] [--shards 2] [--out DIR]

Limits of issue 20: the aggregating process under 200 MB, the store under
50 MB. Numbers are recorded in docs/cluster.md.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TINY = """\
[run]
name = "tiny"
duration = "1s"
seed = 1

[topology]
kind = "chain"
nodes = 2
spacing = "100m"

[[flow]]
src = 0
dst = 1
type = "cbr"
rate = "20kbps"
packet_size = "500B"
"""


def measured(cmd):
    """Runs cmd; returns (wall seconds, peak RSS in MB of that process)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(map(str, cmd))}: exit {code}")
    return wall, ru.ru_maxrss / 1024.0


def du(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=str(ROOT / "target" / "release" / "manetlab"))
    ap.add_argument("--runs", type=int, default=10_000, help="total runs (points x 100 seeds)")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=1, help="threads per shard process")
    ap.add_argument("--out", default=None, help="work folder (default: a temporary one, removed)")
    ap.add_argument("--check", action="store_true", help="also run unsharded and compare sweep.csv")
    a = ap.parse_args()
    seeds = 100
    points = max(1, a.runs // seeds)
    work = Path(a.out) if a.out else Path(tempfile.mkdtemp(prefix="manetlab-bench-store-"))
    work.mkdir(parents=True, exist_ok=True)
    scen = work / "tiny.toml"
    scen.write_text(TINY)
    sweep = ["--sweep", f"flow.0.rate=10kbps..{points * 10}kbps:10kbps", "--runs", str(seeds), "-q"]
    print(f"{points} points x {seeds} seeds = {points * seeds} runs, {a.shards} shards, --jobs {a.jobs}")
    dirs = []
    procs = []
    t0 = time.monotonic()
    for i in range(a.shards):
        d = work / f"shard{i}"
        shutil.rmtree(d, ignore_errors=True)
        dirs.append(d)
        cmd = [a.cli, "--jobs", str(a.jobs), "run", str(scen), *sweep, "--shard", f"{i}/{a.shards}", "--out", str(d)]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL))
    peaks = []
    for p in procs:
        _, status, ru = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"a shard failed (exit {os.waitstatus_to_exitcode(status)})")
        peaks.append(ru.ru_maxrss / 1024.0)
    shard_wall = time.monotonic() - t0
    store = sum(du(d / "runs") for d in dirs)
    merged = work / "merged"
    shutil.rmtree(merged, ignore_errors=True)
    wall, peak = measured([a.cli, "merge", *map(str, dirs), "--out", str(merged), "-q"])
    rows = len((merged / "sweep-runs.csv").read_text().splitlines()) - 1
    print(f"shards: {shard_wall:.1f} s wall, peak RSS per shard process {', '.join(f'{p:.1f}' for p in peaks)} MB")
    print(f"store: {store / 1e6:.2f} MB ({store / (points * seeds):.0f} B per run) in {len(dirs)} folders")
    print(f"merge (the aggregating process): {wall:.1f} s wall, peak RSS {peak:.1f} MB; sweep-runs.csv {rows} rows")
    ok = peak < 200 and store < 50e6
    if a.check:
        whole = work / "whole"
        shutil.rmtree(whole, ignore_errors=True)
        w2, p2 = measured([a.cli, "--jobs", str(a.jobs), "run", str(scen), *sweep, "--out", str(whole)])
        same = (whole / "sweep.csv").read_bytes() == (merged / "sweep.csv").read_bytes()
        print(f"unsharded run + aggregation: {w2:.1f} s wall, peak RSS {p2:.1f} MB; merged sweep.csv identical: {same}")
        ok = ok and same
    print("within the limits (aggregation < 200 MB, store < 50 MB)" if ok else "OUTSIDE THE LIMITS")
    if not a.out:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
