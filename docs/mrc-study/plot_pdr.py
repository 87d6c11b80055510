#!/usr/bin/env python3
"""Redraws pdr from pdr.csv (written by manetlab). Restyle freely.
Usage: python3 plot_pdr.py [output file, default pdr.pdf]"""
import csv, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

TITLE = "Packet delivery ratio, pause 0"  # None: no title
XLABEL, YLABEL = "maximum speed (m/s)", "PDR"
SCATTER = set()  # series drawn as markers only
STEPS, Y_FROM_ZERO = False, True
X_INTEGER, Y_INTEGER = True, False
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]  # Okabe-Ito

here = os.path.dirname(os.path.abspath(__file__))
series = {}
with open(os.path.join(here, "pdr.csv"), newline="") as f:
    for row in csv.DictReader(f):
        x, y, e = series.setdefault(row["series"], ([], [], []))
        x.append(float(row["x"])); y.append(float(row["y"])); e.append(float(row["err"]) if row["err"] else 0.0)
plt.rcParams.update({"font.size": 8, "axes.titlesize": 9, "legend.fontsize": 7})
fig, ax = plt.subplots(figsize=(3.5, 2.6))
for i, (name, (x, y, e)) in enumerate(series.items()):
    c = COLOURS[i % len(COLOURS)]
    if name in SCATTER:
        ax.plot(x, y, ".", color=c, markersize=2, label=name)
    elif STEPS:
        ax.step(x, y, where="post", color=c, linewidth=1, label=name)
    else:
        ax.plot(x, y, "-o", color=c, markersize=3, linewidth=1, label=name)
    if any(e):
        down = [min(d, v) if Y_FROM_ZERO else d for v, d in zip(y, e)]  # clipped at 0
        ax.errorbar(x, y, yerr=[down, e], fmt="none", ecolor=c, capsize=3, linewidth=0.8)
ax.set_xlabel(XLABEL); ax.set_ylabel(YLABEL)
if TITLE: ax.set_title(TITLE)
if Y_FROM_ZERO: ax.set_ylim(bottom=0)
if X_INTEGER: ax.xaxis.set_major_locator(MaxNLocator(integer=True))
if Y_INTEGER: ax.yaxis.set_major_locator(MaxNLocator(integer=True))
ax.legend(frameon=False)
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "pdr.pdf")
fig.savefig(out)
print("wrote", out)
