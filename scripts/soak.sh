#!/usr/bin/env bash
# Soak: long mobile runs (scenarios/elfn-mobile.toml: 30 nodes, pattern
# mobility at 10 m/s in 1500 m x 300 m) with AODV and DSR, TCP and CBR,
# for DURATION simulated seconds (default 20000). Checks that the packet
# audit balances (unaccounted = 0) and that memory stays flat: the peak RSS
# of a run of DURATION must be within 1.5x (+ 20 MB) of a run of
# DURATION / 4. Writes soak/<case>/ and prints one line per case.
#   scripts/soak.sh            # 20000 s, 4 cases (tens of minutes on 1 core)
#   scripts/soak.sh 10000 aodv-tcp
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-20000}
only=${2:-}
cargo build --release -p manetlab-cli 2>/dev/null
bin=target/release/manetlab
out=${SOAK_OUT:-soak}
mkdir -p "$out"
fail=0
rss() { # peak RSS in KB of: manetlab ARGS
  /usr/bin/time -f '%M' "$bin" "$@" 2>&1 >/dev/null | tail -1
}
for case in aodv-tcp dsr-tcp aodv-cbr dsr-cbr; do
  [ -n "$only" ] && [ "$only" != "$case" ] && continue
  proto=${case%-*}; traffic=${case#*-}
  sets=(--set routing.protocol="$proto" --runs 1 -q)
  sc=scenarios/elfn-mobile.toml
  if [ "$traffic" = cbr ]; then
    # The same network with a 100 kbit/s CBR flow instead of TCP.
    sc="$out/elfn-mobile-cbr.toml"
    python3 - scenarios/elfn-mobile.toml "$sc" <<'PY'
import sys
text = open(sys.argv[1]).read()
head, flow = text.split("[[flow]]", 1)
keep = [l for l in flow.splitlines() if l.split("=")[0].strip() in ("name", "src", "dst", "start", "stop")]
open(sys.argv[2], "w").write(head + "[[flow]]\n" + "\n".join(keep) + '\ntype = "cbr"\nrate = "100kbps"\npacket_size = "512B"\n')
PY
  fi
  short=$(rss run "$sc" "${sets[@]}" --set run.duration=$((dur / 4))s --out "$out/$case-short")
  long=$(rss run "$sc" "${sets[@]}" --set run.duration=${dur}s --out "$out/$case")
  audit=$(python3 -c "
import json,sys
r=json.load(open('$out/$case/summary.json'))['replications'][0]['audit']
print(r['created'], r['delivered'], sum(r['dropped'].values()), sum(r['held_at_end'].values()), r['unaccounted'])")
  read -r created delivered dropped held unaccounted <<<"$audit"
  flat=$(( long <= short * 3 / 2 + 20000 ))
  echo "soak $case ${dur}s: created $created delivered $delivered dropped $dropped held $held unaccounted $unaccounted; peak RSS ${short} KB at $((dur / 4)) s, ${long} KB at ${dur} s"
  if [ "$unaccounted" != 0 ] || [ $((delivered + dropped + held)) != "$created" ]; then echo "soak $case: AUDIT DOES NOT BALANCE"; fail=1; fi
  if [ "$flat" != 1 ]; then echo "soak $case: MEMORY GROWS"; fail=1; fi
done
exit $fail
