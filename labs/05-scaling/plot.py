"""plot.py: strong- and weak-scaling curves from kit.result/1 lines (lab 05).

    python3 labs/05-scaling/plot.py                      # every figure of this lab from its shipped data
    python3 labs/05-scaling/plot.py --data cpu-strong.jsonl           # labs/out/05-scaling/cpu-strong.*
    python3 labs/05-scaling/plot.py --data labs/data/h200x2-2026-11-22/laplace.jsonl \
        --kind weak --date 2026-11-22 --name gpu-weak

Writes NAME.csv (one row per point) and NAME.png (time per step, speed-up and parallel
efficiency against N, with the ideal line) into --outdir (default labs/out/05-scaling/, made
if missing; `--outdir labs/05-scaling` refreshes the committed figures). NAME defaults to the
first --data file without .jsonl. Several --data files are read as one, as if concatenated
(the CSV's line numbers count through them in the order given). Without --data the script
makes every figure whose data the repository ships (SHIPPED below), each with the options
its README command gives.

How the lines are read:
- N is what the variant scales over: the GPUs of the run (`gpus`) for GPU variants, the
  MPI ranks for `cpu`. Times are medians over the repetitions, per step (median / steps;
  ising: per sweep; bfs: per search, its repetitions being the searches, steps = 1).
- Runs are grouped by app, variant, device and configuration (steps per repetition,
  alpha, beta, init, OpenMP wait policy, P2P for multi-thread, the CPU share used by
  hybrid, and the app's own settings such as bfs's transfer or tetfv's flux). Within a
  group, a *strong* series is a set of runs with the same problem at different N (the total
  stays fixed); a *weak* series is a set of runs with the same problem per unit, as
  labs/scripts/scaling.py grows it (the table PROBLEMS): laplace, lbm, ising nx, ny and
  nz / N; tetfv the box side B with box:round(B N^(1/3)); bfs scale - log2 N; particles
  cells_x / N. A series needs at least two values of N; anything else is listed as left
  out, with the reason. The CSV and the printed table carry the app's own size columns
  (laplace: nx ny nz; tetfv: box_n cells; bfs: scale nvertices nedges; particles:
  cells_x cells_y cells_z atoms) and its time column (bfs: ms_per_search).
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
The title's date is --date, else a timestamp field of the lines (`time`, `date`, `started`,
`timestamp`; kit.result/1 has none so far), else the YYYY-MM-DD in the name of the data's
folder (labs/data/h200x2-2026-11-22/), else, for the files this lab ships, the date its README
gives (KNOWN below), else "date not recorded"; never a file's modification date.
Every series has its own colour and marker, and a line style per problem size; series that
would still look alike (same variant and size, another configuration) get a line style of
their own and the configuration that differs in their label. Flagged points are ringed, with
a legend entry: oversubscribed runs (ranks x threads > the machine's cores: --cores, else the
folder's name as cpu-2core-DATE or the first line of its README.md, "..., 32 cores, DATE",
else KNOWN; unknown: not checked) and runs whose verification did not pass (SKIPPED:
--no-verify, --no-exchange).

Second mode, one GPU against two, every app in one table:

    python3 labs/05-scaling/plot.py --two-gpu [--data FILE.jsonl ...] \
        [--t1 APP=ONE_GPU.jsonl] [--exclude FIELD=VALUE] [--date D] [--note TEXT] [--name NAME]

(without --data: the shipped two-GPU table, gpu-2x-apps). Writes NAME.csv (one row per two-GPU run: app, kind, problem, variant, T1, T2, S, eta,
and where each time came from) and NAME.png (eta per app and variant, the ideal at 1).
T2 is each run on N = 2 GPUs (`gpus`; any run on more or fewer is not a T2). T1 is a run
on one GPU (one rank) of the same app, device and configuration (config_of, without P2P
and CPU share; for bfs also without --transfer, which a one-rank search never uses), chosen
as the lab 05 README defines it for the two-GPU data of 2026-11-24:
- by default: `two-stream`'s one-GPU run in the same file, for every variant (the `dual`
  sweeps run no other one-GPU variant);
- with --t1 APP=FILE: for APP, the variant's own one-GPU run in FILE (another job), e.g.
  ising=labs/data/h200-2026-11-24/ising-large-tuned-52d1b8c.jsonl;
- with --t1 TWO_GPU_FILE=FILE (KEY one of the --two-gpu files, as given): for the runs of
  that file, the variant's own one-GPU run in FILE, which may be the file itself. It takes
  precedence over --t1 APP=FILE, so one app's runs of two jobs can take T1 from two files.
Strong when T1 has the same problem in total, weak when T1's problem is the two-GPU run's
problem per GPU (as the weak series above). Strong: S = T1 / TN, eta = S / N; weak:
eta = T1 / TN, S = N T1 / TN. Of several candidate T1 runs the last line is used. Runs with
no T1 (other sizes, or no one-GPU run of the app) and runs matching --exclude (e.g.
halo=pack) are listed as left out. Runs whose verification FAILED are left out;
SKIPPED ones (--no-verify, --no-exchange) are kept and marked in the CSV.
Standard library and matplotlib.
"""
import csv
import json
import os
import sys
from collections import OrderedDict, namedtuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

# The figures this lab ships, with the options of their README commands (paths from the
# repository's root, as the CSVs name them): what `plot.py` without --data makes.
_CPU_NOTE = ("2-core virtual machine, MPICH, cpu variant; 4 ranks oversubscribe the 2 cores: "
             "that point measures the machine, not the code")
