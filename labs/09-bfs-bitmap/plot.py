#!/usr/bin/env python3
"""plot.py [--data FILE ...] [--outdir DIR] [--no-png]: lab 09's tables and figures, into DIR
(default labs/out/09-bfs-bitmap/, made if missing; `--outdir labs/09-bfs-bitmap` refreshes the
committed copies). Each --data file feeds one part: a .log file the CPU part, a .jsonl file
with a run on two GPUs the two-GPU part, any other .jsonl the one-GPU part; a part without a
file is left out.

CPU part: the per-level message table of the first search of every run in the log that
run_cpu.sh wrote (the table `bfs` prints after the Graph500 block, then its --json - line):
writes cpu_levels.csv (one row per run and level), cpu_summary.csv (one row per run) and
cpu_levels.png (bytes per level, list against bitmap against auto, one panel per scale).

GPU part: the harmonic-mean GTEPS of every line of bfs_sweep.sh's `single` JSONL: writes
gpu_h200.csv and gpu_h200.png. The JSON does not say which discovery kernel ran, so a second
`naive` line is labelled as bfs_sweep.sh runs it: BFS_DISCOVER=edges, after the others.

Two-GPU part: every line of bfs_sweep.sh's `dual` JSONL (two-stream on 2 ranks, grids 1x2 and
2x1, list/bitmap/auto; multi-thread --gpus 2 in one process): grid, transfer, GTEPS, bytes per
search, peak level, the bitmap's reduction at the peak and the phases of the profiled search
(ms, max over ranks; docs/output-schema.md 2.4): writes gpu_h200x2.csv and gpu_h200x2.png.

Message-matrix part: a JSONL that bfs --message-matrix wrote (schema bfs.message_matrix/1,
one line per level of the first timed search: the bytes each rank sent each other rank in the
expand and in the fold): writes matrix_pairs.csv (level, direction, phase, sender, receiver,
bytes; nonzero pairs only) and matrix_levels.png, the network pattern of Rossetti et al.'s
slides: one heat map per level (expand + fold, sender rows, receiver columns), then the sum.

Defaults: this folder's cpu-4rank.log, matrix-cpu-2x2.jsonl (a 2-core CPU machine's run,
README.md), labs/data/h200-2026-11-23/bfs.jsonl and
labs/data/h200x2-2026-11-24/bfs-dual-7cef646.jsonl.
"""
import csv
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

DATA = [os.path.join(HERE, "cpu-4rank.log"), os.path.join(HERE, "matrix-cpu-2x2.jsonl"),
        os.path.normpath(os.path.join(HERE, "..", "data", "h200-2026-11-23", "bfs.jsonl")),
        os.path.normpath(os.path.join(HERE, "..", "data", "h200x2-2026-11-24", "bfs-dual-7cef646.jsonl"))]
LEVEL_COLS = ["scale", "transfer", "level", "frontier", "expand_bytes", "fold_bytes",
              "total_bytes", "as_lists", "messages", "bitmaps"]
SUM_COLS = ["scale", "transfer", "root_levels", "bytes_first_search", "bytes_per_search_mean",
            "peak_level_bytes", "peak_level_bytes_as_lists", "bitmap_reduction_peak",
            "GTEPS_rough", "verify"]
GPU_COLS = ["variant", "discovery", "gpus", "GTEPS", "median_ms", "bandwidth_GBs", "verify"]
DUAL_COLS = ["variant", "ranks", "gpus", "grid", "transfer", "GTEPS", "median_ms", "expand_B", "fold_B",
             "peak_level_B", "peak_as_lists_B", "reduction", "expand_ms", "fold_ms", "discover_ms",
             "update_ms", "parents_ms", "verify"]


def parse_log(path):
    """Runs in the log: the level rows of the first search and the JSON line."""
    runs, levels, in_table = [], [], False
    for line in open(path):
        if line.startswith("### "):
            levels, in_table = [], False
        elif line.strip().startswith("level ") and "frontier" in line:
            in_table = True
        elif in_table and re.match(r"^\s+\d+(\s+\d+){6}\s*$", line):
            levels.append([int(x) for x in line.split()])
        elif line.startswith('{"schema"'):
            in_table = False
            runs.append((json.loads(line), levels))
    return runs


def write_csv(path, cols, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)


def show(cols, rows):
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols))


