#!/usr/bin/env python3
"""plot.py [--data JSONL ...] [--outdir DIR] [--date TEXT]: lab 02 (overlap with two streams).

Reads kit.result/1 lines (docs/output-schema.md) of the laplace variants `naive` and
`two-stream`, and writes into DIR (default labs/out/02-overlap/, made if missing;
`--outdir labs/02-overlap` refreshes the figures the README shows)

  overlap.csv  one row per configuration (variant, ranks, size per GPU): time per step,
               GLUP/s, fraction of the ceiling, weak-scaling efficiency and the phases
               boundary / bulk / compute / d2h / mpi / h2d per step (microseconds);
  overlap.png  (a) GLUP/s per GPU against points per GPU, naive and two-stream, 1 and 2 GPUs;
               (b) the per-step budget of two-stream on 2 GPUs: the bulk stream against the
               exchange path (boundary + d2h + mpi + h2d), with naive's serial step below.

JSONL defaults to labs/data/h200x2-2026-11-22/laplace.jsonl. The title names the device(s)
in the lines and the date of the data: --date, else a timestamp field of the lines (`time`,
`date`, `started`, `timestamp`), else the YYYY-MM-DD in the name of the JSONL's folder (or
file), else "date not recorded" (never the file's modification date). Flagged points get a
marker of their own and a legend entry: a configuration with a line whose verification did
not pass (SKIPPED), and one with a line that oversubscribed the machine (ranks x threads >
its cores: --cores, else the folder name, as cpu-2core-DATE, or the first line of the
folder's README.md, "..., 32 cores, DATE"). Standard library + matplotlib.

Aggregation. A configuration can appear on several lines (the 1-GPU two-stream baseline is
rerun by the `hybrid` and `dual` sweeps; the `trace` sweep reruns naive and two-stream on
2 GPUs with 10 steps x 1 repetition). Every line is used, weighted by the steps behind it:
  time per step = sum(w * median/steps) / sum(w), w = reps * steps (the timed steps);
  phases        = sum(p * phase) / sum(p), p = min(iters, 10) (the profiled steps);
  min / max     = the fastest and slowest timed repetition over all lines, per step.
"""
import csv
import json
import os
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

DEFAULT = os.path.join(HERE, "..", "data", "h200x2-2026-11-22", "laplace.jsonl")
VARIANTS = ("naive", "two-stream")
PHASES = ("boundary", "bulk", "compute", "d2h", "mpi", "h2d", "step")
COLS = ["variant", "ranks", "size_per_gpu", "points_per_gpu", "lines", "time_per_step_us",
        "time_min_us", "time_max_us", "glups_per_gpu", "glups_total", "fraction_of_ceiling",
        "weak_scaling_eff", "speedup_vs_naive", "boundary_us", "bulk_us", "compute_us", "d2h_us",
        "mpi_us", "h2d_us", "exchange_path_us", "step_profiled_us"]


def load(path):
    recs, skipped = [], 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"plot.py: {path}:{n}: not JSON ({e})")
            if r.get("schema") != "kit.result/1" or r.get("app") != "laplace" or r.get("variant") not in VARIANTS:
                continue
            if r.get("verify", {}).get("status") == "FAILED":
                skipped += 1
                continue
            r["_path"] = path
            recs.append(r)
    if skipped:
        print(f"plot.py: left out {skipped} line(s) whose verification FAILED", file=sys.stderr)
    return recs


def phase(r, name):
    """Seconds per step of one phase; naive's GPU time of the sweep is `gpu_compute`."""
    ph = r.get("phases", {})
    if name == "compute":
        return ph.get("gpu_compute") if r["variant"] == "naive" else None
    if name in ("boundary", "bulk") and r["variant"] == "naive":
        return None
    return ph.get(name)