_D24 = "labs/data/h200x2-2026-11-24/"
SHIPPED = [["--data", f"labs/05-scaling/{f}.jsonl", "--date", "2026-11-24", "--note", _CPU_NOTE]
           for f in ("tetfv-cpu-strong", "tetfv-cpu-weak", "bfs-cpu-strong", "bfs-cpu-weak")] + [
    ["--data", "labs/data/h200x2-2026-11-22/laplace.jsonl", "--kind", "weak",
     "--variant", "two-stream", "naive", "multi-thread", "hybrid", "--baseline", "multi-thread=two-stream",
     "--exclude", "p2p=false", "--date", "2026-11-22", "--name", "gpu-weak",
     "--note", "two H200 on NVLink, Open MPI, 16 OpenMP threads per process; T1 = each variant's own 1-GPU run "
     "(two-stream's for multi-thread); hybrid ran with idle CPU groups (before 52ba04a)"],
    ["--two-gpu", "--data"] + [_D24 + f for f in (
        "ising-dual-msc-7cef646.jsonl", "ising-dual-1047b46.jsonl", "lbm-dual-1047b46.jsonl",
        "tetfv-dual-1047b46.jsonl", "particles-dual-1047b46.jsonl", "bfs-dual-7cef646.jsonl")]
    + ["--t1", _D24 + "ising-dual-msc-7cef646.jsonl=" + _D24 + "ising-dual-msc-7cef646.jsonl",
       "--t1", "ising=labs/data/h200-2026-11-24/ising-large-tuned-52d1b8c.jsonl",
       "--t1", "bfs=labs/data/h200-2026-11-24/bfs-single-dbb58de.jsonl", "--exclude", "halo=pack",
       "--date", "2026-11-24", "--name", "gpu-2x-apps",
       "--note", "Open MPI 4.1.6 (not CUDA-aware), 16 OpenMP threads per rank; T1: each variant's own 1-GPU run "
       "for ising (7cef646: same job; 1047b46: another job, after 52d1b8c) and bfs (another job, dbb58de), "
       "else two-stream's 1-GPU run"],
]


# The figure's date and the machine's cores: labargs.record_date, path_date, path_cores.
from labargs import path_cores, path_date, record_date  # noqa: E402


# The files this lab ships without a date or core count in their folder's name: what the lab
# README says of them ("tetfv and bfs, CPU, 2-core virtual machine, 2026-11-24").
KNOWN = {os.path.join(HERE, f + ".jsonl"): ("2026-11-24", 2)
         for f in ("tetfv-cpu-strong", "tetfv-cpu-weak", "bfs-cpu-strong", "bfs-cpu-weak")}


def data_date(paths, recs):
    """The dates of the data, joined: the lines' own, else the paths', else KNOWN's."""
    dates = sorted({d for d in (record_date(r) for r in recs) if d})
    if not dates:
        dates = sorted({path_date(p) or KNOWN.get(os.path.abspath(p), (None,))[0] for p in paths} - {None})
    return " and ".join(dates) or "date not recorded (give --date)"


def cores_of(path, given=None):
    """The cores of the machine PATH's lines ran on: --cores, else as recorded beside them."""
    return given or path_cores(path) or KNOWN.get(os.path.abspath(path), (None, None))[1]


def flag(r, cores):
    """The flags of one run: oversubscribed (ranks x threads > CORES, when known) and
    unverified (verification not PASSED)."""
    return {"oversubscribed": bool(cores) and r["ranks"] * max(r.get("threads") or 1, 1) > cores,
            "unverified": r["verify"]["status"] != "PASSED"}


def grid_size(d):
    return f"{d[0]}^3" if d[0] == d[1] == d[2] else f"{d[0]}x{d[1]}x{d[2]}"


def box_per_unit(dims, n):
    """tetfv weak: the side B whose box:round(B N^(1/3)) this is (labs/scripts/scaling.py)."""
    b = round(dims[0] / n ** (1.0 / 3.0))
    return (b,) if round(b * n ** (1.0 / 3.0)) == dims[0] else None


# How each app's JSON line names its problem (the params that give its size), the problem per
# unit of a weak series, the CSV columns that describe it, the work it counts (for the
# per-unit column), what one timed step is, and how a weak series grows. laplace's columns
# are those of the committed laplace CSVs.
Problem = namedtuple("Problem", "dims weak cols work per_unit label noun grows")


