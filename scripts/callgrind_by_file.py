#!/usr/bin/env python3
"""Self cost per source file from a callgrind output file.

Usage: scripts/callgrind_by_file.py FILE.cg [N]

Inlined code is counted in the file it is written in (callgrind's `fi=`/
`fe=` lines), so a standard-library helper inlined into the event loop
shows up as `slice/index.rs` and not as the loop. Prints the N largest
files (default 30) with their share of the total. Used for the
"Where the static scenarios stand" paragraph of docs/performance.md
(session 25).
"""
import collections
import re
import sys


def main() -> None:
    names: dict[str, str] = {}

    def name(field: str) -> str:
        # callgrind compresses names: "(7) path" defines id 7, "(7)" reuses it.
        m = re.match(r"\((\d+)\)\s*(.*)", field)
        if not m:
            return field
        key, value = m.group(1), m.group(2)
        if value:
            names[key] = value
        return names.get(key, key)

    cost: collections.Counter = collections.Counter()
    current = None
    skip_next = False  # the cost line after `calls=` is a call's inclusive cost
    with open(sys.argv[1]) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(("fl=", "fi=", "fe=")):
                current = name(line[3:])
                continue
            if line.startswith(("cfl=", "cfi=")):
                name(line[4:])
                continue
            if line.startswith(("fn=", "cfn=")):
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            parts = line.split()
            if skip_next:
                skip_next = False
                continue
            if len(parts) > 1:
                cost[current] += int(parts[1])
    total = sum(cost.values())
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    for path, c in cost.most_common(top):
        short = path.split("/src/")[-1] if "/src/" in path else path
        print(f"{c:>14,} {100 * c / total:5.1f}% {short}")
    print(f"{total:>14,} total")


if __name__ == "__main__":
    main()
