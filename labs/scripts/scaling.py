#!/usr/bin/env python3
"""scaling.py: a strong- or weak-scaling sweep of one app variant (lab 05).

    python3 labs/scripts/scaling.py --app laplace --variant cpu --mode strong \\
        --size 128 --ranks 1 2 4 8 --out cpu-strong.jsonl
    python3 labs/scripts/scaling.py --app laplace --variant two-stream --mode weak \\
        --size 512 --ranks 1 2 --out gpu-weak.jsonl
    python3 labs/scripts/scaling.py --app laplace --variant multi-thread --mode weak \\
        --size 256 --ranks 1 --gpus-per-process 1 2 --out mt-weak.jsonl
    ... -- --init random          (flags after "--" go to the app unchanged)

N, the count the sweep scales over, is the number of MPI ranks, times the GPUs each
process drives for multi-thread (--gpus-per-process). Strong scaling keeps the total size
fixed; weak scaling takes --size per rank (per GPU for multi-thread) and multiplies nz by N,
so each rank keeps an nx x ny x nz slab (the kit decomposes along z).

Every run goes through labs/scripts/mpirun.sh NP (which adds what the installed MPI
needs), gets OMP_NUM_THREADS = max(1, cores // ranks) unless OMP_NUM_THREADS is already
set, verifies itself against the serial oracle and appends one kit.result/1 line to --out
(docs/output-schema.md). One line is printed per run, with the speed-up and the parallel
efficiency relative to the first run of the sweep (Bernaschi et al.: eta = T1 / (N TN) for
strong scaling; T1 / TN for weak scaling). A run that exits 77 (variant not available here,
e.g. no GPU) is reported as skipped and the sweep goes on; any other failure stops the sweep
with the app's own message and its exit code (1: verification failed, 2: bad input,
3: runtime error). Exit 77 if every run was skipped. Standard library only.
Plot the result with labs/05-scaling/plot.py.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MPIRUN = os.path.join(HERE, "mpirun.sh")
# Flags scaling.py sets itself; passing them after "--" would contradict the sweep.
OWN_FLAGS = ("--variant", "--size", "--iters", "--reps", "--gpus", "--json")
EXIT_MEANING = {1: "verification failed", 2: "the app refused the input",
                3: "runtime error (CUDA, MPI or memory)"}


def parse_size(text):
    """'128' -> (128, 128, 128); '96,96,101' -> (96, 96, 101)."""
    try:
        parts = [int(p) for p in text.split(",")]
    except ValueError:
        parts = []
    if len(parts) == 1:
        parts *= 3
    if len(parts) != 3 or min(parts) < 1:
        raise argparse.ArgumentTypeError(f"expected N or NX,NY,NZ with positive integers, got '{text}'")
    return tuple(parts)


def usable_cores():
    """CPUs this process may run on (the affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def parse_args(argv):
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    else:
        extra = []
    ap = argparse.ArgumentParser(
        description="Strong- or weak-scaling sweep of one kit app variant (lab 05).",
        epilog="Flags after '--' are passed to the app unchanged.")
    ap.add_argument("--app", default="laplace", help="mini-app name [laplace]")
    ap.add_argument("--variant", default="cpu", help="variant to run [cpu]")
    ap.add_argument("--mode", required=True, choices=("strong", "weak"),
                    help="strong: total size fixed; weak: --size per rank (per GPU)")
    ap.add_argument("--size", required=True, type=parse_size, metavar="N|NX,NY,NZ",
                    help="total size (strong) or size per rank / per GPU (weak)")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1], metavar="NP",
                    help="MPI rank counts to run [1]")
    ap.add_argument("--gpus-per-process", type=int, nargs="+", metavar="G",
                    help="multi-thread only: GPUs each process drives (passed as --gpus G); "
                         "several values sweep them")
    ap.add_argument("--iters", type=int, default=20, help="steps per timed repetition [20]")
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions [3]")
    ap.add_argument("--out", required=True, metavar="FILE.jsonl",
                    help="JSON Lines file; one kit.result/1 line is appended per run")
    ap.add_argument("--bin", help="the app binary [build/bin/APP of this repository]")
    ap.add_argument("--cores", type=int, default=usable_cores(),
                    help="cores shared by the ranks, for OMP_NUM_THREADS [this process's CPUs]")
    a = ap.parse_args(argv)
    a.extra = extra
    if a.bin is None:
        a.bin = os.path.join(ROOT, "build", "bin", a.app)
    if min(a.ranks) < 1 or a.iters < 1 or a.reps < 1 or a.cores < 1:
        ap.error("--ranks, --iters, --reps and --cores must be positive")
    if a.gpus_per_process is not None:
        if a.variant != "multi-thread":
            ap.error("--gpus-per-process applies to multi-thread only "
                     "(naive, two-stream and hybrid run one rank per GPU: scale --ranks)")
        if min(a.gpus_per_process) < 1:
            ap.error("--gpus-per-process must be positive")
    for f in extra:
        if f.split("=")[0] in OWN_FLAGS:
            ap.error(f"{f.split('=')[0]} after '--' clashes with the sweep; use scaling.py's own option")
    if not os.access(a.bin, os.X_OK):
        ap.error(f"no executable app at {a.bin}: build the kit first (labs/setup.sh) or pass --bin")
    return a


