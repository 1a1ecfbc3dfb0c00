#!/usr/bin/env python3
"""plot.py [--data JSONL ...] [--outdir DIR] [--name NAME] [--ceiling] [--no-png]: lab 06's
table (and bar chart when matplotlib is installed) of the layouts against each other (checkerboard, sliced and msc, the
sliced layout multi-spin coded, as far as the data has them): picoseconds per flip attempt,
MPI messages and bytes per sweep (summed over ranks), for every (variant, ranks, L) in the
JSON lines that ising_sweep.sh wrote. Rows of one (variant, ranks, L) list the layouts in
that order; rows with the same key keep the file's order. --ceiling adds the record's
fraction_of_ceiling (its bytes model, 4 bytes per flip attempt or 9/8 for msc, as bandwidth
over the device triad x GPUs) and ceiling_GBs as the last two columns.

Writes NAME.csv and NAME.png (NAME: the first file without .jsonl) into --outdir (default
labs/out/06-ising-sliced/, made if missing; `--outdir labs/06-ising-sliced` refreshes the
committed copies). Without --data: every table and chart this lab ships (SHIPPED), each as
its README command makes it. Needs only the standard library; without matplotlib it says
so and writes the tables only.

The chart's title names the device(s) and the date of the data: --date, else a timestamp
field of the lines (`time`, `date`, `started`, `timestamp`), else the YYYY-MM-DD in the data's
folder name (labs/data/h100-2026-11-23/), else "date not recorded" (never the file's
modification date). Each layout has its colour and its
hatch; the axis shows plain numbers (no offset such as 1e6). Flagged bars carry a marker
above them, with a legend entry: runs whose verification did not pass (SKIPPED: --no-verify)
and oversubscribed runs (ranks x threads > the machine's cores: --cores, else the folder's
name as cpu-2core-DATE or the first line of its README.md; unknown: not checked)."""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

# The committed tables (and charts) and the options of their README commands.
_D = os.path.join(ROOT, "labs", "data")
SHIPPED = [
    (["h100-2026-11-23/ising.jsonl"], "h100-2026-11-23", []),
    (["h200-2026-11-23/ising-c8346b8.jsonl"], "h200-c8346b8", []),
    (["h200-2026-11-23/ising-large-cffdaba.jsonl"], "h200-large-cffdaba", ["--no-png"]),
    (["h200-2026-11-24/ising-large-dbb58de.jsonl"], "h200-large-dbb58de", ["--no-png"]),
    (["h200-2026-11-24/ising-large-octets-3502cff.jsonl"], "h200-large-3502cff", ["--no-png"]),
    (["h200-2026-11-24/ising-large-octets-87a451a.jsonl"], "h200-large-87a451a", ["--no-png"]),
    (["h200-2026-11-24/ising-large-octets-17511e1.jsonl"], "h200-large-17511e1", ["--no-png"]),
    (["h200-2026-11-24/ising-large-msc-052a879.jsonl"], "h200-large-052a879", ["--ceiling", "--no-png"]),
    (["h200x2-2026-11-24/ising-dual-1047b46.jsonl"], "h200x2-1047b46", ["--ceiling", "--no-png"]),
    (["h200x2-2026-11-24/ising-dual-msc-7cef646.jsonl"], "h200x2-7cef646", ["--ceiling", "--no-png"]),
]

# The figure's date and the machine's cores: labargs.record_date, path_date, path_cores.
from labargs import path_cores, path_date, record_date  # noqa: E402


LAYOUTS = ("checkerboard", "sliced", "msc")  # table and chart order; others follow by name
COLS = ["variant", "ranks", "gpus", "L", "layout", "ps_per_flip", "msgs_per_sweep", "bytes_per_sweep", "verify"]


def layout_key(name):
    """Sort key of a layout: LAYOUTS' order, then any other by name."""
    return (LAYOUTS.index(name), "") if name in LAYOUTS else (len(LAYOUTS), name)


HATCHES = {"checkerboard": "", "sliced": "//", "msc": ".."}
FLAGS = [("oversubscribed", "o", "black", "oversubscribed: ranks x threads > {cores} cores"),
         ("unverified", "s", "#b000b0", "verification not PASSED (SKIPPED: --no-verify)")]


def lattice(L):
    """'512x512x512' as 'L = 512'; other shapes as they are."""
    sides = L.split("x")
    return f"L = {sides[0]}" if len(set(sides)) == 1 else L


def hatch_of(layout, j):
    return HATCHES.get(layout, ["xx", "\\\\", "++"][j % 3])


