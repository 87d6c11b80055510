#!/bin/sh
# Runs the ns-3 reference for the mrc study: every (seed, point, protocol)
# of the grid below, JOBS at a time, appending one CSV line per run to
# crates/manetlab-studies/data/reference/mrc/ns3-runs.csv (runs already there are skipped, so the
# script resumes). Seeds are the outer loop so an interrupted run leaves
# whole seeds. Usage: [POINTS="speed:pause ..."] scripts/ns3/mrc/run.sh [SEEDS] [JOBS]
# (the study used POINTS="1:0 20:0" with 3 seeds, then 20:100 as time allowed)
set -e
cd "$(dirname "$0")"
[ -x ./mrc ] || ./build.sh
SEEDS=${1:-5}
JOBS=${2:-2}
OUT=../../../crates/manetlab-studies/data/reference/mrc/ns3-runs.csv
# The unit-disk range for mean degree / connectivity: ns-3's preamble
# detection needs -82 dBm; Friis at 5.15 GHz (ns-3's default frequency,
# which the example does not change) from 7.5 dBm reaches it at 138.5 m.
RANGE=138.5
POINTS=${POINTS:-"1:0 20:0 20:100"}
[ -f "$OUT" ] || ./mrc --time=0 --header | head -1 > "$OUT"
TMP=$(mktemp -d)
for run in $(seq 1 "$SEEDS"); do
  for pt in $POINTS; do
    speed=${pt%:*}; pause=${pt#*:}
    for proto in AODV DSR DSDV OLSR; do
      if grep -q "^$proto,$speed,$pause,$run," "$OUT"; then continue; fi
      echo "$proto $speed $pause $run"
    done
  done
done > "$TMP/todo"
echo "$(wc -l < "$TMP/todo") runs to do"
# JOBS at a time; each run's line is appended when it finishes.
cat "$TMP/todo" | xargs -P "$JOBS" -L 1 sh -c '
  line=$(./mrc --protocol=$0 --speed=$1 --pause=$2 --RngRun=$3 --range='"$RANGE"' 2>/dev/null) &&
  echo "$line" >> '"$OUT"' && echo "done $0 $1 $2 $3: $line" >&2'
rm -rf "$TMP"
