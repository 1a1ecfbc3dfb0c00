#!/usr/bin/env python3
"""plot.py [--data FILE.jsonl ...] [--outdir DIR] [--no-png]: lab 08's tables and figures.

Reads JSON lines, each file recognised by its name: tetfv.jsonl and tetfv-hybrid.jsonl (the
one-H200 runs; default those of labs/data/h200-2026-11-23), tetfv-dual-*.jsonl (two H200;
default labs/data/h200x2-2026-11-24's), cpu-partition.jsonl and cpu-reorder.jsonl (the
CPU-machine runs of run_cpu.sh; default this folder's). It prints the tables and writes into
--outdir (default labs/out/08-tetfv-partitioning/, made if missing; `--outdir
labs/08-tetfv-partitioning` refreshes the committed copies) what its files allow:

  gpu-single.csv, gpu-hybrid.csv, cpu-partition.csv, cpu-reorder.csv,
  tetfv-gpu.png (every variant and the orderings on one H200; the CPU-fraction sweep),
  tetfv-cpu.png (separator and ghost cells against ranks; what the interior order buys),
  gpu-dual.csv (two-GPU strong scaling against the communication-free bound, from the
  tetfv-dual-*.jsonl files; skipped when there is none): one row per run; T1 is two-stream's one-GPU run, speed-up = T1 / T and
  efficiency = speed-up / GPUs; the bound is the same variant's --no-exchange run on as many
  ranks and GPUs, else two-stream's (naive has none), and % of comm-free = its time / the
  run's time. The --no-exchange runs are rows too (verify SKIPPED: unverified by design).

The GPU tables need both one-H200 files, the CPU tables both CPU files.
The bound is Paper III's eq. (3): P = 33 FLOP x B / 216 B, with B the measured triad.

Each figure's title names the device(s) of its lines and the date of the data: --date, else a
timestamp field of the lines (`time`, `date`, `started`, `timestamp`), else the YYYY-MM-DD in
the data's folder name (labs/data/h200-2026-11-23/), else, for the CPU files this lab ships,
the date its README gives (KNOWN below), else "date not recorded" (never a file's
modification date). Flagged points and bars carry a marker of their own and a legend entry:
oversubscribed runs (ranks x threads > the machine's cores: --cores, else the folder's name
as cpu-2core-DATE or the first line of its README.md, else KNOWN) and runs whose verification
did not pass (SKIPPED)."""
import csv
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

DATA = [os.path.join(ROOT, "labs", "data", "h200-2026-11-23", "tetfv.jsonl"),
        os.path.join(ROOT, "labs", "data", "h200-2026-11-23", "tetfv-hybrid.jsonl"),
        os.path.join(ROOT, "labs", "data", "h200x2-2026-11-24", "tetfv-dual-1047b46.jsonl"),
        os.path.join(HERE, "cpu-partition.jsonl"), os.path.join(HERE, "cpu-reorder.jsonl")]
FLOP, BYTES = 33, 216
# The figure's date and the machine's cores: labargs.record_date, path_date, path_cores.
from labargs import path_cores, path_date, record_date  # noqa: E402


# The CPU files this lab ships: the date and cores its README gives ("Measured on the CPU
# machine (2026-11-23)", "2 shared cores").
KNOWN = {os.path.join(HERE, f): ("2026-11-23", 2) for f in ("cpu-partition.jsonl", "cpu-reorder.jsonl")}
FLAGS = [("oversubscribed", "o", "black", "oversubscribed: ranks x threads > {cores} cores"),
         ("unverified", "s", "#b000b0", "verification not PASSED (SKIPPED)")]


def provenance(paths, recs, date=None, cores=None):
    """(devices, date) for a title, and sets each record's flags (_oversubscribed, _unverified)
    from the cores of its file's machine. RECS: {path: records}."""
    devices = " / ".join(sorted({r["device"] for rs in recs.values() for r in rs}))
    dates = sorted({d for rs in recs.values() for d in (record_date(r) for r in rs) if d})
    if not dates:
        dates = sorted({path_date(p) or KNOWN.get(os.path.abspath(p), (None,))[0] for p in paths} - {None})
    for p, rs in recs.items():
        c = cores or path_cores(p) or KNOWN.get(os.path.abspath(p), (None, None))[1]
        for r in rs:
            r["_cores"] = c
            r["_oversubscribed"] = bool(c) and r["ranks"] * max(r.get("threads") or 1, 1) > c
            r["_unverified"] = r["verify"]["status"] != "PASSED"
    return devices, date or " and ".join(dates) or "date not recorded (give --date)"


