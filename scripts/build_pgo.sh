#!/usr/bin/env bash
# Profile-guided build of the manetlab CLI (issue 25): the `dist` profile
# (fat LTO, one codegen unit) compiled a second time with the branch and
# call counts of training runs (rustc -Cprofile-generate / -Cprofile-use,
# LLVM's instrumentation PGO). Outputs are byte-identical to the normal
# build's (PGO changes code layout, inlining and branch order, never
# arithmetic); `BUILD=pgo BASE=target/dist/manetlab scripts/bench_ns2.sh`
# compares them (column "out").
#
#   scripts/build_pgo.sh           # prints the path of the PGO binary
#   PGO_DIR=/tmp/pgo scripts/build_pgo.sh
#   PGO_RUSTFLAGS="-Ctarget-cpu=x86-64-v3" scripts/build_pgo.sh  # extra flags
#   BOLT=1 scripts/build_pgo.sh    # then BOLT's layout on top (below)
#
# The binary to run is always copied to $PGO_DIR/manetlab (the bench
# scripts' BUILD=pgo takes it from there).
#
# BOLT=1 (needs llvm-bolt and merge-fdata, Debian's bolt-19 package:
# `apt-get install bolt-19`; LLVM_BOLT=/path/to/llvm-bolt to choose one):
# the PGO build is linked with --emit-relocs, BOLT instruments it, the same
# training set runs again, and llvm-bolt rewrites the binary with the
# measured function order (cdsort), block order (ext-tsp) and hot/cold
# splitting. BOLT moves code, never changes what it computes; outputs stay
# byte-identical (checked by the bench scripts' "out" column). Session
# 16's numbers: docs/performance.md.
#
# -Ctarget-cpu=x86-64-v3 (AVX2, FMA, BMI2: Haswell and later) gave another
# 4-8 % with byte-identical outputs (Rust never fuses a multiply and an add
# into an FMA by itself); the binary then needs such a CPU, so it is not
# the default. Session 11's numbers: docs/performance.md.
#
# Needs the llvm-tools component of the active toolchain (llvm-profdata of
# the same LLVM as rustc: `rustup component add llvm-tools`); the system's
# llvm-profdata is usually an older LLVM that cannot read the profiles.
# Builds in its own target dirs under $PGO_DIR (default target/pgo), so the
# normal target/ is not invalidated; `--target HOST` keeps the
# instrumentation out of build scripts and proc macros.
#
# Training set (deliberately NOT the benchmark scenarios of
# scenarios/bench/): what the simulator spends its time on, over the
# protocols and traffic the benchmarks use and the ones they do not:
#   scenarios/elfn-mobile.toml    DSR, TCP, 30 nodes moving (pattern scheme)
#   scenarios/elfn-break.toml     DSR, TCP, 5-node chain with a link break
#   scenarios/chain-tcp.toml      static routes, TCP, 5-node chain, 100 s
#   the same with routing.protocol=aodv
#   scenarios/chain-udp.toml      static routes, CBR, 11-node chain
#   scenarios/speed-sweep.toml    AODV, CBR, 50 nodes random waypoint, a sweep
#                                 of 3 speeds x 2 runs (rayon threads)
#   scenarios/olsr-grid.toml      OLSR, CBR, grid
#   scenarios/grid.toml with routing.protocol=dsdv     DSDV, CBR, grid
#   scenarios/voip-tcp-string.toml  VoIP + TCP, priority queue, chain
#   gen_mrc.py 50 (80 s)          AODV, 50 nodes random waypoint, 10 CBR flows
#   gen_mrc.py 50 with DSR (80 s) the same with DSR's route cache
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PGO_DIR=${PGO_DIR:-$ROOT/target/pgo}
HOST=$(rustc -vV | sed -n 's/^host: //p')
PROFDATA=${PROFDATA:-$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-profdata}
if [ ! -x "$PROFDATA" ]; then
    echo "build_pgo.sh: no llvm-profdata at $PROFDATA; run 'rustup component add llvm-tools'" >&2
    exit 1
fi
EXTRA=${PGO_RUSTFLAGS:-}
if [ -n "${BOLT:-}" ]; then
    # llvm-bolt finds its instrumentation runtime relative to its own
    # directory, so prefer the LLVM tree's copy over /usr/bin's link.
    LLVM_BOLT=${LLVM_BOLT:-$(ls /usr/lib/llvm-*/bin/llvm-bolt 2>/dev/null | sort -V | tail -1)}
    if [ -z "$LLVM_BOLT" ] || [ ! -x "$LLVM_BOLT" ]; then
        echo "build_pgo.sh: BOLT=1 but no llvm-bolt found; apt-get install bolt-19 (or set LLVM_BOLT)" >&2
        exit 1
    fi
    MERGE_FDATA=$(dirname "$LLVM_BOLT")/merge-fdata
