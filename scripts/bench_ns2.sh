#!/usr/bin/env bash
# Side by side with ns-2.35 (issue 25): the issue's four small scenarios,
# whole-process CPU seconds (user + sys from /usr/bin/time), mean and
# median of REPS paired runs (manetlab then ns-2, alternating, so both see
# the same machine load). ns-2 runs scripts/ns2/manet.tcl with the Splay
# scheduler and tracing off (NS2_DEFAULT=1 adds ns-2's default Calendar
# scheduler as a third column); manetlab runs scenarios/bench/ns2/*.toml,
# writing its usual outputs.
#
#   scripts/bench_ns2.sh                   # REPS=7
#   BASE=/tmp/manetlab.old scripts/bench_ns2.sh   # also an older binary,
#                                          # paired with the current one
#   NO_NS2=1 BASE=... scripts/bench_ns2.sh # A/B of two manetlab binaries
#   NO_BUILD=1 ...                         # use the existing target/dist binary
#   BUILD=pgo scripts/bench_ns2.sh         # the profile-guided binary of
#                                          # scripts/build_pgo.sh (NO_BUILD=1:
#                                          # the one it built last)
#
# COPIES=N runs N fresh copies of each manetlab binary (BIN and BASE),
# the repetitions spread over them in turn: on this project's VM
# byte-identical copies of one binary differ by up to 18 % in CPU time
# (where the file's pages sit in the page cache; docs/performance.md,
# "Session 19 (lead)"), so one file against one file is one draw of that
# placement; with COPIES the mean and median are over several draws.
#
# With BASE, the outputs of the two binaries are compared (every file but
# manifest.json; column "out": = identical, DIFF otherwise).
#
# The 400-node movement file of the issue is the N=400 row of
# scripts/bench_scale.sh (same movement and flows in both simulators).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
if [ "${BUILD:-}" = pgo ]; then
    [ -n "${NO_BUILD:-}" ] || scripts/build_pgo.sh >/dev/null
    BIN=${BIN:-${PGO_DIR:-$ROOT/target/pgo}/manetlab}
else
    [ -n "${NO_BUILD:-}" ] || cargo build --profile dist -q -p manetlab-cli
    BIN=${BIN:-$ROOT/target/dist/manetlab}
fi
REPS=${REPS:-7}
COPIES=${COPIES:-1}
WORK=${WORK:-/tmp/manetlab-bench-ns2}
mkdir -p "$WORK"
copies() { # copies NAME FILE -> COPIES fresh copies of FILE (FILE itself if 1)
    if [ "$COPIES" -le 1 ]; then echo "$2"; return; fi
    mkdir -p "$WORK/bin"
    for k in $(seq "$COPIES"); do
        cp "$2" "$WORK/bin/$1-$k" && echo "$WORK/bin/$1-$k"
    done
}
mapfile -t BINS < <(copies ml "$BIN")
[ -z "${BASE:-}" ] || mapfile -t BASES < <(copies base "$BASE")
have_ns=0
command -v ns >/dev/null 2>&1 && [ -z "${NO_NS2:-}" ] && have_ns=1

S4="topo=chain spacing=200 ifqlen=50 datarate=2Mb basicrate=2Mb rts=0 traffic=tcp tcp=Reno size=1460 window=8 src=0 start=1.0 stop=200 from=10 hops=10 dst=10"
declare -A NS2=(
    [twohop-aodv]="topo=chain hops=2 spacing=200 rtg=AODV ifqlen=50 datarate=11Mb basicrate=1Mb rts=3000 traffic=cbr src=2 dst=0 size=1470 rate=5Mb start=1.0 stop=100 from=10"
    [chain10-tcp-aodv]="$S4 rtg=AODV"
    [chain10-tcp-dsr]="$S4 rtg=DSR"
    [rwp30-dsr]="topo=moves nodes=30 gridx=1500 gridy=300 ifqlen=50 datarate=2Mb basicrate=2Mb rts=0 traffic=tcp tcp=Reno size=1460 window=8 src=0 dst=1 start=1.0 stop=200 from=10 rtg=DSR moves=moves/rwp30-1.tcl"
)
SCEN=${SCEN:-"twohop-aodv chain10-tcp-aodv chain10-tcp-dsr rwp30-dsr"}

cpu() { # cpu CMD... -> prints user+sys seconds of the whole process
    # bash's `times` in a subshell reports the command's user and sys time
    # to the millisecond (GNU time's %U %S print hundredths: 15 % of the
    # 2-hop run).
    local t
    t=$( ( "$@" >/dev/null 2>&1 || exit 1; times ) | tail -1) || { echo "failed: $*" >&2; exit 1; }
    echo "$t" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.3f\n", s }'
}
stats() { # stats VALUES... -> "mean median"
    printf "%s\n" "$@" | sort -n | awk '{v[NR]=$1; s+=$1} END{m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.3f %.3f\n", s/NR, m}'
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD) reps=$REPS copies=$COPIES load=$(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-18s %9s %9s" scenario "ml mean" "ml med"
[ -n "${BASE:-}" ] && printf " %9s %9s %8s %4s" "base mean" "base med" "new/base" out
[ $have_ns = 1 ] && printf " %9s %9s %8s" "ns2 mean" "ns2 med" "ns2/ml"
[ $have_ns = 1 ] && [ -n "${NS2_DEFAULT:-}" ] && printf " %9s" "ns2 dflt"
printf "\n"
for s in $SCEN; do
    toml=$ROOT/scenarios/bench/ns2/$s.toml
    ml=(); base=(); ns=(); nsd=()
    for r in $(seq 0 $((REPS - 1))); do
        ml+=("$(cpu "${BINS[r % ${#BINS[@]}]}" run "$toml" --out "$WORK/$s")")
        [ -n "${BASE:-}" ] && base+=("$(cpu "${BASES[r % ${#BASES[@]}]}" run "$toml" --out "$WORK/$s-base")")
        if [ $have_ns = 1 ]; then
            # shellcheck disable=SC2086
            ns+=("$(cd "$ROOT/scripts/ns2" && cpu ns manet.tcl ${NS2[$s]} seed=1 trace=off sched=Splay)")
            # shellcheck disable=SC2086
            [ -n "${NS2_DEFAULT:-}" ] && nsd+=("$(cd "$ROOT/scripts/ns2" && cpu ns manet.tcl ${NS2[$s]} seed=1 trace=off)")
        fi
    done
    read -r mm md < <(stats "${ml[@]}")
    printf "%-18s %9s %9s" "$s" "$mm" "$md"
    if [ -n "${BASE:-}" ]; then
        read -r bm bd < <(stats "${base[@]}")
        same="="
        diff -rq -x manifest.json "$WORK/$s" "$WORK/$s-base" >/dev/null || same=DIFF
        printf " %9s %9s %8.3f %4s" "$bm" "$bd" "$(echo "$mm / $bm" | bc -l)" "$same"
    fi
    if [ $have_ns = 1 ]; then
        read -r nm nd < <(stats "${ns[@]}")
        printf " %9s %9s %7.1fx" "$nm" "$nd" "$(echo "$nm / $mm" | bc -l)"
        if [ -n "${NS2_DEFAULT:-}" ]; then
            read -r dm _ < <(stats "${nsd[@]}")
            printf " %9s" "$dm"
        fi
    fi
    printf "\n"
done
