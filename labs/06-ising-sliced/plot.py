#!/usr/bin/env python3
"""plot.py JSONL [--png FILE] [--csv FILE] [--ceiling]: lab 06's table (and bar chart when
matplotlib is installed) of the layouts against each other (checkerboard, sliced and msc, the
sliced layout multi-spin coded, as far as the data has them): picoseconds per flip attempt,
MPI messages and bytes per sweep (summed over ranks), for every (variant, ranks, L) in the
JSON lines that ising_sweep.sh wrote. Rows of one (variant, ranks, L) list the layouts in
that order; rows with the same key keep the file's order. --ceiling adds the record's
fraction_of_ceiling (its bytes model, 4 bytes per flip attempt or 9/8 for msc, as bandwidth
over the device triad x GPUs) and ceiling_GBs as the last two columns."""
import argparse
import csv
import json

LAYOUTS = ("checkerboard", "sliced", "msc")  # table and chart order; others follow by name
COLS = ["variant", "ranks", "gpus", "L", "layout", "ps_per_flip", "msgs_per_sweep", "bytes_per_sweep", "verify"]


def layout_key(name):
    """Sort key of a layout: LAYOUTS' order, then any other by name."""
    return (LAYOUTS.index(name), "") if name in LAYOUTS else (len(LAYOUTS), name)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("jsonl")
    ap.add_argument("--png")
    ap.add_argument("--csv")
    ap.add_argument("--ceiling", action="store_true",
                    help="add the columns fraction_of_ceiling and ceiling_GBs")
    a = ap.parse_args()
    cols = COLS + (["fraction_of_ceiling", "ceiling_GBs"] if a.ceiling else [])
    rows = []
    for line in open(a.jsonl):
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
    rows.sort(key=lambda x: (x["variant"], x["ranks"], x["L"], layout_key(x["layout"])))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols))
    if a.png:
        import matplotlib
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
        fig.savefig(a.png, dpi=120)


if __name__ == "__main__":
    main()
