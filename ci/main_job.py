#!/usr/bin/env python3
"""main_job.py: run every app x variant that exists on a small problem with verification,
on 1 and on 2 MPI ranks, and print one table: app, variant, ranks, OpenMP threads per rank,
GPUs, status (passed, FAILED, skipped: <reason>), figure of merit (at the median
repetition), the median time of one repetition with the fastest and slowest in brackets,
their spread ((max - min) / median), and the fraction of the ceiling measured in the run.
Exit status 1 if any run failed. Standard library only.
  python3 ci/main_job.py [--build build] [--ranks 1 2] [--apps A ...] [--variants V ...]
                         [--json results.jsonl]
OMP_NUM_THREADS is passed on when set; unset, each rank takes its node's cores / ranks."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# app -> (variants, small problem). Later apps add a line here.
APPS = {
    "laplace": (["cpu", "naive", "two-stream", "multi-thread", "hybrid"],
                ["--size", "64", "--iters", "20", "--reps", "3"]),
    "ising": (["cpu", "naive", "two-stream", "multi-thread", "hybrid"],
              ["--size", "16", "--iters", "20", "--samples", "2", "--reps", "3"]),
    "lbm": (["cpu", "naive", "two-stream", "multi-thread", "hybrid"],
            ["--size", "16", "--iters", "20", "--reps", "3"]),
    "bfs": (["cpu", "naive", "two-stream", "multi-thread", "hybrid"],
            ["--scale", "10", "--roots", "8"]),
    "particles": (["cpu", "naive", "two-stream", "multi-thread", "hybrid"],
                  ["--cells", "6", "--iters", "20", "--reps", "3"]),
    "tetfv": (["cpu", "naive", "two-stream", "multi-thread", "hybrid"],
              ["--mesh", "box:8", "--iters", "20", "--reps", "3"]),
}


def mpiexec(np):
    out = subprocess.run(["mpiexec", "--version"], capture_output=True, text=True).stdout
    flags = ["--oversubscribe", "--allow-run-as-root"] if ("Open MPI" in out or "OpenRTE" in out) else []
    return ["mpiexec", "-n", str(np)] + flags


# Above this spread the repetitions of one run disagree by more than 2x: the machine was busy
# and the figures are not worth comparing (the table then says so).
NOISY = 1.0


def times(t):
    """'median [min, max] unit xreps' of a time_s object, in the median's unit (s, ms, us, ns)."""
    scale, unit = next(((s, u) for s, u in ((1, "s"), (1e-3, "ms"), (1e-6, "us")) if t["median"] >= s),
                       (1e-9, "ns"))
    m, lo, hi = (f"{t[k] / scale:.3g}" for k in ("median", "min", "max"))
    return f"{m} [{lo}, {hi}] {unit} x{t['reps']}"


def run_one(binary, variant, args, np, jsonl):
    # The apps pick their own threads (cores of the node / ranks on it) when OMP_NUM_THREADS is
    # unset, and warn when a given one oversubscribes: forcing it here would hide both.
    env = dict(os.environ)
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as t:
        path = t.name
    os.unlink(path)
    cmd = mpiexec(np) + [binary, "--variant", variant, "--json", path] + args
    row = {"variant": variant, "ranks": np, "threads": "-", "gpus": "-", "fom": "-", "time": "-",
           "spread": "-", "frac": "-"}
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    except subprocess.TimeoutExpired:
        row["status"] = "FAILED (no answer in 900 s)"
        return row
    if p.returncode == 77:
        reason = "skipped"
        for line in p.stdout.splitlines():
            if "skipped:" in line:
                reason = "skipped:" + line.split("skipped:", 1)[1]
        row["status"] = reason
        return row
    result = None
    if os.path.exists(path):
        with open(path) as f:
            lines = [l for l in f if l.strip()]
        if lines:
            result = json.loads(lines[-1])
            if jsonl:
                with open(jsonl, "a") as out:
                    out.write(lines[-1])
        os.unlink(path)
    if p.returncode == 0 and result and result["verify"]["status"] == "PASSED":
        row["status"] = "passed"
    else:
        row["status"] = f"FAILED (exit {p.returncode})"
        sys.stderr.write(p.stdout[-2000:] + p.stderr[-2000:])
    if result:
        row["gpus"] = result["gpus"]
        row["threads"] = result.get("threads", "-")
        t = result.get("time_s") or {}
        if t.get("median"):
            row["time"] = times(t)
            row["noisy"] = (t["max"] - t["min"]) / t["median"] > NOISY
            row["spread"] = f"{100 * (t['max'] - t['min']) / t['median']:.0f}%"
        row["fom"] = f"{result['fom']['value']:.4g} {result['fom']['unit']}"
        row["frac"] = f"{100 * result['fraction_of_ceiling']:.1f}% of {result['ceiling_GBs']:.0f} GB/s"
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("KIT_BUILD_DIR", "build"))
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--apps", nargs="+", choices=list(APPS), default=list(APPS), help="only these apps")
    ap.add_argument("--variants", nargs="+", help="only these variants (e.g. cpu)")
    ap.add_argument("--json", help="also append every run's kit.result/1 line here")
    a = ap.parse_args()
    rows = []
    for app in a.apps:
        variants, args = APPS[app]
        binary = os.path.join(a.build, "bin", app)
        if not os.path.exists(binary):
            sys.exit(f"main_job: {binary} not found: run ci/setup.sh first")
        for v in variants:
            if a.variants and v not in a.variants:
                continue
            for np in a.ranks:
                r = run_one(binary, v, args, np, a.json)
                r["app"] = app
                rows.append(r)
                print(f"  {app} {v} x{np}: {r['status']}", file=sys.stderr, flush=True)
    cols = ["app", "variant", "ranks", "threads", "gpus", "status", "fom", "time", "spread", "frac"]
    head = {"frac": "fraction of ceiling", "fom": "figure of merit", "time": "time/rep: median [min, max]"}
    w = {c: max(len(head.get(c, c)), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(head.get(c, c).ljust(w[c]) for c in cols).rstrip())
    for r in rows:
        print("  ".join(str(r[c]).ljust(w[c]) for c in cols).rstrip())
    failed = sum(r["status"].startswith("FAILED") for r in rows)
    passed = sum(r["status"] == "passed" for r in rows)
    skipped = len(rows) - failed - passed
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    noisy = sum(bool(r.get("noisy")) for r in rows)
    if noisy:
        print(f"note: in {noisy} of the runs the repetitions differ by more than {1 + NOISY:.0f}x (spread "
              f"over {100 * NOISY:.0f}%): the machine was busy, so compare those figures with care")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
