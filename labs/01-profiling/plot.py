#!/usr/bin/env python3
"""plot.py: the pictures and the table of lab 01 (profiling with named ranges).

    python3 labs/01-profiling/plot.py [--data DATA_DIR] [--outdir DIR] [--steps N]
    python3 labs/01-profiling/plot.py --trace my.json [--out my.png] [--steps N]

DATA_DIR (default labs/data/h200x2-2026-11-22) holds what `ci/gpu-suite.sh ... trace`
left: traces/*.json (Chrome trace-event files written by `laplace --trace`) and
laplace.jsonl (kit.result/1 lines). For DATA_DIR the script writes into DIR (default
labs/out/01-profiling/, made if missing; `--outdir labs/01-profiling` refreshes the
committed figures):

  timeline-<trace>.png       one timeline per trace: the last --steps profiled steps
  naive-vs-two-stream.png    the two one-rank-per-GPU schedules on one time scale
  phases.csv                 per-step phase seconds of the 2-GPU runs in laplace.jsonl

With --trace it renders just that one file (for instance your own cpu.json) to --out
(default DIR/<trace>.png).
Needs only the standard library and matplotlib. Formats: docs/output-schema.md.
"""
import csv
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "data", "h200x2-2026-11-22"))

# One colour per range name, the same in every picture. Names are the kit's range names
# (KIT_RANGE_PUSH and kit_gpu_range_begin in miniapps/laplace/*.c).
COLOURS = {
    "step": "#d9d9d9",
    "compute": "#c6dbef", "gpu_compute": "#08519c",
    "bulk": "#2171b5", "gpu_bulk": "#2171b5", "cpu_interior": "#6baed6",
    "boundary": "#fd8d3c", "gpu_boundary": "#fd8d3c", "cpu_boundary": "#fdd0a2",
    "d2h": "#807dba", "h2d": "#41ab5d", "h2d_intra": "#a1d99b",
    "mpi": "#e31a1c", "mpi_wait": "#e31a1c",
    "wait_boundary": "#fff7bc", "wait_bulk": "#fec44f",
    "send_down": "#9e9ac8", "send_up": "#54278f",
}
EXTRA = ["#8c6d31", "#e7969c", "#7b4173", "#637939", "#bd9e39", "#843c39"]

# Phase columns of phases.csv, in the order a step runs them (docs/architecture.md Sec. 3).
PHASE_ORDER = ["step", "compute", "gpu_compute", "boundary", "gpu_boundary", "cpu_boundary",
               "d2h", "bulk", "gpu_bulk", "cpu_interior", "h2d_intra", "wait_boundary", "mpi",
               "mpi_wait", "h2d", "wait_bulk", "send_down", "send_up"]


def colour(name, extra={}):
    if name in COLOURS:
        return COLOURS[name]
    if name not in extra:
        extra[name] = EXTRA[len(extra) % len(EXTRA)]
    return extra[name]


