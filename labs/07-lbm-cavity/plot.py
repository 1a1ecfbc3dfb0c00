#!/usr/bin/env python3
"""plot.py [--data DIR] [--outdir OUT] [--date TEXT] [--dual]: lab 07 (the lbm lid-driven cavity).

DIR is a folder of lbm runs (default: labs/data/h200-2026-11-23, the bundled H200 data) that
holds what labs/scripts/lbm_sweep.sh writes:

  *.jsonl                 kit.result/1 lines (docs/output-schema.md) of app lbm
  cavity*.csv             centre-line profiles (--profile), columns line,source,s,velocity
  ceilings.txt            the kit's ceiling cache (device and host triads), optional

and writes into OUT (default labs/out/07-lbm-cavity/, made if missing; `--outdir
labs/07-lbm-cavity` refreshes the committed copies)

  lbm_performance.csv     one row per timed run (not the --until-steady ones): variant, size,
                          GPUs, GLUP/s, GB/s, the fraction of the device triad, the fraction of
                          the ceiling the app reported (hybrid's ceiling adds the host triad),
                          and the 80% target 0.8 x triad / 304 B
  lbm_performance.png     GLUP/s per variant and size against the triad bound and the 80% line
  lbm_halo.csv            one row per timed GPU run on several ranks (lbm_sweep.sh halo, dual):
                          variant, --halo, size, ranks, GPUs, ms per step, MPI messages and
                          bytes per step, and the profiled pass's exchange phases in us per
                          step (naive: exchange = halo_out + mpi + halo_in on the host; two-stream:
                          halo_out and halo_in are GPU ranges on the boundary stream)
  cavity_errors.csv       one row per Re = 1000 cavity run: steps to steady, the AK2005
                          errors the app reported, the same errors recomputed here from the
                          profile CSV (a check on both), and the observed order of convergence
                          between consecutive resolutions at the same lid velocity
  cavity_profiles.png     ux(z) on the vertical centre line and uz(x) on the horizontal one,
                          every profile CSV against the Albensoeder & Kuhlmann (2005) points,
                          and the pointwise error at those points

With --dual, DIR holds two-GPU runs (lbm_sweep.sh dual; default labs/data/h200x2-2026-11-24)
and only this is written, nothing else:

  lbm_dual.csv            one row per timed GPU run: its kind (T1: two-stream's one-GPU run,
                          the baseline of every variant; weak: the two-GPU run's size per GPU
                          is T1's; strong: its total is T1's), ms per step, GLUP/s in total,
                          GB/s, the record's fraction of its ceiling (device triad x GPUs),
                          T1, speed-up (strong T1/T2, weak 2 T1/T2) and efficiency (strong
                          T1/(2 T2), weak T1/T2), MPI messages and bytes per step, and the
                          profiled pass's phases in us per step (two-stream's chain =
                          boundary + halo_out + mpi + halo_in)

The title names the device in the JSON lines and the date: --date, else a YYYY-MM-DD in the
folder name, else today. Without --data (and without --dual) the script does both: the
bundled one-GPU folder, then the two-GPU one with --dual. Standard library + matplotlib (the
CSVs are written without it).
"""
import csv
import datetime
import glob
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import labargs  # noqa: E402

DEFAULT = os.path.normpath(os.path.join(HERE, "..", "data", "h200-2026-11-23"))
DUAL_DEFAULT = os.path.normpath(os.path.join(HERE, "..", "data", "h200x2-2026-11-24"))
BYTES_PER_CELL = 304.0   # two lattices, 19 doubles read and 19 written (miniapps/lbm/README.md)
WALL_BAND = 0.06         # miniapps/lbm/verify.h LBM_AK_WALL_BAND: "interior" points
AK_TOL = 0.03            # miniapps/lbm/verify.c AK_TOL_INTERIOR, AK_TOL_EXTREMA (x U)
# The published extrema the app compares with (ak2005.h, in our frame): ux(z) min; uz(x) max, min.
AK_EXT = {"ux_along_z": (-0.27293, None), "uz_along_x": (-0.43423, 0.24407)}

PERF_COLS = ["variant", "halo", "size", "ranks", "gpus", "cpu_fraction", "steps", "reps", "time_per_step_ms",
             "mlups", "glups", "bandwidth_GBs", "device_triad_GBs", "fraction_of_device_triad",
             "ceiling_GBs", "fraction_of_ceiling_reported", "bound_glups", "target_glups_80pct",
             "oracle", "verify", "device"]
