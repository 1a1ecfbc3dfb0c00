#!/usr/bin/env python3
"""plot.py: strong- and weak-scaling curves from kit.result/1 lines (lab 05).

    python3 labs/05-scaling/plot.py cpu-strong.jsonl --out labs/05-scaling/cpu-strong
    python3 labs/05-scaling/plot.py labs/data/h200x2-2026-11-22/laplace.jsonl \\
        --kind weak --date 2026-11-22 --out labs/05-scaling/gpu-weak

Writes PREFIX.csv (one row per point) and PREFIX.png (time per step, speed-up and parallel
efficiency against N, with the ideal line). PREFIX defaults to the input file without
.jsonl.

How the lines are read:
- N is what the variant scales over: the GPUs of the run (`gpus`) for GPU variants, the
  MPI ranks for `cpu`. Times are medians over the repetitions, per step (median / steps).
- Runs are grouped by app, variant, device and configuration (steps per repetition,
  alpha, beta, init, OpenMP wait policy, P2P for multi-thread, the CPU share used by
  hybrid). Within a group, a *strong* series is a set of runs with the same nx x ny x nz
  at different N (the total stays fixed); a *weak* series is a set of runs with the same
  nx, ny and nz / N (the points per rank or per GPU stay fixed). A series needs at least
  two values of N; anything else is listed as left out, with the reason.
- Two runs at the same N in one series: the later line in the file is used (the CSV names
  the line). Runs whose verification FAILED are left out, and so are runs matching
  --exclude FIELD=VALUE (a params or top-level field, e.g. p2p=false).
- T1 is the series' own run at N = 1 (or, without one, its smallest N0, and then
  T1 stands for N0 T(N0) in strong and T(N0) in weak scaling). Strong scaling: speed-up
  S = T1 / TN, efficiency eta = T1 / (N TN) (Bernaschi et al. 2015, eta_SC). Weak
  scaling: scaled speed-up S = N T1 / TN (work done per second, relative), efficiency
  eta = T1 / TN. Ideal: S = N, eta = 1. --baseline VARIANT=FROM gives VARIANT's series
  FROM's N = 1 run (same size, steps and device) as T1, e.g. multi-thread=two-stream: the
  best one-GPU code rather than multi-thread driving a single GPU.
The JSON lines carry no date: give it with --date (default: the file's modification date).
Standard library and matplotlib.
"""
import argparse
import csv
import datetime
import json
import os
import sys
from collections import OrderedDict


def unit_count(r):
    """N for one run: GPUs for GPU variants, MPI ranks for cpu."""
    return r["ranks"] if r["variant"] == "cpu" or not r.get("gpus") else r["gpus"]


def config_of(r):
    """Everything besides size and N that must agree between the points of one series."""
    p = r.get("params", {})
    cfg = OrderedDict()
    cfg["steps"] = r["time_s"].get("steps", p.get("iters"))
    for k in ("alpha", "beta", "init", "omp_wait_policy", "exact"):
        if k in p:
            cfg[k] = p[k]
    if r["variant"] == "multi-thread":
        cfg["p2p"] = p.get("p2p", True)
    if r["variant"] == "hybrid" and r.get("cpu_fraction") is not None:
        cfg["cpu_fraction"] = round(r["cpu_fraction"], 4)
    return cfg


def label_of(app, variant, cfg, kind, dims, borrowed=None):
    """A short legend label: only what distinguishes series is worth saying."""
    extra = []
    if "p2p" in cfg:
        extra.append("P2P" if cfg["p2p"] else "staged")
    if "cpu_fraction" in cfg:
        extra.append(f"CPU share {cfg['cpu_fraction']:g}")
    if cfg.get("omp_wait_policy", "default") != "default":
        extra.append(f"OMP_WAIT_POLICY={cfg['omp_wait_policy']}")
    nx, ny, nz = dims
    per = " per rank" if variant == "cpu" else " per GPU"
    size = (f"{nx}^3" if nx == ny == nz else f"{nx}x{ny}x{nz}") + (per if kind == "weak" else " in total")
    if borrowed:
        extra.append(f"T1 of {borrowed}")
    return f"{variant}" + (f" ({', '.join(extra)})" if extra else "") + f", {size}"


