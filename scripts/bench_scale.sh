#!/usr/bin/env bash
# Scale benchmark (issue 25): the manet-routing-compare-like family of
# scripts/gen_mrc.py (N nodes at constant density, random waypoint
# 0.1-20 m/s without pause, AODV, 802.11b 11/1 Mbit/s, 10 CBR flows of
# 64 B every 250 ms from 100 s, 200 s simulated) at each N, reporting
# events, CPU seconds (user + sys of the whole process, /usr/bin/time),
# events per CPU-second, simulated seconds per CPU-second and peak RSS.
# CPU time, not wall time: the machine may be shared. Each size runs REPS
# times and the lowest CPU time is reported (the least disturbed run).
#
# With ns-2.35 installed (`ns`) and N <= NS2_MAX, ns-2 runs the same
# movement (exported by `manetlab movement`) and flows with scripts/ns2/manet.tcl
# (Splay scheduler, tracing off), and the ratio is printed. The ratio is
# taken against manetlab running the same network configured as ns-2.35
# runs it (`gen_mrc.py --ns2`: ns-2.35's AODV build without HELLOs, ns-2's
# ARP; column "ns2cfg s"), not against the family's default AODV (with
# HELLOs, as ns-3 runs it) of the first columns.
#
#   scripts/bench_scale.sh                 # N = 50 100 200 400 1000 2000
#   SIZES="50 400" REPS=3 scripts/bench_scale.sh
#   DURATION=50 SIZES=10000 scripts/bench_scale.sh   # shorter simulated time
#   NO_BUILD=1 ...                          # use the existing target/dist binary
#   NO_BUILD=1 BIN=/tmp/manetlab.old ...    # another manetlab binary
#   BUILD=pgo ...                           # the binary of scripts/build_pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
if [ "${BUILD:-}" = pgo ]; then # profile-guided (NO_BUILD=1: the last one built)
    [ -n "${NO_BUILD:-}" ] || scripts/build_pgo.sh >/dev/null
    BIN=${BIN:-${PGO_DIR:-$ROOT/target/pgo}/manetlab}
else
    [ -n "${NO_BUILD:-}" ] || cargo build --profile dist -q
    BIN=${BIN:-$ROOT/target/dist/manetlab}
fi
SIZES=${SIZES:-"50 100 200 400 1000 2000"}
REPS=${REPS:-1}
DURATION=${DURATION:-200}
NS2_MAX=${NS2_MAX:-400}
WORK=${WORK:-/tmp/manetlab-bench-scale}
mkdir -p "$WORK"
have_ns=0
command -v ns >/dev/null 2>&1 && [ "${NO_NS2:-}" = "" ] && have_ns=1

cpu_of() { # cpu_of FILE -> "user+sys maxrss_kb" from /usr/bin/time -v output
    awk -F': ' '/User time/{u=$2} /System time/{s=$2} /Maximum resident/{m=$2} END{printf "%.3f %d\n", u+s, m}' "$1"
}

printf "%6s %11s %8s %10s %9s %8s" N events "CPU s" "ev/CPU-s" "sim/CPU" "RSS MB"
[ $have_ns = 1 ] && printf " %9s %9s %8s %7s" "ns2cfg s" "ns2 CPU" "ns2 MB" "ratio"
printf "\n"
for n in $SIZES; do
    toml=$WORK/mrc$n.toml
    python3 "$ROOT/scripts/gen_mrc.py" "$n" "$toml" --duration "$DURATION"
    best=""; rss=""; events=""
    for _ in $(seq "$REPS"); do
        /usr/bin/time -v "$BIN" run "$toml" --out "$WORK/out$n" >"$WORK/run$n.out" 2>"$WORK/time$n.txt"
        read -r cpu kb < <(cpu_of "$WORK/time$n.txt")
        events=$(grep -Eo "^[0-9]+ events in" "$WORK/run$n.out" | awk '{print $1}')
        if [ -z "$best" ] || [ "$(echo "$cpu < $best" | bc -l)" = 1 ]; then best=$cpu; rss=$kb; fi
    done
    printf "%6d %11d %8.2f %10.0f %9.2f %8.1f" "$n" "$events" "$best" \
        "$(echo "$events / $best" | bc -l)" "$(echo "$DURATION / $best" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
    if [ $have_ns = 1 ] && [ "$n" -le "$NS2_MAX" ]; then
        "$BIN" movement "$toml" --out "$WORK/moves$n.tcl" >/dev/null
        python3 - "$toml" "$WORK/flows$n.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
with open(sys.argv[2], "w") as f:
    for m in re.finditer(r'src = (\d+)\ndst = (\d+)\n.*?start = "([0-9.]+)s"', t, re.S):
        f.write(f"flow {m.group(1)} {m.group(2)} {m.group(3)} 1e9\n")
PY
        # The same network configured as ns-2.35 runs it (gen_mrc.py --ns2:
        # ns-2.35's AODV build, no HELLOs, ns-2's ARP): the run the ratio
        # is taken against (column "ns2cfg s", best of REPS).
        python3 "$ROOT/scripts/gen_mrc.py" "$n" "$WORK/mrc$n-ns2.toml" --duration "$DURATION" --ns2
        mlbest=""
        for _ in $(seq "$REPS"); do
            /usr/bin/time -v "$BIN" run "$WORK/mrc$n-ns2.toml" --out "$WORK/out$n-ns2" >/dev/null 2>"$WORK/time$n-ns2.txt"
            read -r cpu _ < <(cpu_of "$WORK/time$n-ns2.txt")
            if [ -z "$mlbest" ] || [ "$(echo "$cpu < $mlbest" | bc -l)" = 1 ]; then mlbest=$cpu; fi
        done
        area=$(grep -Eo 'area = \["[0-9.]+m", "[0-9.]+m"\]' "$toml" | grep -Eo '[0-9.]+' | tr '\n' ' ')
        read -r gx gy <<<"$area"
        nsbest=""; nsrss=""
        for _ in $(seq "$REPS"); do
            ( cd "$ROOT/scripts/ns2" && /usr/bin/time -v ns manet.tcl topo=moves moves="$WORK/moves$n.tcl" nodes="$n" \
                gridx="$gx" gridy="$gy" flows="$WORK/flows$n.txt" rtg=AODV datarate=11Mb basicrate=1Mb rts=3000 \
                traffic=cbr size=64 pps=4 stop="$DURATION" from=100 seed=1 trace=off sched=Splay \
                offfile="$WORK/ns$n.tr" ) >"$WORK/ns$n.out" 2>"$WORK/nstime$n.txt"
            read -r cpu kb < <(cpu_of "$WORK/nstime$n.txt")
            if [ -z "$nsbest" ] || [ "$(echo "$cpu < $nsbest" | bc -l)" = 1 ]; then nsbest=$cpu; nsrss=$kb; fi
        done
        printf " %9.2f %9.2f %8.1f %6.1fx" "$mlbest" "$nsbest" "$(echo "$nsrss / 1024" | bc -l)" "$(echo "$nsbest / $mlbest" | bc -l)"
    fi
    printf "\n"
done