def flag_keys(r):
    """The flags of one record, for the rows built from it (not written to the CSVs)."""
    return {"_oversubscribed": r.get("_oversubscribed", False), "_unverified": r.get("_unverified", False),
            "_cores": r.get("_cores"), "_threads": r.get("threads")}


def flag_handles(rows):
    """Legend entries of the flags that ROWS carry."""
    from matplotlib.lines import Line2D
    out = []
    for f, marker, colour, label in FLAGS:
        cores = "/".join(str(c) for c in sorted({r["_cores"] for r in rows if r.get("_" + f) and r.get("_cores")}))
        if any(r.get("_" + f) for r in rows):
            out.append(Line2D([], [], ls="none", marker=marker, ms=9, mfc="none", mec=colour, mew=1.5,
                              label=label.format(cores=cores)))
    return out


def mark(ax, points, ms=7):
    """Draws the flags' markers: POINTS (x, y, row), each flag a ring around the point."""
    for f, marker, colour, _ in FLAGS:
        xy = [(x, y) for x, y, r in points if r.get("_" + f)]
        if xy:
            ax.plot([x for x, _ in xy], [y for _, y in xy], ls="none", marker=marker, ms=ms * 2.2, mfc="none",
                    mec=colour, mew=1.5, zorder=5, clip_on=False)


LOADED = {}
# The commit each GPU file was made at (the `git` field of tetfv.jsonl names the outer
# checkout, not c8346b8; labs/data/h200-2026-11-23/README.md explains).
COMMIT = {"tetfv.jsonl": "c8346b8", "tetfv-hybrid.jsonl": "cffdaba"}


def load(path):
    """PATH's records (read once: the flags provenance() sets stay on them)."""
    if path not in LOADED:
        with open(path) as f:
            LOADED[path] = [json.loads(l) for l in f if l.strip()]
    return LOADED[path]


def write_csv(path, rows, cols):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def show(title, rows, cols):
    print(f"\n{title}")
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols))


def gpu_tables(single_path, hybrid_path):
    single = load(single_path)
    hyb = load(hybrid_path)
    # Both files' non-hybrid runs carry the device triad as ceiling_GBs; tetfv.jsonl's is
    # 4155.8 GB/s. The hybrid sweep's device triad (4138.3) is its ceiling minus the host
    # triad (88.8), both in labs/data/h200-2026-11-23/README.md.
    triad_single = next(r["ceiling_GBs"] for r in single if r["variant"] == "two-stream")
    triad_hybrid = 4138.3
    rows = []
    for r in single:
        p = r["params"]
        frac = r.get("cpu_fraction")
        label = r["variant"] + (" --gpus 1" if r["variant"] == "multi-thread" else "")
        if r["variant"] == "hybrid":
            label += f" auto ({frac:.4f})"
        rows.append({
            "run": label, "mesh": p["mesh"] + (" --shuffle" if p["shuffle"] else ""),
            "cells": p["cells"], "reorder": p["reorder"],
            "interior_distance": round(r["results"]["interior_distance"]),
            "GFLOP_s": round(r["fom"]["value"], 1), "GB_s_216": round(r["bandwidth_GBs"], 1),
            "device_triad_GB_s": round(triad_single, 1),
            "pct_of_216B_bound": round(100 * r["bandwidth_GBs"] / triad_single, 1),
            "verify": r["verify"]["status"], "commit": COMMIT["tetfv.jsonl"], **flag_keys(r)})
    hrows = []
    for r in hyb:
        res = r["results"]
        hrows.append({
            "cpu_fraction": round(r["cpu_fraction"], 4),
            "requested": "auto" if "cpu_fraction_model" in res else f"{r['cpu_fraction']:g}",
            "cpu_rows": res["cpu_rows"], "GFLOP_s": round(r["fom"]["value"], 1),
            "vs_share_0_pct": None, "GB_s_216": round(r["bandwidth_GBs"], 1),
            "host_triad_GB_s": round(r["ceiling_GBs"] - triad_hybrid, 1),
            "device_triad_GB_s": triad_hybrid,
            "verify": r["verify"]["status"], "commit": COMMIT["tetfv-hybrid.jsonl"], **flag_keys(r)})
    base = next(h["GFLOP_s"] for h in hrows if h["requested"] == "0")
    for h in hrows:
        h["vs_share_0_pct"] = round(100 * (h["GFLOP_s"] / base - 1), 1)
    return rows, hrows, triad_single, triad_hybrid


