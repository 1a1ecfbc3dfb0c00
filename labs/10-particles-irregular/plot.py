#!/usr/bin/env python3
"""plot.py [--data FILE ...] [--outdir DIR]: lab 10's table and figure, from the files run_cpu.sh
writes (default: the committed ones in this folder; `--data labs/out/10-particles-irregular/*`
after a run of run_cpu.sh), each file recognised by its name:

  cells-2.txt, cells-4.txt  (particles --dump-cells: "cx cy cz rank particles frontier" per
                             occupied cell) -> the METIS subdomains of the branching tube, one
                             colour per rank, frontier cells drawn darker;
  traffic.jsonl             (particles --json) -> traffic.csv and a bar chart: frontier
                             particles sent per step by the selective scheme (Bernaschi Sec.
                             3.2.1) against sending every frontier particle to every
                             neighbouring connection, tube and box, 1, 2 and 4 ranks.

Writes decomposition.png and traffic.csv into --outdir (default labs/out/10-particles-irregular/,
made if missing; `--outdir labs/10-particles-irregular` refreshes the committed copies)."""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

DATA = [os.path.join(HERE, f) for f in ("traffic.jsonl", "cells-2.txt", "cells-4.txt")]
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def read_cells(path):
    """The occupied cells of a --dump-cells file: (cx, cy, cz, rank, particles, frontier)."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rows.append(tuple(int(t) for t in line.split()))
    return rows


def darker(hex_colour, by=0.55):
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return (r * by, g * by, b * by, 1.0)


def traffic_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            j = json.loads(line)
            r = j["results"]
            rows.append({
                "domain": j["params"]["domain"], "ranks": j["ranks"], "n": j["params"]["n"],
                "mean_nbr_ranks": r["mean_nbr_ranks"], "max_nbr_ranks": r["max_nbr_ranks"],
                "cells_frontier": r["cells_frontier"], "sent_per_step": r["sent_per_step"],
                "sent_all_nbrs_per_step": r["sent_all_nbrs_per_step"],
                "migrated_per_step": r["migrated_per_step"],
                "load_imbalance": r.get("load_imbalance", 1.0),
                "edge_cut": r.get("partition_edge_cut", ""),
            })
    return rows


def main():
    ap = labargs.parser(__file__, DATA, description=__doc__.splitlines()[0],
                        data_help="traffic.jsonl, cells-2.txt and cells-4.txt (other files ignored)")
    a = ap.parse_args()
    files = {os.path.basename(p): p for p in a.data}
    missing = [f for f in ("traffic.jsonl", "cells-2.txt", "cells-4.txt") if f not in files]
    if missing:
        ap.error(f"--data lacks {', '.join(missing)} (run_cpu.sh writes all three)")
    labargs.outdir(a.outdir)
    rows = traffic_rows(files["traffic.jsonl"])
    with open(os.path.join(a.outdir, "traffic.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"{'domain':>6} {'ranks':>5} {'N':>6} {'nbr(mean/max)':>13} {'frontier':>8} "
          f"{'sent/step':>10} {'all-nbrs':>10} {'ratio':>6} {'imbal':>6} {'cut':>5}")
    for r in rows:
        ratio = r["sent_all_nbrs_per_step"] / r["sent_per_step"] if r["sent_per_step"] else float("nan")
        print(f"{r['domain']:>6} {r['ranks']:>5} {r['n']:>6} {r['mean_nbr_ranks']:>6.2f}/{r['max_nbr_ranks']:<6.0f} "
              f"{r['cells_frontier']:>8.0f} {r['sent_per_step']:>10.1f} {r['sent_all_nbrs_per_step']:>10.1f} "
              f"{ratio:>6.2f} {r['load_imbalance']:>6.3f} {r['edge_cut']!s:>5}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig = plt.figure(figsize=(15, 5))
    for k, np_ in enumerate((2, 4)):
        cells = read_cells(files[f"cells-{np_}.txt"])
        nx, ny, nz = (max(c[i] for c in cells) + 1 for i in range(3))
        filled = np.zeros((nx, ny, nz), dtype=bool)
        colours = np.zeros((nx, ny, nz, 4))
        for cx, cy, cz, rank, _, frontier in cells:
            filled[cx, cy, cz] = True
            base = COLOURS[rank % len(COLOURS)]
            colours[cx, cy, cz] = darker(base) if frontier else matplotlib.colors.to_rgba(base)
        ax = fig.add_subplot(1, 3, k + 1, projection="3d")
        ax.voxels(filled, facecolors=colours, edgecolor=(0, 0, 0, 0.15), linewidth=0.3)
        ax.set_box_aspect((nx, ny, nz))
        ax.view_init(elev=72, azim=-82)
        ax.set_xlabel("cell x")
        ax.set_ylabel("cell y")
        ax.set_zticks([])
        parts = {c[3] for c in cells}
        ax.set_title(f"tube: {len(cells)} occupied cells, METIS over {len(parts)} ranks\n"
                     "(darker: frontier cells)", fontsize=10)
    ax = fig.add_subplot(1, 3, 3)
    labels, sel, alln = [], [], []
    for r in rows:
        if r["ranks"] == 1:  # nothing to compare: the box sends to its own images, the tube nothing
            continue
        labels.append(f"{r['domain']}\n{r['ranks']} rank{'s' if r['ranks'] > 1 else ''}")
        sel.append(r["sent_per_step"])
        alln.append(r["sent_all_nbrs_per_step"])
    x = np.arange(len(labels))
    ax.bar(x - 0.2, sel, 0.4, label="selective (connection matrix)")
    ax.bar(x + 0.2, alln, 0.4, label="send to all neighbours")
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("frontier particles sent per step")
    ax.set_yscale("log")
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("frontier traffic, 100 steps, cpu variant", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    out = os.path.join(a.outdir, "decomposition.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
