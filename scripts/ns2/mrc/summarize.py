#!/usr/bin/env python3
"""One CSV line from an ns-2.35 old-format wireless trace of mrc.tcl.

Usage: summarize.py TRACE PROTOCOL MAX_SPEED PAUSE RUN [--header]

Counts what scripts/ns3/mrc/mrc.cc counts in ns-3:
  offered   CBR packets sent by the source agents ('s ... AGT ... cbr')
  received  distinct CBR packets received by the sink agents ('r ... AGT')
  goodput   received payload (64 B) bits / 100 s, kbit/s
  delay     mean one-way delay of received packets, ms
  routing_tx  routing packets sent or forwarded by routing agents
            ('s'/'f' ... RTR with type AODV, DSR or message (DSDV))
  data_tx   CBR packets sent or forwarded by routing agents (each hop)
  nrl       routing_tx / received

With --counters FILE it also appends one line to FILE (COUNTER_COLUMNS):
what became of every CBR packet sent but not received, by the reason of
its last drop event ('D' lines; ns-2 reason codes) grouped as the mrc
study groups manetlab's and ns-3's: arp (ARP), mac (RET, CBK), no_route
(NRTE, TTL, LOOP), queue (IFQ), other_drop (any other reason, e.g. END,
packets dropped at the end of the run), in_flight (never dropped nor
received: still in a buffer at 200 s).
"""
import sys

ROUTING = {"AODV", "DSR", "message"}
COUNTER_COLUMNS = "protocol,max_speed,pause,run,offered,received,arp,mac,no_route,queue,other_drop,in_flight"
GROUP = {"ARP": "arp", "RET": "mac", "CBK": "mac", "NRTE": "no_route", "TTL": "no_route", "LOOP": "no_route",
         "IFQ": "queue"}
COLUMNS = ("protocol,max_speed,pause,run,offered,received,pdr,goodput_kbps,delay_ms,"
           "routing_tx,routing_bytes,data_tx,nrl")


def main():
    argv = sys.argv[1:]
    counters = None
    if "--counters" in argv:
        i = argv.index("--counters")
        counters = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if a != "--header"]
    trace, proto, speed, pause, run = args
    last_drop = {}
    sent = {}
    got = set()
    delay_sum = 0.0
    routing = routing_bytes = data_tx = 0
    with open(trace) as f:
        for line in f:
            p = line.split()
            if len(p) < 8:
                continue
            ev, t, layer, uid, kind = p[0], float(p[1]), p[3], p[5], p[6]
            if ev == "D" and kind == "cbr":
                last_drop[uid] = p[4]
            if layer == "AGT" and kind == "cbr":
                if ev == "s":
                    sent[uid] = t
                elif ev == "r" and uid not in got and uid in sent:
                    got.add(uid)
                    delay_sum += t - sent[uid]
            elif layer == "RTR" and ev in ("s", "f"):
                if kind in ROUTING:
                    routing += 1
                    routing_bytes += int(p[7])
                elif kind == "cbr":
                    data_tx += 1
    n, r = len(sent), len(got)
    if "--header" in sys.argv:
        print(COLUMNS)
    print(",".join([
        proto, speed, pause, run, str(n), str(r),
        f"{r / n:.5f}" if n else "",
        f"{r * 64 * 8 / 100.0 / 1e3:.4f}",
        f"{delay_sum / r * 1e3:.3f}" if r else "",
        str(routing), str(routing_bytes), str(data_tx),
        f"{routing / r:.4f}" if r else "",
    ]))
    if counters:
        groups = dict.fromkeys(["arp", "mac", "no_route", "queue", "other_drop", "in_flight"], 0)
        for uid in sent:
            if uid in got:
                continue
            reason = last_drop.get(uid)
            groups["in_flight" if reason is None else GROUP.get(reason, "other_drop")] += 1
        with open(counters, "a") as f:
            f.write(",".join([proto, speed, pause, run, str(n), str(r)] + [str(v) for v in groups.values()]) + "\n")


if __name__ == "__main__":
    main()
