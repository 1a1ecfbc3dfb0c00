#!/usr/bin/env python3
"""plot.py [--data JSONL ...] [--outdir DIR]: lab 03, one process driving several GPUs (multi-thread)
against one MPI rank per GPU (two-stream), in the shape of Sourouri Paper I, Fig. 5.

Reads kit.result/1 lines (default: the 2 x H200 data of 2026-11-22) and writes, into DIR
(default labs/out/03-multi-gpu-threads/, made if missing; `--outdir labs/03-multi-gpu-threads`
refreshes the committed copies):
  speedup.csv  one row per points-per-GPU size: time per step of two-stream on 2 ranks, of
               multi-thread (1 process, 2 GPUs) with P2P and with staging through pinned
               host memory, the speed-up of each over two-stream, and the weak-scaling
               efficiency of all three against the 1-GPU two-stream run of that size;
  speedup.png  the speed-ups against points per GPU (left) and the efficiencies (right).
Only sizes that were measured are plotted; nothing is interpolated. Standard library and
matplotlib only.

Which lines are used: verified laplace lines; two-stream with 2 ranks and 2 GPUs,
multi-thread with 1 rank and 2 GPUs (params.p2p true / false), two-stream with 1 rank and
1 GPU. When several lines describe the same run (the GPU suite also records short --trace
runs, and the single-GPU sweep repeats the 1-GPU baselines), the one with the most timed
steps (reps x steps) is kept, and among equals the last in the file: the dual sweep records
its own 1-GPU baseline just before its 2-GPU runs."""
import csv
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

DEFAULT = os.path.join(HERE, "..", "data", "h200x2-2026-11-22", "laplace.jsonl")

COLS = ["points_per_gpu", "size_per_gpu", "size_total", "two_stream_1gpu_us", "two_stream_2rank_us",
        "mt_p2p_us", "mt_staged_us", "speedup_p2p", "speedup_staged", "eff_two_stream", "eff_mt_p2p",
        "eff_mt_staged", "device"]


def load(path):
    runs = []
    with open(path) as f:
        for n, line in enumerate(f):
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("schema") != "kit.result/1" or r.get("app") != "laplace":
                continue
            if r["verify"]["status"] != "PASSED":
                continue
            r["_line"] = n
            runs.append(r)
    return runs


def kind(r):
    """Which series a run belongs to, or None."""
    v, ranks, gpus = r["variant"], r["ranks"], r["gpus"]
    if v == "two-stream" and ranks == 1 and gpus == 1:
        return "ts1"
    if v == "two-stream" and ranks == 2 and gpus == 2:
        return "ts2"
    if v == "multi-thread" and ranks == 1 and gpus == 2:
        return "mt_p2p" if r["params"].get("p2p", True) else "mt_staged"
    return None


def per_gpu(r):
    """(nx, ny, nz per GPU) of a run; z is the split direction."""
    p = r["params"]
    parts = r["ranks"] * (r["gpus"] if r["variant"] == "multi-thread" else 1)
    if p["nz"] % parts:
        return None  # uneven split: not a weak-scaling point
    return p["nx"], p["ny"], p["nz"] // parts


def step_us(r):
    return 1e6 * r["time_s"]["median"] / r["time_s"]["steps"]


def select(runs):
    """{(nx, ny, nz per GPU): {series: run}} keeping the best line per series."""
    table = {}
    for r in runs:
        k = kind(r)
        g = per_gpu(r) if k else None
        if g is None:
            continue
        slot = table.setdefault(g, {})
        old = slot.get(k)
        weight = r["time_s"]["reps"] * r["time_s"]["steps"]
        if old is None or weight >= old["time_s"]["reps"] * old["time_s"]["steps"]:
            slot[k] = r
    return table


def fmt_size(nx, ny, nz):
    return f"{nx}^3" if nx == ny == nz else f"{nx}x{ny}x{nz}"


def rows_of(table):
    rows = []
    for g in sorted(table, key=lambda g: g[0] * g[1] * g[2]):
        s = table[g]
        if "ts2" not in s or not ({"mt_p2p", "mt_staged"} & set(s)):
            continue  # a speed-up needs the MPI scheme and at least one multi-thread run
        t = {k: step_us(r) for k, r in s.items()}
        ts2 = s["ts2"]["params"]
        row = {
            "points_per_gpu": g[0] * g[1] * g[2],
            "size_per_gpu": fmt_size(*g),
            "size_total": f"{ts2['nx']}x{ts2['ny']}x{ts2['nz']}",
            "device": s["ts2"]["device"],
        }
        for key, col in (("ts1", "two_stream_1gpu_us"), ("ts2", "two_stream_2rank_us"), ("mt_p2p", "mt_p2p_us"),
                         ("mt_staged", "mt_staged_us")):
            row[col] = f"{t[key]:.1f}" if key in t else ""
        for key, col in (("mt_p2p", "speedup_p2p"), ("mt_staged", "speedup_staged")):
            row[col] = f"{t['ts2'] / t[key]:.3f}" if key in t else ""
        for key, col in (("ts2", "eff_two_stream"), ("mt_p2p", "eff_mt_p2p"), ("mt_staged", "eff_mt_staged")):
            row[col] = f"{t['ts1'] / t[key]:.3f}" if key in t and "ts1" in t else ""
        rows.append(row)
    return rows


