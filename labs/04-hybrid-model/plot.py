#!/usr/bin/env python3
"""plot.py [--data JSONL ...] [--outdir DIR] [--size N] [--b-cpu GBS] [--date TEXT]

Lab 04 (the hybrid workload model): the CPU-fraction sweep of
`labs/scripts/laplace_sweep.sh hybrid` as a table (sweep.csv) and a figure (sweep.png).

Reads kit.result/1 lines (default: the 2026-11-22 H200 data in labs/data/) and takes
  - the sweep: `hybrid` on 1 rank at one cube size with an explicit --cpu-fraction,
  - the `auto` runs: `hybrid` rows whose results hold `cpu_fraction_model`,
  - the GPU-only reference: `two-stream` on 1 rank, 1 GPU, same size (the best min and the
    median of the medians if there are several; the share-0 row if there is none).
Times are per step: time_s / time_s.steps.

The "ideal" curve is T(f) = max(T_gpu (1 - f), f N 16 B / B_cpu): the GPU does the rest of
the slab at its two-stream speed, the CPU moves 16 bytes per point of its share at B_cpu,
and nothing else costs anything. B_cpu (the CPU stencil bandwidth inside the hybrid) is
fitted to the CPU-bound points of the min curve (min time more than 20% above T_gpu), a
least-squares line through the origin of time against the CPU planes' bytes; --b-cpu
GBS draws it with a bandwidth you measured yourself instead (the cpu variant, say).

Output goes to --outdir: by default labs/out/04-hybrid-model/ (made if missing);
`--outdir labs/04-hybrid-model` refreshes the figures the README shows. With several files the
lines are taken in the order given ("line" in sweep.csv counts within its own file). Standard
library and matplotlib only.
"""
import csv
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

DEFAULT = os.path.join(REPO, "labs", "data", "h200x2-2026-11-22", "laplace.jsonl")
BYTES_PER_POINT = 16.0   # read u once, write u_new once (main.c, LAPLACE_BYTES_PER_POINT)
CPU_BOUND = 1.2          # a point is CPU-bound when its min time exceeds T_gpu by 20%


def size_of(r):
    p = r.get("params", {})
    return (p.get("nx"), p.get("ny"), p.get("nz"))


def per_step(r, k):
    t = r["time_s"]
    return t[k] / t["steps"]


