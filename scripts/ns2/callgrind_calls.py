#!/usr/bin/env python3
"""Prints how often the ns-2 scheduler functions were called in a callgrind
output file: EVENTS dispatched=<Scheduler::dispatch calls> scheduled=<...>
cancelled=<...>."""
import collections
import re
import sys

names = {}
calls = collections.Counter()
cfn = None
with open(sys.argv[1]) as f:
    for line in f:
        m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line)
        if m:
            kind, ident, name = m.groups()
            if name:
                names[ident] = name.strip()
            if kind == "cfn":
                cfn = ident
            continue
        m = re.match(r"calls=(\d+)", line)
        if m and cfn is not None:
            calls[cfn] += int(m.group(1))

by_name = collections.Counter()
for ident, c in calls.items():
    by_name[names.get(ident, ident)] += c
print("EVENTS dispatched=%d scheduled=%d cancelled=%d" % (
    by_name["Scheduler::dispatch(Event*, double)"],
    by_name["Scheduler::schedule(Handler*, Event*, double)"],
    by_name["CalendarScheduler::cancel(Event*)"]))