def aggregate(recs, cores=None):
    """One row per (variant, ranks, size per GPU); CORES: {path: the machine's cores} for the flags."""
    cores = cores or {}
    groups = OrderedDict()
    for r in recs:
        p = r["params"]
        nzg = p["nz"] / r["ranks"]
        key = (r["variant"], r["ranks"], p["nx"], p["ny"], nzg)
        groups.setdefault(key, []).append(r)
    rows = []
    for (variant, ranks, nx, ny, nzg), rs in groups.items():
        t = [r["time_s"] for r in rs]
        w = [x["reps"] * x["steps"] for x in t]
        step = sum(wi * x["median"] / x["steps"] for wi, x in zip(w, t)) / sum(w)
        pw = [min(r["params"]["iters"], 10) for r in rs]
        ph = {}
        for name in PHASES:
            vals = [(pi, phase(r, name)) for pi, r in zip(pw, rs) if phase(r, name) is not None]
            ph[name] = sum(pi * v for pi, v in vals) / sum(pi for pi, _ in vals) if vals else None
        points = rs[0]["params"]["nx"] * rs[0]["params"]["ny"] * rs[0]["params"]["nz"]
        gpus = max(r["gpus"] for r in rs)
        ceiling = sum(r["ceiling_GBs"] for r in rs) / len(rs)
        bw = rs[0]["bytes_model"] / step / 1e9
        nzs = int(nzg) if nzg == int(nzg) else round(nzg, 1)
        size = f"{nx}^3" if nx == ny == nzs else f"{nx}x{ny}x{nzs}"
        exch = [ph[k] for k in (("boundary", "d2h", "mpi", "h2d") if variant == "two-stream" else ("d2h", "mpi", "h2d"))]
        rows.append({
            "variant": variant, "ranks": ranks, "gpus": gpus, "size_per_gpu": size,
            "points_per_gpu": points / max(gpus, 1), "lines": len(rs), "step": step,
            "tmin": min(x["min"] / x["steps"] for x in t), "tmax": max(x["max"] / x["steps"] for x in t),
            "glups_total": points / step / 1e9, "glups_per_gpu": points / step / 1e9 / max(gpus, 1),
            "fraction": bw / ceiling if ceiling else 0.0, "ceiling": ceiling, "ph": ph,
            "exchange": sum(exch) if None not in exch and ranks > 1 else None,  # one rank: nothing to exchange
            "devices": sorted({r["device"] for r in rs}),
            # flags: a line not verified (SKIPPED: --no-verify), a line on more cores than the machine has
            "unverified": sum(1 for r in rs if r.get("verify", {}).get("status") != "PASSED"),
            "oversubscribed": sum(1 for r in rs if cores.get(r["_path"]) and
                                  r["ranks"] * max(r.get("threads") or 1, 1) > cores[r["_path"]]),
        })
    # Weak scaling: the same variant and size per GPU on one GPU; speed-up: naive, same ranks and size.
    by = {(r["variant"], r["ranks"], r["size_per_gpu"]): r for r in rows}
    for r in rows:
        one = by.get((r["variant"], 1, r["size_per_gpu"]))
        r["eff"] = one["step"] / r["step"] if one and r["ranks"] > 1 else None
        nv = by.get(("naive", r["ranks"], r["size_per_gpu"]))
        r["speedup"] = nv["step"] / r["step"] if nv and r["variant"] != "naive" else None
    rows.sort(key=lambda r: (r["ranks"], r["points_per_gpu"], VARIANTS.index(r["variant"])))
    return rows


def us(x):
    return "" if x is None else f"{x * 1e6:.1f}"


def csv_rows(rows):
    out = []
    for r in rows:
        ph = r["ph"]
        out.append({
            "variant": r["variant"], "ranks": r["ranks"], "size_per_gpu": r["size_per_gpu"],
            "points_per_gpu": f"{r['points_per_gpu']:.0f}", "lines": r["lines"],
            "time_per_step_us": us(r["step"]), "time_min_us": us(r["tmin"]), "time_max_us": us(r["tmax"]),
            "glups_per_gpu": f"{r['glups_per_gpu']:.1f}", "glups_total": f"{r['glups_total']:.1f}",
            "fraction_of_ceiling": f"{r['fraction']:.3f}",
            "weak_scaling_eff": "" if r["eff"] is None else f"{r['eff']:.3f}",
            "speedup_vs_naive": "" if r["speedup"] is None else f"{r['speedup']:.2f}",
            "boundary_us": us(ph["boundary"]), "bulk_us": us(ph["bulk"]), "compute_us": us(ph["compute"]),
            "d2h_us": us(ph["d2h"]), "mpi_us": us(ph["mpi"]), "h2d_us": us(ph["h2d"]),
            "exchange_path_us": us(r["exchange"]), "step_profiled_us": us(ph["step"]),
        })
    return out