def new_records(path, offset):
    """kit.result/1 lines appended to path since byte offset."""
    if not os.path.exists(path):
        return []
    with open(path, "rb") as f:
        f.seek(offset)
        text = f.read().decode("utf-8", "replace")
    return [json.loads(l) for l in text.splitlines() if l.strip()]


def show_output(label, text, last=15):
    lines = [l for l in text.splitlines() if l.strip()]
    if lines:
        print(f"  {label} (last {min(last, len(lines))} lines):")
        for l in lines[-last:]:
            print(f"    {l}")


def main(argv):
    a = parse_args(argv)
    nx, ny, nz = a.size
    gpp = a.gpus_per_process or [None]
    runs = [(np_, g) for np_ in a.ranks for g in gpp]   # (ranks, GPUs per process)
    user_threads = os.environ.get("OMP_NUM_THREADS")
    print(f"scaling.py: {a.app} {a.variant}, {a.mode} scaling, "
          + (f"{nx}x{ny}x{nz} in total" if a.mode == "strong" else
             f"{nx}x{ny}x{nz} per " + ("GPU" if a.gpus_per_process else
                                       "rank" if a.variant == "cpu" else "rank (one GPU each)")
             + ", nz x N")
          + f", {a.iters} steps x {a.reps} reps, {a.cores} cores, OMP_NUM_THREADS "
          + (f"{user_threads} (set by you)" if user_threads else "cores // ranks")
          + f" -> {a.out}", flush=True)
    print("  N  ranks  gpus  threads  size            median s    ms/step     fom            "
          "speed-up  efficiency  status", flush=True)
    base = None          # (N, time per step) of the first run that passed
    ran = skipped = 0
    for np_, g in runs:
        n = np_ * (g or 1)
        z = nz * n if a.mode == "weak" else nz
        size = f"{nx},{ny},{z}"
        env = dict(os.environ)
        if not user_threads:
            env["OMP_NUM_THREADS"] = str(max(1, a.cores // np_))
        cmd = [MPIRUN, str(np_), a.bin, "--variant", a.variant, "--size", size,
               "--iters", str(a.iters), "--reps", str(a.reps)]
        if g is not None:
            cmd += ["--gpus", str(g)]
        cmd += a.extra + ["--json", a.out]
        offset = os.path.getsize(a.out) if os.path.exists(a.out) else 0
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, errors="replace")
        gpus = n if a.variant != "cpu" else 0      # planned; the JSON line says what was used

        def head(used):
            return f"{n:3d}  {np_:5d}  {used if used else '-':>4}  "
        if p.returncode == 77:
            why = (p.stdout.strip().splitlines() or ["exit 77"])[-1]
            print(f"{head(gpus)}{'-':>7}  {size.replace(',', 'x'):14s}  skipped: {why}", flush=True)
            skipped += 1
            continue
        if p.returncode != 0:
            what = EXIT_MEANING.get(p.returncode, "mpirun.sh or the app failed")
            if p.returncode < 0:
                what = f"killed by signal {-p.returncode}"
            print(f"{head(gpus)}{'-':>7}  {size.replace(',', 'x'):14s}  FAILED (exit {p.returncode}: {what})",
                  flush=True)
            print(f"scaling.py: stopping: {' '.join(cmd)}")
            print(f"  with OMP_NUM_THREADS={env.get('OMP_NUM_THREADS', '')} exited {p.returncode}: {what}")
            show_output("stdout", p.stdout)
            show_output("stderr", p.stderr)
            if new_records(a.out, offset):
                print(f"  its JSON line is in {a.out} too, marked FAILED (plot.py leaves it out)")
            return p.returncode if 0 < p.returncode < 256 else 1
        recs = new_records(a.out, offset)
        if not recs:
            print(f"scaling.py: stopping: the run passed but appended no JSON line to {a.out}")
            return 1
        r = recs[-1]
        for l in p.stderr.splitlines():          # progress notes (e.g. ceiling measured once)
            if l.strip():
                print(f"       | {l}", flush=True)
        t = r["time_s"]["median"] / r["params"].get("iters", a.iters)
        if base is None:
            base = (n, t)
        n0, t0 = base
        if a.mode == "strong":
            speedup, eff = n0 * t0 / t, n0 * t0 / (n * t)
        else:   # scaled speed-up N T1 / TN (work per second), efficiency T1 / TN
            speedup, eff = n * t0 / (n0 * t), t0 / t
        used = r.get("gpus", 0)
        note = ""
        if np_ > a.cores:
            note = f"  ({np_} ranks on {a.cores} cores: oversubscribed)"
        elif a.variant != "cpu" and used != n:
            note = f"  (asked for {n} GPUs, the run used {used}: N counts the GPUs asked for)"
        fom = f"{r['fom']['value']:.4g} {r['fom']['unit']}"
        print(f"{head(used)}{r['threads']:7d}  {size.replace(',', 'x'):14s}  {r['time_s']['median']:.4e}  "
              f"{t * 1e3:9.4f}  {fom:13s}  {speedup:8.2f}  {eff:10.2f}  {r['verify']['status']}{note}",
              flush=True)
        ran += 1
    if base is not None and base[0] != 1:
        print(f"note: no N=1 run; speed-up and efficiency are relative to N={base[0]}")
    print(f"scaling.py: {ran} ran, {skipped} skipped; "
          + (f"results appended to {a.out}" if ran else "nothing written"))
    return 77 if ran == 0 and skipped > 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
