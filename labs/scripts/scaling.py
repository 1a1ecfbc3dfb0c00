#!/usr/bin/env python3
"""scaling.py: a strong- or weak-scaling sweep of one app variant (lab 05).

    python3 labs/scripts/scaling.py --app laplace --variant cpu --mode strong \\
        --size 128 --ranks 1 2 4 8 --out cpu-strong.jsonl
    python3 labs/scripts/scaling.py --app laplace --variant two-stream --mode weak \\
        --size 512 --ranks 1 2 --out gpu-weak.jsonl
    python3 labs/scripts/scaling.py --app laplace --variant multi-thread --mode weak \\
        --size 256 --ranks 1 --gpus-per-process 1 2 --out mt-weak.jsonl
    ... -- --init random          (flags after "--" go to the app unchanged)

    python3 labs/scripts/scaling.py --app tetfv --mode weak --mesh box:12 --ranks 1 2 4 --out t.jsonl
    python3 labs/scripts/scaling.py --app bfs --mode weak --scale 12 --reps 8 --ranks 1 2 4 --out b.jsonl
    python3 labs/scripts/scaling.py --app particles --mode weak --cells 6 --ranks 1 2 4 --out p.jsonl

N, the count the sweep scales over, is the number of MPI ranks, times the GPUs each
process drives for multi-thread (--gpus-per-process). Strong scaling keeps the total problem
fixed; weak scaling takes the problem per rank (per GPU for multi-thread) and grows it with N.
Each app names its problem with its own flag, and grows it its own way (the table APPS):

    app        problem            weak scaling, N ranks               steps per rep   reps
    laplace    --size NX,NY,NZ    nz x N (the kit cuts along z)       --iters         --reps
    ising      --size LX,LY,LZ    nz x N                              --iters         --reps
    lbm        --size NX,NY,NZ    nz x N                              --iters         --reps
    tetfv      --mesh box:B       box:round(B N^(1/3)): 6 B^3 cells   --iters         --reps
               (6 B^3 cells)      per rank only approximately
    bfs        --scale S          scale S + log2 N (N a power of 2)   (one search)    --roots
               (2^S vertices)
    particles  --cells NX,NY,NZ   --cells NX N,NY,NZ --ranks N,1,1    --iters         --reps
               (4 NX NY NZ atoms)

Every run goes through labs/scripts/mpirun.sh NP (which adds what the installed MPI
needs), gets OMP_NUM_THREADS = max(1, cores // ranks) unless OMP_NUM_THREADS is already
set, verifies itself against the serial oracle and appends one kit.result/1 line to --out
(docs/output-schema.md). One line is printed per run, with the speed-up and the parallel
efficiency relative to the first run of the sweep (Bernaschi et al.: eta = T1 / (N TN) for
strong scaling; T1 / TN for weak scaling). T is the app's own median time per repetition
divided by its steps (time_s.median / time_s.steps): per step, per sweep, or for bfs per
search (its repetitions are the searches, one per root, and its figure of merit is TEPS).
tetfv's weak runs also print the cells per rank, which drift by a few per cent from N=1's.
A run that exits 77 (variant not available here, e.g. no GPU) is reported as skipped and the
sweep goes on; any other failure stops the sweep with the app's own message and its exit code
(1: verification failed, 2: bad input, 3: runtime error). Exit 77 if every run was skipped.
Standard library only.
Plot the result with labs/05-scaling/plot.py.
"""
import argparse
import json
import os
import subprocess
import sys
from collections import namedtuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MPIRUN = os.path.join(HERE, "mpirun.sh")
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


def parse_box(text):
    """'box:16' -> 16 (tetfv's generated unit cube, 6 N^3 tetrahedra)."""
    try:
        n = int(text[4:]) if text.startswith("box:") else 0
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected box:N with a positive N, got '{text}' "
                                         "(mesh files cannot be grown for weak scaling)")
    return n