HALO_PHASES = ["exchange", "halo_out", "mpi", "halo_in", "wait_boundary", "boundary", "bulk", "gpu_compute"]
HALO_COLS = (["variant", "halo", "size", "ranks", "gpus", "time_per_step_ms", "messages_per_step",
              "bytes_per_step"] + [f"{ph}_us" for ph in HALO_PHASES] + ["oracle", "verify", "device"])
DUAL_PHASES = ["compute", "gpu_compute", "exchange", "halo_out", "mpi", "halo_in", "boundary", "bulk",
               "wait_boundary", "step"]
DUAL_COLS = (["kind", "variant", "halo", "size", "size_per_gpu", "ranks", "gpus", "threads", "steps", "reps",
              "time_per_step_ms", "glups", "bandwidth_GBs", "device_triad_GBs", "ceiling_GBs",
              "fraction_of_ceiling", "t1_ms", "speedup", "efficiency", "messages_per_step", "bytes_per_step"]
             + [f"{ph}_us" for ph in DUAL_PHASES] + ["chain_us", "oracle", "mass", "mirror_symmetry", "verify",
                                                     "device", "git"])
CAV_COLS = ["size", "lid_velocity", "mach", "tau", "steps_to_steady", "time_s", "glups",
            "ak2005_max_err", "ak2005_rms_err", "ak2005_max_err_interior", "ak2005_extrema_err",
            "recomputed_max_err", "recomputed_interior_err", "recomputed_extrema_err",
            "order_max_vs_prev", "order_rms_vs_prev", "order_interior_vs_prev", "order_extrema_vs_prev",
            "ak2005_profiles", "mass", "mirror_symmetry", "steady_state", "verify", "profile_csv"]


def load_jsonl(folder):
    recs = []
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"plot.py: {path}:{n}: not JSON ({e})")
                if r.get("schema") == "kit.result/1" and r.get("app") == "lbm":
                    recs.append(r)
    return recs


def device_triad(folder, recs):
    """The device triad of the run: from ceilings.txt, else from a GPU-only record."""
    path = os.path.join(folder, "ceilings.txt")
    if os.path.exists(path):
        for line in open(path):
            if line.startswith("device-triad:"):
                return float(line.split("\t")[-1])
    for r in recs:
        if r.get("ceiling_source", "").startswith("device triad") and r["gpus"] > 0:
            return r["ceiling_GBs"] / r["gpus"]
    return None


def check(r, name):
    return next((c["status"] for c in r["verify"].get("checks", []) if c["name"] == name), "")


def size_of(p):
    return f"{p['nx']}^3" if p["nx"] == p["ny"] == p["nz"] else f"{p['nx']}x{p['ny']}x{p['nz']}"


def perf_rows(recs, triad):
    rows = []
    for r in recs:
        p = r["params"]
        if p.get("until_steady") or r["gpus"] == 0 and r["variant"] != "cpu":
            continue
        t = r["time_s"]
        steps = t.get("steps") or p["steps"]
        cells = p["nx"] * p["ny"] * p["nz"]
        tri = triad * r["gpus"] if triad and r["gpus"] else None
        bound = tri / BYTES_PER_CELL if tri else None
        rows.append({
            "variant": r["variant"], "halo": p.get("halo", ""), "size": size_of(p), "ranks": r["ranks"],
            "gpus": r["gpus"],
            "cpu_fraction": "" if r.get("cpu_fraction") is None else r["cpu_fraction"],
            "steps": steps, "reps": t.get("reps", ""),
            "time_per_step_ms": round(1e3 * t["median"] / steps, 5),
            "mlups": round(cells * steps / t["median"] * 1e-6, 1),
            "glups": round(cells * steps / t["median"] * 1e-9, 3),
            "bandwidth_GBs": round(r["bandwidth_GBs"], 1),
            "device_triad_GBs": round(tri, 1) if tri else "",
            "fraction_of_device_triad": round(r["bandwidth_GBs"] / tri, 4) if tri else "",
            "ceiling_GBs": round(r["ceiling_GBs"], 1),
            "fraction_of_ceiling_reported": round(r["fraction_of_ceiling"], 4),
            "bound_glups": round(bound, 2) if bound else "",
            "target_glups_80pct": round(0.8 * bound, 2) if bound else "",
            "oracle": check(r, "oracle"), "verify": r["verify"]["status"], "device": r["device"],
        })
    order = {"naive": 0, "two-stream": 1, "hybrid": 2, "multi-thread": 3, "cpu": 4}
    rows.sort(key=lambda x: (x["gpus"], int(x["size"].split("^")[0].split("x")[0]), order.get(x["variant"], 9),
                             x["ranks"], x["halo"]))
    return rows