# ---------------------------------------------------------------------------- traces
def load_trace(path):
    """Events of one trace: {(pid, tid): [(name, ts_us, dur_us)]}, track names, process names."""
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    tracks, tnames, pnames = {}, {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            tnames[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "process_name":
            pnames[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "X":
            tracks.setdefault((e["pid"], e["tid"]), []).append((e["name"], float(e["ts"]), float(e["dur"])))
    for evs in tracks.values():
        evs.sort(key=lambda x: (x[1], -x[2]))
    return tracks, tnames, pnames


def depths(evs, eps=0.05):
    """Nesting depth of each event of one host thread (push/pop ranges nest)."""
    out, open_ends = [], []
    for _, ts, dur in evs:
        while open_ends and open_ends[-1] < ts + eps:
            open_ends.pop()
        out.append(len(open_ends))
        open_ends.append(ts + dur + eps)
    return out


def lanes_of(tracks, tnames, pnames):
    """One lane per (rank, host thread, nesting depth) and per (rank, stream)."""
    lanes = []
    for (pid, tid) in sorted(tracks, key=lambda k: (k[0], k[1] >= 1000, k[1])):
        evs = tracks[(pid, tid)]
        who = "%s, %s" % (pnames.get(pid, "rank %d" % pid), tnames.get((pid, tid), "track %d" % tid))
        if tid >= 1000:
            lanes.append((pid, who, evs))
            continue
        d = depths(evs)
        for level in sorted(set(d)):
            lanes.append((pid, who, [e for e, k in zip(evs, d) if k == level]))
    return lanes


def window(tracks, steps):
    """[t0, t1] in rank 0's clock: from the start of the `steps`-th last `step` range of
    rank 0 to the end of rank 0's last event (after the loop, e.g. wait_bulk, included)."""
    pid0 = min(p for p, _ in tracks)
    starts = sorted(ts for (p, _), evs in tracks.items() if p == pid0 for n, ts, _ in evs if n == "step")
    end = max(ts + dur for (p, _), evs in tracks.items() if p == pid0 for _, ts, dur in evs)
    if not starts:
        return min(ts for evs in tracks.values() for _, ts, _ in evs), end
    return starts[-min(steps, len(starts))], end


def draw(ax, tracks, tnames, pnames, t0, width_us):
    """Draw the lanes of one trace on ax, time in ms from t0. Returns the names drawn."""
    lanes = lanes_of(tracks, tnames, pnames)
    seen, labels = [], []
    n = len(lanes)
    for i, (pid, who, evs) in enumerate(lanes):
        y = n - 1 - i
        names_here = []
        for name, ts, dur in evs:
            a, b = max(ts, t0), min(ts + dur, t0 + width_us)
            if b <= a:
                continue
            if name not in names_here:
                names_here.append(name)
            if name not in seen:
                seen.append(name)
            ax.broken_barh([((a - t0) / 1e3, (b - a) / 1e3)], (y - 0.38, 0.76),
                           facecolors=colour(name), edgecolors="#404040", linewidth=0.4)
            if (b - a) > (0.006 * len(name) + 0.012) * width_us:  # only where the name fits
                ax.text((a + b - 2 * t0) / 2e3, y, name, ha="center", va="center", fontsize=6.5,
                        color="white" if name in ("gpu_compute", "bulk", "gpu_bulk", "mpi", "mpi_wait",
                                                  "send_up") else "black", clip_on=True)
        labels.append("%s\n%s" % (who, ", ".join(names_here) or "(nothing in this window)"))
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels[::-1], fontsize=7)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlim(0, width_us / 1e3)
    ax.grid(axis="x", color="#e0e0e0", linewidth=0.6)
    ax.set_axisbelow(True)
    return seen


def legend(fig, names, **kw):
    handles = [Patch(facecolor=colour(n), edgecolor="#404040", linewidth=0.4, label=n) for n in names]
    fig.legend(handles=handles, fontsize=7.5, frameon=False, **kw)


# ------------------------------------------------------------------------- metadata
def load_results(data_dir):
    path = os.path.join(data_dir, "laplace.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def date_of(data_dir):
    m = re.search(r"\d{4}-\d{2}-\d{2}", os.path.basename(os.path.normpath(data_dir)))
    return m.group(0) if m else ""


def describe(stem, results, steps, date):
    """Title of a trace picture: variant, job shape, device, date. The trace itself names
    neither the device nor the problem, so both come from the matching laplace.jsonl line
    (the trace runs of labs/scripts/laplace_sweep.sh: --iters 10 --reps 1)."""
    m = re.match(r"(.+?)-(np|gpus)(\d+)$", stem)
    variant, kind, count = (m.group(1), m.group(2), int(m.group(3))) if m else (stem, "", 0)
    row = None
    for r in results:
        p = r["params"]
        if r["variant"] != variant or p["iters"] != 10 or p["reps"] != 1:
            continue
        if (kind == "np" and r["ranks"] == count) or (kind == "gpus" and r["ranks"] == 1 and r["gpus"] == count):
            row = r
    if not row:
        return "%s, last %d profiled steps" % (stem, steps), None
    p = row["params"]
    shape = "%d rank%s, 1 GPU each" % (row["ranks"], "s" if row["ranks"] > 1 else "") if kind == "np" else \
        "1 process x %d GPUs" % row["gpus"]
    title = "%s: %s, %dx%dx%d points in all, last %d of %d profiled steps | %s" % (
        variant, shape, p["nx"], p["ny"], p["nz"], steps, min(p["iters"], 10),
        ", ".join(x for x in (row["device"], date) if x))
    return title, row


# ---------------------------------------------------------------------------- pictures
def timeline(path, out, title, steps):
    tracks, tnames, pnames = load_trace(path)
    if not tracks:
        sys.exit("plot.py: %s holds no ranges" % path)
    t0, t1 = window(tracks, steps)
    nlanes = len(lanes_of(tracks, tnames, pnames))
    fig, ax = plt.subplots(figsize=(13, 1.0 + 0.55 * nlanes))
    names = draw(ax, tracks, tnames, pnames, t0, t1 - t0)
    ax.set_xlabel("time in ms (each rank's own clock; ranks are aligned only roughly)", fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_title(title, fontsize=9, loc="left")
    fig.tight_layout(rect=(0, 0, 0.88, 1))
    legend(fig, names, loc="center right", title="range", title_fontsize=8)
    fig.savefig(out, dpi=130)
    plt.close(fig)
    print("wrote", os.path.relpath(out))


def compare(paths, titles, out, steps, suptitle):
    """Stacked timelines on one time scale: equal widths mean equal durations."""
    loaded = [load_trace(p) for p in paths]
    wins = [window(t[0], steps) for t in loaded]
    width = max(t1 - t0 for t0, t1 in wins)
    nl = [len(lanes_of(*t)) for t in loaded]
    fig, axes = plt.subplots(len(paths), 1, figsize=(13, 1.6 + 0.55 * sum(nl)), sharex=True,
                             gridspec_kw={"height_ratios": nl})
    names = []
    for ax, t, (t0, t1), title in zip(axes, loaded, wins, titles):
        for n in draw(ax, *t, t0, width):
            if n not in names:
                names.append(n)
        ax.set_title(title, fontsize=9, loc="left")
        ax.axvline((t1 - t0) / 1e3, color="black", linewidth=0.8, linestyle=":")
    axes[-1].set_xlabel("time in ms from the start of the third-last step (dotted: end of the trace)",
                        fontsize=8)
    axes[-1].tick_params(axis="x", labelsize=8)
    fig.suptitle(suptitle, fontsize=10, x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 0.88, 0.97))
    legend(fig, names, loc="center right", title="range", title_fontsize=8)
    fig.savefig(out, dpi=130)
    plt.close(fig)
    print("wrote", os.path.relpath(out))


# ------------------------------------------------------------------------------ table
def two_gpu_runs(results):
    """The 2-GPU laplace runs with nz = 2 nx (the weak-scaling shapes of laplace_sweep.sh
    dual and trace): naive, two-stream, hybrid on 2 ranks; multi-thread on 1 process x 2 GPUs."""
    keep = []
    for r in results:
        p = r["params"]
        if r["app"] != "laplace" or r["gpus"] != 2 or p["nz"] != 2 * p["nx"] or p["ny"] != p["nx"]:
            continue
        if r["variant"] in ("naive", "two-stream", "hybrid") and r["ranks"] != 2:
            continue
        if r["variant"] == "multi-thread" and r["ranks"] != 1:
            continue
        keep.append(r)
    order = {"naive": 0, "two-stream": 1, "hybrid": 2, "multi-thread": 3}
    keep.sort(key=lambda r: (r["params"]["nx"], -r["params"]["iters"], order.get(r["variant"], 9),
                             not r["params"]["p2p"]))
    return keep


def write_csv(runs, out):
    names = [n for n in PHASE_ORDER if any(n in r["phases"] for r in runs)]
    names += sorted({n for r in runs for n in r["phases"]} - set(names))
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["variant", "ranks", "gpus", "nx", "ny", "nz", "iters", "reps", "p2p", "cpu_fraction",
                    "device", "timed_s_per_step"] + ["phase_" + n + "_s" for n in names])
        for r in runs:
            p = r["params"]
            w.writerow([r["variant"], r["ranks"], r["gpus"], p["nx"], p["ny"], p["nz"], p["iters"], p["reps"],
                        str(p["p2p"]).lower(), "" if r["cpu_fraction"] is None else r["cpu_fraction"],
                        r["device"], "%.6e" % (r["time_s"]["median"] / r["time_s"]["steps"])]
                       + ["%.6e" % r["phases"][n] if n in r["phases"] else "" for n in names])
    print("wrote", os.path.relpath(out), "(%d runs)" % len(runs))


def print_table(runs, nx, iters):
    """The phases of one shape as a Markdown table in microseconds (for the lab sheet)."""
    sel = [r for r in runs if r["params"]["nx"] == nx and r["params"]["iters"] == iters]
    if not sel:
        return
    names = [n for n in PHASE_ORDER if any(n in r["phases"] for r in sel)]
    head = ["%s%s" % (r["variant"], "" if r["params"]["p2p"] else " (no P2P)") for r in sel]
    print("\n%dx%dx%d, --iters %d: phases in us per step (profiled pass), step time from time_s"
          % (nx, nx, 2 * nx, iters))
    print("| phase | " + " | ".join(head) + " |")
    print("|---|" + "---:|" * len(sel))
    print("| **timed step** (time_s median / steps) | " + " | ".join(
        "**%.1f**" % (1e6 * r["time_s"]["median"] / r["time_s"]["steps"]) for r in sel) + " |")
    for n in names:
        print("| `%s` | " % n + " | ".join("%.1f" % (1e6 * r["phases"][n]) if n in r["phases"] else ""
                                           for r in sel) + " |")


# ------------------------------------------------------------------------------- main
def main():
    ap = labargs.parser(__file__, [DEFAULT_DATA], description=__doc__.split("\n\n")[0], nargs=1,
                        data_help="folder with traces/ and laplace.jsonl")
    ap.add_argument("--steps", type=int, default=3, help="profiled steps shown per timeline [3]")
    ap.add_argument("--trace", help="render only this trace file")
    ap.add_argument("--out", help="PNG for --trace [OUTDIR/<trace>.png]")
    a = ap.parse_args()
    labargs.outdir(a.outdir)
    a.data_dir = a.data[0]

    if a.trace:
        out = a.out or os.path.join(a.outdir, os.path.splitext(os.path.basename(a.trace))[0] + ".png")
        stem = os.path.splitext(os.path.basename(a.trace))[0]
        timeline(a.trace, out, "%s, last %d profiled steps" % (stem, a.steps), a.steps)
        return

    tdir = os.path.join(a.data_dir, "traces")
    if not os.path.isdir(tdir):
        sys.exit("plot.py: %s has no traces/ folder" % a.data_dir)
    results, date = load_results(a.data_dir), date_of(a.data_dir)
    files = sorted(f for f in os.listdir(tdir) if f.endswith(".json"))
    titles = {}
    for f in files:
        stem = f[:-5]
        titles[stem], _ = describe(stem, results, a.steps, date)
        timeline(os.path.join(tdir, f), os.path.join(a.outdir, "timeline-%s.png" % stem), titles[stem], a.steps)
    pair = ["naive-np2", "two-stream-np2"]
    if all(p + ".json" in files for p in pair):
        device = next((r["device"] for r in results if r["variant"] == "two-stream"), "")
        compare([os.path.join(tdir, p + ".json") for p in pair],
                [titles[p].split(" | ")[0] for p in pair], os.path.join(a.outdir, "naive-vs-two-stream.png"),
                a.steps, "naive (no overlap) against two-stream (bulk on its own stream) on one time scale"
                + (" | " + ", ".join(x for x in (device, date) if x) if device or date else ""))
    runs = two_gpu_runs(results)
    if runs:
        write_csv(runs, os.path.join(a.outdir, "phases.csv"))
        for nx in sorted({r["params"]["nx"] for r in runs}):
            for iters in sorted({r["params"]["iters"] for r in runs if r["params"]["nx"] == nx}, reverse=True):
                print_table(runs, nx, iters)


if __name__ == "__main__":
    main()
