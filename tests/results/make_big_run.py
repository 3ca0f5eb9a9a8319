#!/usr/bin/env python3
"""make_big_run.py — a made-up run of N benchmarks for the page speed test:
run-0001.csv and run-0001.txt in the layout the image writes, each benchmark
with RDTSC and three counters and their -verbose tables (10 measurements).

usage: make_big_run.py DIR [N]
"""
import os
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
events = ["RDTSC", "INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD", "UOPS_ISSUED.ANY"]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "run-0001.csv"), "w") as c, open(os.path.join(out, "run-0001.txt"), "w") as t:
    c.write("benchmark,event,value\nplatform,cpu.vendor,GenuineIntel\nplatform,cpu.brand,made-up\n")
    t.write("nanoBench-EFI 0.1.0\ncpu: GenuineIntel \"made-up\"\nplatform: cpu.vendor = GenuineIntel\n")
    for i in range(n):
        name = f"bench_{i:04d}"
        t.write(f"[{name}]\n")
        for k, ev in enumerate(events[1:]):
            t.write(f"verbose: Ctr{k} = {ev}\n")
        for run, copies in ((0, 100), (1, 200)):
            t.write(f"\nRDTSC and fixed-function counter results (unroll_count={copies}, loop_count=0):\n\n")
            t.write("\t        " + "".join(f"{'Ctr%d' % k:>12}" for k in range(3)) + "\n")
            for m in range(10):
                vals = [copies * (k + 1) + (m * (i % 7)) % 13 + 50 for k in range(3)]
                t.write(f"\trun {m}: " + "".join(f"{v:12d}" for v in vals) + "\n")
            t.write("\n")
        for k, ev in enumerate(events):
            v = (k + 1) + (i % 13) / 100
            c.write(f"{name},{ev},{v:.2f}\n")
            t.write(f"{ev}: {v:.2f}\n")
        # Top-down level 1: four fractions that add up to 1.
        td = [0.25 + (i % 5) / 100, 0.05, 0.2, 0.0]
        td[3] = 1 - sum(td[:3])
        for k, m in enumerate(["TD_FRONTEND_BOUND", "TD_BAD_SPECULATION", "TD_RETIRING", "TD_BACKEND_BOUND"]):
            c.write(f"{name},metric.{m},{td[k]:.2f}\n")
            t.write(f"{m}: {td[k]:.2f}\n")
    t.write(f"nanoBench-EFI done: {n} benchmarks, 0 errors, finish: shutdown\n")
