#!/usr/bin/env bash
# Speed benchmark: fixed scenarios, printing executed events, events per
# second, wall time and peak memory. Run from the repository root:
#   scripts/bench.sh            (3 repetitions each, the median wall time is reported)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile dist -q
BIN=target/dist/manetlab
REPS=${REPS:-3}
printf "%-34s %10s %10s %12s %10s\n" scenario events "wall s" "events/s" "peak MB"
for f in scenarios/bench/twohop-sat.toml scenarios/bench/chain10-sat.toml scenarios/random100.toml; do
  walls=()
  for _ in $(seq "$REPS"); do
    out=$( { /usr/bin/time -f "MAXRSS %M" "$BIN" run "$f" --runs 1 --out /tmp/manetlab-bench ; } 2>&1 )
    line=$(grep -E "^[0-9]+ events in" <<<"$out")
    events=$(awk '{print $1}' <<<"$line")
    walls+=("$(awk '{print $4}' <<<"$line")")
    rss=$(grep MAXRSS <<<"$out" | awk '{print $2}')
  done
  wall=$(printf "%s\n" "${walls[@]}" | sort -n | sed -n "$(( (REPS + 1) / 2 ))p")
  printf "%-34s %10s %10s %12.0f %10.1f\n" "$(basename "$f")" "$events" "$wall" "$(echo "$events / $wall" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
done
