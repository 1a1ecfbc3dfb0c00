#!/usr/bin/env python3
"""summarize.py JSONL [--csv FILE]: one table row per kit.result/1 line (app, variant,
ranks, GPUs, size, CPU fraction, steps per repetition, min/median/max seconds per
repetition, figure of merit, GB/s, fraction of the ceiling measured in the same run,
verification). A `comm` column (params.comm: the --comm transport) is added only when some
line used one other than host; a `halo` column (params.halo: lbm's copies, pack, cuda-aware, or peer for
multi-thread) is added only when some line has one; a multi-thread line with params.halo
and no params.p2p (lbm) shows its halo mode under p2p. Standard library only."""
import argparse
import csv
import json
import sys

COLS = ["app", "variant", "ranks", "gpus", "size", "cpu_frac", "p2p", "omp_wait", "steps", "min_s", "median_s",
        "max_s", "fom", "GB/s", "ceiling", "frac", "verify", "device"]

def row(r):
    p = r.get("params", {})
    size = "x".join(str(p[k]) for k in ("nx", "ny", "nz") if k in p) or str(p.get("mesh", p.get("scale", "")))
    if p.get("shuffle"):
        size += " shuffled" + (" " + p["reorder"] if p.get("reorder") not in (None, "none") else "")
    cf = r.get("cpu_fraction")
    return {
        "app": r["app"], "variant": r["variant"], "ranks": r["ranks"], "gpus": r["gpus"],
        "size": size, "cpu_frac": "" if cf is None else f"{cf:.4f}",
        "p2p": "" if r["variant"] != "multi-thread" else
               (p["halo"] if "p2p" not in p and p.get("halo") else ("on" if p.get("p2p") else "off")),
        "halo": p.get("halo", ""),
        "comm": p.get("comm", ""),
        "omp_wait": p.get("omp_wait_policy", "") if r["variant"] == "hybrid" else "",
        "steps": r["time_s"].get("steps", ""),
        "min_s": f"{r['time_s']['min']:.6f}",
        "median_s": f"{r['time_s']['median']:.6f}",
        "max_s": f"{r['time_s']['max']:.6f}",
        "fom": f"{r['fom']['value']:.4g} {r['fom']['unit']}",
        "GB/s": f"{r['bandwidth_GBs']:.1f}", "ceiling": f"{r['ceiling_GBs']:.1f}",
        "frac": f"{100 * r['fraction_of_ceiling']:.1f}%", "verify": r["verify"]["status"],
        "device": r["device"],
    }

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl")
    ap.add_argument("--csv")
    a = ap.parse_args()
    try:
        with open(a.jsonl) as f:
            rows = [row(json.loads(l)) for l in f if l.strip()]
    except OSError as e:  # e.g. a GPU sweep's output on a machine where every run skipped
        sys.exit(f"summarize.py: cannot read {a.jsonl}: {e.strerror} (no run wrote it?)")
    except (ValueError, KeyError) as e:
        sys.exit(f"summarize.py: {a.jsonl} is not kit.result/1 JSON lines: {e}")
    all_cols = list(COLS)
    if any(r["halo"] for r in rows):
        all_cols.insert(all_cols.index("p2p") + 1, "halo")
    if any(r["comm"] not in ("", "host") for r in rows):  # some run moved halos over another transport
        all_cols.insert(all_cols.index("p2p") + 1, "comm")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=all_cols, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
    cols = all_cols[:-1]
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) if rows else len(c) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in cols))
    if rows:
        print("device: " + ", ".join(sorted({r["device"] for r in rows})))

if __name__ == "__main__":
    sys.exit(main())
