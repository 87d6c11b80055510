#!/usr/bin/env python3
"""Reads scripts/ns2/results/*.log (written by run_reference.sh) and prints
the Markdown tables of docs/ns2-reference.md.

CPU time = user + sys of the whole ns process (/usr/bin/time, 10 ms
resolution), median over the repetitions of one configuration."""
import os
import re
import statistics
import sys

RES = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "results")


def kv(line):
    return dict(m.groups() for m in re.finditer(r"(\w+)=(\S+)", line))


def runs(name):
    """[(label dict, args, RESULT all dict, TIME dict)] of one log."""
    path = os.path.join(RES, name + ".log")
    if not os.path.exists(path):
        return []
    out, cur = [], None
    for line in open(path):
        if line.startswith("RUN "):
            cur = {"run": line[4:].strip(), "flows": []}
            out.append(cur)
        elif line.startswith("RESULT all"):
            cur["all"] = kv(line)
        elif line.startswith("RESULT flow"):
            cur["flows"].append(kv(line))
        elif line.startswith("TIME"):
            t = kv(line)
            cur["cpu"] = float(t["user"]) + float(t["sys"])
            cur["wall"] = float(t["wall"])
        elif line.startswith("TRACECHECK"):
            cur["check"] = kv(line)
    return out


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def events():
    ev = {}
    path = os.path.join(RES, "events.log")
    if os.path.exists(path):
        sc = None
        for line in open(path):
            m = re.match(r"RUN events-(S\d)", line)
            if m:
                sc = m.group(1)
            elif line.startswith("EVENTS"):
                ev[sc] = kv(line)
    return ev


EV = events()


def s1():
    rs = runs("s1")
    st = runs("s0")
    print("### Scenario 1 (speed baseline)\n")
    print("| quantity | value |\n|---|---|")
    a = rs[0]["all"]
    print(f"| goodput, 10-100 s (payload) | {float(a['goodput_bps'])/1e6:.3f} Mbit/s |")
    print(f"| CBR packets sent / delivered, 1-100 s | {a['sent_calc']} / {a['pkts_total']} |")
    for t in ("off", "null"):
        c = [r["cpu"] for r in rs if f"trace={t} " in r["run"] + " "]
        print(f"| CPU time, trace={t} (3 runs, median) | {med(c):.2f} s "
              f"(runs: {', '.join(f'{x:.2f}' for x in c)}) |")
    c = [r["cpu"] for r in st]
    print(f"| CPU time of set-up + tear-down only (stop=0.001 s) | {med(c):.2f} s |")
    if "S1" in EV:
        d = int(EV["S1"]["dispatched"])
        coff = med([r["cpu"] for r in rs if "trace=off" in r["run"]])
        print(f"| events executed (Scheduler::dispatch) | {d:,} "
              f"(scheduled {int(EV['S1']['scheduled']):,}, cancelled "
              f"{int(EV['S1']['cancelled']):,}) |")
        print(f"| events per CPU second, trace off | {d/coff/1e6:.1f} M/s |")
    print()


def s2():
    rs = runs("s2")
    print("### Scenario 2 (saturated 10-hop chain)\n")
    print("| seed | goodput 10-200 s (kbit/s) | delivered / sent (1-200 s) | CPU s |")
    print("|---|---|---|---|")
    for r in rs:
        a = r["all"]
        seed = kv(r["run"])["seed"]
        print(f"| {seed} | {float(a['goodput_bps'])/1e3:.1f} | "
              f"{a['pkts_total']} / {a['sent_calc']} | {r['cpu']:.2f} |")
    c = [r["cpu"] for r in rs if "seed=1 " in r["run"]]
    g = [float(r["all"]["goodput_bps"]) for r in rs if "rep=1" in r["run"]]
    print(f"\nMean goodput over seeds 1-3: {statistics.mean(g)/1e3:.1f} kbit/s; "
          f"median CPU time (seed 1, 3 runs): {med(c):.2f} s.")
    if "S2" in EV:
        print(f"Events executed: {int(EV['S2']['dispatched']):,}.")
    print()


def s3():
    rs = runs("s3")
    print("### Scenario 3 (100 random nodes, 20 CBR flows, AODV)\n")
    print("| seed | delivered / sent | delivery ratio | CPU s |")
    print("|---|---|---|---|")
    for r in rs:
        a = r["all"]
        lab = r["run"].split(" topo=")[0]
        print(f"| {lab} | {a['pkts_total']} / {a['sent_calc']} | {a['pdr']} | "
              f"{r['cpu']:.2f} |")
    c = [r["cpu"] for r in rs if re.search(r"seed=1 rep", r["run"])]
    p = [float(r["all"]["pdr"]) for r in rs if "rep=1" in r["run"]]
    print(f"\nMean delivery ratio over seeds 1-3: {statistics.mean(p):.4f}; "
          f"median CPU time (seed 1, trace off, 3 runs): {med(c):.2f} s.")
    for r in rs:
        if "check" in r:
            ck = r["check"]
            print(f"Trace check (seed 1, full trace to a file): {ck['s_AGT']} "
                  f"`s AGT` and {ck['r_AGT']} `r AGT` CBR lines, "
                  f"{int(ck['lines']):,} trace lines.")
    if "S3" in EV:
        print(f"Events executed: {int(EV['S3']['dispatched']):,}.")
    print("\nPer flow, seed 1:\n")
    print("| flow | src -> dst | delivered / sent |\n|---|---|---|")
    for f in rs[0]["flows"]:
        print(f"| {f['flow']} | {f['src']} -> {f['dst']} | "
              f"{f['pkts_total']} / {f['sent_calc']} |")
    print()


ISSUE = {1: (1287, 1310), 2: (643, 655), 3: (285, 376), 4: (157, 224),
         5: (127, 198), 6: (123, 179), 7: (116, 116), 8: (116, 127),
         9: (116, 88), 10: (122, 106)}
PAPER = {1: 1463.0, 2: 729.0, 3: 484.4, 4: 339.9, 5: 246.4, 6: 205.2,
         7: 198.1, 8: 191.8, 9: 185.3, 10: 182.4}


def s4():
    rs = runs("s4")
    g = {}
    cpu = []
    for r in rs:
        k = kv(r["run"])
        g.setdefault((k["rtg"], int(k["hops"])), []).append(
            float(r["all"]["goodput_bps"]) / 1e3)
        cpu.append(r["cpu"])
    print("### Scenario 4 (TCP Reno over a chain, goodput 10-200 s, kbit/s)\n")
    print("| hops | DSR mean | DSR seeds 1/2/3 | AODV mean | AODV seeds 1/2/3 "
          "| issue DSR/AODV | paper (DSR) |")
    print("|---|---|---|---|---|---|---|")
    for h in range(1, 11):
        d, a = g.get(("DSR", h), []), g.get(("AODV", h), [])
        print(f"| {h} | {statistics.mean(d):.1f} | "
              f"{'/'.join(f'{x:.0f}' for x in d)} | {statistics.mean(a):.1f} | "
              f"{'/'.join(f'{x:.0f}' for x in a)} | {ISSUE[h][0]}/{ISSUE[h][1]} "
              f"| {PAPER[h]} |")
    print(f"\n{len(rs)} runs, CPU time {min(cpu):.2f}-{max(cpu):.2f} s each, "
          f"{sum(cpu):.1f} s in all.\n")


for f in (s1, s2, s3, s4):
    f()
