#!/usr/bin/env python3
"""plot.py: lab 11's tables (and a plot where matplotlib is installed) from the kit's JSON lines.
  python3 labs/11-gpu-direct/plot.py [--data HALO.jsonl [COMM.jsonl ...]] [--outdir DIR]
HALO.jsonl: kit-halo-sweep --json lines (kit.halo_sweep/1; default halo-4xH200.jsonl here);
COMM.jsonl: the apps' runs per transport, labs/scripts/comm_sweep.sh APP (default
laplace-comm-4xH200.jsonl, apps-comm-4xH200.jsonl and nvshmem-comm-4xH200.jsonl here, with the
default HALO only): one table per app and case, the efficiency against the 1-GPU run of the
same file. Transports: host, ipc, nccl, nvshmem, cuda-aware (whichever the data has). The plot,
halo-sweep.png, goes into DIR (default labs/out/11-gpu-direct/, made if missing). Needs only
the standard library; matplotlib adds the plot."""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
import labargs  # noqa: E402

DATA = [
    os.path.join(here, f)
    for f in ("halo-4xH200.jsonl", "laplace-comm-4xH200.jsonl", "apps-comm-4xH200.jsonl", "nvshmem-comm-4xH200.jsonl")
]
# --comm's transports in kit_comm's order (kit/exchange.h), each with one colour in the plot.
COMMS = ("host", "ipc", "nccl", "nvshmem", "cuda-aware")
COLOURS = {"host": "tab:red", "ipc": "tab:blue", "nccl": "tab:green", "nvshmem": "tab:purple",
           "cuda-aware": "tab:orange"}
ap = labargs.parser(__file__, DATA, description=__doc__.split("\n")[0], data_help="HALO.jsonl [COMM.jsonl ...]")
a = ap.parse_args()
halo = a.data[0]

rows = [json.loads(l) for l in open(halo) if l.strip()]
for ranks in sorted({r["ranks"] for r in rows}):
    sub = [r for r in rows if r["ranks"] == ranks]
    comms = [c for c in COMMS if any(r["comm"] == c for r in sub)]
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
    # The largest messages against the peer copy (the sweep's 80%-of-peer question); a sweep on
    # host buffers measured no peer copy (peer_GBs 0).
    peer = sub[0]["peer_GBs"]
    for b in sizes[-2:] if peer > 0 else []:
        shares = []
        for c in comms:
            m = [r for r in sub if r["comm"] == c and r["bytes"] == b]
            if m:
                shares.append(f"{c} {100 * m[0]['GBs_one_way'] / peer:.1f}%")
        print(f"{b:.0f} bytes, of the peer copy: " + ", ".join(shares))


def per_gpu_size(r):
    """What a run's problem is per GPU or in all (weak or strong), as the sweep chose it."""
    p = r["params"]
    if "mesh" in p:
        return f"{p['mesh']} (strong)"
    if r["app"] == "ising":
        return f"L = {p['lx']}, {p['layout']} (strong)"
    return f"{p['nx']}x{p['ny']}x{p['nz'] // r['ranks']} per GPU (weak)"


# Efficiency: the throughput over N times one GPU's; a figure of merit that is a time per unit
# of work (ising's ps per flip attempt) the other way round. Weak and strong alike.
for f in a.data[1:]:
    runs = [json.loads(l) for l in open(f) if l.strip()]
    for app in sorted({r["app"] for r in runs}, key=lambda x: [r["app"] for r in runs].index(x)):
        sub = [r for r in runs if r["app"] == app]
        base = [r for r in sub if r["ranks"] == 1]
        if not base:
            continue
        b = base[0]
        lower_better = b["fom"]["unit"].startswith(("ps", "ns", "s "))
        print(f"\n{app} {b['variant']}, {per_gpu_size(b)}: {b['fom']['unit']}, efficiency against one GPU")
        print("| GPUs | comm | halo | figure of merit | efficiency | exchange phase, us per step |")
        print("|---:|---|---|---:|---:|---:|")
        for r in sub:
            n, v, v1 = r["ranks"], r["fom"]["value"], b["fom"]["value"]
            eff = v1 / (n * v) if lower_better else v / (n * v1)
            ex = r.get("phases", {}).get("exchange", 0.0) * 1e6
            print(f"| {n} | {r['params'].get('comm', 'host')} | {r['params'].get('halo', '')} | {v:.4g} | "
                  f"{100 * eff:.1f}% | {ex:.0f} |")

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
    for c in COMMS:
        pts = sorted((r["bytes"], r["GBs_one_way"]) for r in sub if r["comm"] == c)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=COLOURS[c], label=c)
    ax.axhline(sub[0]["peer_GBs"], color="grey", linestyle="--", label="peer copy")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message bytes")
    ax.set_ylabel("GB/s one way per link")
    ax.set_title(f"{ranks} ranks, one {sub[0].get('device', 'GPU').replace('NVIDIA ', '')} each")
    ax.legend()
fig.tight_layout()
out = os.path.join(labargs.outdir(a.outdir), "halo-sweep.png")
fig.savefig(out, dpi=110)
print(f"\nwrote {labargs.rel(out)}")
