#!/usr/bin/env bash
# Large-network benchmark (issue 25): the SWANS-style beaconing network of
# scripts/gen_swans.py (every node beacons every 2-5 s, random waypoint
# 2-10 m/s with 30 s pauses, 4.5 nodes in decode range and 35 more in
# carrier-sense range per transmission, no routing) at each N, reporting
# simulated seconds, events, CPU seconds (user + sys of the whole process,
# /usr/bin/time), events per CPU-second, peak RSS and RSS per node, and the
# run's own counters (receivers and interferers per frame, mean neighbour
# table size). CPU time, not wall time: the machine may be shared.
#
#   scripts/bench_swans.sh                        # N = 1000 10000, 900 s
#   SIZES="1000 10000 100000" scripts/bench_swans.sh
#   DURATION=3 SIZES=1000000 scripts/bench_swans.sh   # memory at 10^6 nodes
#   NO_BUILD=1 BIN=path/to/manetlab ...           # use an existing binary
# Each size may have its own duration: SIZES="1000 100000:30 1000000:3".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PROFILE=${PROFILE:-release}
[ -n "${NO_BUILD:-}" ] || cargo build --profile "$PROFILE" -q -p manetlab-cli
BIN=${BIN:-$ROOT/target/$PROFILE/manetlab}
SIZES=${SIZES:-"1000 10000"}
DURATION=${DURATION:-900}
WORK=${WORK:-/tmp/manetlab-bench-swans}
mkdir -p "$WORK"

printf "%8s %6s %12s %9s %10s %9s %8s %7s %7s %6s\n" \
    N sim_s events "CPU s" "ev/CPU-s" "RSS MB" "B/node" "rx/fr" "int/fr" table
for spec in $SIZES; do
    n=${spec%%:*}
    d=$DURATION
    [ "$spec" != "$n" ] && d=${spec#*:}
    toml=$WORK/swans$n-$d.toml
    python3 "$ROOT/scripts/gen_swans.py" "$n" "$toml" --duration "$d"
    /usr/bin/time -v "$BIN" run "$toml" --out "$WORK/out$n-$d" >"$WORK/run$n-$d.out" 2>"$WORK/time$n-$d.txt"
    read -r cpu kb < <(awk -F': ' '/User time/{u=$2} /System time/{s=$2} /Maximum resident/{m=$2} END{printf "%.2f %d\n", u+s, m}' "$WORK/time$n-$d.txt")
    python3 - "$WORK/out$n-$d/summary.json" "$n" "$d" "$cpu" "$kb" <<'PY'
import json, sys
path, n, d, cpu, kb = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
r = json.load(open(path))["replications"][0]
b = r["beacon"]
f = lambda v: "-" if v is None else f"{v:.2f}"
print(f"{n:8d} {d:6g} {r['events']:12d} {cpu:9.2f} {r['events'] / max(cpu, 1e-9):10.3g} {kb / 1024:9.1f} "
      f"{kb * 1024 / n:8.0f} {f(b['in_range_per_frame']):>7} {f(b['interferers_per_frame']):>7} {f(b['table_size_mean']):>6}")
PY
done