DUAL_PHASES = ["step", "compute", "gpu_compute", "boundary", "pack_d2h", "d2h", "mpi", "h2d", "bulk",
               "wait_boundary", "peer_copies"]


def dual_table(paths):
    """Two-GPU strong scaling (tetfv_sweep.sh dual) with the --no-exchange bound."""
    rows = []
    for path in paths:
        m = re.search(r"tetfv-dual-([0-9a-f]+)\.jsonl$", path)
        recs = [r for r in load(path) if r.get("app") == "tetfv" and r["verify"]["status"] != "FAILED"]
        per = lambda r: r["time_s"]["median"] / r["time_s"]["steps"]
        t1 = [r for r in recs if r["gpus"] == 1 and r["ranks"] == 1 and r["variant"] == "two-stream"
              and not r["params"]["no_exchange"]]
        if not t1:
            print(f"plot.py: {path}: no one-GPU two-stream run: left out of gpu-dual.csv")
            continue
        t1 = t1[-1]
        for r in recs:
            p, ph, res = r["params"], r["phases"], r["results"]
            if p["box_n"] != t1["params"]["box_n"] or p["iters"] != t1["params"]["iters"]:
                print(f"plot.py: {path}: {r['variant']} {p['mesh']}: not the size of the one-GPU run: left out")
                continue
            bound = None
            if r["gpus"] > 1 and not p["no_exchange"]:
                cands = [b for b in recs if b["params"]["no_exchange"] and b["gpus"] == r["gpus"]]
                own = [b for b in cands if b["variant"] == r["variant"] and b["ranks"] == r["ranks"]]
                other = [b for b in cands if b["variant"] == "two-stream"]
                bound = (own or other or [None])[-1]
            sp = per(t1) / per(r)
            row = {
                "run": r["variant"] + (" --no-exchange" if p["no_exchange"] else ""),
                "ranks": r["ranks"], "gpus": r["gpus"], "mesh": p["mesh"], "cells": p["cells"],
                "reorder": p["reorder"], "no_exchange": int(p["no_exchange"]),
                "steps": r["time_s"]["steps"], "reps": r["time_s"]["reps"],
                "ms_per_step": round(1e3 * per(r), 4), "GFLOP_s": round(r["fom"]["value"], 1),
                "GB_s_216": round(r["bandwidth_GBs"], 1), "ceiling_GB_s": round(r["ceiling_GBs"], 2),
                "pct_of_triad": round(100 * r["fraction_of_ceiling"], 1),
                "T1_ms": round(1e3 * per(t1), 4), "speedup": round(sp, 3),
                "efficiency_pct": round(100 * sp / r["gpus"], 1),
                "bound_run": (bound["variant"] + " --no-exchange") if bound else "",
                "bound_ms_per_step": round(1e3 * per(bound), 4) if bound else "",
                "bound_GFLOP_s": round(bound["fom"]["value"], 1) if bound else "",
                "pct_of_comm_free": round(100 * per(bound) / per(r), 1) if bound else "",
                "separator_cells": res.get("separator_cells", ""), "ghost_cells": res.get("ghost_cells", ""),
                "messages_per_step": r["messages"]["per_step"], "bytes_per_step": r["messages"]["bytes_per_step"]}
            for name in DUAL_PHASES:
                row[f"{name}_ms"] = round(1e3 * ph[name], 4) if name in ph else ""
            row.update({"verify": r["verify"]["status"], "device": r["device"],
                        "commit": m.group(1) if m else r.get("git", "")})
            rows.append(row)
    order = {"naive": 0, "two-stream": 1, "hybrid": 2, "multi-thread": 3}
    rows.sort(key=lambda x: (x["gpus"], x["no_exchange"], order.get(x["run"].split()[0], 9)))
    return rows


