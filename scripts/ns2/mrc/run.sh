#!/bin/sh
# Runs the ns-2.35 reference for the mrc study (AODV, DSR, DSDV) on the
# movement files in crates/manetlab-studies/data/mrc/moves/ (shared with
# manetlab and ns-3) and appends one CSV line per run to
# crates/manetlab-studies/data/reference/mrc/ns2-runs.csv (runs already there
# are skipped). The movement files were written once by ns-2's own
#   setdest -v 1 -n 50 -p PAUSE -M SPEED -t 200 -x 300 -y 1500
# (God lines removed): rwp50-vSPEED-pPAUSE-RUN.tcl; run RUN also seeds
# ns-2's RNG. Usage: [POINTS="speed:pause ..."] scripts/ns2/mrc/run.sh [SEEDS]
set -e
cd "$(dirname "$0")"
MOVEDIR=../../../crates/manetlab-studies/data/mrc/moves
SEEDS=${1:-3}
POINTS=${POINTS:-"1:0 20:0 20:100"}
OUT=../../../crates/manetlab-studies/data/reference/mrc/ns2-runs.csv
HUNG=../../../crates/manetlab-studies/data/reference/mrc/ns2-hung.csv
# Loss counters per run (summarize.py --counters): what became of the
# packets that were not delivered, by ns-2 drop reason.
CNT=../../../crates/manetlab-studies/data/reference/mrc/ns2-counters.csv
# COUNTERS=1: also re-run stored runs that have no counters line yet (ns-2
# runs are deterministic per movement file and seed; a main line that comes
# out different is reported, the stored one kept).
COUNTERS=${COUNTERS:-0}
TR=$(mktemp)
[ -f "$HUNG" ] || echo "protocol,max_speed,pause,run,note" > "$HUNG"
[ -f "$OUT" ] || ./summarize.py /dev/null X 0 0 0 --header | head -1 > "$OUT"
[ -f "$CNT" ] || python3 -c 'import summarize; print(summarize.COUNTER_COLUMNS)' > "$CNT"
for run in $(seq 1 "$SEEDS"); do
  for pt in $POINTS; do
    speed=${pt%:*}; pause=${pt#*:}
    for rtg in AODV DSR DSDV; do
      if grep -q "^$rtg,$speed,$pause,$run," "$HUNG"; then continue; fi
      if grep -q "^$rtg,$speed,$pause,$run," "$OUT"; then
        [ "$COUNTERS" = 1 ] || continue
        grep -q "^$rtg,$speed,$pause,$run," "$CNT" && continue
      fi
      # ns-2.35's free-space model prints a line per reception on stdout.
      # A run still going after NS_TIMEOUT s of wall time is recorded in
      # ns2-hung.csv instead (ns-2.35's DSDV stopped advancing simulated
      # time on one movement file: see docs/mrc-report.md).
      if timeout "${NS_TIMEOUT:-900}" ns mrc.tcl rtg=$rtg moves=$MOVEDIR/rwp50-v$speed-p$pause-$run.tcl seed=$run trace="$TR" > /dev/null; then
        line=$(./summarize.py "$TR" $rtg $speed $pause $run --counters "$CNT")
        old=$(grep "^$rtg,$speed,$pause,$run," "$OUT" || true)
        if [ -z "$old" ]; then echo "$line" | tee -a "$OUT"
        elif [ "$old" != "$line" ]; then echo "MISMATCH: stored $old, now $line" >&2; fi
      else
        echo "$rtg,$speed,$pause,$run,last trace time $(tail -1 "$TR" | cut -d' ' -f2)" | tee -a "$HUNG"
      fi
    done
  done
done
rm -f "$TR"
