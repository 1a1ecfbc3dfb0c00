#!/usr/bin/env python3
"""plot.py: lab 11's tables (and a plot where matplotlib is installed) from the kit's JSON lines.
  python3 labs/11-gpu-direct/plot.py [--data HALO.jsonl [LAPLACE.jsonl]] [--outdir DIR]
HALO.jsonl: kit-halo-sweep --json lines (kit.halo_sweep/1; default halo-4xH200.jsonl here);
LAPLACE.jsonl: laplace_sweep.sh comm (default laplace-comm-4xH200.jsonl here, with the default
HALO only). The plot, halo-sweep.png, goes into DIR (default labs/out/11-gpu-direct/, made if
missing). Needs only the standard library; matplotlib adds the plot."""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
import labargs  # noqa: E402

DATA = [os.path.join(here, "halo-4xH200.jsonl"), os.path.join(here, "laplace-comm-4xH200.jsonl")]
ap = labargs.parser(__file__, DATA, description=__doc__.split("\n")[0], data_help="HALO.jsonl [LAPLACE.jsonl]")
a = ap.parse_args()
if len(a.data) > 2:
    ap.error("--data takes HALO.jsonl and at most one LAPLACE.jsonl")
halo = a.data[0]
lap = a.data[1] if len(a.data) > 1 else None

rows = [json.loads(l) for l in open(halo) if l.strip()]
for ranks in sorted({r["ranks"] for r in rows}):
    sub = [r for r in rows if r["ranks"] == ranks]
    comms = [c for c in ("host", "ipc", "nccl", "cuda-aware") if any(r["comm"] == c for r in sub)]
    sizes = sorted({r["bytes"] for r in sub})
    print(f"\n{ranks} ranks, peer copy GPU 0 -> 1: {sub[0]['peer_GBs']:.0f} GB/s; us per exchange / GB/s one way")
    print("| bytes | " + " | ".join(comms) + " |")
    print("|---:|" + "---:|" * len(comms))
    for b in sizes:
        cells = []
        for c in comms:
            m = [r for r in sub if r["comm"] == c and r["bytes"] == b]
            cells.append(f"{m[0]['us']:.1f} / {m[0]['GBs_one_way']:.1f}" if m else "")
        print(f"| {b:.0f} | " + " | ".join(cells) + " |")

if lap:
    runs = [json.loads(l) for l in open(lap) if l.strip()]
    base = [r for r in runs if r["ranks"] == 1]
    t1 = base[0]["fom"]["value"] if base else None
    print("\nlaplace two-stream, 512^3 per GPU (weak scaling), GLUP/s and efficiency against one GPU")
    print("| GPUs | comm | GLUP/s | efficiency | exchange phase, us per step |")
    print("|---:|---|---:|---:|---:|")
    for r in runs:
        n, c = r["ranks"], r["params"].get("comm")
        eff = r["fom"]["value"] / (n * t1) if t1 else float("nan")
        ph = r.get("phases", {})
        ex = ph.get("exchange", 0.0) * 1e6
        print(f"| {n} | {c} | {r['fom']['value']:.1f} | {100 * eff:.1f}% | {ex:.0f} |")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("\nmatplotlib is missing (labs/setup.sh installs it): tables only")
    sys.exit(0)
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for ax, ranks in zip(axes, sorted({r["ranks"] for r in rows})):
    sub = [r for r in rows if r["ranks"] == ranks]
    for c in ("host", "ipc", "nccl"):
        pts = sorted((r["bytes"], r["GBs_one_way"]) for r in sub if r["comm"] == c)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=c)
    ax.axhline(sub[0]["peer_GBs"], color="grey", linestyle="--", label="peer copy")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message bytes")
    ax.set_ylabel("GB/s one way per link")
    ax.set_title(f"{ranks} ranks, one H200 each")
    ax.legend()
fig.tight_layout()
out = os.path.join(labargs.outdir(a.outdir), "halo-sweep.png")
fig.savefig(out, dpi=110)
print(f"\nwrote {labargs.rel(out)}")
