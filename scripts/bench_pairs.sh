#!/usr/bin/env bash
# Paired A/B of two manetlab binaries on the scale family (issue 25):
# for each N, REPS rounds of (old, new) alternating, so both see the same
# machine load; prints each run's CPU seconds (user + sys), the medians,
# and whether summary.json, flows.csv, nodes.csv and network.csv are
# byte-identical between the two.
#
#   OLD=/tmp/manetlab.old NEW=target/dist/manetlab SIZES="50 400" REPS=3 scripts/bench_pairs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OLD=${OLD:?OLD=path of the old binary}
NEW=${NEW:-$ROOT/target/dist/manetlab}
SIZES=${SIZES:-"50 400"}
REPS=${REPS:-3}
DURATION=${DURATION:-200}
WORK=${WORK:-/tmp/manetlab-bench-pairs}
mkdir -p "$WORK"
cpu() { # cpu OUTDIR TOML BIN -> user+sys seconds
    local t
    t=$(mktemp)
    /usr/bin/time -f "%U %S" -o "$t" "$3" run "$2" --out "$1" >/dev/null 2>&1
    awk '{printf "%.2f\n", $1 + $2}' "$t"
    rm -f "$t"
}
med() { printf "%s\n" "$@" | sort -n | awk '{v[NR]=$1} END{print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) load=$(cut -d' ' -f1-3 /proc/loadavg) old=$OLD new=$NEW"
for n in $SIZES; do
    toml=$WORK/mrc$n.toml
    python3 "$ROOT/scripts/gen_mrc.py" "$n" "$toml" --duration "$DURATION"
    o=(); w=()
    for _ in $(seq "$REPS"); do
        o+=("$(cpu "$WORK/old$n" "$toml" "$OLD")")
        w+=("$(cpu "$WORK/new$n" "$toml" "$NEW")")
    done
    same=identical
    for f in summary.json flows.csv nodes.csv network.csv; do
        cmp -s "$WORK/old$n/$f" "$WORK/new$n/$f" || same="DIFFERENT ($f)"
    done
    echo "N=$n old ${o[*]} (median $(med "${o[@]}")) new ${w[*]} (median $(med "${w[@]}")) outputs $same"
done