def cpu_tables(partition_path, reorder_path):
    prow = []
    for r in load(partition_path):
        p, res = r["params"], r["results"]
        n = p["box_n"]
        prow.append({
            "N": n, "cells": p["cells"], "shuffle": int(p["shuffle"]), "ranks": r["ranks"],
            "separator_cells": res["separator_cells"], "ghost_cells": res["ghost_cells"],
            "messages_per_step": r["messages"]["per_step"],
            "bytes_per_step": r["messages"]["bytes_per_step"],
            "separator_pct": round(100 * res["separator_cells"] / p["cells"], 2),
            "separator_per_N2": round(res["separator_cells"] / n ** 2, 2),
            "verify": r["verify"]["status"], "oracle": r["verify"]["max_abs_diff"], **flag_keys(r)})
    prow.sort(key=lambda x: (x["shuffle"], x["N"], x["ranks"]))
    best = {}
    for r in load(reorder_path):
        p = r["params"]
        key = (p["shuffle"], p["reorder"], p["block"] if p["reorder"] == "metis" else "-")
        t = r["time_s"]["min"]
        if key not in best or t < best[key][0]:
            best[key] = (t, r)
    rrow = []
    for (shuf, order, block), (t, r) in best.items():
        rrow.append({
            "mesh": r["params"]["mesh"] + (" --shuffle" if shuf else ""),
            "reorder": order, "block": block,
            "interior_distance": round(r["results"]["interior_distance"]),
            "GFLOP_s": round(r["fom"]["value"], 3), "GB_s_216": round(r["bandwidth_GBs"], 2),
            "host_triad_1thread_GB_s": r["ceiling_GBs"],
            "pct_of_216B_bound": round(100 * r["fraction_of_ceiling"], 1),
            "verify": r["verify"]["status"], **flag_keys(r)})
    order = {"none": 0, "rcm": 1, "metis": 2}
    rrow.sort(key=lambda x: (x["mesh"].endswith("shuffle"), order[x["reorder"]], str(x["block"])))
    return prow, rrow


def shuffled(r):
    """A shuffled mesh left in its shuffled order: the red, hatched bars."""
    return "shuffle" in r["mesh"] and r["reorder"] == "none"


BAR = {False: dict(color="tab:blue", hatch=""), True: dict(color="tab:red", hatch="xx")}


def bar_legend(rows):
    from matplotlib.patches import Patch
    kinds = ((False, "mesh in generator or reordered order"), (True, "shuffled mesh, not reordered (--reorder none)"))
    return [Patch(facecolor=BAR[k]["color"], hatch=BAR[k]["hatch"], edgecolor="white", label=label)
            for k, label in kinds if any(shuffled(r) == k for r in rows)]