# The figure's date and the machine's cores: labargs.record_date, path_date, path_cores.
from labargs import path_cores, path_date, record_date  # noqa: E402


def data_date(paths, recs):
    """The dates of the data (one or more, joined), from the lines, else from the paths."""
    dates = sorted({d for d in (record_date(r) for r in recs) if d})
    if not dates:
        dates = sorted({d for d in (path_date(p) for p in paths) if d})
    return " and ".join(dates) or "date not recorded (give --date)"


COLORS = {"naive": "#d95f02", "two-stream": "#1b63a5"}
SEG = OrderedDict([  # phase -> (label, colour)
    ("compute", ("compute (naive, whole slab)", "#9e9e9e")),
    ("bulk", ("bulk (bulk stream)", "#1b63a5")),
    ("boundary", ("boundary kernels (incl. waiting for SMs)", "#7fb3e0")),
    ("d2h", ("d2h copy", "#e7a33c")),
    ("mpi", ("MPI exchange (host)", "#c0392b")),
    ("h2d", ("h2d copy", "#8e6bbf")),
])


# --- Labels that do not collide: each text goes to the first of its candidate places where it
# stays inside the axes and clear of the lines, markers, bars, legend and texts already there.
def ring(d=8):
    """Candidate (offset in points, ha, va) around a point: right, left, above, below, the
    diagonals, then the same 2.2, 3.5 and 5 times as far."""
    out = []
    for k in (1, 2.2, 3.5, 5):
        e = d * k
        out += [((e, 0), "left", "center"), ((-e, 0), "right", "center"), ((0, e), "center", "bottom"),
                ((0, -e), "center", "top"), ((e, e), "left", "bottom"), ((-e, e), "right", "bottom"),
                ((e, -e), "left", "top"), ((-e, -e), "right", "top")]
    return out


def obstacles(ax, renderer):
    """Window boxes (texts, bars, legend, markers) and paths (lines) to keep clear of."""
    from matplotlib.collections import LineCollection, PathCollection
    from matplotlib.legend import Legend
    from matplotlib.transforms import Bbox
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_visible() and t.get_text()]
    boxes += [p.get_window_extent(renderer) for p in ax.patches if p.get_visible()]
    boxes += [c.get_window_extent(renderer) for c in ax.get_children() if isinstance(c, Legend)]
    paths = []
    for ln in ax.lines:
        if not ln.get_visible():
            continue
        path = ln.get_transform().transform_path(ln.get_path())
        if ln.get_linestyle() not in ("None", "none", "", " "):
            paths.append(path)
        if ln.get_marker() not in (None, "None", "none", ""):
            r = ln.get_markersize() * renderer.points_to_pixels(1.0) / 2
            boxes += [Bbox([[x - r, y - r], [x + r, y + r]]) for x, y in path.vertices]
    for c in ax.collections:
        if isinstance(c, LineCollection):
            paths += [c.get_transform().transform_path(p) for p in c.get_paths()]
        elif isinstance(c, PathCollection):  # scatter: one box per point
            sizes = list(c.get_sizes()) or [36.0]
            for i, (x, y) in enumerate(c.get_offset_transform().transform(c.get_offsets())):
                r = sizes[i % len(sizes)] ** 0.5 * renderer.points_to_pixels(1.0) / 2
                boxes.append(Bbox([[x - r, y - r], [x + r, y + r]]))
        else:
            boxes.append(c.get_window_extent(renderer))
    return boxes, paths


