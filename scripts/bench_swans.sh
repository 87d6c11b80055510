#!/usr/bin/env bash
# Large-network benchmark (issue 25): the SWANS-style beaconing network of
# scripts/gen_swans.py (every node beacons every 2-5 s, random waypoint
# 2-10 m/s with 30 s pauses, 4.5 nodes in decode range and 35 more in
# carrier-sense range per transmission, no routing; node ids in Hilbert
# order unless ORDER=id) at each N, reporting simulated seconds, events,
# CPU seconds (user + sys of the whole process, /usr/bin/time), events per
# CPU-second, peak RSS and RSS per node, the run's own counters (receivers
# and interferers per frame, mean neighbour table size), and the steady
# state apart from building the network:
#   - ss CPU/s: CPU seconds per simulated second after the first 25 % of
#     the run (the process's CPU time read from /proc at each progress line);
#   - ss ns/ev: that CPU time over the events in the same window (the
#     window's share of the run's events from the beacon schedule: first
#     beacon uniform in [0, 5 s), then every U[2, 5] s);
#   - 900 s: projected CPU seconds of a 900 s run = (CPU s - ss CPU/s x
#     simulated s) + 900 x ss CPU/s (the build, then the steady state).
# CPU time, not wall time: the machine may be shared.
#
#   scripts/bench_swans.sh                        # N = 1000 10000, 900 s
#   SIZES="1000 10000 100000" scripts/bench_swans.sh
#   DURATION=3 SIZES=1000000 scripts/bench_swans.sh   # memory at 10^6 nodes
#   NO_BUILD=1 BIN=path/to/manetlab ...           # use an existing binary
#   ORDER=id ...                                  # node ids in placement order
#   MANETLAB_HUGE_PAGES=0 ...                     # without the huge pages the
#                                                 # CLI turns on from 10^4 nodes
# Each size may have its own duration: SIZES="1000 100000:30 1000000:3".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PROFILE=${PROFILE:-release}
[ -n "${NO_BUILD:-}" ] || cargo build --profile "$PROFILE" -q -p manetlab-cli
BIN=${BIN:-$ROOT/target/$PROFILE/manetlab}
SIZES=${SIZES:-"1000 10000"}
DURATION=${DURATION:-900}
ORDER=${ORDER:-hilbert}
WORK=${WORK:-/tmp/manetlab-bench-swans}
mkdir -p "$WORK"

printf "%8s %6s %12s %9s %10s %9s %8s %7s %7s %6s %9s %8s %9s\n" \
    N sim_s events "CPU s" "ev/CPU-s" "RSS MB" "B/node" "rx/fr" "int/fr" table "ss CPU/s" "ss ns/ev" "900 s"
for spec in $SIZES; do
    n=${spec%%:*}
    d=$DURATION
    [ "$spec" != "$n" ] && d=${spec#*:}
    toml=$WORK/swans$n-$d-$ORDER.toml
    out=$WORK/out$n-$d-$ORDER
    python3 "$ROOT/scripts/gen_swans.py" "$n" "$toml" --duration "$d" --order "$ORDER"
    python3 - "$BIN" "$toml" "$out" "$n" "$d" <<'PY'
import json, os, random, re, subprocess, sys
bin_, toml, out, n, d = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
env = dict(os.environ, MANETLAB_PROGRESS_SECS="2")
p = subprocess.Popen(["/usr/bin/time", "-f", "TIME %U %S %M", bin_, "run", toml, "--out", out],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
tick = os.sysconf("SC_CLK_TCK")

def cpu_of_child():
    # /usr/bin/time's child is the simulator
    try:
        kids = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()
        f = open(f"/proc/{kids[0]}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / tick
    except (OSError, IndexError):
        return None

pts, tline = [], None
for line in p.stderr:
    m = re.search(r"simulated (\d+)%", line)
    if m:
        c = cpu_of_child()
        if c is not None:
            pts.append((int(m.group(1)) / 100, c))
    if line.startswith("TIME "):
        tline = line.split()
if p.wait() != 0 or tline is None:
    sys.exit(f"run failed: {toml}")
cpu, kb = float(tline[1]) + float(tline[2]), int(tline[3])
r = json.load(open(f"{out}/summary.json"))["replications"][0]
b, ev = r["beacon"], r["events"]

def beacons_by(ts, samples=20000):
    """Mean beacons per node before each time in ts (the schedule above)."""
    rng, acc, top = random.Random(1), [0] * len(ts), max(ts)
    for _ in range(samples):
        t = rng.uniform(0, 5)
        while t < top:
            for i, x in enumerate(ts):
                acc[i] += t < x
            t += rng.uniform(2, 5)
    return [a / samples for a in acc]

steady = [q for q in pts if q[0] >= 0.25]
ss = ssns = proj = None
if len(steady) >= 3 and steady[-1][0] > steady[0][0]:
    (f0, c0), (f1, c1) = steady[0], steady[-1]
    ss = (c1 - c0) / ((f1 - f0) * d)
    tot, a0, a1 = beacons_by([d, f0 * d, f1 * d])
    ssns = (c1 - c0) / (ev * (a1 - a0) / tot) * 1e9
    proj = (cpu - ss * d) + 900 * ss
f = lambda v, k=2: "-" if v is None else f"{v:.{k}f}"
print(f"{n:8d} {d:6g} {ev:12d} {cpu:9.2f} {ev / max(cpu, 1e-9):10.3g} {kb / 1024:9.1f} "
      f"{kb * 1024 / n:8.0f} {f(b['in_range_per_frame']):>7} {f(b['interferers_per_frame']):>7} {f(b['table_size_mean']):>6} "
      f"{f(ss, 3):>9} {f(ssns, 0):>8} {f(proj, 0):>9}", flush=True)
PY
done