def plot_gpu(path, rows, hrows, triad_single, triad_hybrid, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 5.6), gridspec_kw={"width_ratios": [3, 2]})
    names = [r["run"].replace(" (", "\n(").replace(" --gpus", "\n--gpus") + "\n" + r["mesh"].replace(" --", "\n--")
             + f"\n--reorder {r['reorder']}" for r in rows]
    vals = [r["GFLOP_s"] for r in rows]
    for i, r in enumerate(rows):
        a.bar(i, r["GFLOP_s"], edgecolor="white", **BAR[shuffled(r)])
    bound = FLOP * triad_single / BYTES
    a.axhline(bound, color="k", ls="--", lw=1)
    a.axhline(0.75 * bound, color="grey", ls=":", lw=1)
    for i, r in enumerate(rows):
        a.text(i, r["GFLOP_s"] + 8, f"{r['pct_of_216B_bound']:.0f}%", ha="center", va="bottom", fontsize=8)
    mark(a, [(i, r["GFLOP_s"] + 0.14 * bound, r) for i, r in enumerate(rows)], ms=4)  # above the % label
    a.set_xticks(range(len(rows)))
    a.set_xticklabels(names, fontsize=6.5)
    a.set_ylabel("GFLOP/s (33 flops per cell update)")
    a.set_ylim(0, bound * 1.5)  # room above the bars for the legend
    a.set_title(f"every variant and mesh order: % of the 216 B/cell bound (commit {rows[0]['commit']})",
                fontsize=9)
    a.legend(handles=bar_legend(rows) + [
        Line2D([], [], color="k", ls="--", lw=1, label=f"bound: 33 x triad / 216 B = {bound:.0f} GFLOP/s"),
        Line2D([], [], color="grey", ls=":", lw=1, label="target: 75% of the bound")] + flag_handles(rows),
        fontsize=7.5, loc="upper left", ncol=2, frameon=False)
    auto = [h for h in hrows if h["requested"] == "auto"]
    sweep = sorted((h for h in hrows if h["requested"] != "auto"), key=lambda h: h["cpu_fraction"])
    b.plot([h["cpu_fraction"] for h in sweep], [h["GFLOP_s"] for h in sweep], "o-", label="hybrid, fixed CPU share")
    for h in auto:
        b.plot([h["cpu_fraction"]], [h["GFLOP_s"]], "r*", ms=12, label=f"auto (model share {h['cpu_fraction']:.4f})")
    mark(b, [(h["cpu_fraction"], h["GFLOP_s"], h) for h in hrows])
    r_model = hrows[0]["host_triad_GB_s"] / (hrows[0]["host_triad_GB_s"] + triad_hybrid)
    b.axvline(r_model, color="grey", ls=":", lw=1, label=f"B_cpu/(B_cpu+B_gpu) = {r_model:.4f} (not derated)")
    two = next(r["GFLOP_s"] for r in rows if r["run"] == "two-stream" and "shuffle" not in r["mesh"])
    b.axhline(two, color="tab:green", ls="--", lw=1, label=f"two-stream {two}")
    b.set_xlabel("CPU share of the rows (--cpu-fraction)")
    b.set_ylabel("GFLOP/s")
    threads = sorted({h["_threads"] for h in hrows})
    b.set_title(f"hybrid on box:150, {'/'.join(map(str, threads))} host threads (commit {hrows[0]['commit']})",
                fontsize=9)
    handles, _ = b.get_legend_handles_labels()
    b.legend(handles=handles + flag_handles(hrows), fontsize=7, loc="lower left")
    fig.suptitle(title, fontsize=10.5)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def plot_cpu(path, prow, rrow, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 5.0))
    plotted = []
    for n, m in ((16, "o"), (24, "s"), (32, "^")):
        rs = [r for r in prow if r["N"] == n and not r["shuffle"]]
        a.plot([r["ranks"] for r in rs], [r["separator_pct"] for r in rs], m + "-", label=f"box:{n} separator")
        a.plot([r["ranks"] for r in rs], [100 * r["ghost_cells"] / r["cells"] for r in rs], m + ":",
               color=a.lines[-1].get_color(), mfc="none", label=f"box:{n} ghosts")
        plotted += [(r["ranks"], r["separator_pct"], r) for r in rs]
        plotted += [(r["ranks"], 100 * r["ghost_cells"] / r["cells"], r) for r in rs]
    mark(a, plotted)
    a.set_xlabel("MPI ranks (METIS k-way parts)")
    a.set_ylabel("% of all cells (summed over ranks)")
    a.set_xticks([1, 2, 3, 4])
    a.set_title("separator and ghost cells (exact counts, whatever the load)", fontsize=9)
    handles, _ = a.get_legend_handles_labels()
    a.legend(handles=handles + flag_handles([r for _, _, r in plotted]), fontsize=7, ncol=2, loc="upper left")
    names = [f"{'shuffled' if 'shuffle' in r['mesh'] else 'ordered'}\n{r['reorder']}"
             + (f" {r['block']}" if r["reorder"] == "metis" else "") + f"\ndist {r['interior_distance']}"
             for r in rrow]
    for i, r in enumerate(rrow):
        b.bar(i, r["GFLOP_s"], edgecolor="white", **BAR[shuffled(r)])
    bound = FLOP * rrow[0]["host_triad_1thread_GB_s"] / BYTES
    b.axhline(bound, color="k", ls="--", lw=1)
    mark(b, [(i, r["GFLOP_s"] + 0.08 * bound, r) for i, r in enumerate(rrow)], ms=4)
    b.set_xticks(range(len(rrow)))
    b.set_xticklabels(names, fontsize=7)
    b.set_ylabel("GFLOP/s, 1 rank x 1 thread (best of 3 passes)")
    b.set_ylim(0, bound * 1.35)
    b.set_title("box:40 (384 000 cells): interior order on one core", fontsize=9)
    b.legend(handles=bar_legend(rrow) + [Line2D([], [], color="k", ls="--", lw=1,
                                                label=f"216 B bound {bound:.2f} GFLOP/s (1-thread triad)")]
             + flag_handles(rrow), fontsize=7, loc="upper left", frameon=False)
    fig.suptitle(title, fontsize=10.5)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def kind_of(path):
    """Which input PATH is, from its name (the names the sweeps and run_cpu.sh write)."""
    b = os.path.basename(path)
    for kind, pat in (("single", r"tetfv\.jsonl"), ("hybrid", r"tetfv-hybrid\.jsonl"),
                      ("dual", r"tetfv-dual-.+\.jsonl"), ("partition", r"cpu-partition\.jsonl"),
                      ("reorder", r"cpu-reorder\.jsonl")):
        if re.fullmatch(pat, b):
            return kind
    return None


