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
The bound is Paper III's eq. (3): P = 33 FLOP x B / 216 B, with B the measured triad."""
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
# The commit each GPU file was made at (the `git` field of tetfv.jsonl names the outer
# checkout, not c8346b8; labs/data/h200-2026-11-23/README.md explains).
COMMIT = {"tetfv.jsonl": "c8346b8", "tetfv-hybrid.jsonl": "cffdaba"}


def load(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def write_csv(path, rows, cols):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
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
            "verify": r["verify"]["status"], "commit": COMMIT["tetfv.jsonl"]})
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
            "verify": r["verify"]["status"], "commit": COMMIT["tetfv-hybrid.jsonl"]})
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
            "verify": r["verify"]["status"], "oracle": r["verify"]["max_abs_diff"]})
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
            "verify": r["verify"]["status"]})
    order = {"none": 0, "rcm": 1, "metis": 2}
    rrow.sort(key=lambda x: (x["mesh"].endswith("shuffle"), order[x["reorder"]], str(x["block"])))
    return prow, rrow


def plot_gpu(path, rows, hrows, triad_single, triad_hybrid):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [3, 2]})
    names = [r["run"].replace(" (", "\n(").replace(" --gpus", "\n--gpus") + "\n" + r["mesh"].replace(" --", "\n--")
             + f"\n--reorder {r['reorder']}" for r in rows]
    vals = [r["GFLOP_s"] for r in rows]
    colours = ["tab:red" if "shuffle" in r["mesh"] and r["reorder"] == "none" else "tab:blue" for r in rows]
    a.bar(range(len(rows)), vals, color=colours)
    bound = FLOP * triad_single / BYTES
    a.axhline(bound, color="k", ls="--", lw=1)
    a.text(-0.4, bound * 1.1, f"dashed: 33 x triad / 216 B = {bound:.0f} GFLOP/s", ha="left", fontsize=8)
    a.axhline(0.75 * bound, color="grey", ls=":", lw=1)
    a.text(len(rows) - 0.5, 0.75 * bound + 8, "issue 5 target: 75%", ha="right", fontsize=8, color="grey")
    for i, r in enumerate(rows):
        a.text(i, r["GFLOP_s"] + 8, f"{r['pct_of_216B_bound']:.0f}%", ha="center", fontsize=8)
    a.set_xticks(range(len(rows)))
    a.set_xticklabels(names, fontsize=6.5)
    a.set_ylabel("GFLOP/s (33 flops per cell update)")
    a.set_ylim(0, bound * 1.2)
    a.tick_params(axis="x", labelsize=6.5)
    a.set_title("tetfv on one H200 (2026-11-23): % of the 216 B/cell bound", fontsize=9)
    auto = [h for h in hrows if h["requested"] == "auto"]
    sweep = sorted((h for h in hrows if h["requested"] != "auto"), key=lambda h: h["cpu_fraction"])
    b.plot([h["cpu_fraction"] for h in sweep], [h["GFLOP_s"] for h in sweep], "o-", label="hybrid, fixed CPU share")
    for h in auto:
        b.plot([h["cpu_fraction"]], [h["GFLOP_s"]], "r*", ms=12, label=f"auto (model share {h['cpu_fraction']:.4f})")
    r_model = hrows[0]["host_triad_GB_s"] / (hrows[0]["host_triad_GB_s"] + triad_hybrid)
    b.axvline(r_model, color="grey", ls=":", lw=1)
    b.text(r_model + 0.001, min(h["GFLOP_s"] for h in hrows) + 10,
           f"B_cpu/(B_cpu+B_gpu) = {r_model:.4f}\n(not derated)", fontsize=7, color="grey")
    two = next(r["GFLOP_s"] for r in rows if r["run"] == "two-stream" and "shuffle" not in r["mesh"])
    b.axhline(two, color="tab:green", ls="--", lw=1, label=f"two-stream {two}")
    b.set_xlabel("CPU share of the rows (--cpu-fraction)")
    b.set_ylabel("GFLOP/s")
    b.set_title("hybrid on box:150, 16 host threads (commit cffdaba)", fontsize=9)
    b.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def plot_cpu(path, prow, rrow):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.6))
    for n, m in ((16, "o"), (24, "s"), (32, "^")):
        rs = [r for r in prow if r["N"] == n and not r["shuffle"]]
        a.plot([r["ranks"] for r in rs], [r["separator_pct"] for r in rs], m + "-", label=f"box:{n} separator")
        a.plot([r["ranks"] for r in rs], [100 * r["ghost_cells"] / r["cells"] for r in rs], m + ":",
               color=a.lines[-1].get_color(), label=f"box:{n} ghosts")
    a.set_xlabel("MPI ranks (METIS k-way parts)")
    a.set_ylabel("% of all cells (summed over ranks)")
    a.set_xticks([1, 2, 3, 4])
    a.set_title("separator and ghost cells (exact counts)", fontsize=9)
    a.legend(fontsize=7, ncol=2)
    names = [f"{'shuffled' if 'shuffle' in r['mesh'] else 'ordered'}\n{r['reorder']}"
             + (f" {r['block']}" if r["reorder"] == "metis" else "") + f"\ndist {r['interior_distance']}"
             for r in rrow]
    b.bar(range(len(rrow)), [r["GFLOP_s"] for r in rrow],
          color=["tab:red" if "shuffle" in r["mesh"] and r["reorder"] == "none" else "tab:blue" for r in rrow])
    bound = FLOP * rrow[0]["host_triad_1thread_GB_s"] / BYTES
    b.axhline(bound, color="k", ls="--", lw=1)
    b.text(len(rrow) - 0.5, bound * 1.02, f"216 B bound {bound:.2f} (1-thread triad)", ha="right", fontsize=8)
    b.set_xticks(range(len(rrow)))
    b.set_xticklabels(names, fontsize=7)
    b.set_ylabel("GFLOP/s, 1 rank x 1 thread (best of 3 passes)")
    b.set_ylim(0, bound * 1.2)
    b.set_title("box:40 (384 000 cells): interior order on the CPU (2 shared cores)", fontsize=9)
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
        rows, hrows, ts, th = gpu_tables(files["single"][-1], files["hybrid"][-1])
        tables += [("gpu-single.csv", "one H200: every GPU variant, ordered and shuffled meshes", rows),
                   ("gpu-hybrid.csv", "one H200: hybrid CPU-fraction sweep on box:150", hrows)]
    if cpu:
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
        cols = list(rs[0].keys())
        write_csv(os.path.join(out, name), rs, cols)
        show(f"{title} ({name}{', excerpt' if name in shown else ''})", rs, shown.get(name, cols))
    if not tables:
        sys.exit("plot.py: nothing to tabulate: give both one-H200 files, both CPU files or a tetfv-dual file")
    if not a.no_png and gpu:
        plot_gpu(os.path.join(out, "tetfv-gpu.png"), rows, hrows, ts, th)
    if not a.no_png and cpu:
        plot_cpu(os.path.join(out, "tetfv-cpu.png"), prow, rrow)
    print("plot.py: wrote " + ", ".join(t[0] for t in tables)
          + "".join(f", {p}" for p, ok in (("tetfv-gpu.png", gpu), ("tetfv-cpu.png", cpu)) if ok and not a.no_png)
          + f" into {labargs.rel(out)}")


if __name__ == "__main__":
    main()