def cpu_part(log, outdir):
    runs = parse_log(log)
    lrows, srows = [], []
    for r, levels in runs:
        p, res = r["params"], r["results"]
        for lv, fr, ex, fo, al, ms, bm in levels:
            lrows.append({"scale": p["scale"], "transfer": p["transfer"], "level": lv, "frontier": fr,
                          "expand_bytes": ex, "fold_bytes": fo, "total_bytes": ex + fo,
                          "as_lists": al, "messages": ms, "bitmaps": bm})
        srows.append({"scale": p["scale"], "transfer": p["transfer"], "root_levels": len(levels),
                      "bytes_first_search": sum(l[2] + l[3] for l in levels),
                      "bytes_per_search_mean": r["messages"]["bytes_per_step"],
                      "peak_level_bytes": res["peak_level_bytes"],
                      "peak_level_bytes_as_lists": res["peak_level_bytes_as_lists"],
                      "bitmap_reduction_peak": round(res["bitmap_reduction_peak"], 2),
                      "GTEPS_rough": round(r["fom"]["value"], 5), "verify": r["verify"]["status"]})
    write_csv(os.path.join(outdir, "cpu_levels.csv"), LEVEL_COLS, lrows)
    write_csv(os.path.join(outdir, "cpu_summary.csv"), SUM_COLS, srows)
    print(f"# per level, first search, 4 ranks (2x2), bytes to other ranks summed over ranks ({log})")
    show(LEVEL_COLS, lrows)
    print("\n# per run (GTEPS_rough: 4 ranks on 2 shared cores, not a measurement of the method)")
    show(SUM_COLS, srows)
    return lrows


def bfs_records(jsonl):
    """The bfs kit.result/1 records of a JSON-lines file, in file order."""
    for line in open(jsonl):
        if line.strip():
            r = json.loads(line)
            if r["app"] == "bfs":
                yield r


def gpu_part(jsonl, outdir):
    rows, seen_naive = [], False
    for r in bfs_records(jsonl):
        v = r["variant"]
        if v == "naive":
            disc = "edges (BFS_DISCOVER=edges)" if seen_naive else "thread per vertex"
            seen_naive = True
        else:
            disc = "edges"
        if v == "multi-thread":
            v = f"multi-thread --gpus {r['gpus']}"
        if v == "hybrid":
            v = f"hybrid auto (share {r['cpu_fraction']})"
        rows.append({"variant": v, "discovery": disc, "gpus": r["gpus"],
                     "GTEPS": round(r["fom"]["value"], 2),
                     "median_ms": round(1e3 * r["time_s"]["median"], 2),
                     "bandwidth_GBs": round(r["bandwidth_GBs"], 1), "verify": r["verify"]["status"]})
    write_csv(os.path.join(outdir, "gpu_h200.csv"), GPU_COLS, rows)
    print(f"\n# one GPU ({jsonl})")
    show(GPU_COLS, rows)
    return rows


def dual_part(jsonl, outdir):
    rows, title = [], ""
    for r in bfs_records(jsonl):
        p, res, ph = r["params"], r["results"], r["phases"]
        title = (f"bfs, scale {p['scale']}, {p['nbfs']} roots, {r['gpus']} x {r['device']}, "
                 f"git {r['git']} ({os.path.basename(jsonl)})")
        ms = lambda *names: round(1e3 * sum(ph.get(n, 0.0) for n in names), 2) if any(n in ph for n in names) else ""
        v = r["variant"] + (f" --gpus {r['gpus']}" if r["variant"] == "multi-thread" else "")
        rows.append({"variant": v, "ranks": r["ranks"], "gpus": r["gpus"],
                     "grid": f"{p['grid_rows']}x{p['grid_cols']}",
                     "transfer": p["transfer"] if r["ranks"] > 1 else "no MPI message",
                     "GTEPS": round(r["fom"]["value"], 2), "median_ms": round(1e3 * r["time_s"]["median"], 2),
                     "expand_B": res["expand_bytes_per_search"], "fold_B": res["fold_bytes_per_search"],
                     "peak_level_B": res["peak_level_bytes"], "peak_as_lists_B": res["peak_level_bytes_as_lists"],
                     "reduction": round(res["bitmap_reduction_peak"], 1),
                     "expand_ms": ms("expand"), "fold_ms": ms("fold"),
                     # GPU ranges: two-stream's local-stream discovery (own + remote near) plus the
                     # far part on the comm stream; multi-thread's summed over its GPUs.
                     "discover_ms": ms("discover_own", "discover_remote_near", "discover_remote_far", "gpu_discover"),
                     "update_ms": ms("update"), "parents_ms": ms("parents"), "verify": r["verify"]["status"]})
    write_csv(os.path.join(outdir, "gpu_h200x2.csv"), DUAL_COLS, rows)
    print(f"\n# two GPUs ({jsonl}); bytes per search, phases of the profiled search in ms")
    show(DUAL_COLS, rows)
    return rows, title