def grid_problem(x, y, z):
    return Problem(dims=lambda p: (p[x], p[y], p[z]),
                   weak=lambda d, n: (d[0], d[1], d[2] // n) if d[2] % n == 0 else None,
                   cols=lambda p: [("nx", p[x]), ("ny", p[y]), ("nz", p[z])],
                   work=lambda p: p[x] * p[y] * p[z], per_unit="points_per_unit",
                   label=grid_size, noun="step", grows="nz grows with N")


PROBLEMS = {
    "laplace": grid_problem("nx", "ny", "nz"),
    "lbm": grid_problem("nx", "ny", "nz"),
    "ising": grid_problem("lx", "ly", "lz")._replace(noun="sweep"),
    "tetfv": Problem(dims=lambda p: (p["box_n"],), weak=box_per_unit,
                     cols=lambda p: [("box_n", p["box_n"]), ("cells", p["cells"])],
                     work=lambda p: p["cells"], per_unit="cells_per_unit",
                     label=lambda d: f"box:{d[0]}", noun="step",
                     grows="box side x N^(1/3), cells per rank about fixed"),
    "bfs": Problem(dims=lambda p: (p["scale"],),
                   weak=lambda d, n: (d[0] - n.bit_length() + 1,) if n & (n - 1) == 0 else None,
                   cols=lambda p: [("scale", p["scale"]), ("nvertices", p["nvertices"]),
                                   ("nedges", p["nedges"])],
                   work=lambda p: p["nedges"], per_unit="edges_per_unit",
                   label=lambda d: f"scale {d[0]}", noun="search", grows="scale + log2 N"),
    "particles": Problem(dims=lambda p: (p["cells_x"], p["cells_y"], p["cells_z"]),
                         weak=lambda d, n: (d[0] // n, d[1], d[2]) if d[0] % n == 0 else None,
                         cols=lambda p: [("cells_x", p["cells_x"]), ("cells_y", p["cells_y"]),
                                         ("cells_z", p["cells_z"]), ("atoms", p["n"])],
                         work=lambda p: p["n"], per_unit="atoms_per_unit",
                         label=lambda d: grid_size(d) + " fcc cells", noun="step",
                         grows="x cells and rank grid grow with N"),
}


def unit_count(r):
    """N for one run: GPUs for GPU variants, MPI ranks for cpu."""
    return r["ranks"] if r["variant"] == "cpu" or not r.get("gpus") else r["gpus"]


def config_of(r):
    """Everything besides size and N that must agree between the points of one series."""
    p = r.get("params", {})
    cfg = OrderedDict()
    cfg["steps"] = r["time_s"].get("steps", p.get("iters"))
    for k in ("alpha", "beta", "init", "omp_wait_policy", "exact",       # laplace and others
              "edgefactor", "transfer", "prune", "discover",               # bfs
              "flux", "bc", "jitter", "shuffle", "reorder", "aniso", "kappa",  # tetfv
              "rc", "density", "temp", "shift", "layout", "samples", "case"):  # particles, ising, lbm
        if k in p:
            cfg[k] = p[k]
    if r["variant"] == "multi-thread":
        cfg["p2p"] = p.get("p2p", True)
    if r["variant"] == "hybrid" and r.get("cpu_fraction") is not None:
        cfg["cpu_fraction"] = round(r["cpu_fraction"], 4)
    return cfg


def label_of(app, variant, cfg, kind, dims, borrowed=None, ident=False):
    """A short legend label: only what distinguishes series is worth saying. IDENT: the label
    less the problem size (what gives a series its colour and marker)."""
    extra = []
    if "p2p" in cfg:
        extra.append("P2P" if cfg["p2p"] else "staged")
    if "cpu_fraction" in cfg:
        extra.append(f"CPU share {cfg['cpu_fraction']:g}")
    if cfg.get("omp_wait_policy", "default") != "default":
        extra.append(f"OMP_WAIT_POLICY={cfg['omp_wait_policy']}")
    per = " per rank" if variant == "cpu" else " per GPU"
    size = PROBLEMS[app].label(dims) + (per if kind == "weak" else " in total")
    if borrowed:
        extra.append(f"T1 of {borrowed}")
    return f"{variant}" + (f" ({', '.join(extra)})" if extra else "") + ("" if ident else f", {size}")


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
            if r.get("app") not in PROBLEMS:
                dropped.append(f"line {line_no}: app {r.get('app')!r}: plot.py knows "
                               f"{', '.join(sorted(PROBLEMS))}")
                continue
            r["_line"], r["_file"], r["_path"] = line_no, path, os.path.abspath(path)
            recs.append(r)
    return recs, dropped


def print_table(rows, cols):
    """rows as left-aligned columns, a header line first."""
    width = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r.get(c, "")).ljust(width[c]) for c in cols))


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
        prob = PROBLEMS[r["app"]]
        n = unit_count(r)
        cfg = config_of(r)
        base = (r["app"], r["variant"], r["device"], tuple(cfg.items()))
        dims = prob.dims(r["params"])
        candidates = [("strong", dims)]
        per_unit = prob.weak(dims, n)
        if per_unit is not None:
            candidates.append(("weak", per_unit))
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
                 and PROBLEMS[app].dims(r["params"]) == dims
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
        prob = PROBLEMS[r["app"]]
        size = "x".join(map(str, prob.dims(r["params"])))
        why = ("left out by --exclude" if excluded(r, rules) else
               "no other N with the same size (strong) or size per unit (weak) and configuration")
        notes.append(f"line {r['_line']}: {r['variant']} N={unit_count(r)} "
                     f"{size}, {config_of(r)['steps']} {prob.noun}s: {why}")
    return series, notes


def disambiguate(keys, series_rows):
    """Series of one label (same variant and size, another configuration, such as steps or
    alpha): each label gets the settings in which its series differs from the others."""
    by_label = OrderedDict()
    for key, rows in zip(keys, series_rows):
        by_label.setdefault(rows[0]["series"], []).append((dict(key[3]), rows))
    for label, group in by_label.items():
        if len(group) < 2:
            continue
        names = list(OrderedDict.fromkeys(k for cfg, _ in group for k in cfg))
        differ = [k for k in names if len({json.dumps(cfg.get(k)) for cfg, _ in group}) > 1]
        for cfg, rows in group:
            extra = ", ".join(f"{k} {cfg.get(k, '-')}" for k in differ)
            for r in rows:
                r["series"] = f"{label} [{extra}]"


