#!/usr/bin/env python3
"""Writes the mrc study's scenario as manetlab TOML files, one per protocol
and point (PROTO-vSPEED-pPAUSE.toml in DIR), with the settings of
crates/manetlab-studies/src/mrc.rs `config()`, and run.sh to run them with
`manetlab run FILE --runs 3 --seed 1` (the study's seeds 1-3).

Usage: write_scenarios.py DIR [MANETLAB]   then   sh DIR/run.sh
"""
import os
import sys

d = sys.argv[1]
exe = sys.argv[2] if len(sys.argv) > 2 else "manetlab"
os.makedirs(d, exist_ok=True)
names = []
for v, pause in [(1, 0), (20, 0), (20, 100)]:
    for p in ["aodv", "dsr", "dsdv", "olsr"]:
        routing = {"aodv": "gratuitous_rrep = true\n", "dsdv": "mac_feedback = false\nbuffer_size = 500\n"}.get(p, "")
        t = f'''[run]
duration = "200s"

[topology]
kind = "random"
nodes = 50
area = ["300m", "1500m"]

[mobility]
model = "random-waypoint"
speed = ["0m/s", "{v}m/s"]
pause = "{pause}s"

[radio]
propagation = "friis"
frequency = "5150MHz"
tx_power = "7.5dBm"
reception = "sinr"
noise_figure = "7dB"
rx_threshold = "-82dBm"
cs_threshold = "-82dBm"

[mac]
standard = "dsss"
data_rate = "11Mbps"
basic_rate = "11Mbps"
rts_threshold = "off"

[queue]
limit = 500
control_first = false

[arp]
mode = "queue"

[routing]
protocol = "{p}"
{routing}'''
        for i in range(10):
            t += f'''
[[flow]]
name = "cbr{i}"
src = {10 + i}
dst = {i}
type = "cbr"
packet_size = "64B"
interval = "250ms"
start = "{100 + 0.1 * i:.1f}s"
'''
        name = f"{p}-v{v}-p{pause}"
        open(os.path.join(d, name + ".toml"), "w").write(t)
        names.append(name)
with open(os.path.join(d, "run.sh"), "w") as f:
    f.write('cd "$(dirname "$0")"\n')
    for n in names:
        f.write(f'[ -f out-{n}/network.csv ] || {exe} run {n}.toml --runs 3 --seed 1 --out out-{n} > log-{n}.txt 2>&1\n')