fi
PROFILES=$PGO_DIR/profiles
TRAIN=$PGO_DIR/train
rm -rf "$PROFILES" "$TRAIN"
mkdir -p "$PROFILES" "$TRAIN"

say() { echo "build_pgo.sh: $*" >&2; }

say "1/4 instrumented build ($PGO_DIR/gen)"
# Without LTO: rustc 1.95's LLVM crashes (SIGSEGV in the loop vectoriser)
# on the fat-LTO module of the instrumented build. The counters are placed
# before any LTO, so the profile still matches the fat-LTO build below.
CARGO_PROFILE_DIST_LTO=off RUSTFLAGS="-Cprofile-generate=$PROFILES $EXTRA" \
    cargo build --profile dist -q -p manetlab-cli --target "$HOST" --target-dir "$PGO_DIR/gen"
GEN=$PGO_DIR/gen/$HOST/dist/manetlab

say "2/4 training runs"
python3 scripts/gen_mrc.py 50 "$TRAIN/mrc50.toml" --duration 80
train() { # train NAME TOML [--set K=V...]
    local name=$1 toml=$2
    shift 2
    "$RUNBIN" run "$toml" --out "$TRAIN/$name" "$@" >"$TRAIN/$name.log" 2>&1 || {
        cat "$TRAIN/$name.log" >&2
        exit 1
    }
}
training_set() {
    train elfn-mobile scenarios/elfn-mobile.toml
    train elfn-break scenarios/elfn-break.toml
    train chain-tcp scenarios/chain-tcp.toml --set run.duration=100s
    train chain-tcp-aodv scenarios/chain-tcp.toml --set run.duration=100s --set routing.protocol=aodv
    train chain-udp scenarios/chain-udp.toml
    train speed-sweep scenarios/speed-sweep.toml --runs 2
    train olsr-grid scenarios/olsr-grid.toml
    train dsdv-grid scenarios/grid.toml --set routing.protocol=dsdv
    train voip-tcp-string scenarios/voip-tcp-string.toml
    train mrc50-aodv "$TRAIN/mrc50.toml"
    train mrc50-dsr "$TRAIN/mrc50.toml" --set routing.protocol=dsr
}
RUNBIN=$GEN
training_set

say "3/4 merging the profiles"
"$PROFDATA" merge -o "$PGO_DIR/manetlab.profdata" "$PROFILES"
# The instrumented build is ~0.7 GB; KEEP_GEN=1 keeps it for a faster rerun.
[ -n "${KEEP_GEN:-}" ] || rm -rf "$PGO_DIR/gen"

say "4/4 optimised build ($PGO_DIR/use)"
RELOCS=
[ -z "${BOLT:-}" ] || RELOCS="-Clink-arg=-Wl,--emit-relocs"
RUSTFLAGS="-Cprofile-use=$PGO_DIR/manetlab.profdata $EXTRA $RELOCS" \
    cargo build --profile dist -q -p manetlab-cli --target "$HOST" --target-dir "$PGO_DIR/use"
USE=$PGO_DIR/use/$HOST/dist/manetlab
if [ -z "${BOLT:-}" ]; then
    cp "$USE" "$PGO_DIR/manetlab"
    echo "$PGO_DIR/manetlab"
    exit 0
fi

say "BOLT 1/3 instrumenting the PGO binary ($LLVM_BOLT)"
FDATA=$PGO_DIR/bolt-fdata
rm -rf "$FDATA" "$TRAIN"
mkdir -p "$FDATA" "$TRAIN"
"$LLVM_BOLT" "$USE" -instrument -o "$PGO_DIR/manetlab.bolt-inst" \
    --instrumentation-file="$FDATA/prof" --instrumentation-file-append-pid >"$PGO_DIR/bolt-inst.log" 2>&1 || {
    cat "$PGO_DIR/bolt-inst.log" >&2
    exit 1
}
say "BOLT 2/3 training runs"
python3 scripts/gen_mrc.py 50 "$TRAIN/mrc50.toml" --duration 80
RUNBIN=$PGO_DIR/manetlab.bolt-inst
training_set
"$MERGE_FDATA" "$FDATA"/*.fdata >"$PGO_DIR/manetlab.fdata" 2>/dev/null
say "BOLT 3/3 rewriting the binary"
"$LLVM_BOLT" "$USE" -o "$PGO_DIR/manetlab" -data="$PGO_DIR/manetlab.fdata" \
    -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions -split-all-cold \
    -icf=1 -use-gnu-stack >"$PGO_DIR/bolt.log" 2>&1 || {
    cat "$PGO_DIR/bolt.log" >&2
    exit 1
}
rm -f "$PGO_DIR/manetlab.bolt-inst"
echo "$PGO_DIR/manetlab"