def rows_of(key, pts, cores=None):
    app, variant, device, cfg, kind, dims = key
    prob = PROBLEMS[app]
    cfg = OrderedDict(cfg)
    t = {n: r["time_s"]["median"] / r["time_s"].get("steps", r["params"].get("iters", 1))
         for n, r in pts.items()}
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
            ("_ident", label_of(app, variant, cfg, kind, dims, pts[n0].get("_borrowed"), ident=True)),
            ("N", n), ("N_counts", "ranks" if variant == "cpu" else "gpus"),
            ("ranks", r["ranks"]), ("gpus", r["gpus"]), ("threads", r["threads"]),
            *prob.cols(p),
            (prob.per_unit, prob.work(p) // n),
            ("steps", r["time_s"].get("steps", p.get("iters"))), ("reps", r["time_s"]["reps"]),
            ("median_s", f"{r['time_s']['median']:.6g}"),
            (f"ms_per_{prob.noun}", f"{t[n] * 1e3:.6g}"),
            ("speedup", f"{s:.4f}"), ("ideal_speedup", n // n0 if kind == "weak" else n / n0),
            ("efficiency", f"{eta:.4f}"),
            ("baseline_N", n0),
            ("baseline_from", pts[n0].get("_borrowed", "own run")),
            ("fom", f"{r['fom']['value']:.6g}"), ("fom_unit", r["fom"]["unit"]),
            ("fraction_of_ceiling", f"{r['fraction_of_ceiling']:.4f}"),
            ("p2p", cfg.get("p2p", "")), ("cpu_fraction", cfg.get("cpu_fraction", "")),
            ("device", device), ("git", r.get("git", "")), ("line", r["_line"]),
            # for plot() only, not written: the size that tells series apart, the time column
            ("_size", prob.work(p) // (n if kind == "weak" else 1)),
            ("_ms", t[n] * 1e3), ("_noun", prob.noun), ("_cols", [c for c, _ in prob.cols(p)]),
            *(("_" + f, v) for f, v in flag(r, (cores or {}).get(r["_path"])).items()),
            ("_cores", (cores or {}).get(r["_path"])),
        ]))
    for row in rows:
        if isinstance(row["ideal_speedup"], float):
            row["ideal_speedup"] = f"{row['ideal_speedup']:g}"
    return rows


# Flagged points: a ring of their own around the point, and a legend entry (labs 02, 05, 06,
# 08 and 10 draw them alike).
FLAGS = OrderedDict([
    ("oversubscribed", dict(marker="o", size=2.3, color="black", label="oversubscribed: ranks x threads > cores")),
    ("unverified", dict(marker="s", size=2.0, color="#b000b0", label="verification not PASSED (SKIPPED)")),
])
STYLES = ["-", "--", "-.", ":", (0, (5, 1.5)), (0, (3, 1, 1, 1, 1, 1))]