def place_texts(ax, items):
    """ITEMS: (xy in data coordinates, text, candidates [(offset, ha, va)], text keywords).
    Adds each as an annotation at the first candidate where it collides with nothing, else at
    the one with the fewest collisions (on a white ground), and returns them."""
    renderer = ax.figure.canvas.get_renderer()
    boxes, paths = obstacles(ax, renderer)
    area = ax.get_window_extent(renderer)
    placed = []
    for xy, text, candidates, kw in items:
        best = None
        for off, ha, va in candidates:
            # far from its point, a label gets a thin leader line to it
            lead = dict(arrowprops=dict(arrowstyle="-", lw=0.6, color=kw.get("color", "0.3"), shrinkA=0,
                                        shrinkB=3)) if (off[0] ** 2 + off[1] ** 2) ** 0.5 > 12 else {}
            a = ax.annotate(text, xy, xytext=off, textcoords="offset points", ha=ha, va=va, **lead, **kw)
            bb = a.get_window_extent(renderer).padded(2)
            outside = not (area.x0 <= bb.x0 and bb.x1 <= area.x1 and area.y0 <= bb.y0 and bb.y1 <= area.y1)
            score = (100 * outside + sum(1 for o in boxes if bb.overlaps(o))
                     + sum(1 for p in paths if p.intersects_bbox(bb, filled=False)))
            if best is None or score < best[0]:
                if best is not None:
                    best[1].remove()
                best = (score, a)
            else:
                a.remove()
            if score == 0:
                break
        score, chosen = best
        if score:
            chosen.set_bbox(dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
        boxes.append(chosen.get_window_extent(renderer).padded(2))
        placed.append(chosen)
    return placed


# Flagged points: one marker each, drawn around the point (the same in labs 02, 05, 06, 08, 10).
FLAGS = OrderedDict([
    ("oversubscribed", dict(marker="o", size=2.3, color="black", label="oversubscribed: ranks x threads > cores")),
    ("unverified", dict(marker="s", size=2.0, color="#b000b0", label="verification not PASSED (SKIPPED)")),
])


def mark_flags(ax, points, ms=8):
    """Draws each flag's marker around the points that carry it; POINTS: (x, y, row).
    Returns the legend handles of the flags drawn."""
    from matplotlib.lines import Line2D
    handles = []
    for flag, st in FLAGS.items():
        xy = [(x, y) for x, y, r in points if r.get(flag)]
        if not xy:
            continue
        ax.plot([x for x, _ in xy], [y for _, y in xy], ls="none", marker=st["marker"], ms=ms * st["size"],
                mfc="none", mec=st["color"], mew=1.6, zorder=5)
        handles.append(Line2D([], [], ls="none", marker=st["marker"], ms=10, mfc="none", mec=st["color"],
                              mew=1.6, label=st["label"]))
    return handles


def plot(rows, title, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    plt.rcParams.update({"font.size": 10.5, "axes.titlesize": 11.5, "axes.titleweight": "bold"})
    dual = [r for r in rows if r["variant"] == "two-stream" and r["ranks"] == 2 and r["exchange"] is not None]
    nb = max(len(dual), 1)
    fig = plt.figure(figsize=(15, 3.0 + 2.45 * max(nb, 2)))
    gs = fig.add_gridspec(nb, 2, width_ratios=[1.0, 1.25], wspace=0.27, hspace=0.75,
                          left=0.06, right=0.985, top=0.86, bottom=0.19)
    ax = fig.add_subplot(gs[:, 0])

    # (a) GLUP/s per GPU against points per GPU.
    ceil_pts = None
    notes, flagged = [], []
    for ranks, ls, fill in ((1, "--", "none"), (2, "-", None)):
        for v in VARIANTS:
            rs = sorted((r for r in rows if r["variant"] == v and r["ranks"] == ranks), key=lambda r: r["points_per_gpu"])
            if not rs:
                continue
            x = [r["points_per_gpu"] for r in rs]
            y = [r["glups_per_gpu"] for r in rs]
            lo = [y_ - r["points_per_gpu"] / r["tmax"] / 1e9 for y_, r in zip(y, rs)]
            hi = [r["points_per_gpu"] / r["tmin"] / 1e9 - y_ for y_, r in zip(y, rs)]
            ax.errorbar(x, y, yerr=[[max(0, a) for a in lo], [max(0, b) for b in hi]], color=COLORS[v], ls=ls,
                        marker="o" if v == "naive" else "s", ms=8, mfc=fill if fill else COLORS[v], mew=1.8, lw=2,
                        capsize=3, label=f"{v}, {ranks} GPU{'s' if ranks > 1 else ''}")
            for r in rs:
                flagged.append((r["points_per_gpu"], r["glups_per_gpu"], r))
                if r["eff"] is not None:
                    notes.append(((r["points_per_gpu"], r["glups_per_gpu"]), f"{100 * r['eff']:.0f}% of 1 GPU",
                                  ring(12), dict(fontsize=9.5, color=COLORS[v], fontweight="bold")))
            ceil_pts = rs[0]["ceiling"] / max(rs[0]["gpus"], 1) / 16.0
    if ceil_pts:
        ax.axhline(ceil_pts, color="k", ls=":", lw=1.2)
        ax.text(0.02, ceil_pts, f" device triad / 16 B per point = {ceil_pts:.0f} GLUP/s", transform=ax.get_yaxis_transform(),
                va="bottom", fontsize=9)
    xs = sorted({r["points_per_gpu"] for r in rows})
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    lab = {r["points_per_gpu"]: r["size_per_gpu"] for r in rows}
    ax.set_xticklabels([f"{lab[x].replace('^3', '³')}\n{x / 1e6:.1f} M" for x in xs])
    ax.minorticks_off()
    ax.set_xlim(xs[0] / 1.6, xs[-1] * 4)  # room for the labels right of the last points
    ax.set_ylim(0, (ceil_pts or max(r["glups_per_gpu"] for r in rows)) * 1.12)
    ax.set_xlabel("points per GPU")
    ax.set_ylabel("GLUP/s per GPU  (higher is better)")
    ax.set_title("(a) Throughput per GPU, weak scaling")
    ax.grid(alpha=0.3)
    flags = mark_flags(ax, flagged)
    if flags:  # a legend of their own, under the triad line
        ax.add_artist(ax.legend(handles=flags, loc="upper left", bbox_to_anchor=(0, 0.87), fontsize=9,
                                title="flagged points", title_fontsize=8.5))
    ax.legend(loc="lower right", fontsize=9.5, title="variant, GPUs (bars: min-max of all reps)", title_fontsize=8.5)
    placed_a = (ax, notes)  # placed once the figure's layout is final (below)

    # (b) per-step budget of two-stream on 2 GPUs, one panel per size.
    if not dual:
        bx = fig.add_subplot(gs[0, 1])
        bx.axis("off")
        bx.text(0.5, 0.5, "no two-stream run on 2 GPUs in this file\n(run: bash labs/scripts/laplace_sweep.sh dual out.jsonl)",
                ha="center", va="center")
    later = []  # (axes, labels) placed once the layout is final
    one_ts = {r["size_per_gpu"]: r for r in rows if r["variant"] == "two-stream" and r["ranks"] == 1}
    naive2 = {r["size_per_gpu"]: r for r in rows if r["variant"] == "naive" and r["ranks"] == 2}
    for i, r in enumerate(sorted(dual, key=lambda r: r["points_per_gpu"])):
        bx = fig.add_subplot(gs[i, 1])
        ph = r["ph"]
        bars = [("two-stream\nbulk stream", ["bulk"], ph), ("two-stream\nexchange path", ["boundary", "d2h", "mpi", "h2d"], ph)]
        nv = naive2.get(r["size_per_gpu"])
        if nv:
            bars.append(("naive\n(all in series)", ["compute", "d2h", "mpi", "h2d"], nv["ph"]))
        totals = []
        for j, (name, segs, p) in enumerate(bars):
            left = 0.0
            for s in segs:
                val = (p.get(s) or 0.0) * 1e6
                bx.barh(j, val, left=left, color=SEG[s][1], edgecolor="white", height=0.62)
                left += val
            totals.append(((left, j), f"{left:.0f}", [((3 + 12 * k, 0), "left", "center") for k in range(6)],
                           dict(fontsize=9.5)))
        later.append((bx, totals))
        bx.set_yticks(range(len(bars)))
        bx.set_yticklabels([b[0] for b in bars], fontsize=9.5)
        bx.invert_yaxis()
        step = r["step"] * 1e6
        bx.axvline(step, color="k", lw=2)
        bx.text(step, -0.62, f" measured: {step:.0f} µs/step", ha="left", va="bottom", fontsize=9.5)
        o = one_ts.get(r["size_per_gpu"])
        if o:
            bx.axvline(o["step"] * 1e6, color="k", lw=1.3, ls="--")
        ratio = r["exchange"] / ph["bulk"]
        if ratio <= 1.0:
            verdict = "communication hidden under the bulk"
        elif ratio <= 1.1:
            verdict = "just hidden, the step ≈ the bulk"
        else:
            verdict = "not hidden, the step follows the exchange path"
        eff = f", weak scaling {100 * r['eff']:.0f}%" if r["eff"] is not None else ""
        eff += "".join(f" [{FLAGS[f]['label'].split(':')[0]}]" for f in FLAGS if r.get(f))
        bx.set_title(f"({'bcdefgh'[i]}) two-stream on 2 GPUs, {r['size_per_gpu'].replace('^3', '³')} per GPU{eff}\n"
                     f"exchange path = {ratio:.2f} × bulk: {verdict}", loc="left", fontsize=10.5,
                     fontweight="normal")
        xmax = max(sum((b[2].get(s) or 0.0) for s in b[1]) for b in bars) * 1e6
        bx.set_xlim(0, xmax * 1.13)
        bx.set_ylim(len(bars) - 0.5, -1.0)
        bx.grid(axis="x", alpha=0.3)
        bx.set_xlabel("µs per step (profiled pass; phases are the max over the 2 ranks)", fontsize=9.5)
    fig.suptitle(title, fontsize=13, fontweight="bold")
    fig.canvas.draw()
    for axes, labels in [placed_a] + later:
        place_texts(axes, labels)
    if not dual:
        fig.savefig(png, dpi=110)
        plt.close(fig)
        return
    handles = [Patch(color=SEG[s][1], label=SEG[s][0]) for s in SEG]
    handles += [Line2D([], [], color="k", lw=2, label="measured step, two-stream 2 GPUs"),
                Line2D([], [], color="k", lw=1.3, ls="--", label="two-stream, 1 GPU (nothing to exchange)")]
    fig.legend(handles=handles, loc="lower right", ncol=4, fontsize=9.5, bbox_to_anchor=(0.985, 0.005), frameon=False)
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main():
    ap = labargs.parser(__file__, [DEFAULT], description=__doc__.split("\n")[0], data_help="kit.result/1 lines")
    ap.add_argument("--date", help="date of the data for the title [a timestamp field of the lines, else the "
                    "YYYY-MM-DD in the JSONL's folder name]")
    ap.add_argument("--cores", type=int, help="cores of the machine, to mark oversubscribed runs [the folder "
                    "name (cpu-2core-DATE) or the first line of its README.md; unknown: no check]")
    a = ap.parse_args()
    recs = []
    for path in a.data:
        if not os.path.isfile(path):
            sys.exit(f"plot.py: {path}: no such file (on a machine without a GPU the sweep skips every GPU run, "
                     "exit 77, and writes no line)")
        recs += load(path)
    if not recs:
        sys.exit(f"plot.py: {' '.join(a.data)}: no verified laplace naive or two-stream line")
    rows = aggregate(recs, {p: a.cores or path_cores(p) for p in a.data})
    labargs.outdir(a.outdir)
    out = csv_rows(rows)
    csv_path = os.path.join(a.outdir, "overlap.csv")
    with open(csv_path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=COLS)
        wr.writeheader()
        wr.writerows(out)
    devices = sorted({d for r in rows for d in r["devices"]})
    gpus = max(r["gpus"] for r in rows)
    title = (f"laplace, naive vs two-stream: {' / '.join(devices)} (up to {gpus} GPU{'s' if gpus > 1 else ''}), "
             f"{a.date or data_date(a.data, recs)}")
    png_path = os.path.join(a.outdir, "overlap.png")
    plot(rows, title, png_path)
    show = ["variant", "ranks", "size_per_gpu", "lines", "time_per_step_us", "glups_per_gpu", "fraction_of_ceiling",
            "weak_scaling_eff", "speedup_vs_naive", "boundary_us", "bulk_us", "compute_us", "d2h_us", "mpi_us",
            "h2d_us", "exchange_path_us"]
    width = {c: max(len(c), *(len(str(r[c])) for r in out)) for c in show}
    print("  ".join(c.ljust(width[c]) for c in show))
    for r in out:
        print("  ".join(str(r[c]).ljust(width[c]) for c in show))
    print(f"{title}\nwrote {os.path.relpath(csv_path)} and {os.path.relpath(png_path)}")


if __name__ == "__main__":
    main()
