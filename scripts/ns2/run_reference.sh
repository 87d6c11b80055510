#!/usr/bin/env bash
# Runs the ns-2.35 reference scenarios of docs/ns2-reference.md, one ns
# process at a time, and appends what each run printed to
# scripts/ns2/results/<scenario>.log:
#   RUN <label> <arguments>      the exact arguments given to manet.tcl
#   RESULT ...                   manet.tcl's result lines
#   TIME user=.. sys=.. wall=..  /usr/bin/time for the whole ns process
# summarize.py turns the logs into the tables of the doc.
#
# Usage: scripts/ns2/run_reference.sh [s0] [s1] [s2] [s3] [s4] [events] [traces] [dsdv] [s4norts] [rwp] [aodv10] [dsr10]
#        (no argument: s0 s1 s2 s3 s4). Needs ns (ns-2.35) and
#        /usr/bin/time; manetlab's own tests never call this.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/results}
NS=${NS:-ns}
mkdir -p "$OUT"

run() { # run <log> <label> <manet.tcl args...>
    local log=$1 label=$2; shift 2
    local tmp
    tmp=$(mktemp)
    echo "RUN $label $*" | tee -a "$OUT/$log.log"
    ( cd "$HERE" && /usr/bin/time -f "TIME user=%U sys=%S wall=%e maxrss_kb=%M" \
        "$NS" manet.tcl "$@" ) >"$tmp" 2>&1 || { cat "$tmp"; exit 1; }
    grep -E '^(RESULT|TIME)' "$tmp" | tee -a "$OUT/$log.log" | grep -E 'RESULT all|TIME'
    rm -f "$tmp"
}

S1="topo=chain hops=2 spacing=200 rtg=AODV ifqlen=50 datarate=11Mb basicrate=1Mb rts=3000
    traffic=cbr src=2 dst=0 size=1470 rate=5Mb start=1.0 stop=100 from=10"
S2="topo=chain hops=10 spacing=200 rtg=AODV ifqlen=50 datarate=2Mb basicrate=2Mb rts=0
    traffic=cbr src=0 dst=10 size=1460 rate=2Mb start=1.0 stop=200 from=10"
S3="topo=file layout=random100.positions rtg=AODV ifqlen=50 datarate=2Mb basicrate=2Mb rts=0
    traffic=cbr size=512 pps=4 stop=100 from=0"
S4="topo=chain spacing=200 ifqlen=50 datarate=2Mb basicrate=2Mb rts=0
    traffic=tcp tcp=Reno size=1460 window=8 src=0 start=1.0 stop=200 from=10"

s0() { # fixed cost: start-up and tear-down of ns with the scenario 1 set-up
    for r in 1 2 3; do
        # shellcheck disable=SC2086
        run s0 "startup rep=$r" $S1 start=0.0005 stop=0.001 from=0 trace=off
    done
}
s1() {
    for t in off null; do
        for r in 1 2 3; do
            # shellcheck disable=SC2086
            run s1 "trace=$t rep=$r" $S1 seed=1 trace=$t
        done
    done
}
s2() {
    for r in 1 2 3; do
        # shellcheck disable=SC2086
        run s2 "seed=1 rep=$r" $S2 seed=1 trace=off
    done
    for s in 2 3; do
        # shellcheck disable=SC2086
        run s2 "seed=$s rep=1" $S2 seed=$s trace=off
    done
}
s3() {
    for r in 1 2 3; do
        # shellcheck disable=SC2086
        run s3 "seed=1 rep=$r" $S3 seed=1 trace=off
    done
    for s in 2 3; do
        # shellcheck disable=SC2086
        run s3 "seed=$s rep=1" $S3 seed=$s trace=off
    done
    # the sent count (sent_calc) cross-checked against "s AGT" trace lines
    local tr
    tr=$(mktemp)
    # shellcheck disable=SC2086
    run s3 "seed=1 trace-check" $S3 seed=1 trace="$tr"
    echo "TRACECHECK s_AGT=$(awk '$1=="s" && $4=="AGT" && $7=="cbr"' "$tr" | wc -l)" \
         "r_AGT=$(awk '$1=="r" && $4=="AGT" && $7=="cbr"' "$tr" | wc -l)" \
         "lines=$(wc -l <"$tr")" | tee -a "$OUT/s3.log"
    rm -f "$tr"
}
s4() {
    for rtg in AODV DSR; do
        for h in 1 2 3 4 5 6 7 8 9 10; do
            for s in 1 2 3; do
                # shellcheck disable=SC2086
                run s4 "rtg=$rtg hops=$h seed=$s" $S4 rtg=$rtg hops=$h dst=$h seed=$s trace=off
            done
        done
    done
}
# Random waypoint (docs/profiles.md): one TCP flow 0 -> 1 among 30 nodes in
# 1500 m x 300 m moving as in the setdest files moves/rwp30-{1..8}.tcl
# (setdest -v 1 -n 30 -p 0 -M 10 -t 120 -x 1500 -y 300, God lines
# removed), the S4 radio/MAC/TCP settings, 120 s, goodput from 10 s.
RWP="topo=moves nodes=30 gridx=1500 gridy=300 ifqlen=50 datarate=2Mb basicrate=2Mb rts=0
    traffic=tcp tcp=Reno size=1460 window=8 src=0 dst=1 start=1.0 stop=120 from=10"
