"""PDR vs pause time: the classic random-waypoint MANET plot (Broch et al.
1998, Figure 3) in a notebook-style script.

25 nodes move by random waypoint (1-20 m/s) in a 1500 m x 300 m field and
run AODV; 6 CBR flows of 4 packets/s. We sweep the pause time, run 5 seeds
per point in parallel, compute the packet delivery ratio per run (sum of
received / sum of sent over the flows, from the tidy per-flow table),
average over seeds with a Student-t 95% confidence interval, and draw the
figure with matplotlib.

Run:  python examples/python/pdr_vs_pause.py [--quick] [--out DIR]
CI runs it with --quick (fewer seeds, shorter runs).
"""

import argparse
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

import manetlab as ml  # noqa: E402

# %% Arguments
ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--quick", action="store_true", help="3 seeds, 30-s runs")
ap.add_argument("--out", default="out/pdr_vs_pause", help="output folder (sweep store + figure)")
args = ap.parse_args()
out = Path(args.out)

# %% The scenario, as a dict (the same shape as a TOML scenario file)
duration = 30 if args.quick else 120
flows = [(0, 10), (3, 17), (5, 22), (8, 19), (14, 2), (24, 6)]
scenario = ml.Scenario.from_dict(
    {
        "run": {"name": "rwp-aodv", "duration": f"{duration}s", "seed": 1},
        "topology": {"kind": "random", "nodes": 25, "area": ["1500m", "300m"]},
        "mobility": {"model": "random-waypoint", "speed": ["1m/s", "20m/s"], "pause": "0s"},
        "mac": {"standard": "dsss", "data_rate": "2Mbps", "basic_rate": "1Mbps"},
        "routing": {"protocol": "aodv"},
        "flow": [
            {"src": s, "dst": d, "type": "cbr", "packet_size": "512B", "interval": "250ms", "start": f"{1 + 0.2 * i}s"}
            for i, (s, d) in enumerate(flows)
        ],
    },
    name="pdr_vs_pause",
)
print(scenario.check())

# %% The sweep: every pause time x seed, in parallel, stored (resumable)
pauses = [0, duration // 4, duration // 2, duration]
df = ml.sweep(scenario, {"mobility.pause": [f"{p}s" for p in pauses]}, runs=3 if args.quick else 5, store=out)
print(f"{df.attrs['ran']} runs executed, {df.attrs['loaded']} loaded from {out}")

# %% PDR per run (packets over all flows), then mean and 95% CI per pause time
runs = df.groupby(["mobility.pause_s", "seed"], sort=False)[["sent_packets", "received_packets"]].sum()
runs["pdr"] = runs["received_packets"] / runs["sent_packets"]
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def ci95(x):
    n = len(x)
    return T975.get(n - 1, 1.96) * x.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")


stats = runs.groupby(level="mobility.pause_s", sort=False)["pdr"].agg(["mean", ci95, "count"])
stats["pause_s"] = stats.index
print(stats)

# %% The figure
fig, ax = plt.subplots(figsize=(3.5, 2.6), dpi=150)
ax.errorbar(stats["pause_s"], stats["mean"], yerr=stats["ci95"], marker="o", capsize=3, color="#0072B2")
ax.set_xlabel("pause time (s)")
ax.set_ylabel("packet delivery ratio")
ax.set_ylim(0, 1.05)
ax.grid(alpha=0.3)
fig.tight_layout()
out.mkdir(parents=True, exist_ok=True)
fig.savefig(out / "pdr_vs_pause.png")
fig.savefig(out / "pdr_vs_pause.svg")
print(f"wrote {out / 'pdr_vs_pause.png'}")

# Sanity checks (CI runs this script): every point has its runs and a PDR in (0, 1].
assert (stats["count"] == (3 if args.quick else 5)).all()
assert ((stats["mean"] > 0) & (stats["mean"] <= 1)).all(), stats
