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
so and writes the tables only."""
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

LAYOUTS = ("checkerboard", "sliced", "msc")  # table and chart order; others follow by name
COLS = ["variant", "ranks", "gpus", "L", "layout", "ps_per_flip", "msgs_per_sweep", "bytes_per_sweep", "verify"]


def layout_key(name):
    """Sort key of a layout: LAYOUTS' order, then any other by name."""
    return (LAYOUTS.index(name), "") if name in LAYOUTS else (len(LAYOUTS), name)


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
    a = ap.parse_args(argv)
    stem = os.path.basename(a.data[0])
    name = a.name or (stem[:-6] if stem.endswith(".jsonl") else stem)
    out = os.path.join(labargs.outdir(a.outdir), name)
    cols = COLS + (["fraction_of_ceiling", "ceiling_GBs"] if a.ceiling else [])
    rows = []
    for line in (x for path in a.data for x in open(path)):
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
                     "ceiling_GBs": round(r["ceiling_GBs"], 1)})
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
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        keys = sorted({(r["variant"], r["ranks"], r["L"]) for r in rows})
        layouts = sorted({r["layout"] for r in rows}, key=layout_key)
        bw = 0.8 / len(layouts)
        fig, ax = plt.subplots(figsize=(8, 4))
        for j, layout in enumerate(layouts):
            vals = [next((r["ps_per_flip"] for r in rows if (r["variant"], r["ranks"], r["L"]) == k
                          and r["layout"] == layout), 0) for k in keys]
            ax.bar([i + bw * j for i in range(len(keys))], vals, width=bw, label=layout)
        ax.set_xticks([i + bw * (len(layouts) - 1) / 2 for i in range(len(keys))])
        ax.set_xticklabels([f"{v}\n{n} rank(s)\n{L}" for v, n, L in keys], fontsize=7)
        ax.set_ylabel("ps per flip attempt (lower is better)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out + ".png", dpi=120)
        plt.close(fig)
        wrote.append(out + ".png")
    print("wrote " + " and ".join(labargs.rel(w) for w in wrote))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
