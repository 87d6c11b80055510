#!/usr/bin/env python3
"""Benchmarks of the Python package (docs/python.md reports the numbers).

1. `ml.run` on a 1-second simulation against the CLI doing the same work
   (`manetlab run FILE --set run.duration=1s -q`, a fresh process that also
   writes summary.json and flows.csv). For `ml.run` the time includes
   building summary.json's text and the flows DataFrame, so both sides
   produce the same results. Median of REPS alternating repetitions.
   Target: ml.run costs at most 5% more than the CLI.
2. Building the DataFrames of a 1,000-run sweep with 10 flows per run
   (the tidy runs table, 10,000 rows, and the per-point summary), from
   reports already in memory. Target: under 1 s.

Usage: python scripts/bench_python.py [--cli target/release/manetlab] [--reps 15]
"""

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import manetlab as ml

REPO = Path(__file__).resolve().parents[1]

SCENARIOS = [
    # (label, file, extra overrides): light and heavy 1-s simulations.
    ("2-hop chain, 2 Mbit/s CBR (default.toml)", "scenarios/default.toml", ["flow.0.start=0s"]),
    ("100 random nodes, 20 CBR flows (random100.toml, 1 replication)", "scenarios/random100.toml", ["flow.*.start=0s"]),
    ("10-hop chain, saturated, RTS/CTS (bench/chain10-sat.toml)", "scenarios/bench/chain10-sat.toml", []),
]

TEN_FLOWS = """\
[run]
name = "ten flows"
duration = "{duration}"

[topology]
kind = "grid"
rows = 4
cols = 4
spacing = "150m"
""" + "".join(
    f"""
[[flow]]
src = {s}
dst = {d}
type = "cbr"
packet_size = "512B"
interval = "100ms"
"""
    for s, d in [(0, 15), (3, 12), (1, 14), (2, 13), (4, 11), (7, 8), (5, 10), (6, 9), (15, 0), (12, 3)]
)


def median_time(f, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), ts


def bench_run(cli, reps):
    print("## ml.run vs the CLI, 1 s of simulated time\n")
    print("| scenario | CLI (process, s) | ml.run (s) | overhead |")
    print("|---|---|---|---|")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, file, extra in SCENARIOS:
            path = REPO / file
            sets = ["run.duration=1s", *extra]
            sc = ml.Scenario.load(path).set(dict(x.split("=", 1) for x in sets))
            cmd = [cli, "run", str(path), *sum((["--set", x] for x in sets), []), "--runs", "1", "--out", tmp, "-q"]

            def cli_run():
                subprocess.run(cmd, check=True)

            seed = [sc.check()["seed"]]

            def py_run():
                r = ml.run(sc, seeds=seed, progress=False)
                r.summary_json
                r.flows

            cli_run(), py_run()  # warm caches
            c_ts, p_ts = [], []
            for _ in range(reps):  # alternate, so drift hits both
                c_ts.append(median_time(cli_run, 1)[0])
                p_ts.append(median_time(py_run, 1)[0])
            c, p = statistics.median(c_ts), statistics.median(p_ts)
            # Same results: the CLI's file equals ml.run's text.
            same = (Path(tmp) / "summary.json").read_text() == ml.run(sc, seeds=seed, progress=False).summary_json
            rows.append((label, c, p))
            print(f"| {label} | {c:.4f} | {p:.4f} | {100 * (p - c) / c:+.1f}% |" + ("" if same else " (DIFFERENT RESULTS)"))
    print()
    return rows


def bench_frames(runs, flows_check=10):
    print(f"## DataFrames of a {runs}-run sweep, 10 flows per run\n")
    sc = ml.Scenario.from_toml(TEN_FLOWS.format(duration="0.2s"), name="ten-flows")
    points = runs // 10
    # pyarrow's first import of an Arrow stream in a process costs a
    # one-time initialisation (~0.1-1 s here); pay it before timing.
    ml.run(sc, seeds=[1], progress=False).flows
    t0 = time.perf_counter()
    r = ml.sweep_results(sc, {"flow.0.packet_size": [f"{100 + i}B" for i in range(points)]}, runs=10, progress=False)
    sim = time.perf_counter() - t0
    t0 = time.perf_counter()
    df = r.runs
    t_runs = time.perf_counter() - t0
    t0 = time.perf_counter()
    s = r.summary
    t_summary = time.perf_counter() - t0
    assert len(df) == runs * flows_check, len(df)
    assert len(s) == points * flows_check
    # The same for 1,000 replications of one scenario (Results.flows/network/nodes).
    res = ml.run(sc, seeds=range(runs), progress=False)
    t0 = time.perf_counter()
    f = res.flows
    t_flows = time.perf_counter() - t0
    t0 = time.perf_counter()
    n = res.network
    t_net = time.perf_counter() - t0
    t0 = time.perf_counter()
    nd = res.nodes
    t_nodes = time.perf_counter() - t0
    print("| table | rows | build time (s) |")
    print("|---|---|---|")
    print(f"| sweep runs (tidy) | {len(df)} | {t_runs:.3f} |")
    print(f"| sweep summary | {len(s)} | {t_summary:.3f} |")
    print(f"| Results.flows ({runs} seeds) | {len(f)} | {t_flows:.3f} |")
    print(f"| Results.network | {len(n)} | {t_net:.3f} |")
    print(f"| Results.nodes | {len(nd)} | {t_nodes:.3f} |")
    print(f"\n(simulating the {runs} runs took {sim:.1f} s; not part of the build time)\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=str(REPO / "target" / "release" / "manetlab"))
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--runs", type=int, default=1000)
    a = ap.parse_args()
    bench_run(a.cli, a.reps)
    bench_frames(a.runs)


if __name__ == "__main__":
    main()