rwp() {
    # MOVES: which movement files (default all eight; rwp30-5..8 were added
    # in session 6 and run with MOVES="5 6 7 8", appending to rwp.log).
    for rtg in DSR AODV; do
        for m in ${MOVES:-1 2 3 4 5 6 7 8}; do
            for s in 1 2 3; do
                # shellcheck disable=SC2086
                run rwp "rtg=$rtg moves=$m seed=$s" $RWP rtg=$rtg moves=moves/rwp30-$m.tcl seed=$s trace=off
            done
        done
    done
}
# AODV points whose 3-seed means were outside 15 % in session 8 (docs/profiles.md):
# 10 seeds each, to tell seed noise from a modelling difference
# (results/aodv10.log; compare_profiles.py --seeds 10 --points ... reads it).
aodv10() {
    for h in ${AODV10_HOPS:-9}; do
        for s in 1 2 3 4 5 6 7 8 9 10; do
            # shellcheck disable=SC2086
            run aodv10 "rtg=AODV hops=$h seed=$s" $S4 rtg=AODV hops=$h dst=$h seed=$s trace=off
        done
    done
    for m in ${AODV10_MOVES:-4 5 8}; do
        for s in 1 2 3 4 5 6 7 8 9 10; do
            # shellcheck disable=SC2086
            run aodv10 "rtg=AODV moves=$m seed=$s" $RWP rtg=AODV moves=moves/rwp30-$m.tcl seed=$s trace=off
        done
    done
}
# DSR random-waypoint points outside 15 % in session 8-9 (rwp30-4, rwp30-6),
# 10 seeds each (results/dsr10.log; session 10).
dsr10() {
    for m in ${DSR10_MOVES:-4 6}; do
        for s in 1 2 3 4 5 6 7 8 9 10; do
            # shellcheck disable=SC2086
            run dsr10 "rtg=DSR moves=$m seed=$s" $RWP rtg=DSR moves=moves/rwp30-$m.tcl seed=$s trace=off
        done
    done
}
# Side check: DSDV instead of AODV in S1 and S2 (is a proactive protocol a
# stand-in for static routes? No: see the doc).
dsdv() {
    # shellcheck disable=SC2086
    run dsdv "S1-DSDV" $S1 rtg=DSDV seed=1 trace=off
    # shellcheck disable=SC2086
    run dsdv "S2-DSDV" $S2 rtg=DSDV seed=1 trace=off
}
# Side check for scenario 4: the same TCP chain without RTS/CTS (DSR,
# seed 1, 1-3 hops), closer to the paper's 1-hop figure.
s4norts() {
    for h in 1 2 3; do
        # shellcheck disable=SC2086
        run s4norts "rtg=DSR hops=$h seed=1 rts=3000" $S4 rtg=DSR hops=$h dst=$h seed=1 rts=3000 trace=off
    done
}
# Events executed = calls of Scheduler::dispatch, counted by valgrind's
# callgrind (about 100x slower than a plain run: S1 took 1.7 min, S2 3 min;
# S3 was stopped after 20 CPU-minutes, so it is not in the default list).
events() {
    local cg sc
    # shellcheck disable=SC2086
    for sc in ${EVENT_SCENARIOS:-S1 S2}; do
        cg=$(mktemp)
        # shellcheck disable=SC2086
        echo "RUN events-$sc" ${!sc} "seed=1 trace=off" | tee -a "$OUT/events.log"
        # shellcheck disable=SC2086
        ( cd "$HERE" && valgrind --tool=callgrind --callgrind-out-file="$cg" \
            "$NS" manet.tcl ${!sc} seed=1 trace=off ) 2>/dev/null | grep 'RESULT all' | tee -a "$OUT/events.log"
        python3 "$HERE/callgrind_calls.py" "$cg" | tee -a "$OUT/events.log"
        rm -f "$cg"
    done
}

# Full old-format trace of S1 and S2 (seed 1, the same run as above): line
# count and a breakdown by event, layer and packet type, e.g.
# "s MAC cbr 52000" (D lines also by reason).
traces() {
    local tr sc
    for sc in S1 S2; do
        tr=$(mktemp)
        # shellcheck disable=SC2086
        run traces "trace-$sc" ${!sc} seed=1 trace="$tr"
        echo "LINES $sc $(wc -l <"$tr")" | tee -a "$OUT/traces.log"
        awk '{ k = $1 " " $4 " " $7; if ($1 == "D") k = k " " $5; n[k]++ }
             END { for (k in n) print "COUNT '"$sc"' " k " " n[k] }' "$tr" |
            sort >>"$OUT/traces.log"
        rm -f "$tr"
    done
}

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(s0 s1 s2 s3 s4)
{
    echo "HOST $(uname -srm) cpus=$(nproc) date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "NS $(dpkg-query -W -f='${Package} ${Version}' ns2 2>/dev/null || echo unknown)"
} | tee -a "$OUT/host.log"
for st in "${steps[@]}"; do
    "$st"
done