def parse_scale(text):
    """'14' -> 14 (bfs: 2^14 vertices)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer scale, got '{text}'")
    return n


def xyz(d):
    return f"{d[0]}x{d[1]}x{d[2]}"


def power_of_two(n):
    return n & (n - 1) == 0


# How each app names its problem and how the problem grows for weak scaling. Fields:
#   flag, parse   the app's own flag for the problem and scaling.py's parser for its value
#   weak(p, N)    the problem of a weak run on N units (ranks, or GPUs for multi-thread)
#   args(p, N, weak)   the app's flags for problem p (particles adds its rank grid when weak)
#   show(p)       the problem in the table's size column; about(p): in the header line
#   grows         how weak scaling grows it, for the header line
#   steps, noun   the flag for steps per timed repetition (None: bfs times one search per
#                 repetition) and what one of them is called
#   reps          the flag that sets the timed repetitions (bfs: one search per root)
#   weak_n_ok     a test on N for weak scaling, and the message when it fails
#   note(r, r1, N)  an extra remark on a run's line (r its JSON line, r1 the first run's)
App = namedtuple("App", "flag metavar parse weak args show about grows steps noun reps "
                        "weak_n_ok note own")


def grid_app(steps, noun):
    return App(flag="--size", metavar="N|NX,NY,NZ", parse=parse_size,
               weak=lambda d, n: (d[0], d[1], d[2] * n),
               args=lambda d, n, weak: ["--size", ",".join(map(str, d))],
               show=xyz, about=xyz, grows="nz x N", steps=steps, noun=noun, reps="--reps",
               weak_n_ok=None, note=None, own=())


def tetfv_note(r, r1, n):
    per = r["params"]["cells"] / n
    per1 = r1["params"]["cells"] / (r1["_n"])
    return f"  ({per:.0f} cells per rank, {per / per1:.3f} x the first run's)"


APPS = {
    "laplace": grid_app("--iters", "step"),
    "ising": grid_app("--iters", "sweep"),
    "lbm": grid_app("--iters", "step"),
    "tetfv": App(
        flag="--mesh", metavar="box:N", parse=parse_box,
        weak=lambda b, n: round(b * n ** (1.0 / 3.0)),
        args=lambda b, n, weak: ["--mesh", f"box:{b}"],
        show=lambda b: f"box:{b}", about=lambda b: f"box:{b} ({6 * b ** 3} cells)",
        grows="box side round(B N^(1/3)), so the cells per rank are only approximately "
              "constant (printed per run)",
        steps="--iters", noun="step", reps="--reps", weak_n_ok=None, note=tetfv_note, own=()),
    "bfs": App(
        flag="--scale", metavar="S", parse=parse_scale,
        weak=lambda s, n: s + n.bit_length() - 1,
        args=lambda s, n, weak: ["--scale", str(s)],
        show=lambda s: f"scale {s}", about=lambda s: f"scale {s} ({2 ** s} vertices)",
        grows="scale + log2 N", steps=None, noun="search", reps="--roots",
        weak_n_ok=(power_of_two, "bfs weak scaling doubles the graph per doubling of N "
                                 "(scale S + log2 N), so N must be a power of two"),
        note=None, own=()),
    "particles": App(
        flag="--cells", metavar="N|NX,NY,NZ", parse=parse_size,
        weak=lambda d, n: (d[0] * n, d[1], d[2]),
        args=lambda d, n, weak: ["--cells", ",".join(map(str, d))] + (["--ranks", f"{n},1,1"] if weak else []),
        show=xyz, about=lambda d: f"{xyz(d)} fcc cells ({4 * d[0] * d[1] * d[2]} atoms)",
        grows="cells along x and the rank grid x N (--ranks N,1,1)",
        steps="--iters", noun="step", reps="--reps", weak_n_ok=None, note=None, own=("--ranks",)),
}


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
        epilog="Each app takes its own problem flag: --size (laplace, ising, lbm), --mesh box:N "
               "(tetfv), --scale S (bfs), --cells (particles). Flags after '--' are passed to "
               "the app unchanged.")
    ap.add_argument("--app", default="laplace", choices=sorted(APPS), help="mini-app name [laplace]")
    ap.add_argument("--variant", default="cpu", help="variant to run [cpu]")
    ap.add_argument("--mode", required=True, choices=("strong", "weak"),
                    help="strong: total problem fixed; weak: the problem per rank (per GPU)")
    ap.add_argument("--size", type=parse_size, metavar="N|NX,NY,NZ",
                    help="laplace, ising, lbm: total size (strong) or size per rank / per GPU (weak)")
    ap.add_argument("--mesh", type=parse_box, metavar="box:N",
                    help="tetfv: the box of 6 N^3 cells, in total (strong) or per rank (weak)")
    ap.add_argument("--scale", type=parse_scale, metavar="S",
                    help="bfs: 2^S vertices and 16 x 2^S edges, in total (strong) or per rank (weak)")
    ap.add_argument("--cells", type=parse_size, metavar="N|NX,NY,NZ",
                    help="particles: fcc unit cells (4 atoms each), in total (strong) or per rank (weak)")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1], metavar="NP",
                    help="MPI rank counts to run [1]")
    ap.add_argument("--gpus-per-process", type=int, nargs="+", metavar="G",
                    help="multi-thread only: GPUs each process drives (passed as --gpus G); "
                         "several values sweep them")
    ap.add_argument("--iters", type=int,
                    help="steps per timed repetition (ising: sweeps; not for bfs) [20]")
    ap.add_argument("--reps", type=int, default=3,
                    help="timed repetitions (bfs: searches, passed as --roots) [3]")
    ap.add_argument("--out", required=True, metavar="FILE.jsonl",
                    help="JSON Lines file; one kit.result/1 line is appended per run")
    ap.add_argument("--bin", help="the app binary [build/bin/APP of this repository]")
    ap.add_argument("--cores", type=int, default=usable_cores(),
                    help="cores shared by the ranks, for OMP_NUM_THREADS [this process's CPUs]")
    a = ap.parse_args(argv)
    a.extra = extra
    app = a.spec = APPS[a.app]
    dest = app.flag.lstrip("-")
    a.problem = getattr(a, dest)
    for other in sorted({x.flag for x in APPS.values()} - {app.flag}):
        if getattr(a, other.lstrip("-")) is not None:
            ap.error(f"{other} does not apply to {a.app}, which takes {app.flag} {app.metavar}")
    if a.problem is None:
        ap.error(f"--app {a.app} needs {app.flag} {app.metavar}")
    if app.steps is None:
        if a.iters is not None:
            ap.error(f"{a.app} has no steps: each timed repetition is one search "
                     f"(--reps R runs R searches, as {app.reps} R)")
    elif a.iters is None:
        a.iters = 20
    if a.bin is None:
        a.bin = os.path.join(ROOT, "build", "bin", a.app)
    if min(a.ranks) < 1 or (a.iters or 1) < 1 or a.reps < 1 or a.cores < 1:
        ap.error("--ranks, --iters, --reps and --cores must be positive")
    if a.gpus_per_process is not None:
        if a.variant != "multi-thread":
            ap.error("--gpus-per-process applies to multi-thread only "
                     "(naive, two-stream and hybrid run one rank per GPU: scale --ranks)")
        if min(a.gpus_per_process) < 1:
            ap.error("--gpus-per-process must be positive")
    if a.mode == "weak" and app.weak_n_ok:
        ok, why = app.weak_n_ok
        bad = sorted({np_ * g for np_ in a.ranks for g in (a.gpus_per_process or [1])
                      if not ok(np_ * g)})
        if bad:
            ap.error(f"{why}; N = {', '.join(map(str, bad))} is not (use --mode strong for those)")
    # Flags scaling.py sets itself; passing them after "--" would contradict the sweep.
    own = ("--variant", app.flag, app.steps, app.reps, "--iters", "--reps", "--gpus", "--json") + app.own
    mine = {app.reps: "--reps", app.steps: "--iters"}
    for f in extra:
        name = f.split("=")[0]
        if name in own:
            hint = f" ({mine[name]})" if mine.get(name, name) != name else ""
            ap.error(f"{name} after '--' clashes with the sweep; use scaling.py's own option{hint}")
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
    app = a.spec
    weak = a.mode == "weak"
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)  # labs/out/<lab>/ on a fresh clone
    gpp = a.gpus_per_process or [None]
    runs = [(np_, g) for np_ in a.ranks for g in gpp]   # (ranks, GPUs per process)
    user_threads = os.environ.get("OMP_NUM_THREADS")
    reps = (f"{a.iters} {app.noun}s x {a.reps} reps" if app.steps else
            f"{a.reps} timed {app.noun}es ({app.reps} {a.reps})")
    print(f"scaling.py: {a.app} {a.variant}, {a.mode} scaling, "
          + (f"{app.about(a.problem)} in total" if not weak else
             f"{app.about(a.problem)} per " + ("GPU" if a.gpus_per_process else
                                               "rank" if a.variant == "cpu" else "rank (one GPU each)")
             + f", {app.grows}")
          + f", {reps}, {a.cores} cores, OMP_NUM_THREADS "
          + (f"{user_threads} (set by you)" if user_threads else "cores // ranks")
          + f" -> {a.out}", flush=True)
    print("  N  ranks  gpus  threads  size            median s    " + f"{'ms/' + app.noun:12s}"
          + "fom            speed-up  efficiency  status", flush=True)
    base = None          # (N, time per step) of the first run that passed
    first = None         # its JSON line
    ran = skipped = 0
    for np_, g in runs:
        n = np_ * (g or 1)
        problem = app.weak(a.problem, n) if weak else a.problem
        size = app.show(problem)
        env = dict(os.environ)
        if not user_threads:
            env["OMP_NUM_THREADS"] = str(max(1, a.cores // np_))
        cmd = [MPIRUN, str(np_), a.bin, "--variant", a.variant] + app.args(problem, n, weak)
        if app.steps:
            cmd += [app.steps, str(a.iters)]
        cmd += [app.reps, str(a.reps)]
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
            print(f"{head(gpus)}{'-':>7}  {size:14s}  skipped: {why}", flush=True)
            skipped += 1
            continue
        if p.returncode != 0:
            what = EXIT_MEANING.get(p.returncode, "mpirun.sh or the app failed")
            if p.returncode < 0:
                what = f"killed by signal {-p.returncode}"
            print(f"{head(gpus)}{'-':>7}  {size:14s}  FAILED (exit {p.returncode}: {what})",
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
        r["_n"] = n
        for l in p.stderr.splitlines():          # progress notes (e.g. ceiling measured once)
            if l.strip():
                print(f"       | {l}", flush=True)
        # The app's own median time per repetition, per step (bfs: per search, steps = 1).
        t = r["time_s"]["median"] / (r["time_s"].get("steps") or r["params"].get("iters", a.iters or 1))
        if base is None:
            base, first = (n, t), r
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
        if weak and app.note:
            note += app.note(r, first, n)
        fom = f"{r['fom']['value']:.4g} {r['fom']['unit']}"
        print(f"{head(used)}{r['threads']:7d}  {size:14s}  {r['time_s']['median']:.4e}  "
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