def dual_plot(drows, title, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [f"{r['variant']} {r['grid']}\n{r['transfer']}" for r in drows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8))
    y = range(len(drows))
    a1.barh(y, [r["GTEPS"] for r in drows], color="tab:purple")
    for i, r in enumerate(drows):
        a1.text(r["GTEPS"] + 0.2, i, f"{r['GTEPS']:.2f}", va="center", fontsize=8)
    a1.set_yticks(list(y))
    a1.set_yticklabels(labels, fontsize=7)
    a1.invert_yaxis()
    a1.set_xlim(0, max(r["GTEPS"] for r in drows) * 1.2)
    a1.set_xlabel("harmonic-mean GTEPS (higher is better)")
    sent = [(r["expand_B"] + r["fold_B"]) / 1e6 for r in drows]
    a2.barh([i - 0.2 for i in y], sent, height=0.4, color="tab:blue", label="bytes per search")
    a2.barh([i + 0.2 for i in y], [r["peak_level_B"] / 1e6 for r in drows], height=0.4, color="tab:red",
            label="peak level")
    a2.set_yticks(list(y))
    a2.set_yticklabels([])
    a2.invert_yaxis()
    a2.set_xlabel("MB sent to the other rank")
    a2.legend(fontsize=8, loc="lower right")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "gpu_h200x2.png"), dpi=110)