HALO_ORDER = {"copies": 0, "pack": 1, "cuda-aware": 2}


def halo_rows(recs):
    """The --halo comparison: timed GPU runs on more than one rank (Risso Sec. 4.2)."""
    rows = []
    for r in recs:
        p = r["params"]
        if p.get("until_steady") or r["gpus"] == 0 or r["ranks"] < 2:
            continue
        t, ph, msg = r["time_s"], r.get("phases", {}), r.get("messages", {})
        steps = t.get("steps") or p["steps"]
        row = {"variant": r["variant"], "halo": p.get("halo", ""), "size": size_of(p), "ranks": r["ranks"],
               "gpus": r["gpus"], "time_per_step_ms": round(1e3 * t["median"] / steps, 5),
               "messages_per_step": msg.get("per_step", ""), "bytes_per_step": msg.get("bytes_per_step", ""),
               "oracle": check(r, "oracle"), "verify": r["verify"]["status"], "device": r["device"]}
        for name in HALO_PHASES:
            row[f"{name}_us"] = round(1e6 * ph[name], 2) if name in ph else ""
        rows.append(row)
    rows.sort(key=lambda x: (x["gpus"], x["size"], x["variant"], HALO_ORDER.get(x["halo"], 9)))
    return rows


DUAL_KIND = {"T1": 0, "weak": 1, "strong": 2}
DUAL_VARIANT = {"naive": 0, "two-stream": 1, "hybrid": 2, "multi-thread": 3}
DUAL_HALO = {"copies": 0, "peer": 0, "pack": 1, "cuda-aware": 2}


