#!/bin/sh
# Runs the ns-3 reference for the mrc study: every (seed, point, protocol)
# of the grid below, JOBS at a time, appending one CSV line per run to
# crates/manetlab-studies/data/reference/mrc/ns3-runs.csv and one line of
# counters (drops by reason, control packets by type: see mrc.cc) to
# ns3-counters.csv. A run already in both files is skipped, so the script
# resumes; a run in ns3-runs.csv but not in ns3-counters.csv (made before
# the counters existed) is run again for its counters with COUNTERS=1, and its main line,
# which must come out the same (ns-3 runs are deterministic per RngRun), is
# checked against the stored one (a mismatch is reported on stderr, the
# stored line kept). Seeds are the outer loop so an interrupted run leaves
# whole seeds.
# MOVES=1: the paired comparison instead: run RUN moves as in the ns-2
# movement file crates/manetlab-studies/data/mrc/moves/rwp50-vSPEED-pPAUSE-RUN.tcl
# (the file ns-2 and manetlab run on; mrc --moves), flows start at
# 100 + 0.1 i s, and the lines go to ns3-moves-runs.csv and
# ns3-moves-counters.csv (counters always).
# FATES=1: also write what became of every data packet (mrc --fates: each
# packet the sockets accepted in one class, by the last event seen for it;
# see FATES_HEADER in mrc.cc) to ns3-moves-fates.csv / ns3-fates.csv, and
# re-run stored runs that have no fates line yet (their main line checked
# as above).
# Usage: [POINTS="speed:pause ..."] [PROTOCOLS="AODV ..."] [COUNTERS=1] [MOVES=1] scripts/ns3/mrc/run.sh [SEEDS] [JOBS]
set -e
cd "$(dirname "$0")"
[ -x ./mrc ] || ./build.sh
SEEDS=${1:-5}
JOBS=${2:-2}
DIR=../../../crates/manetlab-studies/data/reference/mrc
MOVES=${MOVES:-0}
if [ "$MOVES" = 1 ]; then
  OUT=$DIR/ns3-moves-runs.csv
  CNT=$DIR/ns3-moves-counters.csv
  FAT=$DIR/ns3-moves-fates.csv
  COUNTERS=1
  MOVEDIR=$(cd ../../../crates/manetlab-studies/data/mrc/moves && pwd)
else
  OUT=$DIR/ns3-runs.csv
  CNT=$DIR/ns3-counters.csv
  FAT=$DIR/ns3-fates.csv
  MOVEDIR=
fi
# The unit-disk range for mean degree / connectivity: ns-3's preamble
# detection needs -82 dBm; Friis at 5.15 GHz (ns-3's default frequency,
# which the example does not change) from 7.5 dBm reaches it at 138.5 m.
RANGE=138.5
POINTS=${POINTS:-"1:0 20:0 20:100"}
PROTOCOLS=${PROTOCOLS:-"AODV DSR DSDV OLSR"}
# COUNTERS=1: also re-run stored runs that have no counters line yet.
COUNTERS=${COUNTERS:-$MOVES}
[ -f "$OUT" ] || ./mrc --time=0 --header | head -1 > "$OUT"
# The counters' header (as mrc.cc's COUNTERS_HEADER comment).
[ -f "$CNT" ] || echo "protocol,max_speed,pause,run,offered,refused,received,rreq_orig,rreq_fwd,rrep,hello,rerr,olsr_packets,olsr_hello,olsr_tc,olsr_other,ip_ttl,ip_noroute,ip_route_error,ip_other,arp_drop,mac_retry_data,mac_retry_ctl,mac_lifetime_data,mac_enqueue_data,mac_txdrop,dsr_drop,phy_rx_drop" > "$CNT"
FATES=${FATES:-0}
[ "$FATES" != 1 ] || [ -f "$FAT" ] || echo "protocol,max_speed,pause,run,offered,sent,delivered,never_to_mac_old,never_to_mac_recent,last_mac_tx,last_mac_rx,last_mac_retry,last_mac_other,last_arp,last_arp_giveup,last_ip,last_dsr" > "$FAT"
FARG=; [ "$FATES" = 1 ] && FARG="--fates=$FAT"
TMP=$(mktemp -d)
for run in $(seq 1 "$SEEDS"); do
  for pt in $POINTS; do
    speed=${pt%:*}; pause=${pt#*:}
    for proto in $PROTOCOLS; do
      if grep -q "^$proto,$speed,$pause,$run," "$OUT"; then
        if [ "$FATES" = 1 ]; then
          grep -q "^$proto,$speed,$pause,$run," "$FAT" && continue
        else
          [ "$COUNTERS" = 1 ] || continue
          grep -q "^$proto,$speed,$pause,$run," "$CNT" && continue
        fi
      fi
      echo "$proto $speed $pause $run"
    done
  done
done > "$TMP/todo"
echo "$(wc -l < "$TMP/todo") runs to do"
# JOBS at a time; each run's lines are appended when it finishes.
cat "$TMP/todo" | xargs -P "$JOBS" -L 1 sh -c '
  mv=; [ -n "'"$MOVEDIR"'" ] && mv="--moves='"$MOVEDIR"'/rwp50-v$1-p$2-$3.tcl"
  cnt='"$CNT"'; grep -q "^$0,$1,$2,$3," "$cnt" && cnt=/dev/null
  line=$(./mrc --protocol=$0 --speed=$1 --pause=$2 --RngRun=$3 --range='"$RANGE"' --counters=$cnt '"$FARG"' $mv 2>/dev/null) || exit 0
  old=$(grep "^$0,$1,$2,$3," '"$OUT"' || true)
  if [ -z "$old" ]; then echo "$line" >> '"$OUT"'
  elif [ "$old" != "$line" ]; then echo "MISMATCH $0 $1 $2 $3: stored $old, now $line" >&2; fi
  echo "done $0 $1 $2 $3: $line" >&2'
rm -rf "$TMP"