def cpu_plot(lrows, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    scales = sorted({r["scale"] for r in lrows})
    fig, axes = plt.subplots(1, len(scales), figsize=(4.2 * len(scales), 4), squeeze=False)
    colours = {"list": "tab:blue", "bitmap": "tab:red", "auto": "tab:green"}
    for ax, s in zip(axes[0], scales):
        for j, t in enumerate(("list", "bitmap", "auto")):
            rr = [r for r in lrows if r["scale"] == s and r["transfer"] == t]
            ax.bar([r["level"] + 0.27 * (j - 1) for r in rr], [max(r["total_bytes"], 1) for r in rr],
                   width=0.27, color=colours[t], label=t)
        rr = [r for r in lrows if r["scale"] == s and r["transfer"] == "list"]
        n = 2 ** s
        ax.axhline(8 * n // (8 * 4), color="grey", ls=":", lw=1)
        ax.text(0.98, 8 * n // (8 * 4) * 1.15, "8 bitmaps of N/(8RC) B", fontsize=7, color="grey", ha="right",
                transform=ax.get_yaxis_transform())
        ax2 = ax.twinx()
        ax2.plot([r["level"] for r in rr], [r["frontier"] for r in rr], "k.-", lw=1, label="frontier")
        ax2.set_yscale("log")
        ax2.set_ylabel("frontier (vertices)", fontsize=8)
        ax.set_yscale("log")
        ax.set_xlabel("BFS level (first search)")
        ax.set_title(f"scale {s}, 4 ranks (2x2), N/(32RC) = {n // 128}", fontsize=9)
        ax.set_xticks([r["level"] for r in rr])
    axes[0][0].set_ylabel("bytes sent to other ranks per level")
    h, l = axes[0][0].get_legend_handles_labels()
    fig.legend(h + [plt.Line2D([], [], color="k", marker=".")], l + ["frontier (right axis)"],
               fontsize=8, loc="lower center", ncol=4)
    fig.suptitle("Frontier messages per level, cpu variant, MPICH on the 2-core CPU machine", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(os.path.join(outdir, "cpu_levels.png"), dpi=110)


def gpu_plot(grows, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.6))
    labels = [f"{r['variant']}\n{r['discovery']}" for r in grows]
    ax.barh(range(len(grows)), [r["GTEPS"] for r in grows], color="tab:purple")
    for i, r in enumerate(grows):
        ax.text(r["GTEPS"] + 0.2, i, f"{r['GTEPS']:.2f}", va="center", fontsize=8)
    ax.set_yticks(range(len(grows)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("harmonic-mean GTEPS (higher is better)")
    ax.set_title("bfs, scale 22, edgefactor 16, 8 roots, one NVIDIA H200 (2026-11-23, cffdaba)", fontsize=9)
    ax.set_xlim(0, max(r["GTEPS"] for r in grows) * 1.15)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "gpu_h200.png"), dpi=110)


def is_matrix(path):
    """Whether PATH is a --message-matrix file (its first line's schema)."""
    if not path.endswith(".jsonl"):
        return False
    with open(path) as f:
        first = f.readline()
    try:
        return json.loads(first).get("schema") == "bfs.message_matrix/1"
    except (ValueError, AttributeError):
        return False


def matrix_part(path, outdir):
    levels = []
    with open(path) as f:
        for line in f:
            if line.strip():
                levels.append(json.loads(line))
    rows = []
    for rec in levels:
        for phase in ("expand", "fold"):
            for s, row in enumerate(rec[phase]):
                for d, v in enumerate(row):
                    if v:
                        rows.append({"level": rec["level"], "direction": rec["direction"], "phase": phase,
                                     "sender": s, "receiver": d, "bytes": v})
    cols = ["level", "direction", "phase", "sender", "receiver", "bytes"]
    write_csv(os.path.join(outdir, "matrix_pairs.csv"), cols, rows)
    for rec in levels:
        e, fo = sum(map(sum, rec["expand"])), sum(map(sum, rec["fold"]))
        print(f"level {rec['level']} ({rec['direction']}): expand {e} B, fold {fo} B")
    return levels


def matrix_plot(levels, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    P = len(levels[0]["expand"])
    total = lambda rec: [[rec["expand"][s][d] + rec["fold"][s][d] for d in range(P)] for s in range(P)]
    mats = [(f"level {r['level']} ({'BU' if r['direction'] == 'bottom-up' else 'TD'})", total(r)) for r in levels]
    mats.append(("all levels", [[sum(m[s][d] for _, m in mats) for d in range(P)] for s in range(P)]))
    n = len(mats)
    ncol = min(n, 4)
    nrow = (n + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.2 * ncol, 3.0 * nrow), squeeze=False)
    R, C = levels[0].get("grid_rows"), levels[0].get("grid_cols")
    for k, (title, m) in enumerate(mats):
        ax = axes[k // ncol][k % ncol]
        im = ax.imshow(m, cmap="viridis", vmin=0)
        ax.set_title(title, fontsize=9)
        ax.set_xticks(range(P))
        ax.set_yticks(range(P))
        ax.set_xlabel("receiver rank", fontsize=8)
        ax.set_ylabel("sender rank", fontsize=8)
        for s in range(P):
            for d in range(P):
                if m[s][d]:
                    ax.text(d, s, str(m[s][d]), ha="center", va="center", fontsize=6, color="w")
        fig.colorbar(im, ax=ax, fraction=0.046, label="bytes")
    for k in range(n, nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    fig.suptitle(f"bfs expand + fold bytes per sender/receiver, first search ({R}x{C} grid)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "matrix_levels.png"), dpi=110)
    plt.close(fig)


def main():
    ap = labargs.parser(__file__, DATA, description=__doc__.split("\n\n")[0],
                        data_help="run_cpu.sh's LOG, bfs_sweep.sh's single or dual JSONL, a --message-matrix JSONL")
    ap.add_argument("--no-png", action="store_true")
    a = ap.parse_args()
    part = {}
    for path in a.data:
        b = os.path.basename(path)
        kind = "cpu" if b.endswith(".log") else "matrix" if is_matrix(path) else "dual" if any(r.get("gpus", 0) >= 2 for r in bfs_records(path)) \
            else "gpu"
        if kind in part:
            ap.error(f"{path}: a second {kind} file (one each: LOG, single JSONL, dual JSONL, matrix JSONL)")
        part[kind] = path
    outdir = labargs.outdir(a.outdir)
    lrows = cpu_part(part["cpu"], outdir) if "cpu" in part else []
    grows = gpu_part(part["gpu"], outdir) if "gpu" in part else []
    drows, dtitle = dual_part(part["dual"], outdir) if "dual" in part else ([], "")
    mlevels = matrix_part(part["matrix"], outdir) if "matrix" in part else []
    if not a.no_png:
        try:
            if lrows:
                cpu_plot(lrows, outdir)
            if grows:
                gpu_plot(grows, outdir)
            if drows:
                dual_plot(drows, dtitle, outdir)
            if mlevels:
                matrix_plot(mlevels, outdir)
        except ImportError:
            print("matplotlib not installed: tables only")
    print(f"plot.py: wrote the {', '.join(sorted(part))} part(s) into {labargs.rel(outdir)}")


if __name__ == "__main__":
    main()