def dual_rows(recs, triad):
    """One GPU against two: T1 is two-stream's one-GPU run (the dual sweep runs no other one-GPU
    variant); a two-GPU run is weak when its size per GPU (nz / GPUs) is T1's, strong when its
    total is. Runs that are neither, or without a T1, are left out with a note."""
    timed = [r for r in recs if not r["params"].get("until_steady") and r["gpus"] > 0]
    dims = lambda p: (p["nx"], p["ny"], p["nz"])
    t1s = [r for r in timed if r["gpus"] == 1 and r["ranks"] == 1 and r["variant"] == "two-stream"]
    rows, notes = [], []
    for r in timed:
        p, t, ph, msg = r["params"], r["time_s"], r.get("phases", {}), r.get("messages", {})
        steps = t.get("steps") or p["steps"]
        same = lambda c: (c["params"].get("case") == p.get("case") and c["params"].get("precision") == p.get("precision")
                          and (c["time_s"].get("steps") or c["params"]["steps"]) == steps and c["device"] == r["device"])
        base = [c for c in t1s if same(c)]
        n = r["gpus"]
        per_gpu = (p["nx"], p["ny"], p["nz"] // n) if p["nz"] % n == 0 else None
        kind, t1 = None, None
        if r in base:
            kind, t1 = "T1", r
        elif n == 2:
            for c in base:  # the last line wins
                if dims(c["params"]) == dims(p):
                    kind, t1 = "strong", c
                elif dims(c["params"]) == per_gpu:
                    kind, t1 = "weak", c
        if kind is None:
            notes.append(f"{r['variant']} {size_of(p)} on {n} GPU(s), {r['ranks']} rank(s): "
                         + ("no two-stream one-GPU run of the same size or size per GPU" if n == 2
                            else "neither the one-GPU two-stream baseline nor a two-GPU run"))
            continue
        tn = t["median"] / steps
        t1n = t1["time_s"]["median"] / (t1["time_s"].get("steps") or t1["params"]["steps"])
        if kind == "strong":
            sp, eta = t1n / tn, t1n / (n * tn)
        elif kind == "weak":
            sp, eta = n * t1n / tn, t1n / tn
        else:
            sp, eta = 1.0, 1.0
        cells = p["nx"] * p["ny"] * p["nz"]
        row = {"kind": kind, "variant": r["variant"], "halo": p.get("halo", ""), "size": size_of(p),
               "size_per_gpu": size_of(dict(nx=p["nx"], ny=p["ny"], nz=p["nz"] // n)) if per_gpu else "",
               "ranks": r["ranks"], "gpus": n, "threads": r["threads"], "steps": steps, "reps": t.get("reps", ""),
               "time_per_step_ms": round(1e3 * tn, 5), "glups": round(cells * steps / t["median"] * 1e-9, 3),
               "bandwidth_GBs": round(r["bandwidth_GBs"], 1),
               "device_triad_GBs": round(triad * n, 2) if triad else "",
               "ceiling_GBs": round(r["ceiling_GBs"], 1), "fraction_of_ceiling": round(r["fraction_of_ceiling"], 4),
               "t1_ms": round(1e3 * t1n, 5), "speedup": round(sp, 4), "efficiency": round(eta, 4),
               "messages_per_step": msg.get("per_step", ""), "bytes_per_step": msg.get("bytes_per_step", ""),
               "oracle": check(r, "oracle"), "mass": check(r, "mass"), "mirror_symmetry": check(r, "mirror_symmetry"),
               "verify": r["verify"]["status"], "device": r["device"], "git": r.get("git", "")}
        for name in DUAL_PHASES:
            row[f"{name}_us"] = round(1e6 * ph[name], 2) if name in ph else ""
        chain = ("boundary", "halo_out", "mpi", "halo_in")
        row["chain_us"] = (round(1e6 * sum(ph[c] for c in chain), 2)
                           if r["variant"] == "two-stream" and n > 1 and all(c in ph for c in chain) else "")
        rows.append(row)
    rows.sort(key=lambda x: (DUAL_KIND[x["kind"]], DUAL_HALO.get(x["halo"], 9),
                             DUAL_VARIANT.get(x["variant"], 9), x["ranks"]))
    return rows, notes


def load_profile(path):
    """{line: {source: ([s], [v])}} and the header comment."""
    d, head = {}, ""
    with open(path) as f:
        lines = []
        for line in f:
            if line.startswith("#"):
                head = head or line[1:].strip()
            else:
                lines.append(line)
    for r in csv.DictReader(lines):
        s, v = d.setdefault(r["line"], {}).setdefault(r["source"], ([], []))
        s.append(float(r["s"]))
        v.append(float(r["velocity"]))
    return d, head


def profile_at(s, v, wall0, wall1, s0):
    """Linear interpolation with the wall values at s = 0 and 1 (verify.c lbm_profile_at)."""
    n = len(s)
    if s0 <= s[0]:
        return wall0 + (v[0] - wall0) * (s0 / s[0])
    if s0 >= s[-1]:
        return v[-1] + (wall1 - v[-1]) * ((s0 - s[-1]) / (1.0 - s[-1]))
    m = 0
    while m + 1 < n - 1 and s[m + 1] < s0:
        m += 1
    return v[m] + (v[m + 1] - v[m]) * ((s0 - s[m]) / (s[m + 1] - s[m]))


def errors(prof):
    """Pointwise errors at the interior reference points, as verify.c lbm_ak2005_compare."""
    out = {"points": {}, "max": 0.0, "interior": 0.0, "extrema": 0.0}
    for line, wall1 in (("ux_along_z", 1.0), ("uz_along_x", 0.0)):
        s, v = prof[line]["lbm"]
        n = len(s)
        s = [(m + 0.5) / n for m in range(n)]  # the cell centres, unrounded
        rs, rv = prof[line]["albensoeder_kuhlmann_2005"]
        pts = []
        for s0, ref in list(zip(rs, rv))[1:-1]:  # the end points are the walls themselves
            d = profile_at(s, v, 0.0, wall1, s0) - ref
            pts.append((s0, d))
            out["max"] = max(out["max"], abs(d))
            if WALL_BAND <= s0 <= 1.0 - WALL_BAND:
                out["interior"] = max(out["interior"], abs(d))
        lo, hi = AK_EXT[line]
        e = abs(min(v) - lo)
        if hi is not None:
            e = max(e, abs(max(v) - hi))
        out["extrema"] = max(out["extrema"], e)
        out["points"][line] = pts
    return out


def header_n_u(head):
    m = re.search(r"(\d+) x (\d+) x (\d+) cells, Re ([\d.e+-]+), U ([\d.e+-]+)", head)
    return (int(m.group(1)), float(m.group(5)), float(m.group(4))) if m else (None, None, None)


def cavity_rows(recs, profiles):
    rows = []
    for r in recs:
        p, res = r["params"], r.get("results", {})
        if p.get("case") != "cavity" or "ak2005_max_err" not in res or not p.get("until_steady"):
            continue
        n, u = p["nx"], p["velocity"]
        prof = next((pp for pp in profiles if pp["n"] == n and abs(pp["u"] - u) < 1e-12), None)
        e = errors(prof["data"]) if prof else None
        steps = res.get("steps_to_steady", p["steps"])
        rows.append({
            "size": size_of(p), "lid_velocity": u, "mach": round(u * math.sqrt(3.0), 4),
            "tau": p["tau"], "steps_to_steady": steps, "time_s": round(r["time_s"]["median"], 3),
            "glups": round(p["nx"] * p["ny"] * p["nz"] * steps / r["time_s"]["median"] * 1e-9, 3),
            "ak2005_max_err": round(res["ak2005_max_err"], 5), "ak2005_rms_err": round(res["ak2005_rms_err"], 5),
            "ak2005_max_err_interior": round(res["ak2005_max_err_interior"], 5),
            "ak2005_extrema_err": round(res["ak2005_extrema_err"], 5),
            "recomputed_max_err": round(e["max"], 5) if e else "",
            "recomputed_interior_err": round(e["interior"], 5) if e else "",
            "recomputed_extrema_err": round(e["extrema"], 5) if e else "",
            "ak2005_profiles": check(r, "ak2005_profiles"), "mass": check(r, "mass"),
            "mirror_symmetry": check(r, "mirror_symmetry"), "steady_state": check(r, "steady_state"),
            "verify": r["verify"]["status"], "profile_csv": os.path.basename(prof["path"]) if prof else "",
            "_n": n,
        })
    rows.sort(key=lambda x: (x["lid_velocity"], x["_n"]))
    for a, b in zip(rows, rows[1:]):  # observed order p = ln(e_a / e_b) / ln(n_b / n_a)
        if a["lid_velocity"] != b["lid_velocity"]:
            continue
        for key, col in (("ak2005_max_err", "max"), ("ak2005_rms_err", "rms"),
                         ("ak2005_max_err_interior", "interior"), ("ak2005_extrema_err", "extrema")):
            ea, eb = a[key], b[key]
            if ea > 0 and eb > 0 and math.isfinite(ea) and math.isfinite(eb):
                b[f"order_{col}_vs_prev"] = round(math.log(ea / eb) / math.log(b["_n"] / a["_n"]), 2)
    return rows


def write_csv(path, cols, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def show(cols, rows):
    width = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in cols}
    print("  ".join(c.ljust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r.get(c, "")).ljust(width[c]) for c in cols))


def main(argv):
    if not labargs.data_given(argv) and not any(x in ("-h", "--help") for x in argv):
        # The bundled data: the one-GPU folder (unless only --dual was asked for), then the two-GPU one.
        if "--dual" not in argv:
            main(["--data", DEFAULT] + argv)
            print()
        return main(["--data", DUAL_DEFAULT, "--dual"] + [x for x in argv if x != "--dual"])
    ap = labargs.parser(__file__, [DEFAULT], description=__doc__, nargs=1,
                        formatter_class=labargs.argparse.RawDescriptionHelpFormatter,
                        data_help="folder of lbm JSON lines and profile CSVs")
    ap.add_argument("--date")
    ap.add_argument("--dual", action="store_true",
                    help="DIR holds two-GPU runs: write lbm_dual.csv only (one GPU against two)")
    a = ap.parse_args(argv)
    folder = os.path.normpath(a.data[0])
    if not os.path.isdir(folder):
        sys.exit(f"plot.py: {folder}: not a folder (give the folder of the JSON lines and profile CSVs)")
    outdir = a.outdir
    recs = load_jsonl(folder)
    if not recs:
        sys.exit(f"plot.py: no lbm kit.result/1 lines in {folder}/*.jsonl")
    failed = [r for r in recs if r["verify"]["status"] == "FAILED"]
    if failed:
        print(f"plot.py: left out {len(failed)} run(s) whose verification FAILED", file=sys.stderr)
        recs = [r for r in recs if r["verify"]["status"] != "FAILED"]
    triad = device_triad(folder, recs)
    devices = sorted({r["device"] for r in recs})
    if a.dual:
        dual, notes = dual_rows(recs, triad)
        if not dual or not any(r["gpus"] == 2 for r in dual):
            sys.exit(f"plot.py: --dual: no two-GPU lbm run with a one-GPU two-stream baseline in {folder}")
        labargs.outdir(outdir)
        write_csv(os.path.join(outdir, "lbm_dual.csv"), DUAL_COLS, dual)
        show(["kind", "variant", "halo", "size", "ranks", "gpus", "time_per_step_ms", "glups", "bandwidth_GBs",
              "fraction_of_ceiling", "speedup", "efficiency", "bytes_per_step", "chain_us", "verify"], dual)
        for n in notes:
            print(f"note: left out: {n}")
        print(f"\nplot.py: wrote {outdir}/lbm_dual.csv ({', '.join(devices)}, device triad "
              f"{triad} GB/s per GPU)")
        return
    m = re.search(r"\d{4}-\d{2}-\d{2}", folder)
    date = a.date or (m.group(0) if m else datetime.date.today().isoformat())

    profiles = []
    for path in sorted(glob.glob(os.path.join(folder, "cavity*.csv"))):
        data, head = load_profile(path)
        n, u, re_ = header_n_u(head)
        if n and "ux_along_z" in data and "albensoeder_kuhlmann_2005" in data["ux_along_z"]:
            profiles.append({"path": path, "n": n, "u": u, "re": re_, "head": head, "data": data})

    perf = perf_rows(recs, triad)
    halo = halo_rows(recs)
    cav = cavity_rows(recs, profiles)
    labargs.outdir(outdir)
    if perf:
        write_csv(os.path.join(outdir, "lbm_performance.csv"), PERF_COLS, perf)
        show(["variant", "halo", "size", "ranks", "gpus", "mlups", "bandwidth_GBs", "fraction_of_device_triad",
              "target_glups_80pct", "oracle", "verify"], perf)
    if halo:
        write_csv(os.path.join(outdir, "lbm_halo.csv"), HALO_COLS, halo)
        print()
        show(["variant", "halo", "size", "ranks", "gpus", "time_per_step_ms", "bytes_per_step", "exchange_us",
              "halo_out_us", "mpi_us", "halo_in_us", "wait_boundary_us", "oracle", "verify"], halo)
    if cav:
        write_csv(os.path.join(outdir, "cavity_errors.csv"), CAV_COLS, cav)
        print()
        show(["size", "lid_velocity", "tau", "steps_to_steady", "ak2005_max_err", "ak2005_rms_err",
              "ak2005_max_err_interior", "ak2005_extrema_err", "recomputed_max_err", "order_max_vs_prev",
              "ak2005_profiles", "verify"], cav)
        for r in cav:  # the recomputation must agree with what the app reported
            if r["recomputed_max_err"] != "" and abs(r["recomputed_max_err"] - r["ak2005_max_err"]) > 2e-5:
                print(f"plot.py: warning: {r['size']} U {r['lid_velocity']}: recomputed max error "
                      f"{r['recomputed_max_err']} differs from the reported {r['ak2005_max_err']}", file=sys.stderr)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib not installed: CSVs written, no PNG", file=sys.stderr)
        return
    where = f"{', '.join(devices)}, {date}"

    if perf:
        def label(r):
            if r["variant"] == "hybrid" and r["cpu_fraction"] != "":
                v = f"hybrid (CPU share {r['cpu_fraction']})"
            else:
                v = r["variant"]
            return f"{v}, {r['ranks']} ranks" if r["ranks"] > 1 else v
        sizes = sorted({r["size"] for r in perf}, key=lambda s: int(s.split("^")[0].split("x")[0]))
        labels = list(dict.fromkeys(label(r) for r in perf))
        gpus = {r["gpus"] for r in perf}
        mega = max(r["mlups"] for r in perf) < 500  # CPU runs: MLUP/s
        scale, unit = (1e3, "MLUP/s") if mega else (1.0, "GLUP/s")
        fig, ax = plt.subplots(figsize=(7.5, 4.2))
        w = 0.8 / max(1, len(labels))
        for j, lab in enumerate(labels):
            xs, ys = [], []
            for i, s in enumerate(sizes):
                r = next((r for r in perf if label(r) == lab and r["size"] == s), None)
                if r:
                    xs.append(i + (j - (len(labels) - 1) / 2) * w)
                    ys.append(r["mlups"] * 1e-3 * scale)
            bars = ax.bar(xs, ys, width=w, label=lab)
            ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
        top = max(r["mlups"] for r in perf) * 1e-3 * scale
        if triad and gpus == {1}:
            bound = triad / BYTES_PER_CELL * scale
            ax.axhline(bound, color="k", lw=1, label=f"triad / 304 B = {bound:.2f}")
            ax.axhline(0.8 * bound, color="k", lw=1, ls="--", label=f"80% target = {0.8 * bound:.2f}")
            top = max(top, bound)
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([f"{s} cells" for s in sizes])
        ax.set_ylabel(f"{unit} (double)")
        ax.set_ylim(0, top * 1.3)
        what = "one GPU" if gpus == {1} else ("CPU" if gpus == {0} else "GPUs " + "/".join(map(str, sorted(gpus))))
        ax.set_title(f"lbm D3Q19, cavity, {what}: {where}", fontsize=9)
        ax.legend(fontsize=7, loc="upper left", ncol=3)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "lbm_performance.png"), dpi=120)
        plt.close(fig)

    if profiles:
        fig, ax = plt.subplots(1, 3, figsize=(13, 4.6), gridspec_kw={"width_ratios": [1, 1, 1.1]})
        profiles.sort(key=lambda pp: (pp["u"], pp["n"]))
        for k, pp in enumerate(profiles):
            d = pp["data"]
            lab = f"lbm {pp['n']}^3, U = {pp['u']:g}"
            s, v = d["ux_along_z"]["lbm"]
            line, = ax[0].plot(v, s, lw=1.2, label=lab)
            s2, v2 = d["uz_along_x"]["lbm"]
            ax[1].plot(s2, v2, lw=1.2, color=line.get_color(), label=lab)
            e = errors(d)
            for name, mk in (("ux_along_z", "o"), ("uz_along_x", "s")):
                pts = e["points"][name]
                ax[2].plot([q[0] for q in pts], [q[1] for q in pts], mk + "-", ms=3.5, lw=0.8,
                           color=line.get_color(), label=f"{lab}, {'ux(z)' if name == 'ux_along_z' else 'uz(x)'}")
        d = profiles[0]["data"]  # every profile CSV carries the same reference points
        rs, rv = d["ux_along_z"]["albensoeder_kuhlmann_2005"]
        ax[0].plot(rv, rs, "kx", ms=6, mew=1.5, label="Albensoeder & Kuhlmann 2005, Table 5")
        rs, rv = d["uz_along_x"]["albensoeder_kuhlmann_2005"]
        ax[1].plot(rs, rv, "kx", ms=6, mew=1.5, label="Albensoeder & Kuhlmann 2005, Table 6")
        ax[0].set(xlabel="ux / U", ylabel="z  (lid at z = 1, moving in +x)",
                  title="vertical centre line x = y = 1/2")
        ax[1].set(xlabel="x", ylabel="uz / U", title="horizontal centre line y = z = 1/2")
        for band in (WALL_BAND, 1.0 - WALL_BAND):
            ax[2].axvline(band, color="0.6", lw=0.8, ls=":")
        ax[2].axhspan(-AK_TOL, AK_TOL, color="0.92", zorder=0, label=f"check tolerance \u00b1{AK_TOL} U (dotted: 0.06 from a wall)")
        ax[2].axhline(0, color="0.5", lw=0.6)
        ax[2].set(xlabel="position along the line (z for ux, x for uz)", ylabel="(lbm \u2212 reference) / U",
                  title="error at the reference points")
        for a_ in ax:
            a_.grid(alpha=0.3)
        ax[0].legend(fontsize=7, loc="lower right")
        ax[1].legend(fontsize=7, loc="lower left")
        ax[2].legend(fontsize=6, loc="lower right")
        fig.suptitle(f"lbm cavity, Re = {profiles[0]['re']:g}, steady (--until-steady 1e-6): {where}", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "cavity_profiles.png"), dpi=120)
        plt.close(fig)
    print(f"\nplot.py: wrote {outdir}/"
          + ", ".join(n for n, ok in (("lbm_performance.csv", perf), ("lbm_performance.png", perf),
                                      ("lbm_halo.csv", halo), ("cavity_errors.csv", cav), ("cavity_profiles.png", profiles)) if ok))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