def date_of(path):
    m = re.search(r"(\d{4}-\d{2}-\d{2})", os.path.abspath(path))
    return m.group(1) if m else "date unknown"


def plot(rows, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [int(r["points_per_gpu"]) for r in rows]
    labels = [r["size_per_gpu"] for r in rows]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1.25, 1]})

    def series(axis, col, offset=(9, -3), **kw):
        pts = [(xi, float(r[col])) for xi, r in zip(x, rows) if r[col]]
        if not pts:
            return
        axis.plot([p[0] for p in pts], [p[1] for p in pts], **kw)
        for px, py in pts:
            axis.annotate(f"{py:.2f}", (px, py), textcoords="offset points", xytext=offset, fontsize=9,
                          color=kw.get("color"), ha="left" if offset[0] >= 0 else "right")

    ax.axhline(1.0, color="0.4", lw=1, ls="--")
    ax.text(x[0] / 2.3, 1.0, " MPI two-stream, 2 ranks = 1", va="bottom", fontsize=8, color="0.3")
    series(ax, "speedup_p2p", (9, 4), marker="o", ms=8, ls=":", color="tab:blue", label="multi-thread, P2P (cudaMemcpyPeerAsync)")
    series(ax, "speedup_staged", (-10, -10), marker="s", ms=8, ls=":", color="tab:orange", label="multi-thread, staged via pinned host")
    ax.set_ylabel("speed-up over MPI two-stream (time per step)")
    ax.set_title("speed-up of one process driving 2 GPUs", fontsize=10)
    ax.set_ylim(0, max(2.5, 1.15 * max(float(r[c]) for r in rows for c in ("speedup_p2p", "speedup_staged") if r[c])))
    ax.legend(loc="upper right", fontsize=8)

    bx.axhline(1.0, color="0.4", lw=1, ls="--")
    series(bx, "eff_two_stream", (-10, 8), marker="^", ms=8, ls=":", color="tab:green", label="two-stream, 2 ranks")
    series(bx, "eff_mt_p2p", (9, 4), marker="o", ms=8, ls=":", color="tab:blue", label="multi-thread, P2P")
    series(bx, "eff_mt_staged", (9, -12), marker="s", ms=8, ls=":", color="tab:orange", label="multi-thread, staged")
    bx.set_ylabel("weak-scaling efficiency (1-GPU two-stream time / time)")
    bx.set_title("2 GPUs against 1 GPU with the same points per GPU", fontsize=10)
    bx.set_ylim(0, 1.15)
    bx.legend(loc="lower right", fontsize=8)

    for a in (ax, bx):
        a.set_xscale("log", base=2)
        a.set_xticks(x)
        a.set_xticklabels([f"${l}$" if l.endswith("^3") else l for l in labels])
        a.minorticks_off()
        a.set_xlim(x[0] / 2.5, x[-1] * 2.5)
        a.set_xlabel("points per GPU (z-slab of the total domain)")
        a.grid(True, axis="y", alpha=0.3)
    fig.suptitle(title, fontsize=11)
    note = (f"Only {len(rows)} size{'s' if len(rows) != 1 else ''} measured ({', '.join(labels)} per GPU); "
            "dotted lines only join the measured points, nothing in between was run. "
            "Median of the timed repetitions; every run verified against the oracle.")
    fig.text(0.5, 0.01, note, ha="center", fontsize=8, style="italic")
    fig.tight_layout(rect=(0, 0.04, 1, 0.95))
    fig.savefig(png, dpi=130)


def main():
    ap = labargs.parser(__file__, [DEFAULT], description=__doc__.split("\n")[0], data_help="kit.result/1 lines")
    a = ap.parse_args()
    a.jsonl = a.data[0]  # the date of the title
    recs = [r for path in a.data for r in load(path)]
    for n, r in enumerate(recs):  # "last in the file" over the files in the order given
        r["_line"] = n
    rows = rows_of(select(recs))
    if not rows:
        print(f"plot.py: {' '.join(a.data)}: no size has both a 2-rank two-stream run and a 1-process 2-GPU multi-thread run",
              file=sys.stderr)
        return 1
    labargs.outdir(a.outdir)
    out_csv = os.path.join(a.outdir, "speedup.csv")
    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLS)
        w.writeheader()
        w.writerows(rows)
    devices = sorted({r["device"] for r in rows})
    title = (f"laplace, 2 GPUs: multi-thread (1 process) vs MPI two-stream (2 ranks)  -  "
             f"2 x {' / '.join(devices)}, {date_of(a.jsonl)}")
    out_png = os.path.join(a.outdir, "speedup.png")
    plot(rows, out_png, title)
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in COLS[:-1]}
    print("  ".join(c.ljust(width[c]) for c in COLS[:-1]).rstrip())
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in COLS[:-1]).rstrip())
    print(f"device: {', '.join(devices)}; date: {date_of(a.jsonl)}; times in microseconds per step; "
          f"only {len(rows)} sizes measured")
    print(f"wrote {os.path.relpath(out_csv)} and {os.path.relpath(out_png)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