def chart(rows, png, date=None):
    """The bar chart of ROWS: ps per flip attempt per (variant, ranks, L), a bar per layout."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    keys = sorted({(r["variant"], r["ranks"], r["L"]) for r in rows})
    layouts = sorted({r["layout"] for r in rows}, key=layout_key)
    bw = 0.8 / len(layouts)
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(keys) + 3.5), 4.6))
    top = max(r["ps_per_flip"] for r in rows)
    flagged = {f: [] for f, *_ in FLAGS}
    handles = []
    for j, layout in enumerate(layouts):
        colour = f"C{j % 10}"
        for i, k in enumerate(keys):  # a missing run is no bar (not a bar of 0)
            r = next((r for r in rows if (r["variant"], r["ranks"], r["L"]) == k and r["layout"] == layout), None)
            if r is None:
                continue
            x = i + bw * j
            ax.bar(x, r["ps_per_flip"], width=bw, color=colour, edgecolor="white", linewidth=0.5,
                   hatch=hatch_of(layout, j))
            y = r["ps_per_flip"] + 0.04 * top
            for f, *_ in FLAGS:
                if r["_" + f]:
                    flagged[f].append((x, y))
                    y += 0.07 * top
        handles.append(Patch(facecolor=colour, edgecolor="white", hatch=hatch_of(layout, j), label=layout))
    for f, marker, colour, label in FLAGS:
        if flagged[f]:
            ax.plot([x for x, _ in flagged[f]], [y for _, y in flagged[f]], ls="none", marker=marker, ms=8,
                    mfc="none", mec=colour, mew=1.5, clip_on=False)
            cores = "/".join(str(c) for c in sorted({r["_cores"] for r in rows if r["_" + f] and r["_cores"]}))
            handles.append(Line2D([], [], ls="none", marker=marker, ms=8, mfc="none", mec=colour, mew=1.5,
                                  label=label.format(cores=cores)))
    ax.set_xticks([i + bw * (len(layouts) - 1) / 2 for i in range(len(keys))])
    ax.set_xticklabels([f"{v}\n{n} rank{'s' if n > 1 else ''}\n{lattice(L)}" for v, n, L in keys], fontsize=8)
    ax.set_ylabel("ps per flip attempt (lower is better)")
    # Plain numbers, thousands grouped: no offset or scientific notation (1e6) to decode.
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 100 else f"{v:g}"))
    ax.set_ylim(0, top * (1.18 + 0.07 * sum(1 for f in flagged.values() if f)))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    devices = " / ".join(sorted({r["_device"] for r in rows}))
    gpus = max(r["gpus"] for r in rows)
    where = f"{devices}" + (f", up to {gpus} GPU{'s' if gpus > 1 else ''}" if gpus else ", CPU")
    dates = sorted({r["_date"] for r in rows if r["_date"]})
    when = date or " and ".join(dates) or "date not recorded (give --date)"
    # (no commit: the lines' git field can name an outer checkout, labs/data/h200-2026-11-23/README.md)
    ax.set_title(f"ising: the layouts per variant, ranks and lattice\n{where}, {when}", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)


def main(argv):
    if not labargs.data_given(argv) and not any(x in ("-h", "--help") for x in argv):
        worst = 0
        for files, name, opts in SHIPPED:  # the options given come last and win
            print(f"== {name}", flush=True)
            worst = max(worst, main(["--data"] + [os.path.join(_D, f) for f in files] + ["--name", name]
                                    + opts + argv))
        return worst
    ap = labargs.parser(__file__, [], description=__doc__.split("\n\n")[0], data_help="JSON lines of ising_sweep.sh")
    ap.add_argument("--name", help="writes NAME.csv and NAME.png [the first file without .jsonl]")
    ap.add_argument("--ceiling", action="store_true",
                    help="add the columns fraction_of_ceiling and ceiling_GBs")
    ap.add_argument("--no-png", action="store_true", help="the table only")
    ap.add_argument("--date", help="date of the data for the chart's title [a timestamp field of the lines, else "
                    "the YYYY-MM-DD in the data's folder name]")
    ap.add_argument("--cores", type=int, help="cores of the machine, to mark oversubscribed runs (ranks x threads "
                    "> cores) [the folder's name, cpu-2core-DATE, or its README.md; unknown: no check]")
    a = ap.parse_args(argv)
    stem = os.path.basename(a.data[0])
    name = a.name or (stem[:-6] if stem.endswith(".jsonl") else stem)
    out = os.path.join(labargs.outdir(a.outdir), name)
    cols = COLS + (["fraction_of_ceiling", "ceiling_GBs"] if a.ceiling else [])
    rows = []
    for path, line in ((path, x) for path in a.data for x in open(path)):
        if not line.strip():
            continue
        r = json.loads(line)
        if r["app"] != "ising":
            continue
        p = r["params"]
        rows.append({"variant": r["variant"], "ranks": r["ranks"], "gpus": r["gpus"],
                     "L": f"{p['lx']}x{p['ly']}x{p['lz']}", "layout": p["layout"],
                     "ps_per_flip": round(r["fom"]["value"], 3),
                     "msgs_per_sweep": r["messages"]["per_step"], "bytes_per_sweep": r["messages"]["bytes_per_step"],
                     "verify": r["verify"]["status"],
                     "fraction_of_ceiling": round(r["fraction_of_ceiling"], 4),
                     "ceiling_GBs": round(r["ceiling_GBs"], 1),
                     # for the chart only (not in the table)
                     "_device": r["device"], "_date": record_date(r) or path_date(path),
                     "_unverified": r["verify"]["status"] != "PASSED", "_cores": a.cores or path_cores(path)})
        rows[-1]["_oversubscribed"] = bool(rows[-1]["_cores"]) and \
            r["ranks"] * max(r.get("threads") or 1, 1) > rows[-1]["_cores"]
    if not rows:
        print(f"plot.py: no ising line in {' '.join(a.data)}", file=sys.stderr)
        return 1
    rows.sort(key=lambda x: (x["variant"], x["ranks"], x["L"], layout_key(x["layout"])))
    with open(out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols))
    wrote = [out + ".csv"]
    try:
        import matplotlib
    except ImportError:
        matplotlib = None
        if not a.no_png:
            print("plot.py: matplotlib is missing (labs/setup.sh installs it): no chart, the table only")
    if matplotlib and not a.no_png:
        chart(rows, out + ".png", a.date)
        wrote.append(out + ".png")
    print("wrote " + " and ".join(labargs.rel(w) for w in wrote))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
