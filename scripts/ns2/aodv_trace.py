#!/usr/bin/env python3
"""Reads ns-2 classic (CMU) wireless traces, from ns-2.35 (manet.tcl
trace=FILE) or from manetlab (output.trace = ["ns2-old"]), for the AODV
comparison of docs/profiles.md (session 9). Written for manetlab.

  aodv_trace.py paths TRACE          per 5 s window: TCP data forwarded per
                                     link (node->next hop), MAC retry-limit
                                     drops (RET@node:type), routing drops
  aodv_trace.py rreqs TRACE          RREQs each node originated, by
                                     destination and TTL, and all RREQ sends
  aodv_trace.py gaps TRACE DST [FROM]
                                     TCP data arrivals at node DST: gaps over
                                     1 s after FROM (default 10 s), their sum
  aodv_trace.py pos MOVES T N,N,...  positions at time T from a setdest file
                                     and the distances between the nodes

An originated RREQ is one whose originator field is the node writing the
line (ns-2.35 rewrites the IP source at every hop and counts hops from 1,
manetlab from 0).
"""
import collections
import math
import re
import sys

IP = re.compile(r"------- \[(-?\d+):\d+ (-?\d+):\d+ (-?\d+) (-?\d+)\]")
# RREQ body: [0x2 hops id [dst dst_seq] [originator originator_seq]]
RREQ = re.compile(r"\[0x2 \d+ \d+ \[(\d+) \d+\] \[(\d+) \d+\]\]")


def lines(path):
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 8 and fields[0] in "sfrD":
                yield line, fields


def paths(trace):
    win = collections.defaultdict(collections.Counter)
    for line, f in lines(trace):
        ev, t, node, layer = f[0], float(f[1]), f[2].strip("_"), f[3]
        w = int(t // 5) * 5
        if ev in ("s", "f") and layer == "RTR" and f[6] == "tcp" and int(f[7]) > 1000:
            m = IP.search(line)
            if m:
                win[w][f"{node}->{m.group(4)}"] += 1
        elif ev == "D" and f[4] == "RET":
            win[w][f"RET@{node}:{f[6]}"] += 1
        elif ev == "D" and layer == "RTR":
            win[w][f"{f[4]}@{node}:{f[6]}"] += 1
    for w in sorted(win):
        print(w, " ".join(f"{k}:{v}" for k, v in sorted(win[w].items())))


def rreqs(trace):
    orig = collections.Counter()
    total = 0
    for line, f in lines(trace):
        if f[0] != "s" or f[3] != "RTR" or "(REQUEST)" not in line:
            continue
        total += 1
        m = IP.search(line)
        q = RREQ.search(line)
        node = f[2].strip("_")
        if m and q and q.group(2) == node:
            orig[(int(node), int(q.group(1)), int(m.group(3)))] += 1
    for (node, dst, ttl), n in sorted(orig.items()):
        print(f"node {node} dst {dst} ttl {ttl}: {n}")
    print(f"originated {sum(orig.values())}, RREQ sends (all nodes) {total}")


def gaps(trace, dst, start=10.0):
    last, total, out = None, 0.0, []
    for _, f in lines(trace):
        if f[0] == "r" and f[3] == "AGT" and f[6] == "tcp" and f[2] == f"_{dst}_":
            t = float(f[1])
            if t >= start and last is not None and t - last > 1.0:
                total += t - last
                out.append((round(last, 1), round(t - last, 1)))
            last = t
    print(f"gaps over 1 s: {len(out)}, total {total:.1f} s")
    print(" ".join(f"{a}+{b}" for a, b in out))


def positions(moves, t, nodes):
    start, legs = {}, collections.defaultdict(list)
    for line in open(moves):
        m = re.match(r"\$node_\((\d+)\) set ([XY])_ ([\d.]+)", line)
        if m:
            start.setdefault(int(m.group(1)), [0.0, 0.0])["XY".index(m.group(2))] = float(m.group(3))
            continue
        m = re.match(r'\$ns_ at ([\d.]+) "\$node_\((\d+)\) setdest ([\d.]+) ([\d.]+) ([\d.]+)"', line)
        if m:
            legs[int(m.group(2))].append(tuple(float(m.group(i)) for i in (1, 3, 4, 5)))
    pos = {}
    for n in nodes:
        x, y = start[n]
        # each leg starts where the node is at its start time
        for t0, dx, dy, v in sorted(legs[n]):
            if t0 >= t:
                break
            d = math.hypot(dx - x, dy - y)
            if v <= 0 or d == 0:
                continue
            f = min(1.0, (t - t0) * v / d)
            x, y = x + (dx - x) * f, y + (dy - y) * f
        pos[n] = (x, y)
    for n in nodes:
        ds = " ".join(f"{m}:{math.dist(pos[n], pos[m]):.0f}" for m in nodes if m != n)
        print(f"{n} ({pos[n][0]:.1f}, {pos[n][1]:.1f}) {ds}")


def main():
    a = sys.argv[1:]
    if a[:1] == ["paths"] and len(a) == 2:
        paths(a[1])
    elif a[:1] == ["rreqs"] and len(a) == 2:
        rreqs(a[1])
    elif a[:1] == ["gaps"] and len(a) in (3, 4):
        gaps(a[1], int(a[2]), float(a[3]) if len(a) == 4 else 10.0)
    elif a[:1] == ["pos"] and len(a) == 4:
        positions(a[1], float(a[2]), [int(x) for x in a[3].split(",")])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