def read(path):
    recs, dropped = [], []
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                dropped.append(f"line {line_no}: not JSON ({e})")
                continue
            if r.get("schema") != "kit.result/1":
                dropped.append(f"line {line_no}: schema {r.get('schema')!r}, not kit.result/1")
                continue
            if r["verify"]["status"] == "FAILED":
                dropped.append(f"line {line_no}: {r['variant']} on {unit_count(r)}: verification FAILED")
                continue
            r["_line"] = line_no
            recs.append(r)
    return recs, dropped


def excluded(r, rules):
    """--exclude FIELD=VALUE: FIELD of params or of the record, compared as JSON text."""
    for field, value in rules:
        v = r["params"].get(field, r.get(field, None))
        if v is not None and json.dumps(v).strip('"').lower() == value.lower():
            return True
    return False


def build_series(recs, kinds, variants, baselines, rules):
    """{(app, variant, device, cfg, kind, dims): {N: record}} for every series with >= 2 N.
    baselines maps a variant to the variant whose N = 1 run serves as its T1."""
    groups = OrderedDict()
    for r in recs:
        if (variants and r["variant"] not in variants) or excluded(r, rules):
            continue
        p = r["params"]
        n = unit_count(r)
        cfg = config_of(r)
        base = (r["app"], r["variant"], r["device"], tuple(cfg.items()))
        dims = (p["nx"], p["ny"], p["nz"])
        candidates = [("strong", dims)]
        if p["nz"] % n == 0:
            candidates.append(("weak", (p["nx"], p["ny"], p["nz"] // n)))
        for kind, d in candidates:
            groups.setdefault(base + (kind, d), OrderedDict()).setdefault(n, []).append(r)
    notes = []
    # --baseline V=F: series of V take F's latest N = 1 run of the same size, steps and device.
    for key, by_n in groups.items():
        app, variant, device, cfg, kind, dims = key
        if variant not in baselines:
            continue
        donor = [r for r in recs if r["variant"] == baselines[variant] and unit_count(r) == 1
                 and r["app"] == app and r["device"] == device and not excluded(r, rules)
                 and (r["params"]["nx"], r["params"]["ny"], r["params"]["nz"]) == dims
                 and config_of(r)["steps"] == dict(cfg)["steps"]]
        if not donor:
            continue
        if any(n != 1 for n in by_n) and kind in kinds:
            own = ", ".join(str(r["_line"]) for r in by_n.get(1, [])) or "none"
            notes.append(f"{variant} {kind} {'x'.join(map(str, dims))}: T1 from {baselines[variant]} "
                         f"line {donor[-1]['_line']} (own N=1 lines: {own})")
        by_n[1] = [dict(donor[-1], _borrowed=baselines[variant])]
        groups[key] = OrderedDict(sorted(by_n.items()))
    series = OrderedDict()
    for key, by_n in groups.items():
        kind = key[4]
        if kind not in kinds or len(by_n) < 2:
            continue
        series[key] = OrderedDict((n, by_n[n][-1]) for n in sorted(by_n))
        for n in sorted(by_n):
            if len(by_n[n]) > 1:
                lines = ", ".join(str(r["_line"]) for r in by_n[n])
                notes.append(f"{key[1]} {kind} {'x'.join(map(str, key[5]))}, N={n}: "
                             f"{len(by_n[n])} runs (lines {lines}), used line {by_n[n][-1]['_line']}")
    # Runs that ended up in no series at all.
    in_some = {r["_line"] for key in series for rs in groups[key].values() for r in rs}
    for r in recs:
        if (variants and r["variant"] not in variants) or r["_line"] in in_some:
            continue
        p = r["params"]
        why = ("left out by --exclude" if excluded(r, rules) else
               "no other N with the same size (strong) or size per unit (weak) and configuration")
        notes.append(f"line {r['_line']}: {r['variant']} N={unit_count(r)} "
                     f"{p['nx']}x{p['ny']}x{p['nz']}, {config_of(r)['steps']} steps: {why}")
    return series, notes


def rows_of(key, pts):
    app, variant, device, cfg, kind, dims = key
    cfg = OrderedDict(cfg)
    t = {n: r["time_s"]["median"] / r["time_s"].get("steps", r["params"]["iters"]) for n, r in pts.items()}
    n0 = min(pts)
    t0 = t[n0]
    rows = []
    for n, r in pts.items():
        if kind == "strong":
            s, eta = n0 * t0 / t[n], n0 * t0 / (n * t[n])
        else:
            s, eta = n * t0 / (n0 * t[n]), t0 / t[n]
        p = r["params"]
        rows.append(OrderedDict([
            ("app", app), ("variant", variant), ("kind", kind),
            ("series", label_of(app, variant, cfg, kind, dims, pts[n0].get("_borrowed"))),
            ("N", n), ("N_counts", "ranks" if variant == "cpu" else "gpus"),
            ("ranks", r["ranks"]), ("gpus", r["gpus"]), ("threads", r["threads"]),
            ("nx", p["nx"]), ("ny", p["ny"]), ("nz", p["nz"]),
            ("points_per_unit", p["nx"] * p["ny"] * p["nz"] // n),
            ("steps", r["time_s"].get("steps", p["iters"])), ("reps", r["time_s"]["reps"]),
            ("median_s", f"{r['time_s']['median']:.6g}"),
            ("ms_per_step", f"{t[n] * 1e3:.6g}"),
            ("speedup", f"{s:.4f}"), ("ideal_speedup", n // n0 if kind == "weak" else n / n0),
            ("efficiency", f"{eta:.4f}"),
            ("baseline_N", n0),
            ("baseline_from", pts[n0].get("_borrowed", "own run")),
            ("fom", f"{r['fom']['value']:.6g}"), ("fom_unit", r["fom"]["unit"]),
            ("fraction_of_ceiling", f"{r['fraction_of_ceiling']:.4f}"),
            ("p2p", cfg.get("p2p", "")), ("cpu_fraction", cfg.get("cpu_fraction", "")),
            ("device", device), ("git", r.get("git", "")), ("line", r["_line"]),
        ]))
    for row in rows:
        if isinstance(row["ideal_speedup"], float):
            row["ideal_speedup"] = f"{row['ideal_speedup']:g}"
    return rows


def plot(series_rows, title, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 5.2))
    variants = list(OrderedDict.fromkeys(rows[0]["variant"] for rows in series_rows))
    colours = {v: f"C{i}" for i, v in enumerate(variants)}
    sizes = list(OrderedDict.fromkeys(rows[0]["points_per_unit"] if rows[0]["kind"] == "weak"
                                      else rows[0]["nx"] * rows[0]["ny"] * rows[0]["nz"]
                                      for rows in series_rows))
    styles = ["-", "--", "-.", ":"]
    markers = ["o", "s", "^", "D", "v", "P"]
    all_n = sorted({r["N"] for rows in series_rows for r in rows})
    counts = sorted({rows[0]["N_counts"] for rows in series_rows})
    xlabel = "N (" + " / ".join("MPI ranks" if c == "ranks" else "GPUs" for c in counts) + ")"
    for rows in series_rows:
        v = rows[0]["variant"]
        size = rows[0]["points_per_unit"] if rows[0]["kind"] == "weak" else rows[0]["nx"] * rows[0]["ny"] * rows[0]["nz"]
        i = variants.index(v)
        # Markers shrink from variant to variant, so points that coincide stay visible.
        style = dict(color=colours[v], linestyle=styles[sizes.index(size) % len(styles)],
                     marker=markers[i % len(markers)], markersize=max(4, 11 - 2 * i),
                     alpha=0.9, label=rows[0]["series"])
        n = [r["N"] for r in rows]
        t = [float(r["ms_per_step"]) for r in rows]
        axes[0].plot(n, t, **style)
        ideal_t = [t[0] * (n[0] / x if rows[0]["kind"] == "strong" else 1) for x in n]
        axes[0].plot(n, ideal_t, color=colours[v], linestyle=(0, (1, 3)), linewidth=1, marker=None)
        axes[1].plot(n, [float(r["speedup"]) for r in rows], **style)
        axes[2].plot(n, [float(r["efficiency"]) for r in rows], **style)
    axes[1].plot(all_n, [x / all_n[0] for x in all_n], color="black", linestyle="--", linewidth=1,
                 label="ideal: S = N, eta = 1")
    axes[2].axhline(1.0, color="black", linestyle="--", linewidth=1)
    kinds = sorted({rows[0]["kind"] for rows in series_rows})
    axes[0].set_title("time per step (median); dotted: ideal")
    axes[0].set_ylabel("ms per step")
    axes[0].set_yscale("log")
    sp = {"strong": "T1/TN", "weak": "N T1/TN"}
    axes[1].set_title("speed-up " + ", ".join(f"{sp[k]} ({k})" for k in kinds))
    axes[1].set_ylabel("speed-up")
    eta = {"strong": "T1/(N TN)", "weak": "T1/TN"}
    axes[2].set_title("parallel efficiency eta = " + ", ".join(f"{eta[k]} ({k})" for k in kinds))
    axes[2].set_ylabel("efficiency")
    top = max(1.1, max(float(r["efficiency"]) for rows in series_rows for r in rows) * 1.08)
    axes[2].set_ylim(0, top)
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xticks(all_n)
        ax.set_xticklabels([str(x) for x in all_n])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xlabel(xlabel)
        ax.grid(True, which="major", alpha=0.3)
    handles, labels = axes[1].get_legend_handles_labels()
    # One legend column per variant (matplotlib fills columns first), the ideal line last.
    nrows = max(sum(1 for rows in series_rows if rows[0]["variant"] == v) for v in variants)
    ncol = (len(labels) + nrows - 1) // nrows
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=9, frameon=False)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.045 * nrows + 0.02, 1, 1))   # leaves room for the suptitle itself
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description="Scaling curves from kit.result/1 JSON lines (lab 05).")
    ap.add_argument("jsonl")
    ap.add_argument("--out", metavar="PREFIX", help="writes PREFIX.csv and PREFIX.png [input without .jsonl]")
    ap.add_argument("--kind", choices=("strong", "weak", "both"), default="both",
                    help="which series to keep [both]")
    ap.add_argument("--variant", nargs="+", help="keep only these variants, in this order")
    ap.add_argument("--baseline", action="append", default=[], metavar="VARIANT=FROM",
                    help="series of VARIANT take T1 from FROM's 1-process, 1-GPU run of the same size "
                         "(e.g. multi-thread=two-stream); repeatable")
    ap.add_argument("--exclude", action="append", default=[], metavar="FIELD=VALUE",
                    help="leave out runs whose params (or top-level) FIELD equals VALUE, "
                         "e.g. p2p=false; repeatable")
    ap.add_argument("--date", help="date of the measurement for the title [the file's modification date]")
    ap.add_argument("--title", help="first line of the plot title [APP: KIND scaling (...)]")
    ap.add_argument("--note", help="a third title line, e.g. what the machine was")
    a = ap.parse_args(argv)
    prefix = a.out or (a.jsonl[:-6] if a.jsonl.endswith(".jsonl") else a.jsonl)
    kinds = ("strong", "weak") if a.kind == "both" else (a.kind,)
    recs, dropped = read(a.jsonl)
    try:
        baselines = dict(b.split("=", 1) for b in a.baseline)
        rules = [tuple(e.split("=", 1)) for e in a.exclude]
    except ValueError:
        ap.error("--baseline and --exclude take NAME=VALUE")
    series, left_out = build_series(recs, kinds, a.variant, baselines, rules)
    if a.variant:
        order = {v: i for i, v in enumerate(a.variant)}
        series = OrderedDict(sorted(series.items(), key=lambda kv: order[kv[0][1]]))
    if not series:
        for d in dropped + left_out:
            print(f"note: {d}")
        print(f"plot.py: no scaling series in {a.jsonl}: it needs runs of one configuration at "
              "two or more N (ranks for cpu, GPUs otherwise)", file=sys.stderr)
        return 1
    series_rows = [rows_of(k, pts) for k, pts in series.items()]
    rows = [r for s in series_rows for r in s]
    with open(prefix + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    date = a.date or datetime.date.fromtimestamp(os.path.getmtime(a.jsonl)).isoformat()
    devices = sorted({r["device"] for r in rows})
    apps = sorted({r["app"] for r in rows})
    kinds_found = sorted({r["kind"] for r in rows})
    what = {"strong": "strong scaling (total size fixed)",
            "weak": "weak scaling (size per " + ("rank" if all(r["variant"] == "cpu" for r in rows)
                                                 else "GPU" if all(r["variant"] != "cpu" for r in rows)
                                                 else "rank or GPU") + " fixed, nz grows with N)"}
    title = a.title or f"{', '.join(apps)}: " + " and ".join(what[k] for k in kinds_found)
    maxg = max((r["gpus"] for r in rows), default=0)
    dev = "; ".join(devices) + (f" (up to {maxg} GPUs)" if maxg else "")
    plot(series_rows, f"{title}\n{dev}, {date}" + (f"\n{a.note}" if a.note else ""), prefix + ".png")
    cols = ["series", "kind", "N", "ranks", "gpus", "threads", "nx", "ny", "nz", "ms_per_step",
            "speedup", "efficiency", "line"]
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols))
    for d in dropped + left_out:
        print(f"note: {d}")
    print(f"device: {dev}, {date}; wrote {prefix}.csv and {prefix}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
