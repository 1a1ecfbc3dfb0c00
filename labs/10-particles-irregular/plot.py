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
made if missing; `--outdir labs/10-particles-irregular` refreshes the committed copies).

The figure's title names the device of traffic.jsonl's lines, the machine's cores and the date
of the data: --date, else a timestamp field of the lines (`time`, `date`, `started`,
`timestamp`), else the YYYY-MM-DD in the data's folder name, else, for the files this lab
ships, the date its README gives (KNOWN below), else "date not recorded" (never a file's
modification date). Each scheme has its colour and hatch. Flagged bars carry a marker above
them, with a legend entry: oversubscribed runs (ranks x threads > the machine's cores:
--cores, else the folder's name as cpu-2core-DATE or the first line of its README.md, else
KNOWN) and runs whose verification did not pass. The traffic is a count: the same whatever
the load, so an oversubscribed bar is still exact."""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

DATA = [os.path.join(HERE, f) for f in ("traffic.jsonl", "cells-2.txt", "cells-4.txt")]
# The figure's date and the machine's cores: labargs.record_date, path_date, path_cores.
from labargs import path_cores, path_date, record_date  # noqa: E402


# The files this lab ships: the date and cores its README gives (the 2-core CPU machine;
# "`plot.py` prints (2026-11-24, 100 steps, `cpu`, 1 thread per rank").
KNOWN = {os.path.join(HERE, f): ("2026-11-24", 2) for f in ("traffic.jsonl", "cells-2.txt", "cells-4.txt")}
FLAGS = [("oversubscribed", "o", "black", "oversubscribed: ranks x threads > {cores} cores (the counts are exact)"),
         ("unverified", "s", "#b000b0", "verification not PASSED")]
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


def traffic_rows(path, cores=None):
    """One row per run of PATH; CORES (the machine's) for the flags, not written to the CSV."""
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
                "_device": j["device"], "_threads": j.get("threads") or 1, "_date": record_date(j),
                "_steps": j["time_s"]["steps"], "_variant": j["variant"],
                "_cores": cores, "_unverified": j["verify"]["status"] != "PASSED",
                "_oversubscribed": bool(cores) and j["ranks"] * max(j.get("threads") or 1, 1) > cores,
            })
    return rows


def main():
    ap = labargs.parser(__file__, DATA, description=__doc__.splitlines()[0],
                        data_help="traffic.jsonl, cells-2.txt and cells-4.txt (other files ignored)")
    ap.add_argument("--date", help="date of the data for the title [a timestamp field of the lines, else the "
                    "YYYY-MM-DD in their folder's name, else the lab README's for the shipped files]")
    ap.add_argument("--cores", type=int, help="cores of the machine, to mark oversubscribed runs (ranks x threads "
                    "> cores) [the folder's name or README.md, else the lab README's for the shipped files]")
    a = ap.parse_args()
    files = {os.path.basename(p): p for p in a.data}
    missing = [f for f in ("traffic.jsonl", "cells-2.txt", "cells-4.txt") if f not in files]
    if missing:
        ap.error(f"--data lacks {', '.join(missing)} (run_cpu.sh writes all three)")
    labargs.outdir(a.outdir)
    tpath = files["traffic.jsonl"]
    known = KNOWN.get(os.path.abspath(tpath), (None, None))
    cores = a.cores or path_cores(tpath) or known[1]
    rows = traffic_rows(tpath, cores)
    dates = sorted({r["_date"] for r in rows if r["_date"]})
    date = a.date or " and ".join(dates) or path_date(tpath) or known[0] or "date not recorded (give --date)"
    with open(os.path.join(a.outdir, "traffic.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[k for k in rows[0] if not k.startswith("_")], extrasaction="ignore")
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
    from matplotlib.lines import Line2D

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
        ax.set_xlabel("cell x", labelpad=9)  # clear of the tick labels
        ax.set_ylabel("cell y", labelpad=9)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_zticks([])
        parts = {c[3] for c in cells}
        ax.set_title(f"tube: {len(cells)} occupied cells, METIS over {len(parts)} ranks\n"
                     "(darker: frontier cells)", fontsize=10)
    ax = fig.add_subplot(1, 3, 3)
    shown = [r for r in rows if r["ranks"] > 1]  # 1 rank: nothing to compare (the box sends to its own images)
    labels = [f"{r['domain']}\n{r['ranks']} rank{'s' if r['ranks'] > 1 else ''}" for r in shown]
    x = np.arange(len(shown))
    schemes = [("sent_per_step", "selective (connection matrix)", "C0", ""),
               ("sent_all_nbrs_per_step", "send to all neighbours", "C1", "//")]
    for k, (col, label, colour, hatch) in enumerate(schemes):
        ax.bar(x + (k - 0.5) * 0.4, [r[col] for r in shown], 0.4, color=colour, hatch=hatch, edgecolor="white",
               label=label)
    top = max(max(r["sent_per_step"], r["sent_all_nbrs_per_step"]) for r in shown)
    for f, marker, colour, _ in FLAGS:  # above the pair of bars, one marker per flag
        xy = [(i, max(r["sent_per_step"], r["sent_all_nbrs_per_step"]) * (1.6 if f == "oversubscribed" else 2.6))
              for i, r in enumerate(shown) if r["_" + f]]
        if xy:
            ax.plot([p[0] for p in xy], [p[1] for p in xy], ls="none", marker=marker, ms=9, mfc="none", mec=colour,
                    mew=1.5, clip_on=False)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("frontier particles sent per step")
    ax.set_yscale("log")
    low = min([v for r in shown for v in (r["sent_per_step"], r["sent_all_nbrs_per_step"]) if v > 0] or [1])
    ax.set_ylim(low / 3, max(top, low) * 60)  # room above the bars for the legend and the flags
    handles, _ = ax.get_legend_handles_labels()
    for f, marker, colour, label in FLAGS:
        if any(r["_" + f] for r in shown):
            handles.append(Line2D([], [], ls="none", marker=marker, ms=9, mfc="none", mec=colour, mew=1.5,
                                  label=label.format(cores=cores)))
    ax.legend(handles=handles, fontsize=7.5, loc="upper left", frameon=False)
    steps = "/".join(str(t) for t in sorted({r["_steps"] for r in shown}))
    variants = "/".join(sorted({r["_variant"] for r in shown}))
    ax.set_title(f"frontier traffic, {steps} steps, {variants} variant, tube and periodic box", fontsize=10)
    threads = "/".join(str(t) for t in sorted({r["_threads"] for r in rows}))
    devices = " / ".join(sorted({r["_device"] for r in rows}))
    fig.suptitle(f"particles, irregular domain: {devices}" + (f", {cores} cores" if cores else "")
                 + f", {threads} thread{'s' if threads != '1' else ''} per rank, {date}", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    out = os.path.join(a.outdir, "decomposition.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
