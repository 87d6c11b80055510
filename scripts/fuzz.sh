#!/usr/bin/env bash
# Runs the fuzz targets of crates/manetlab/tests/fuzz.rs for SECONDS
# (default 600): scenario files (parse + validate, and short runs) and ns-2
# movement files, seeded from scenarios/. Each round is a fresh random
# proptest seed with MANETLAB_FUZZ_CASES x the default case counts (2,050
# per round at x1). Every round runs under a 1 GB address-space limit and
# a per-round timeout; inside, every case is timed (over 10 s fails; a
# watchdog saves and prints a case still running at 21 s and fails the
# round) and the process's peak memory during each case is recorded (over
# 1 GB fails). Prints the case counts, the largest per-case peak and the
# longest case. The test binary is copied first, so rebuilding the tree
# during a long run does not change what is measured.
# MANETLAB_FUZZ_INPUTS=N stops after the round that reaches N inputs
# (scenario + movement files) even if SECONDS have not passed.
#   scripts/fuzz.sh 3600            # an hour
#   MANETLAB_FUZZ_CASES=50 scripts/fuzz.sh 600
#   MANETLAB_FUZZ_INPUTS=1000000 scripts/fuzz.sh 7200
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
scale=${MANETLAB_FUZZ_CASES:-20}
cargo test --release -p manetlab --test fuzz --no-run 2>/dev/null
built=$(cargo test --release -p manetlab --test fuzz --no-run 2>&1 | grep -o 'target/release/deps/fuzz-[0-9a-f]*' | tail -1)
bin=$(mktemp)
cp "$built" "$bin"
chmod +x "$bin"
target=${MANETLAB_FUZZ_INPUTS:-0}
end=$(( $(date +%s) + secs ))
rounds=0; scen=0; runs=0; moves=0; peak=0; longest=0
log=$(mktemp)
trap 'rm -f "$log" "$bin"' EXIT
while [ "$(date +%s)" -lt "$end" ]; do
  if [ "$target" -gt 0 ] && [ $((scen + moves)) -ge "$target" ]; then break; fi
  if ! ( ulimit -v 1000000; MANETLAB_FUZZ_CASES=$scale timeout 600 "$bin" --nocapture --test-threads 1 ) >"$log" 2>&1; then
    cat "$log"; echo "fuzz: FAILED in round $((rounds + 1)) (input above; proptest shrank it)"; exit 1
  fi
  rounds=$((rounds + 1))
  scen=$((scen + $(grep -o 'fuzz: [0-9]* scenario files parsed' "$log" | grep -o '[0-9]*' || echo 0)))
  runs=$((runs + $(grep -o 'validated, [0-9]* of them run' "$log" | grep -o '[0-9]*' || echo 0)))
  moves=$((moves + $(grep -o 'fuzz: [0-9]* movement files' "$log" | grep -o '[0-9]*' || echo 0)))
  v=$(grep -o 'fuzz: [0-9]* scenario files validated' "$log" | grep -o '[0-9]*' || echo 0)
  scen=$((scen + v))
  p=$(grep -o 'peak memory during a case at most [0-9]*' "$log" | grep -o '[0-9]*$' | sort -n | tail -1 || echo 0)
  [ "${p:-0}" -gt "$peak" ] && peak=$p
  l=$(grep -o 'longest case [0-9]*' "$log" | grep -o '[0-9]*$' | sort -n | tail -1 || echo 0)
  [ "${l:-0}" -gt "$longest" ] && longest=$l
  echo "fuzz: after round $rounds ($(date -u +%H:%M:%S)): $scen scenario files (of which $runs run), $moves movement files" >&2
done
echo "fuzz: $rounds rounds, $scen scenario files (of which $runs run), $moves movement files: 0 failures; largest peak memory during one case: $peak MB; longest case: $longest ms"