def load(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("schema") == "kit.result/1" and r.get("app") == "laplace":
                r["_line"] = n
                rows.append(r)
    return rows


def pick_size(rows, want):
    explicit = [r for r in rows if r["variant"] == "hybrid" and r["ranks"] == 1
                and "cpu_fraction_model" not in r.get("results", {})]
    if want:
        return (want, want, want)
    counts = {}
    for r in explicit:
        counts[size_of(r)] = counts.get(size_of(r), 0) + 1
    if not counts:
        sys.exit("plot.py: no hybrid runs with an explicit --cpu-fraction on one rank in the file "
                 "(make them with: bash labs/scripts/laplace_sweep.sh hybrid OUT.jsonl)")
    return max(counts, key=lambda s: (counts[s], s[0] * s[1] * s[2]))


def main():
    ap = labargs.parser(__file__, [DEFAULT], description=__doc__.split("\n\n")[1], data_help="kit.result/1 lines")
    ap.add_argument("--size", type=int, help="cube size of the sweep (default: the most common)")
    ap.add_argument("--b-cpu", type=float, help="CPU stencil GB/s for the ideal curve (default: fitted)")
    ap.add_argument("--date", help="date for the title (default: a YYYY-MM-DD in the JSONL's path)")
    a = ap.parse_args()

    outdir = a.outdir
    a.jsonl = a.data[0]  # the date of the title
    rows = []
    for path in a.data:
        if not os.path.isfile(path):
            sys.exit(f"plot.py: {path}: no such file (make it with: bash labs/scripts/laplace_sweep.sh hybrid {path})")
        rows += load(path)
    size = pick_size(rows, a.size)
    nx, ny, nz = size
    points = nx * ny * nz
    plane_bytes = nx * ny * BYTES_PER_POINT
    same = [r for r in rows if size_of(r) == size and r["ranks"] == 1]

    sweep = {}
    for r in same:
        if r["variant"] == "hybrid" and "cpu_fraction_model" not in r["results"]:
            f = r["cpu_fraction"]
            if f in sweep:
                print(f"note: share {f} appears again on line {r['_line']}; the later run is used")
            sweep[f] = r
    sweep = [sweep[f] for f in sorted(sweep)]
    autos = [r for r in same if r["variant"] == "hybrid" and "cpu_fraction_model" in r["results"]]
    refs = [r for r in same if r["variant"] == "two-stream" and r["gpus"] == 1]
    if refs:
        ref_name = f"two-stream ({len(refs)} run{'s' if len(refs) > 1 else ''}, lines " \
                   f"{', '.join(str(r['_line']) for r in refs)})"
    else:
        refs = [r for r in sweep if r["results"].get("cpu_planes", 0) == 0]
        if not refs:
            sys.exit("plot.py: no two-stream run and no share-0 run at this size to compare with")
        ref_name = "share 0 (no two-stream run in the file)"
    t_gpu = min(per_step(r, "min") for r in refs)
    t_gpu_med = statistics.median(per_step(r, "median") for r in refs)

    # Bandwidths the model used: device triad from the GPU-only ceiling, host triad from the
    # hybrid's (device triad x GPUs + host triad x nodes), one rank on one node here.
    b_gpu = refs[0]["ceiling_GBs"] / max(refs[0]["gpus"], 1) if refs[0]["variant"] == "two-stream" else None
    hyb = sweep[0] if sweep else autos[0]
    b_host = hyb["ceiling_GBs"] - b_gpu if b_gpu else None
    model = autos[0]["results"]["cpu_fraction_model"] if autos else None

    # B_cpu of the ideal curve: fitted to the CPU-bound part of the min curve, or given.
    bound = [(r["results"]["cpu_planes"] * plane_bytes, per_step(r, "min")) for r in sweep
             if r["results"].get("cpu_planes", 0) > 0 and per_step(r, "min") > CPU_BOUND * t_gpu]
    b_cpu, b_src = None, ""
    if a.b_cpu:
        b_cpu, b_src = a.b_cpu * 1e9, "given with --b-cpu"
    elif bound:
        b_cpu = sum(b * b for b, _ in bound) / sum(b * t for b, t in bound)
        b_src = (f"fitted to the {len(bound)} CPU-bound min points ("
                 + ", ".join(f"{b / plane_bytes:.0f} planes: {b / t / 1e9:.1f}" for b, t in bound) + " GB/s)")

    def ideal(f):
        return max(t_gpu * (1 - f), f * points * BYTES_PER_POINT / b_cpu)

    breakeven = t_gpu / (t_gpu + points * BYTES_PER_POINT / b_cpu) if b_cpu else None

    # The table.
    def line(run, r):
        planes = r["results"].get("cpu_planes", 0) if r["variant"] == "hybrid" else 0
        f = r["cpu_fraction"] if r["cpu_fraction"] is not None else 0.0
        mn, md, mx = (per_step(r, k) for k in ("min", "median", "max"))
        return {
            "run": run,
            "line": r["_line"],
            "omp_wait_policy": r["params"].get("omp_wait_policy", ""),
            "cpu_fraction": f"{f:g}" if r["variant"] == "hybrid" else "",
            "cpu_fraction_model": f"{r['results']['cpu_fraction_model']:.4f}" if "cpu_fraction_model" in r["results"] else "",
            "cpu_planes": planes,
            "min_ms": f"{mn * 1e3:.4f}", "median_ms": f"{md * 1e3:.4f}", "max_ms": f"{mx * 1e3:.4f}",
            "min_vs_two_stream_pct": f"{100 * (mn / t_gpu - 1):+.1f}",
            "median_vs_two_stream_pct": f"{100 * (md / t_gpu_med - 1):+.1f}",
            "ideal_ms": f"{ideal(planes / nz) * 1e3:.4f}" if b_cpu and r["variant"] == "hybrid" else "",
        }

    table = [line(f"{r['cpu_fraction']:g}", r) for r in sweep]
    table += [line("auto", r) for r in autos]
    table += [line("two-stream", r) for r in same if r["variant"] == "two-stream" and r["gpus"] == 1]
    labargs.outdir(outdir)
    csv_path = os.path.join(outdir, "sweep.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    cols = list(table[0])
    width = {c: max(len(c), *(len(str(t[c])) for t in table)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for t in table:
        print("  ".join(str(t[c]).ljust(width[c]) for c in cols))

    device = hyb["device"]
    m = re.search(r"\d{4}-\d{2}-\d{2}", os.path.abspath(a.jsonl))
    date = a.date or (m.group(0) if m else "date not recorded")
    print(f"\n{nx}x{ny}x{nz} on one {device}, {hyb['threads']} threads per rank, {date}")
    print(f"GPU-only reference: {ref_name}: min {t_gpu * 1e3:.4f} ms/step, median {t_gpu_med * 1e3:.4f} ms/step")
    if b_gpu and b_host:
        raw = b_host / (b_host + b_gpu)
        print(f"triads of the run: device {b_gpu:.1f} GB/s, host {b_host:.1f} GB/s (GPU/CPU = {b_gpu / b_host:.1f}); "
              f"Paper II share B_cpu/(B_cpu+B_gpu) = {raw:.4f}")
        if model is not None:
            print(f"model share in the auto run: {model:.4f} = {model / raw:.2f} x that "
                  f"({int(model * nz + 0.5)} of {nz} planes)")
    for r in autos:
        res = r["results"]
        if "calibration_model_s" in res:
            print(f"auto (line {r['_line']}, OMP_WAIT_POLICY={r['params'].get('omp_wait_policy')}): calibration "
                  f"{res['calibration_model_s']:.4g} s at the model share against {res['calibration_gpu_only_s']:.4g} s "
                  f"at share 0: kept {r['cpu_fraction']:g}")
    if b_cpu:
        print(f"B_cpu for the ideal curve: {b_cpu / 1e9:.1f} GB/s, {b_src}")
        if b_host:
            print(f"  = {b_cpu / 1e9 / b_host:.2f} of the host triad")
        print(f"ideal break-even share T_gpu/(T_gpu + N*16/B_cpu) = {breakeven:.4f} ({breakeven * nz:.1f} planes); "
              f"the most it can save: {100 * breakeven:.1f}% of the step")
    else:
        print("no CPU-bound points in the sweep: no ideal curve (give --b-cpu GBS)")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"wrote {csv_path}; matplotlib is missing, so no figure (bash labs/setup.sh)")
        return 0

    fr = [r["cpu_fraction"] for r in sweep]
    mn = [per_step(r, "min") * 1e3 for r in sweep]
    md = [per_step(r, "median") * 1e3 for r in sweep]
    mx = [per_step(r, "max") * 1e3 for r in sweep]
    fmax = max(fr) if fr else 0.1
    grid = [fmax * 1.05 * i / 400 for i in range(401)]

    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), gridspec_kw={"width_ratios": [3, 2]})
    for ax, zoom in zip(axes, (False, True)):
        ax.fill_between(fr, mn, mx, color="tab:blue", alpha=0.15, lw=0, label="min to max of the repetitions")
        ax.plot(fr, md, "o--", color="tab:blue", mfc="white", lw=1, label="median")
        ax.plot(fr, mn, "o-", color="tab:blue", lw=2, label="min (best repetition)")
        ax.axhline(t_gpu * 1e3, color="black", ls="--", lw=1, label=f"two-stream, GPU only ({t_gpu * 1e3:.3f} ms)")
        if b_cpu:
            ax.plot(grid, [ideal(f) * 1e3 for f in grid], color="tab:green", lw=1.5,
                    label=f"ideal: max(T_gpu(1-f), f N 16 B / {b_cpu / 1e9:.0f} GB/s)")
        if model is not None:
            ax.axvline(model, color="tab:red", ls=":", lw=1.5, label=f"model share {model:.4f} (auto; derated)")
            if b_host:
                raw = b_host / (b_host + b_gpu)
                ax.axvline(raw, color="tab:gray", ls=":", lw=1.2, label=f"model, Eq. (1), not derated: {raw:.4f}")
        ax.set_xlabel("CPU fraction (--cpu-fraction)")
        ax.grid(alpha=0.3)
        if zoom:
            cal = []
            for r in autos:
                res = r["results"]
                if "calibration_model_s" in res:
                    steps = min(max(r["params"]["iters"], 5), 20)   # clamp(--iters, 5, 20), main.c
                    cal = ax.plot([res["cpu_fraction_model"], 0], [res["calibration_model_s"] / steps * 1e3,
                                  res["calibration_gpu_only_s"] / steps * 1e3], "x", color="tab:red", ms=8, zorder=5,
                                  label="auto's calibration runs (2026-11-22: best of 3): model share and share 0")
            if cal:
                ax.legend(handles=cal, fontsize=8, loc="upper right")
            zx = 0.026
            zy = [v for f, v in zip(fr, mn) if f <= zx] + [t_gpu * 1e3]
            ax.set_xlim(-0.001, zx)
            ax.set_ylim(min(zy) * 0.975, max(zy) * 1.02)
            ax.set_title("zoom on the min curve: shares up to 2.5%", fontsize=10)
            for f, v in zip(fr, mn):
                if 0 < f <= zx:
                    ax.annotate(f"{100 * (v / (t_gpu * 1e3) - 1):+.1f}%", (f, v), textcoords="offset points",
                                xytext=(0, -15), ha="center", fontsize=8, color="tab:blue",
                                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.8))
        else:
            ax.set_ylabel("time per step (ms)")
            ax.set_xlim(-0.003, fmax * 1.05)
            ax.set_ylim(0, max(mx) * 1.05)
            ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(f"laplace hybrid, {nx}^3 on one {device} + {hyb['threads']} OpenMP threads: "
                 f"time per step against the CPU's share ({hyb['time_s']['reps']} reps x {hyb['time_s']['steps']} steps), {date}"
                 if nx == ny == nz else
                 f"laplace hybrid, {nx}x{ny}x{nz} on one {device} + {hyb['threads']} threads, {date}", fontsize=11)
    fig.tight_layout()
    png_path = os.path.join(outdir, "sweep.png")
    fig.savefig(png_path, dpi=110)
    print(f"wrote {csv_path} and {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