def main():
    ap = labargs.parser(__file__, DATA, description=__doc__, formatter_class=labargs.argparse.RawDescriptionHelpFormatter,
                        data_help="tetfv JSON lines, recognised by name")
    ap.add_argument("--no-png", action="store_true")
    ap.add_argument("--date", help="date of the data for the figures' titles [a timestamp field of the lines, else "
                    "the YYYY-MM-DD in their folder's name, else the lab README's for its CPU files]")
    ap.add_argument("--cores", type=int, help="cores of the machine, to mark oversubscribed runs (ranks x threads "
                    "> cores) [the folder's name or README.md, else the lab README's for its CPU files]")
    a = ap.parse_args()
    files = {}
    for path in a.data:
        kind = kind_of(path)
        if kind is None:
            ap.error(f"{path}: not a name plot.py knows (tetfv.jsonl, tetfv-hybrid.jsonl, tetfv-dual-NAME.jsonl, "
                     "cpu-partition.jsonl, cpu-reorder.jsonl)")
        files.setdefault(kind, []).append(path)
    out = labargs.outdir(a.outdir)
    tables = []
    gpu = "single" in files and "hybrid" in files
    cpu = "partition" in files and "reorder" in files
    if gpu:
        gpu_files = [files["single"][-1], files["hybrid"][-1]]
        gpu_dev, gpu_date = provenance(gpu_files, {p: load(p) for p in gpu_files}, a.date, a.cores)
        rows, hrows, ts, th = gpu_tables(files["single"][-1], files["hybrid"][-1])
        tables += [("gpu-single.csv", "one H200: every GPU variant, ordered and shuffled meshes", rows),
                   ("gpu-hybrid.csv", "one H200: hybrid CPU-fraction sweep on box:150", hrows)]
    if cpu:
        cpu_files = [files["partition"][-1], files["reorder"][-1]]
        cpu_dev, cpu_date = provenance(cpu_files, {p: load(p) for p in cpu_files}, a.date, a.cores)
        prow, rrow = cpu_tables(files["partition"][-1], files["reorder"][-1])
        tables += [("cpu-partition.csv", "CPU machine: separator and ghost cells against ranks", prow),
                   ("cpu-reorder.csv", "CPU machine: interior order on the shuffled box:40", rrow)]
    drow = dual_table(sorted(files.get("dual", [])))
    if drow:
        tables.append(("gpu-dual.csv", "two H200: strong scaling against the --no-exchange bound", drow))
    shown = {"gpu-dual.csv": ["run", "ranks", "gpus", "mesh", "ms_per_step", "GFLOP_s", "GB_s_216", "pct_of_triad",
                              "speedup", "efficiency_pct", "bound_run", "bound_ms_per_step", "pct_of_comm_free",
                              "verify"]}
    for name, title, rs in tables:
        cols = [c for c in rs[0] if not c.startswith("_")]
        write_csv(os.path.join(out, name), rs, cols)
        show(f"{title} ({name}{', excerpt' if name in shown else ''})", rs, shown.get(name, cols))
    if not tables:
        sys.exit("plot.py: nothing to tabulate: give both one-H200 files, both CPU files or a tetfv-dual file")
    if not a.no_png and gpu:
        plot_gpu(os.path.join(out, "tetfv-gpu.png"), rows, hrows, ts, th,
                 f"tetfv on one GPU: {gpu_dev}, {gpu_date}")
    if not a.no_png and cpu:
        cores = sorted({r["_cores"] for r in prow + rrow if r["_cores"]})
        threads = "/".join(str(t) for t in sorted({r["_threads"] for r in prow + rrow}))
        plot_cpu(os.path.join(out, "tetfv-cpu.png"), prow, rrow,
                 f"tetfv, cpu variant, {threads} thread{'s' if threads != '1' else ''} per rank: {cpu_dev}"
                 + (f", {'/'.join(map(str, cores))} cores" if cores else "") + f", {cpu_date}")
    print("plot.py: wrote " + ", ".join(t[0] for t in tables)
          + "".join(f", {p}" for p, ok in (("tetfv-gpu.png", gpu), ("tetfv-cpu.png", cpu)) if ok and not a.no_png)
          + f" into {labargs.rel(out)}")


if __name__ == "__main__":
    main()
