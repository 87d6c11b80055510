#!/usr/bin/env bash
# Builds scripts/ns3/tcp_chain.cc against libns3-dev (ns-3.37) and runs the
# TCP chain at 1..10 hops for SEEDS seeds, appending to
# scripts/ns3/results/tcp_chain.log. manetlab's side:
# scripts/ns3/compare.py. Usage: scripts/ns3/run.sh [SEEDS] [STOP] [SPACING]
# Counters of one run (PHY drop reasons, MAC retries and drops, WifiMacQueue
# expiries and length, TCP retransmissions/RTOs, cwnd every 3 s):
#   $BIN --hops=2 --seed=1 --counters=1   (docs/profiles.md, ns-3 section)
# Time trace, every 50 ms (cwnd, ssthresh, in flight, TCP state, queues of
# nodes 0-2, node 0's expiries, RTOs, recoveries): $BIN --hops=2 --seed=1 --trace=1
# Event log (one line per sender segment, ACK, TCP state, RTO, cwnd and RTT
# change; segment numbers of 536 B): $BIN --hops=5 --seed=1 --events=1
# ns-3.37's TCP here is its default TcpCubic; NewReno for comparison:
#   $BIN --hops=2 --ns3::TcpL4Protocol::SocketType=ns3::TcpNewReno
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SEEDS=${1:-3}; STOP=${2:-100}; SPACING=${3:-40}
BIN=${BIN:-/tmp/ns3-tcp-chain}
# (pkg-config's ns3 libs name libgsl.so, which Debian ships only as .so.27)
g++ -O2 -std=c++17 -o "$BIN" "$HERE/tcp_chain.cc" -lns3-wifi -lns3-internet -lns3-applications \
    -lns3-mobility -lns3-network -lns3-core -lns3-propagation -lns3-traffic-control -lns3-energy \
    -lns3-spectrum -lns3-antenna
mkdir -p "$HERE/results"
for h in 1 2 3 4 5 6 7 8 9 10; do
    for s in $(seq 1 "$SEEDS"); do
        "$BIN" --hops="$h" --seed="$s" --stop="$STOP" --spacing="$SPACING" | tee -a "$HERE/results/tcp_chain.log"
    done
done