def flag_label(f, rows):
    """FLAGS' legend text, with the machine's cores where the flagged rows agree on them."""
    cores = sorted({r["_cores"] for r in rows if r["_" + f] and r.get("_cores")})
    if f == "oversubscribed" and len(cores) == 1:
        return f"oversubscribed: ranks x threads > {cores[0]} cores"
    return FLAGS[f]["label"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h"]


def series_styles(series_rows):
    """A style per series: colour and marker per variant and configuration (the label less its
    size), line style per problem size. Series that would still share all three (the same
    label) take the next free line style, then hollow markers: no two look alike."""
    idents = list(OrderedDict.fromkeys(rows[0]["_ident"] for rows in series_rows))
    sizes = list(OrderedDict.fromkeys(rows[0]["_size"] for rows in series_rows))
    used, out = set(), []
    for rows in series_rows:
        i = idents.index(rows[0]["_ident"])
        si = sizes.index(rows[0]["_size"])
        for k in range(2 * len(STYLES)):
            key = (i, (si + k) % len(STYLES), k >= len(STYLES))
            if key not in used:
                break
        used.add(key)
        colour = f"C{i % 10}"
        # Markers shrink from one series identity to the next, so points that coincide stay visible.
        out.append(dict(color=colour, linestyle=STYLES[key[1]], marker=MARKERS[i % len(MARKERS)],
                        markersize=max(5, 11 - 2 * i), mfc="none" if key[2] else colour, mew=1.5,
                        alpha=0.9, label=rows[0]["series"]))
    return out


def plot(series_rows, title, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, axes = plt.subplots(1, 3, figsize=(16, 5.2))
    all_n = sorted({r["N"] for rows in series_rows for r in rows})
    counts = sorted({rows[0]["N_counts"] for rows in series_rows})
    xlabel = "N (" + " / ".join("MPI ranks" if c == "ranks" else "GPUs" for c in counts) + ")"
    flagged = {f: [] for f in FLAGS}
    for rows, style in zip(series_rows, series_styles(series_rows)):
        n = [r["N"] for r in rows]
        t = [r["_ms"] for r in rows]
        axes[0].plot(n, t, **style)
        ideal_t = [t[0] * (n[0] / x if rows[0]["kind"] == "strong" else 1) for x in n]
        axes[0].plot(n, ideal_t, color=style["color"], linestyle=(0, (1, 3)), linewidth=1, marker=None)
        ys = [t, [float(r["speedup"]) for r in rows], [float(r["efficiency"]) for r in rows]]
        axes[1].plot(n, ys[1], **style)
        axes[2].plot(n, ys[2], **style)
        for k, r in enumerate(rows):
            for f in FLAGS:
                if r["_" + f]:
                    flagged[f].append((r["N"], [y[k] for y in ys], style["markersize"]))
    axes[1].plot(all_n, [x / all_n[0] for x in all_n], color="black", linestyle="--", linewidth=1,
                 label="ideal: S = N, eta = 1")
    axes[2].axhline(1.0, color="black", linestyle="--", linewidth=1)
    flag_handles = []
    for f, pts in flagged.items():
        if not pts:
            continue
        st = FLAGS[f]
        for a, ax in enumerate(axes):
            for x, y, ms in pts:
                ax.plot([x], [y[a]], ls="none", marker=st["marker"], ms=max(ms, 8) * st["size"], mfc="none",
                        mec=st["color"], mew=1.6, zorder=5, clip_on=False)
        flag_handles.append(Line2D([], [], ls="none", marker=st["marker"], ms=12, mfc="none", mec=st["color"],
                                   mew=1.6, label=flag_label(f, [r for rows in series_rows for r in rows])))
    kinds = sorted({rows[0]["kind"] for rows in series_rows})
    nouns = sorted({rows[0]["_noun"] for rows in series_rows})
    noun = nouns[0] if len(nouns) == 1 else "step"     # bfs: one search is its step
    axes[0].set_title(f"time per {noun} (median); dotted: ideal")
    axes[0].set_ylabel(f"ms per {noun}")
    axes[0].set_yscale("log")
    # Plain numbers (0.4, 2, 6), not 4 x 10^-1; the minor ones only where a decade or two shows.
    class PlainLog(matplotlib.ticker.LogFormatter):
        def __call__(self, x, pos=None):
            return f"{x:g}" if super().__call__(x, pos) else ""
    axes[0].yaxis.set_major_formatter(PlainLog())
    axes[0].yaxis.set_minor_formatter(PlainLog(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
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
    # One legend column per variant (matplotlib fills columns first), the ideal line and the
    # flags last.
    variants = list(OrderedDict.fromkeys(rows[0]["variant"] for rows in series_rows))
    nrows = max(sum(1 for rows in series_rows if rows[0]["variant"] == v) for v in variants)
    handles += flag_handles
    labels += [h.get_label() for h in flag_handles]
    ncol = (len(labels) + nrows - 1) // nrows
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=9, frameon=False)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.045 * nrows + 0.02, 1, 1))   # leaves room for the suptitle itself
    fig.savefig(png, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# --two-gpu: one GPU against two, every app in one table (lab 05 README, "Two NVIDIA H200,
# every app, 2026-11-24").

VARIANT_ORDER = {"two-stream": 0, "multi-thread": 1, "hybrid": 2, "naive": 3, "cpu": 4}
KIND_ORDER = {"weak": 0, "strong": 1}


def t1_config(r):
    """config_of without what only a multi-GPU run has (P2P) or the CPU share; for bfs also
    without --transfer: on a 1 x 1 grid there is no frontier message to send as a list or a
    bitmap (miniapps/bfs/gpu_block.c), so a one-GPU run of any --transfer is T1 of every one."""
    skip = ("p2p", "cpu_fraction") + (("transfer",) if r["app"] == "bfs" else ())
    return tuple((k, v) for k, v in config_of(r).items() if k not in skip)


def setting_of(r):
    """What tells two runs of one app and variant apart in the table: ising's layout, bfs's
    process grid and --transfer (where it has more than one rank), lbm's --halo,
    multi-thread's P2P, tetfv's --no-exchange."""
    p = r["params"]
    parts = []
    if "layout" in p:
        parts.append(p["layout"])
    if r["app"] == "bfs" and p.get("grid_rows", 1) * p.get("grid_cols", 1) > 1:  # 1 x 1: no messages
        parts.append(f"{p['grid_rows']}x{p['grid_cols']} grid, --transfer {p['transfer']}")
    if r["variant"] == "multi-thread":
        parts.append("P2P" if p.get("p2p", True) else "staged")
    elif "halo" in p:
        parts.append(f"--halo {p['halo']}")
    if p.get("no_exchange"):
        parts.append("--no-exchange (bound)")
    return ", ".join(parts)


def two_gpu_rows(files, t1_files, rules, t1_by_file=None, cores=None):
    """One row per two-GPU run that has a T1, and the notes on everything left out.
    t1_files: {app: (path, records)}; t1_by_file: {two-GPU file: (path, records)}; cores: the
    cores of a file's machine (a function of its path), for the flags."""
    cores = cores or (lambda path: None)
    rows, notes = [], []
    t1_by_file = t1_by_file or {}
    for fi, path in enumerate(files):
        recs, dropped = read(path)
        notes += [f"{os.path.basename(path)}: {d}" for d in dropped]
        for r in recs:
            n = unit_count(r)
            where = f"{os.path.basename(path)} line {r['_line']}"
            if n == 1 or r["variant"] == "cpu":
                continue  # a T1 candidate, not a T2
            if n != 2:
                notes.append(f"{where}: {r['app']} {r['variant']} on N = {n}: not a two-GPU run")
                continue
            if excluded(r, rules):
                notes.append(f"{where}: {r['app']} {r['variant']}"
                             + (f" {setting_of(r)}" if setting_of(r) else "") + ": left out by --exclude")
                continue
            app = r["app"]
            prob = PROBLEMS[app]
            if path in t1_by_file:
                (t1_src, pool), own = t1_by_file[path], True
            elif app in t1_files:
                (t1_src, pool), own = t1_files[app], True
            else:
                t1_src, pool, own = path, recs, False
            want = r["variant"] if own else "two-stream"
            dims = prob.dims(r["params"])
            per_gpu = prob.weak(dims, n)
            found = None
            for c in pool:
                if (c["app"] != app or c["variant"] != want or unit_count(c) != 1 or c["ranks"] != 1
                        or c["device"] != r["device"] or t1_config(c) != t1_config(r)
                        or excluded(c, rules)):
                    continue
                d = prob.dims(c["params"])
                if d == dims:
                    found = ("strong", c)
                elif per_gpu is not None and d == per_gpu:
                    found = ("weak", c)
            if found is None:
                src = os.path.basename(t1_src)
                notes.append(f"{where}: {app} {r['variant']} {prob.label(dims)}"
                             + (f" {setting_of(r)}" if setting_of(r) else "") + ": no one-GPU "
                             f"{want} run of the same size (strong) or size per GPU (weak) and "
                             f"configuration in {src}")
                continue
            kind, base = found
            t1 = base["time_s"]["median"] / base["time_s"]["steps"]
            t2 = r["time_s"]["median"] / r["time_s"]["steps"]
            if kind == "strong":
                s_, eta = t1 / t2, t1 / (n * t2)
            else:
                s_, eta = n * t1 / t2, t1 / t2
            p = r["params"]
            problem = prob.label(prob.dims(base["params"])) + (" per GPU" if kind == "weak" else " in total")
            rows.append(OrderedDict([
                ("app", app), ("kind", kind), ("problem", problem), ("variant", r["variant"]),
                ("setting", setting_of(r)), ("N", n), ("ranks", r["ranks"]), ("gpus", r["gpus"]),
                ("threads", r["threads"]),
                (prob.per_unit, prob.work(p) // n),
                ("steps", r["time_s"]["steps"]), ("reps", r["time_s"]["reps"]),
                ("time_unit", f"ms per {prob.noun}"),
                ("T1_ms", f"{t1 * 1e3:.6g}"), ("T2_ms", f"{t2 * 1e3:.6g}"),
                ("speedup", f"{s_:.4f}"), ("efficiency", f"{eta:.4f}"),
                ("T1_variant", base["variant"]),
                ("T1_from", "own one-GPU run" if own else "two-stream's one-GPU run"),
                ("fom_T1", f"{base['fom']['value']:.6g}"), ("fom_T2", f"{r['fom']['value']:.6g}"),
                ("fom_unit", r["fom"]["unit"]),
                ("fraction_of_ceiling_T1", f"{base['fraction_of_ceiling']:.4f}"),
                ("fraction_of_ceiling_T2", f"{r['fraction_of_ceiling']:.4f}"),
                ("verify_T1", base["verify"]["status"]), ("verify_T2", r["verify"]["status"]),
                ("device", r["device"]),
                ("T1_file", base["_file"]), ("T1_line", base["_line"]), ("T1_git", base.get("git", "")),
                ("T2_file", path), ("T2_line", r["_line"]), ("T2_git", r.get("git", "")),
                *(("_" + f, flag(base, cores(base["_file"]))[f] or v)
                  for f, v in flag(r, cores(path)).items()),
                ("_date", record_date(r)), ("_cores", cores(path)),
                ("_order", (fi, KIND_ORDER[kind], bool(p.get("no_exchange")),
                            VARIANT_ORDER.get(r["variant"], 9), setting_of(r), r["_line"])),
            ]))
    rows.sort(key=lambda x: x["_order"])
    return rows, notes


def plot_two_gpu(rows, title, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    variants = sorted({r["variant"] for r in rows}, key=lambda v: VARIANT_ORDER.get(v, 9))
    colours = {v: f"C{i}" for i, v in enumerate(variants)}
    # A hatch per variant besides its colour (the first none), so the bars read in grey too.
    HATCHES = {v: ["", "..", "\\\\", "oo", "++"][i % 5] for i, v in enumerate(variants)}
    fig, ax = plt.subplots(figsize=(max(8, 0.75 * len(rows) + 2), 5.6))
    x, gap, prev, centres = 0.0, 0.6, None, {}
    for r in rows:
        # One group per app, kind, problem and tree: one app's runs of two jobs stay apart.
        group = (r["app"], r["kind"], r["problem"], r["T2_git"].split("+")[0])
        if prev is not None and group != prev:
            x += gap
        prev = group
        r["_x"] = x
        centres.setdefault(group, []).append(x)
        eta = float(r["efficiency"])
        bound = "--no-exchange" in r["setting"]
        ax.bar(x, eta, width=0.8, color=colours[r["variant"]], hatch=HATCHES[r["variant"]] + ("//" if bound else ""),
               edgecolor="black" if bound else "white", linewidth=0.5, alpha=0.55 if bound else 0.9)
        # on a white ground: the ideal line at 1 would strike through values near it
        ax.text(x, eta + 0.015, f"{eta:.3f}", ha="center", fontsize=7, zorder=4,
                bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.85))
        top = eta + 0.095
        for f, st in FLAGS.items():
            if r["_" + f]:  # the flags stack above the value
                ax.plot([x], [top], ls="none", marker=st["marker"], ms=7, mfc="none", mec=st["color"], mew=1.4,
                        clip_on=False)
                top += 0.05
        x += 1
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_xticks([r["_x"] for r in rows])
    ax.set_xticklabels([r["variant"] + ("\n" + r["setting"].replace(" (bound)", "").replace("--transfer ", "")
                                        .replace(", ", "\n") if r["setting"] else "") for r in rows],
                       fontsize=6.5)
    for (app, kind, problem, tree), xs in centres.items():
        ax.text(sum(xs) / len(xs), -0.17, f"{app}, {kind}\n{problem}\nat {tree}", ha="center", va="top",
                fontsize=7.5, transform=ax.get_xaxis_transform())
    ax.set_ylim(0, 1.3)
    ax.set_ylabel("parallel efficiency eta on 2 GPUs")
    handles = [matplotlib.patches.Patch(facecolor=colours[v], edgecolor="white", hatch=HATCHES[v], label=v)
               for v in variants]
    handles.append(matplotlib.lines.Line2D([], [], color="black", linestyle="--", label="ideal: eta = 1"))
    if any("--no-exchange" in r["setting"] for r in rows):
        handles.append(matplotlib.patches.Patch(facecolor="white", edgecolor="black", hatch="//",
                                                label="--no-exchange: the communication-free bound"))
    for f, st in FLAGS.items():
        if any(r["_" + f] for r in rows):
            label = flag_label(f, rows) + (" (T1 or T2)" if f == "unverified" else "")
            handles.append(matplotlib.lines.Line2D([], [], ls="none", marker=st["marker"], ms=7, mfc="none",
                                                   mec=st["color"], mew=1.4, label=label))
    ax.legend(handles=handles, fontsize=7.5, loc="upper center", ncol=len(handles), framealpha=0.95)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.subplots_adjust(bottom=0.24)
    fig.savefig(png, dpi=110)
    plt.close(fig)


def two_gpu_main(argv):
    ap = labargs.parser(__file__, [], prog="plot.py --two-gpu",
                        description="One GPU against two, every app: T1, T2, S and eta per two-GPU run (lab 05).",
                        data_help="JSON lines holding the two-GPU runs (and, by default, their T1)")
    ap.add_argument("--two-gpu", nargs="*", default=[], metavar="FILE.jsonl",
                    help="this mode; files after it are read as --data files")
    ap.add_argument("--t1", action="append", default=[], metavar="KEY=FILE",
                    help="T1 of APP's runs (KEY an app) or of one --two-gpu file's runs (KEY that "
                         "file, as given; takes precedence): each variant's own one-GPU run in "
                         "FILE; repeatable")
    ap.add_argument("--exclude", action="append", default=[], metavar="FIELD=VALUE",
                    help="leave out two-GPU runs whose params (or top-level) FIELD equals VALUE, "
                         "e.g. halo=pack; repeatable")
    ap.add_argument("--name", default="gpu-2x-apps", help="writes NAME.csv and NAME.png into --outdir [%(default)s]")
    ap.add_argument("--date", help="date of the measurement for the title [a timestamp field of the lines, "
                    "else the YYYY-MM-DD in the two-GPU files' folder names]")
    ap.add_argument("--cores", type=int, help="cores of the machine, to mark oversubscribed runs (ranks x threads "
                    "> cores) [each file's folder name or README.md]")
    ap.add_argument("--note", help="a further title line")
    a = ap.parse_args(argv)
    a.two_gpu = a.two_gpu + a.data
    if not a.two_gpu:
        ap.error("no two-GPU files: give --data FILE.jsonl ... (or no --data at all: the shipped table)")
    a.out = os.path.join(labargs.outdir(a.outdir), a.name)
    try:
        rules = [tuple(e.split("=", 1)) for e in a.exclude]
        t1_specs = [tuple(t.split("=", 1)) for t in a.t1]
    except ValueError:
        ap.error("--t1 and --exclude take NAME=VALUE")
    if any(len(x) != 2 for x in rules + t1_specs):
        ap.error("--t1 and --exclude take NAME=VALUE")
    t1_files, t1_by_file, notes = {}, {}, []
    for key, path in t1_specs:
        if key not in PROBLEMS and key not in a.two_gpu:
            ap.error(f"--t1 {key}=...: {key} is neither an app ({', '.join(sorted(PROBLEMS))}) "
                     "nor one of the --two-gpu files")
        recs, dropped = read(path)
        if key in a.two_gpu:
            t1_by_file[key] = (path, recs)
        else:
            t1_files[key] = (path, [r for r in recs if r["app"] == key])
        notes += [f"{os.path.basename(path)}: {d}" for d in dropped]
    rows, more = two_gpu_rows(a.two_gpu, t1_files, rules, t1_by_file, lambda path: cores_of(path, a.cores))
    notes += more
    if not rows:
        for d in notes:
            print(f"note: {d}")
        print("plot.py: no two-GPU run with a one-GPU T1 in " + ", ".join(a.two_gpu), file=sys.stderr)
        return 1
    # Every row's columns: the per-GPU work is points_per_unit, cells_, atoms_ or edges_per_unit.
    fields = list(OrderedDict.fromkeys(k for r in rows for k in r if not k.startswith("_")))
    with open(a.out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, restval="", extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    dates = sorted({r["_date"] for r in rows if r["_date"]})
    date = a.date or (" and ".join(dates) if dates else data_date(a.two_gpu, []))
    devices = "; ".join(sorted({r["device"] for r in rows}))
    apps = ", ".join(OrderedDict.fromkeys(r["app"] for r in rows))
    title = (f"{apps}: one GPU against two (strong: eta = T1/(2 T2); weak: eta = T1/T2)\n"
             f"two {devices}, {date}" + (f"\n{a.note}" if a.note else ""))
    plot_two_gpu(rows, title, a.out + ".png")
    cols = ["app", "kind", "problem", "variant", "setting", "T1_ms", "T2_ms", "speedup", "efficiency",
            "T1_from", "verify_T2", "T2_git"]
    print_table(rows, cols)
    for d in notes:
        print(f"note: {d}")
    print(f"device: two {devices}, {date}; wrote {a.out}.csv and {a.out}.png")
    return 0


def shipped(argv):
    """Every figure of SHIPPED (only the two-GPU one with --two-gpu), ARGV's options added;
    run from the repository's root so that the CSVs name the files as the committed ones do."""
    outdir = os.path.abspath(labargs.default_outdir(__file__))
    if "--outdir" in argv:
        i = argv.index("--outdir")
        outdir = os.path.abspath(argv[i + 1]) if i + 1 < len(argv) else outdir
        argv = argv[:i] + argv[i + 2:]
    todo = [s for s in SHIPPED if ("--two-gpu" in s) == ("--two-gpu" in argv) or "--two-gpu" not in argv]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        worst = 0
        for s in todo:
            name = s[s.index("--name") + 1] if "--name" in s else os.path.basename(s[1])[:-6]
            print(f"== {name}", flush=True)
            worst = max(worst, main(s + [x for x in argv if x != "--two-gpu"] + ["--outdir", outdir]))
        return worst
    finally:
        os.chdir(cwd)


def main(argv):
    if not labargs.data_given(argv) and not any(x in ("-h", "--help") for x in argv) and not (
            "--two-gpu" in argv and argv.index("--two-gpu") + 1 < len(argv)
            and not argv[argv.index("--two-gpu") + 1].startswith("-")):
        return shipped(argv)
    if "--two-gpu" in argv:
        return two_gpu_main(argv)
    ap = labargs.parser(__file__, [], description="Scaling curves from kit.result/1 JSON lines (lab 05).",
                        data_help="kit.result/1 lines, read as one file",
                        epilog="plot.py --two-gpu [--data FILE...]: one GPU against "
                               "two, every app (plot.py --two-gpu --help). Without --data: every "
                               "figure the lab ships.")
    ap.add_argument("--name", help="writes NAME.csv and NAME.png into --outdir [the first file without .jsonl]")
    ap.add_argument("--out", metavar="PREFIX", help="the older form of --outdir DIR --name NAME: DIR/NAME")
    ap.add_argument("--kind", choices=("strong", "weak", "both"), default="both",
                    help="which series to keep [both]")
    ap.add_argument("--variant", nargs="+", help="keep only these variants, in this order")
    ap.add_argument("--baseline", action="append", default=[], metavar="VARIANT=FROM",
                    help="series of VARIANT take T1 from FROM's 1-process, 1-GPU run of the same size "
                         "(e.g. multi-thread=two-stream); repeatable")
    ap.add_argument("--exclude", action="append", default=[], metavar="FIELD=VALUE",
                    help="leave out runs whose params (or top-level) FIELD equals VALUE, "
                         "e.g. p2p=false; repeatable")
    ap.add_argument("--date", help="date of the measurement for the title [a timestamp field of the lines, "
                    "else the YYYY-MM-DD in the data's folder name, else the lab README's date of its shipped files]")
    ap.add_argument("--cores", type=int, help="cores of the machine, to ring oversubscribed runs (ranks x threads "
                    "> cores) [the folder's name or README.md, else the lab README's for its shipped files]")
    ap.add_argument("--title", help="first line of the plot title [APP: KIND scaling (...)]")
    ap.add_argument("--note", help="a third title line, e.g. what the machine was")
    a = ap.parse_args(argv)
    if a.out:
        a.outdir, a.name = os.path.dirname(a.out) or ".", os.path.basename(a.out)
    a.jsonl = a.data[0]
    stem = os.path.basename(a.jsonl)
    prefix = os.path.join(labargs.outdir(a.outdir), a.name or (stem[:-6] if stem.endswith(".jsonl") else stem))
    kinds = ("strong", "weak") if a.kind == "both" else (a.kind,)
    recs, dropped, offset = [], [], 0
    for path in a.data:
        more, gone = read(path)
        for r in more:  # line numbers count through the files, as in `cat FILES`
            r["_line"] += offset
        recs += more
        dropped += [(f"{os.path.basename(path)}: " if len(a.data) > 1 else "") + d for d in gone]
        with open(path) as f:
            offset += sum(1 for _ in f)
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
        print(f"plot.py: no scaling series in {' '.join(a.data)}: it needs runs of one configuration at "
              "two or more N (ranks for cpu, GPUs otherwise)", file=sys.stderr)
        return 1
    cores = {os.path.abspath(p): cores_of(p, a.cores) for p in a.data}
    series_rows = [rows_of(k, pts, cores) for k, pts in series.items()]
    disambiguate(list(series), series_rows)
    rows = [r for s in series_rows for r in s]
    fields = list(OrderedDict.fromkeys(k for r in rows for k in r if not k.startswith("_")))
    with open(prefix + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, restval="", extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    date = a.date or data_date(a.data, recs)
    devices = sorted({r["device"] for r in rows})
    apps = sorted({r["app"] for r in rows})
    kinds_found = sorted({r["kind"] for r in rows})
    grows = "; ".join(OrderedDict.fromkeys(PROBLEMS[r["app"]].grows for r in rows))
    what = {"strong": "strong scaling (total size fixed)",
            "weak": "weak scaling (size per " + ("rank" if all(r["variant"] == "cpu" for r in rows)
                                                 else "GPU" if all(r["variant"] != "cpu" for r in rows)
                                                 else "rank or GPU") + f" fixed, {grows})"}
    title = a.title or f"{', '.join(apps)}: " + " and ".join(what[k] for k in kinds_found)
    maxg = max((r["gpus"] for r in rows), default=0)
    dev = "; ".join(devices) + (f" (up to {maxg} GPUs)" if maxg else "")
    plot(series_rows, f"{title}\n{dev}, {date}" + (f"\n{a.note}" if a.note else ""), prefix + ".png")
    # The app's own size columns (laplace: nx ny nz) and time column (bfs: ms_per_search).
    size_cols = list(OrderedDict.fromkeys(c for r in rows for c in r["_cols"]))
    time_cols = list(OrderedDict.fromkeys(f"ms_per_{r['_noun']}" for r in rows))
    cols = (["series", "kind", "N", "ranks", "gpus", "threads"] + size_cols + time_cols
            + ["speedup", "efficiency", "line"])
    print_table(rows, cols)
    for d in dropped + left_out:
        print(f"note: {d}")
    print(f"device: {dev}, {date}; wrote {prefix}.csv and {prefix}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
