#!/usr/bin/env python3
"""reproduce.py: one command per figure of the source papers (docs/reproducing.md, "One
command per figure").

    python3 labs/reproduce.py --list                      # the figures it knows
    python3 labs/reproduce.py bernaschi2015-fig6          # run one on this machine
    python3 labs/reproduce.py --dry-run all               # print every command, run nothing
    python3 labs/reproduce.py sourouri2015-fig3 --gpus 0 --small   # CPU runs only, toy sizes

Each figure is a plan of runs (the table FIGURES below): app, MPI ranks, the app's own flags,
the sizes of the lab sweeps (labs/scripts/*_sweep.sh) on 1, 2 and 4 GPUs. Every run goes
through labs/scripts/mpirun.sh when it has more than one rank, appends its kit.result/1 line
to the figure's runs.jsonl (--json) and checks its answer (the apps verify by default; where a
size is too large for the serial oracle the plan says which check is left, in --list's
notes and meta.json). Output, in OUT/<figure>/ (OUT: --out, default labs/out/reproduce/,
which git ignores; `<figure>-small` with --small):

    runs.jsonl   the apps' kit.result/1 lines (docs/output-schema.md)
    runs.csv     one row per line: labs/scripts/summarize.py's columns, plus the figure's
                 series, N, time per step and parallel efficiency
    *.png        the figure (matplotlib; skipped with a message without it), or for a
                 timeline figure one PNG per trace (labs/01-profiling/plot.py)
    meta.json    device (nvidia-smi, or "no GPU"), date, commit (.kit-git-describe if
                 present, else git describe), the exact commands and what became of each
    logs/        each run's standard output and error

GPU counts are 1, 2 and 4. A run that needs more GPUs than the machine has (nvidia-smi -L,
or --gpus N) is skipped with the reason, and on a machine without a CUDA device every GPU run
is ("skipped: no CUDA device"); runs of the `cpu` variant need no GPU and always run. A run
the app itself skips (exit 77: a transport this machine cannot run, a build without CUDA) is
counted as skipped. The exit status is 0 when no run failed (skips and pending runs
included), 1 when one did (its log names it), 2 for a bad command line.
A figure larger than one sitting (a device call's time) is made in parts: --budget S starts no
run after S seconds (the rest are "pending" in meta.json, which is rewritten after every run,
so a call killed from outside loses only its last run), and a later --resume into the same
OUT keeps every run that finished "ok" (the same command line: same plan, sizes and paths),
runs the others, and rewrites runs.jsonl, runs.csv, the PNG and meta.json for the whole
figure (the JSON lines keep the commit that made each; meta.json lists them all). --small runs every plan at toy sizes with
every check on: a test of the pipeline, never a figure (meta.json and the PNG say so).
Standard library; matplotlib only for the PNG.
"""
import argparse
import csv
import datetime
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections import OrderedDict

sys.dont_write_bytecode = True  # importing summarize.py must leave no __pycache__ behind
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "scripts"))
import summarize  # noqa: E402  (its row() makes the CSV's columns)

MPIRUN = "labs/scripts/mpirun.sh"
GPU_COUNTS = (1, 2, 4)
# The transports of lab 11 (labs/scripts/comm_sweep.sh's KIT_COMMS default): host staging and
# the GPU-buffer ones; the best of the latter depends on the machine, so all of them run.
COMMS = ("host", "ipc", "nccl", "nvshmem")


class Run:
    """One app run: APP with ARGS on RANKS ranks (the --json flag is added when it runs).
    gpus: GPUs it needs (0 for cpu; RANKS for the one-rank-per-GPU variants; multi-thread
    passes its own). n: its point on the figure's axis (GPUs, or ranks for cpu). series: the
    line it belongs to; group: the series whose N = 1 run is its T1. tags: which of the
    figure's plots show it."""

    def __init__(self, app, args, ranks=1, gpus=None, series="", group=None, tags=("main",)):
        self.app, self.args, self.ranks = app, [str(a) for a in args], ranks
        self.variant = self.args[self.args.index("--variant") + 1]
        self.gpus = (0 if self.variant == "cpu" else ranks) if gpus is None else gpus
        self.n = ranks if self.variant == "cpu" else self.gpus
        self.series, self.group, self.tags = series, group or series, tags


class Plan:
    """What a figure's plan may depend on: --small, the transports, where traces go."""

    def __init__(self, small, comms, outdir):
        self.small, self.comms, self.outdir = small, comms, outdir

    def pick(self, full, small):
        return small if self.small else full

    def unverified(self, *flags):
        """FLAGS that turn the serial oracle off at a figure's size; at --small sizes every
        check runs, so none."""
        return [] if self.small else list(flags)


def steps(c, iters, reps):
    return ["--iters", c.pick(iters, 4), "--reps", c.pick(reps, 1)]


def log2(n):
    return n.bit_length() - 1


# ---------------------------------------------------------------------------------------
# The figures. Sizes, steps and repetitions are the lab sweeps' (labs/scripts/*_sweep.sh,
# comm_sweep.sh) unless a note says otherwise.

def bernaschi_fig2(c):
    """laplace_sweep.sh trace on 4 GPUs: naive and two-stream through host memory, and
    two-stream over CUDA IPC (lab 11), at 256^3 and 512^3 per GPU."""
    runs = []
    for n in c.pick((256, 512), (16,)):
        for v, comm in (("naive", None), ("two-stream", None), ("two-stream", "ipc")):
            name = f"{v}{'-' + comm if comm else ''}-{n}-np4"
            trace = os.path.join(c.outdir, "traces", name + ".json")
            args = ["--variant", v, "--size", f"{n},{n},{4 * n}", "--iters", c.pick(10, 4), "--reps", 1,
                    "--trace", rel(trace)] + (["--comm", comm] if comm else [])
            runs.append(Run("laplace", args, ranks=4, series=name, tags=("trace",)))
    return runs


def bernaschi_fig6(c):
    """ising_sweep.sh dual (L = 512, 50 sweeps x 5) and comm_sweep.sh ising (L = 1024,
    20 x 3), two-stream, the three layouts, strong scaling; L = 64 verified beside them."""
    runs = []
    for L, it, reps, small in ((512, 50, 5, 32), (1024, 20, 3, 64)):
        L = c.pick(L, small)
        for lay in ("checkerboard", "sliced", "msc"):
            base = (["--variant", "two-stream", "--layout", lay, "--size", L] + steps(c, it, reps)
                    + c.unverified("--no-verify"))
            g = f"{lay}, L = {L}"
            runs.append(Run("ising", base, series=g))
            for n in GPU_COUNTS[1:]:
                for comm in c.comms:
                    runs.append(Run("ising", base + ["--comm", comm], ranks=n, series=f"{g}, {comm}", group=g))
    if not c.small:  # the oracle's check of every layout, rank count and transport (ising_sweep.sh dual)
        for lay in ("checkerboard", "sliced", "msc"):
            base = ["--variant", "two-stream", "--layout", lay, "--size", 64, "--iters", 20, "--reps", 3]
            runs.append(Run("ising", base, series=f"{lay}, L = 64", tags=("check",)))
            for n in GPU_COUNTS[1:]:
                for comm in c.comms:
                    runs.append(Run("ising", base + ["--comm", comm], ranks=n, series=f"{lay}, L = 64, {comm}",
                                    group=f"{lay}, L = 64", tags=("check",)))
    return runs


def bernaschi_fig9(c):
    """Weak scaling, scale S + log2 N: two-stream top-down and direction-optimising (auto),
    each with list and bitmap messages on an N x 1 grid, host-staged as the paper's, and with
    auto messages over each device transport of --comms; the cpu variant with both directions,
    at the CPU series' scale 17 per rank."""
    runs, roots = [], c.pick(8, 2)
    for d, name in (("top-down", "top-down"), ("auto", "direction-optimising")):
        for n in GPU_COUNTS:
            args = ["--variant", "two-stream", "--scale", c.pick(24, 12) + log2(n), "--roots", roots,
                    "--direction", d]
            if n == 1:
                runs.append(Run("bfs", args, series=f"two-stream, {name}"))
            for t in ("list", "bitmap") if n > 1 else ():
                runs.append(Run("bfs", args + ["--grid", f"{n}x1", "--transfer", t], ranks=n,
                                series=f"two-stream, {name}, {t}", group=f"two-stream, {name}"))
            for comm in [x for x in c.comms if x != "host"] if n > 1 else ():
                runs.append(Run("bfs", args + ["--grid", f"{n}x1", "--transfer", "auto", "--comm", comm], ranks=n,
                                series=f"two-stream, {name}, auto, {comm}", group=f"two-stream, {name}"))
    for d, name in (("auto", "direction-optimising"), ("top-down", "top-down")):
        for n in GPU_COUNTS:
            args = ["--variant", "cpu", "--scale", c.pick(17, 10) + log2(n), "--roots", roots, "--direction", d]
            if n == 1:
                runs.append(Run("bfs", args, series=f"cpu, {name}"))
            for t in ("list", "bitmap") if n > 1 else ():
                runs.append(Run("bfs", args + ["--grid", f"{n}x1", "--transfer", t], ranks=n,
                                series=f"cpu, {name}, {t}", group=f"cpu, {name}"))
    return runs


def sourouri1_fig5(c):
    """Strong scaling of 128^3, 256^3 and 512^3 in total (laplace_sweep.sh single's sizes,
    50 steps x 5): the thread scheme (multi-thread, P2P and staged) against the MPI schemes
    (two-stream and naive, one rank per GPU, host staging) and the Baseline (multi-thread
    --mt-scheme single: one host thread, the exchange in two phases, left-right and pairwise),
    T1 two-stream on one GPU."""
    runs = []
    for n in c.pick((128, 256, 512), (16, 32)):
        g = f"{n}^3"
        base = ["--size", n] + steps(c, 50, 5)
        runs.append(Run("laplace", ["--variant", "two-stream"] + base, series=g))
        for k in GPU_COUNTS[1:]:
            runs.append(Run("laplace", ["--variant", "two-stream"] + base, ranks=k,
                            series=f"two-stream (MPI), {g}", group=g))
            runs.append(Run("laplace", ["--variant", "naive"] + base, ranks=k, series=f"naive (MPI), {g}", group=g))
            runs.append(Run("laplace", ["--variant", "multi-thread", "--gpus", k] + base, gpus=k,
                            series=f"multi-thread P2P, {g}", group=g))
            runs.append(Run("laplace", ["--variant", "multi-thread", "--gpus", k, "--no-p2p"] + base, gpus=k,
                            series=f"multi-thread staged, {g}", group=g))
            for order in ("left-right", "pairwise"):
                runs.append(Run("laplace", ["--variant", "multi-thread", "--gpus", k, "--mt-scheme", "single",
                                            "--exchange-order", order] + base, gpus=k,
                                series=f"Baseline {order}, {g}", group=g))
    return runs


def laplace_cpu_grids(c, weak, tags=("main",)):
    """The cpu variant on process grids (--procs; the GPU series' grids are GPU_GRIDS,
    below): 1D 1x1xN on 1, 2, 4 ranks, 2D 1x2x2 on 4. Strong: 256^3 in total; weak: 128^3 per
    rank (lab 05's CPU series on the 16-core host); 20 steps x 3."""
    n0 = c.pick(128 if weak else 256, 16)
    runs = []
    for grid in ((1, 1, 1), (1, 1, 2), (1, 1, 4), (1, 2, 2)):
        k = grid[0] * grid[1] * grid[2]
        size = ",".join(str(n0 * g if weak else n0) for g in grid)
        args = ["--variant", "cpu", "--size", size] + steps(c, 20, 3)
        args += ["--procs", "x".join(map(str, grid))] if k > 1 else []
        name = "cpu" if k == 1 else "cpu, 2D (1x2x2)" if grid[1] > 1 else "cpu, 1D (1x1xN)"
        runs.append(Run("laplace", args, ranks=k, series=name, group="cpu", tags=tags))
    return runs


# Process grids of the GPU strong-scaling series beside z-slabs (Paper II Figs. 3-4: 1D
# against 2D): the split moves to y, then to y and z; or to x, then to x and y.
GPU_GRIDS = {"two-stream, 1x2x1 then 1x2x2": {2: "1x2x1", 4: "1x2x2"},
             "two-stream, 2x1x1 then 2x2x1": {2: "2x1x1", 4: "2x2x1"}}


def sourouri2_fig3(c):
    """Strong scaling at 512 x 512 x 1024 in total (the paper's size), 50 steps x 5:
    GPU-only (two-stream) and nested CPU+GPU (hybrid, CPU share auto), one rank per GPU, on
    z-slabs; two-stream also on 2D grids (GPU_GRIDS) from two GPUs."""
    runs = []
    size = ["--size", c.pick("512,512,1024", "32,32,64")] + steps(c, 50, 5)
    for v in (["two-stream"], ["hybrid", "--cpu-fraction", "auto"]):
        name = " ".join(v[:1] + v[2:])
        for n in GPU_COUNTS:
            runs.append(Run("laplace", ["--variant"] + v + size, ranks=n, series=name))
    for name, grids in GPU_GRIDS.items():
        for n in GPU_COUNTS:
            if n in grids:
                runs.append(Run("laplace", ["--variant", "two-stream", "--procs", grids[n]] + size, ranks=n,
                                series=name))
    return runs + laplace_cpu_grids(c, weak=False)


def sourouri2_fig4(c):
    """Wilkes's node of two GPUs: 512 x 512 x 1024 in total on 2 and 4 GPUs as 1 and 2
    processes of multi-thread --gpus 2 (MPI between processes), against one rank per GPU
    (two-stream, hybrid auto); T1 two-stream (hybrid: its own) on one GPU."""
    size = ["--size", c.pick("512,512,1024", "32,32,64")] + steps(c, 50, 5)
    runs = []
    for n in GPU_COUNTS:
        runs.append(Run("laplace", ["--variant", "two-stream"] + size, ranks=n,
                        series="two-stream" if n == 1 else "two-stream, a rank per GPU", group="two-stream"))
        runs.append(Run("laplace", ["--variant", "hybrid", "--cpu-fraction", "auto"] + size, ranks=n,
                        series="hybrid auto"))
        if n > 1:
            runs.append(Run("laplace", ["--variant", "multi-thread", "--gpus", 2] + size, ranks=n // 2, gpus=n,
                            series="multi-thread, 2 GPUs per process", group="two-stream"))
    return runs


SHARES = (0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, "auto")


def sourouri2_fig5(c):
    """(a)-(c) weak scaling at 512^3 per GPU, two-stream and hybrid auto; (d) the CPU share:
    laplace_sweep.sh hybrid's shares 0-10% and auto, plus 15, 20 and 25% (the paper's range
    starts at 10%), at 512^3 per GPU on 1, 2 and 4 GPUs. 50 steps x 5."""
    n0 = c.pick(512, 16)
    runs = []
    for n in GPU_COUNTS:
        size = ["--size", f"{n0},{n0},{n0 * n}"] + steps(c, 50, 5)
        runs.append(Run("laplace", ["--variant", "two-stream"] + size, ranks=n, series="two-stream", tags=("weak",)))
        for f in c.pick(SHARES, (0, 0.1, "auto")):
            tags = ("weak", "share") if f == "auto" else ("share",)
            runs.append(Run("laplace", ["--variant", "hybrid", "--cpu-fraction", f] + size, ranks=n,
                            series="hybrid auto" if f == "auto" else f"hybrid {f}", tags=tags))
    return runs + laplace_cpu_grids(c, weak=True, tags=("weak",))


def langguth_table1(c):
    """tetfv on box:150 (20.25 M cells; tetfv_sweep.sh's size), 50 steps x 3, --reorder none,
    strong scaling: two-stream per transport, the communication-free bound (--no-exchange,
    unverified by construction), hybrid auto; on one GPU the CPU-share sweep (0-5% and auto)
    and the cpu variant alone on every core (Table 1's CPU P_real); on N GPUs Paper III's node
    (hybrid --gpus N, one process) against a rank per GPU, and multi-thread --gpus N."""
    mesh = (["--mesh", c.pick("box:150", "box:6")] + steps(c, 50, 3) + c.unverified("--skip-oracle")
            + ["--reorder", "none"])
    runs = [Run("tetfv", ["--variant", "cpu"] + mesh, series="cpu alone (all cores)", tags=("strong",)),
            Run("tetfv", ["--variant", "two-stream"] + mesh, series="two-stream", tags=("strong",))]
    for n in GPU_COUNTS[1:]:
        for comm in c.comms:
            runs.append(Run("tetfv", ["--variant", "two-stream"] + mesh + ["--comm", comm], ranks=n,
                            series=f"two-stream, {comm}", group="two-stream", tags=("strong",)))
        bound = [a for a in mesh if a != "--skip-oracle"] + ["--no-exchange", "--no-verify"]
        runs.append(Run("tetfv", ["--variant", "two-stream"] + bound, ranks=n,
                        series="two-stream, no exchange (bound)", group="two-stream", tags=("strong",)))
    for n in GPU_COUNTS:
        runs.append(Run("tetfv", ["--variant", "hybrid", "--cpu-fraction", "auto"] + mesh, ranks=n,
                        series="hybrid auto", tags=("strong", "share") if n == 1 else ("strong",)))
    for f in (0, 0.01, 0.02, 0.05):
        runs.append(Run("tetfv", ["--variant", "hybrid", "--cpu-fraction", f] + mesh, series=f"hybrid {f}",
                        tags=("share",)))
    # Paper III's node: one process driving all N GPUs and every core (hybrid --gpus N) against
    # a rank per GPU with the cores split between them, at 1%, and GPU-only with N GPUs per process.
    for n in GPU_COUNTS[1:]:
        runs.append(Run("tetfv", ["--variant", "hybrid", "--gpus", n, "--cpu-fraction", "auto"] + mesh, gpus=n,
                        series="hybrid auto, one process", tags=("strong",)))
        runs.append(Run("tetfv", ["--variant", "hybrid", "--gpus", n, "--cpu-fraction", 0.01] + mesh, gpus=n,
                        series="hybrid 0.01, one process", tags=("strong",)))
        runs.append(Run("tetfv", ["--variant", "hybrid", "--cpu-fraction", 0.01] + mesh, ranks=n,
                        series="hybrid 0.01, a rank per GPU", tags=("strong",)))
        runs.append(Run("tetfv", ["--variant", "multi-thread", "--gpus", n] + mesh, gpus=n,
                        series="multi-thread, one process", tags=("strong",)))
    return runs


def lbm_runs(c, weak):
    """lbm_sweep.sh dual and comm_sweep.sh lbm: 256^3 per GPU (weak) or in total (strong),
    50 steps x 5, --skip-oracle; two-stream through host memory (copies and pack) and over
    each GPU-buffer transport (pack; cuda-aware is Risso's GPUBufferedScheme), naive through
    host memory; two-stream over IPC (or the first transport) also on xz and yz grids (--procs:
    2x1x1 and 2x1x2, 1x2x1 and 1x2x2). The cpu variant on the x, y and z splits it takes
    (--procs, the cavity): 128^3 per rank (weak) or in total (strong), 20 steps x 3, verified."""
    n0 = c.pick(256, 16)
    runs = []
    for n in GPU_COUNTS:
        size = ["--size", f"{n0},{n0},{n0 * n}" if weak else n0] + steps(c, 50, 5) + c.unverified("--skip-oracle")
        if n == 1:
            for v in ("two-stream", "naive"):
                runs.append(Run("lbm", ["--variant", v] + size, series=v))
            continue
        runs.append(Run("lbm", ["--variant", "naive", "--comm", "host", "--halo", "copies"] + size, ranks=n,
                        series="naive, host copies", group="naive"))
        runs.append(Run("lbm", ["--variant", "two-stream", "--comm", "host", "--halo", "copies"] + size, ranks=n,
                        series="two-stream, host copies", group="two-stream"))
        for comm in tuple(c.comms) + (("cuda-aware",) if "cuda-aware" not in c.comms else ()):
            runs.append(Run("lbm", ["--variant", "two-stream", "--comm", comm, "--halo", "pack"] + size, ranks=n,
                            series=f"two-stream, {comm} pack", group="two-stream"))
        if c.comms:
            gcomm = "ipc" if "ipc" in c.comms else c.comms[0]
            for name, grid in (("xz", (2, 1, n // 2)), ("yz", (1, 2, n // 2))):
                gsize = ",".join(str(n0 * g if weak else n0) for g in grid)
                args = ["--variant", "two-stream", "--comm", gcomm, "--procs", "x".join(map(str, grid)),
                        "--size", gsize] + steps(c, 50, 5) + c.unverified("--skip-oracle")
                runs.append(Run("lbm", args, ranks=n, series=f"two-stream, {name} grid", group="two-stream"))
    m = c.pick(128, 12)
    for grid, name in (((1, 1, 1), "cpu"), ((1, 1, 2), "cpu, z"), ((1, 1, 4), "cpu, z"),
                       ((2, 1, 1), "cpu, xz"), ((2, 1, 2), "cpu, xz"), ((1, 2, 1), "cpu, yz"), ((1, 2, 2), "cpu, yz")):
        k = grid[0] * grid[1] * grid[2]
        size = ",".join(str(m * g if weak else m) for g in grid)
        args = ["--variant", "cpu", "--size", size] + steps(c, 20, 3)
        args += ["--procs", "x".join(map(str, grid))] if k > 1 else []
        runs.append(Run("lbm", args, ranks=k, series=name, group="cpu"))
    return runs


def particles_weak(c):
    """particles_sweep.sh dual: the periodic box, 64^3 fcc cells per GPU (--cells 64N,64,64
    --ranks N,1,1), and the branching tube (lab 10), 160 x 120 x 60 voxels per GPU grown
    along x (METIS splits it, so atoms per GPU only about constant), 100 steps x 3, naive and
    two-stream. Above --allpairs-max the oracle is off: counts, momentum (box), energy and
    confinement (tube) decide."""
    runs = []
    box, tube = c.pick(64, 6), c.pick((160, 120, 60), (32, 24, 12))
    for v in ("two-stream", "naive"):
        for n in GPU_COUNTS:
            args = ["--variant", v, "--cells", f"{box * n},{box},{box}"] + steps(c, 100, 3)
            runs.append(Run("particles", args + (["--ranks", f"{n},1,1"] if n > 1 else []), ranks=n,
                            series=f"{v}, box"))
            args = (["--variant", v, "--domain", "tube", "--cells", f"{tube[0] * n},{tube[1]},{tube[2]}"]
                    + steps(c, 100, 3))
            runs.append(Run("particles", args, ranks=n, series=f"{v}, tube"))
    return runs


# id, short forms, paper and figure, one line, notes (verification and what is not redone),
# the plots (tag, kind: strong, weak, share or trace) and the plan.
FIGURES = OrderedDict((f["id"], f) for f in [
    dict(id="bernaschi2015-fig2", alias="bernaschi-fig2", paper="Bernaschi2015 Fig. 2",
         line="two-stream overlap timelines (laplace --trace) on 4 GPUs, naive against two-stream, host and IPC",
         notes="Traces of 10 steps, 1 repetition, 256^3 and 512^3 per GPU, one rank per GPU; every run "
               "verified against the serial oracle. A timeline PNG per trace (labs/01-profiling/plot.py). "
               "Needs 4 GPUs.",
         plots=[("trace", "trace")], plan=bernaschi_fig2),
    dict(id="bernaschi2015-fig6", alias="bernaschi-fig6", paper="Bernaschi2015 Fig. 6",
         line="ising strong scaling, L = 512 and 1024, checkerboard/sliced/msc, host staging and GPU transports",
         notes="two-stream on 1, 2, 4 GPUs, --comm host, ipc, nccl, nvshmem (--comms). L = 512 and 1024 "
               "run --no-verify (the serial oracle takes minutes there; ising has no oracle-free check of "
               "a spin glass): the same layouts, rank counts and transports are verified bit for bit at "
               "L = 64 in the same job (tag check in runs.csv).",
         plots=[("main", "strong")], plan=bernaschi_fig6),
    dict(id="bernaschi2015-fig9", alias="bernaschi-fig9", paper="Bernaschi2015 Fig. 9",
         line="bfs weak scaling, scale 24 per GPU (24/25/26), list against bitmap, direction-optimising and top-down",
         notes="two-stream on an N x 1 grid (the better shape on 2 GPUs: a grid with C > 1 reduces parents "
               "on the host), top-down and direction-optimising (--direction auto); list and bitmap "
               "messages host-staged, and auto messages over each device transport of --comms. "
               "The cpu variant runs at scale 17 per rank (17/18/19), both directions, list and bitmap. "
               "8 roots; every search validated (Graph500 rules and the serial oracle, on rank 0: at "
               "scale 26 about 50 s a search on the 4-H200 machine).",
         plots=[("main", "weak")], plan=bernaschi_fig9),
    dict(id="sourouri2014-fig5", alias="sourouri1-fig5", paper="Sourouri2014 (Paper I) Fig. 5",
         line="laplace strong scaling, 128^3-512^3 in total, multi-thread (P2P, staged) against two-stream, naive "
              "and the single-thread Baseline",
         notes="Strong scaling on 2 and 4 GPUs against two-stream on one; the MPI runs stage through host "
               "memory (Paper I's MPI version); the Baseline is multi-thread --mt-scheme single (one host "
               "thread drives every GPU) in both exchange orders, left-right and pairwise (Paper I Sec. 3). "
               "Every run verified against the serial oracle.",
         plots=[("main", "strong")], plan=sourouri1_fig5),
    dict(id="sourouri2015-fig3", alias="sourouri2-fig3", paper="Sourouri2015 (Paper II) Fig. 3",
         line="laplace strong scaling 512x512x1024, GPU-only against CPU+GPU; the cpu variant on 1D and 2D grids",
         notes="two-stream on z-slabs and on 2D grids (1x2x1 then 1x2x2, 2x1x1 then 2x2x1: the x and y "
               "faces packed by a kernel); hybrid on z-slabs only; the cpu variant on 1x1xN and 1x2x2 at "
               "256^3 in total; a 3D grid needs 8 ranks, beyond this plan. Every run verified against "
               "the serial oracle.",
         plots=[("main", "strong")], plan=sourouri2_fig3),
    dict(id="sourouri2015-fig4", alias="sourouri2-fig4", paper="Sourouri2015 (Paper II) Fig. 4",
         line="laplace strong scaling 512x512x1024 with two GPUs per process (Wilkes's node) against a rank per GPU",
         notes="multi-thread --gpus 2 on 1 and 2 processes, two-stream and hybrid auto on 1, 2, 4 ranks; "
               "z-slabs (see sourouri2015-fig3 for the grids). Every run verified against the serial oracle.",
         plots=[("main", "strong")], plan=sourouri2_fig4),
    dict(id="sourouri2015-fig5", alias="sourouri2-fig5", paper="Sourouri2015 (Paper II) Fig. 5",
         line="laplace weak scaling 512^3 per GPU, GPU-only against CPU+GPU, and the CPU-share sweep on 1, 2, 4 GPUs",
         notes="(a)-(c): two-stream and hybrid auto, and the cpu variant at 128^3 per rank on 1D and 2D "
               "grids (3D needs 8 ranks); (d): hybrid at CPU shares "
               "0-25% and auto. Every run verified against the serial oracle.",
         plots=[("weak", "weak"), ("share", "share")], plan=sourouri2_fig5),
    dict(id="langguth2015-table1", alias="sourouri3-table1", paper="Langguth2015 (Paper III) Table 1, Fig. 5",
         line="tetfv strong scaling, box:150: the communication-free bound, hybrid, the CPU share, the CPU alone",
         notes="--skip-oracle at box:150 (the row-sum, conservation and mode-decay checks stay); the "
               "--no-exchange bound runs --no-verify (a wrong answer on purpose). Each run at box:150 "
               "spends a minute or more in serial set-up.",
         plots=[("strong", "strong"), ("share", "share")], plan=langguth_table1),
    dict(id="risso2017-fig6.6", alias="risso-fig6.6", paper="Risso2017 Fig. 6.6",
         line="lbm weak scaling, 256^3 per GPU, per transport; the cpu variant on z, xz and yz grids",
         notes="GPU runs --skip-oracle (mass and symmetry checks stay), z-slabs and, over IPC (or "
               "the first transport), xz and yz grids (--procs); cuda-aware skips (77) where MPI is not CUDA-aware. "
               "The cpu variant at 128^3 per rank on the cavity, verified against the oracle.",
         plots=[("main", "weak")], plan=lambda c: lbm_runs(c, weak=True)),
    dict(id="risso2017-fig6.7", alias="risso-fig6.7", paper="Risso2017 Fig. 6.7",
         line="lbm strong scaling, 256^3 in total, per transport; the cpu variant on z, xz and yz grids",
         notes="As risso2017-fig6.6, with 256^3 (GPU) and 128^3 (cpu) in total.",
         plots=[("main", "strong")], plan=lambda c: lbm_runs(c, weak=False)),
    dict(id="particles-weak", alias=None, paper="Bernaschi2015 Sec. 3.2 (no measured figure)",
         line="particles weak scaling, periodic box (64^3 cells per GPU) and branching tube (160x120x60 per GPU)",
         notes="naive and two-stream. Above --allpairs-max particles the oracle is off: count, momentum "
               "(box), energy and confinement (tube) checks decide.",
         plots=[("main", "weak")], plan=particles_weak),
])
ALIASES = {f["alias"]: i for i, f in FIGURES.items() if f["alias"]}


# ---------------------------------------------------------------------------------------

def rel(path):
    """PATH relative to the repository root when inside it (the commands run from there)."""
    p = os.path.abspath(path)
    r = os.path.relpath(p, ROOT)
    return p if r == ".." or r.startswith(".." + os.sep) else r


def usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def detect_gpus():
    """(count, names): nvidia-smi's GPUs, less those CUDA_VISIBLE_DEVICES hides."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60).stdout
        names = [l.strip() for l in out.splitlines() if l.strip()]
    except (OSError, subprocess.SubprocessError):
        names = []
    vis = os.environ.get("CUDA_VISIBLE_DEVICES")
    if vis is not None:
        names = names[:len([v for v in vis.split(",") if v.strip()])]
    return len(names), names


def device_summary(names):
    """'4 x NVIDIA H200' (several models: each with its count), or 'no GPU'."""
    if not names:
        return "no GPU"
    counts = OrderedDict()
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    return ", ".join(f"{k} x {n}" for n, k in counts.items())


def commit():
    """(description, source, the .kit-git-describe line or None), in CMake's order
    (common/CMakeLists.txt): git describe where the repository root is the work tree's top,
    else the .kit-git-describe a copy of the tree without .git carries. meta.json keeps
    both when they differ, and the apps' own `git` fields besides (binaries_git)."""
    line = None
    f = os.path.join(ROOT, ".kit-git-describe")
    if os.path.exists(f):
        with open(f) as fh:
            line = fh.readline().strip() or None
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT, capture_output=True,
                             text=True, timeout=30).stdout.strip()
        r = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=ROOT,
                           capture_output=True, text=True, timeout=30)
        if r.returncode == 0 and r.stdout.strip() and top and os.path.realpath(top) == os.path.realpath(ROOT):
            return r.stdout.strip(), "git describe", line
    except (OSError, subprocess.SubprocessError):
        pass
    return (line, ".kit-git-describe", line) if line else ("unknown", "none", None)


def command(run, bindir, jsonl):
    """(environment added, argv) of RUN exactly as it runs, from the repository root."""
    env = OrderedDict()
    if "OMP_NUM_THREADS" not in os.environ:
        env["OMP_NUM_THREADS"] = str(max(1, usable_cores() // run.ranks))
    # NVLink multicast stays off (docs/devices.md), as ci/gpu-suite.sh exports it.
    if "nccl" in run.args and "NCCL_NVLS_ENABLE" not in os.environ:
        env["NCCL_NVLS_ENABLE"] = "0"
    if "nvshmem" in run.args and "NVSHMEM_DISABLE_NVLS" not in os.environ:
        env["NVSHMEM_DISABLE_NVLS"] = "1"
    argv = ([MPIRUN, str(run.ranks)] if run.ranks > 1 else []) + [rel(os.path.join(bindir, run.app))]
    return env, argv + run.args + ["--json", rel(jsonl)]


def shell_line(env, argv):
    return " ".join([f"{k}={v}" for k, v in env.items()] + [shlex.quote(a) for a in argv])


def skip_reason(run, avail):
    if run.gpus == 0 or run.gpus <= avail:
        return None
    return "skipped: no CUDA device" if avail == 0 else f"skipped: needs {run.gpus} GPUs, {avail} here"


def figure_dir(a, fid):
    return os.path.join(a.out, fid + ("-small" if a.small else ""))


def time_per_step(r):
    t = r["time_s"]
    return t["median"] / (t.get("steps") or r.get("params", {}).get("iters") or 1)


def add_efficiency(rows, fig):
    """Each row's parallel efficiency against its group's N = 1 run: strong T1 / (N TN),
    weak T1 / TN (Bernaschi et al.'s eta_SC; lab 05)."""
    kinds = dict(fig["plots"])
    base = {}
    for r in rows:
        if r["N"] == 1 and r["series"] == r["group"] and r["rec"]["verify"]["status"] != "FAILED":
            base.setdefault(r["group"], time_per_step(r["rec"]))
    for r in rows:
        kind = next((kinds[t] for t in r["tags"] if kinds.get(t) in ("strong", "weak")), None)
        t1, tn = base.get(r["group"]), time_per_step(r["rec"])
        r["efficiency"] = None
        if kind and t1 and tn > 0:
            r["efficiency"] = t1 / (r["N"] * tn) if kind == "strong" else t1 / tn


def write_csv(path, rows):
    cols = ["series", "tag", "N"] + list(summarize.COLS)
    params = [r["rec"].get("params", {}) for r in rows]
    if any(p.get("halo") for p in params):  # as summarize.py: halo when some run has one,
        cols.insert(cols.index("p2p") + 1, "halo")
    if any(p.get("comm") not in (None, "", "host") for p in params):  # comm when not all host
        cols.insert(cols.index("p2p") + 1, "comm")
    cols += ["time_per_step_s", "efficiency", "git"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            row = summarize.row(r["rec"])
            p = r["rec"].get("params", {})
            for dims in (("lx", "ly", "lz"), ("cells_x", "cells_y", "cells_z")):  # ising, particles
                if not row["size"] and all(k in p for k in dims):
                    row["size"] = "x".join(str(p[k]) for k in dims) + (
                        f" {p['domain']}" if p.get("domain") not in (None, "box") else "")
            row.update(series=r["series"], tag=" ".join(r["tags"]), N=r["N"], git=r["rec"].get("git", ""),
                       time_per_step_s=f"{time_per_step(r['rec']):.6e}",
                       efficiency="" if r["efficiency"] is None else f"{r['efficiency']:.4f}")
            w.writerow(row)


def plot_scaling(plt, rows, kind, title, png):
    series = OrderedDict()
    for r in rows:
        series.setdefault(r["series"], []).append(r)
    ones = {r["group"]: r for r in rows if r["N"] == 1 and r["series"] == r["group"]}
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 5.5))
    units = sorted({r["rec"]["fom"]["unit"] for r in rows})
    for name, pts in series.items():
        if name not in ones or pts[0]["N"] != 1:
            g = ones.get(pts[0]["group"])
            pts = ([g] if g is not None and name != pts[0]["group"] else []) + pts
        pts = sorted(pts, key=lambda r: r["N"])
        line = a1.plot([r["N"] for r in pts], [r["rec"]["fom"]["value"] for r in pts], marker="o", label=name)[0]
        eff = [(r["N"], r["efficiency"]) for r in pts if r["efficiency"] is not None]
        if eff:
            a2.plot(*zip(*eff), marker="o", color=line.get_color(), label=name)
    ns = sorted({r["N"] for r in rows})
    for ax in (a1, a2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns)
        ax.set_xticklabels([str(n) for n in ns])
        ax.set_xlabel("N (GPUs; ranks for cpu)")
        ax.grid(True, alpha=0.3)
    a1.set_yscale("log")
    a1.set_ylabel("figure of merit (" + ", ".join(units) + ")")
    a2.axhline(1.0, color="grey", lw=1, ls="--")
    a2.set_ylabel("efficiency, " + ("T1 / (N TN)" if kind == "strong" else "T1 / TN"))
    a2.legend(fontsize=7, loc="best")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def plot_share(plt, rows, title, png):
    by_n = OrderedDict()
    for r in sorted(rows, key=lambda r: (r["N"], r["rec"].get("cpu_fraction") or 0)):
        if r["rec"].get("cpu_fraction") is not None:
            by_n.setdefault(r["N"], []).append(r)
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for n, pts in by_n.items():
        ax.plot([100 * r["rec"]["cpu_fraction"] for r in pts], [r["rec"]["fom"]["value"] for r in pts],
                marker="o", label=f"{n} GPU{'s' if n > 1 else ''}")
    units = sorted({r["rec"]["fom"]["unit"] for r in rows})
    ax.set_xlabel("CPU share used (%)")
    ax.set_ylabel("figure of merit (" + ", ".join(units) + ")")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def make_pngs(fig, d, rows, meta):
    """The figure's PNGs into D; returns their names (and a note if none could be made)."""
    made, notes = [], []
    if any(kind == "trace" for _, kind in fig["plots"]):
        tool = os.path.join(HERE, "01-profiling", "plot.py")
        traces = os.path.join(d, "traces")
        for name in sorted(f for f in os.listdir(traces) if f.endswith(".json")) if os.path.isdir(traces) else []:
            png = os.path.join(d, "timeline-" + name[:-5] + ".png")
            p = subprocess.run([sys.executable, "-B", tool, "--trace", os.path.join(d, "traces", name), "--out", png],
                               capture_output=True, text=True)
            if p.returncode == 0 and os.path.exists(png):
                made.append(os.path.basename(png))
            else:
                notes.append(f"{name}: {(p.stderr.strip().splitlines() or ['plot.py failed'])[-1]}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return made, notes + ["PNG skipped: matplotlib is not installed (bash labs/setup.sh installs it)"]
    ok = [r for r in rows if r["rec"]["verify"]["status"] != "FAILED"]
    for tag, kind in fig["plots"]:
        if kind == "trace":
            continue
        sel = [r for r in ok if tag in r["tags"]]
        if not sel:
            notes.append(f"{tag}: no data (every run skipped or failed), no plot")
            continue
        png = os.path.join(d, f"{fig['id']}{'' if len(fig['plots']) == 1 else '-' + tag}.png")
        title = (f"{fig['paper']}: {fig['line']}\n{meta['device']}, "
                 f"{meta['date'][:10]}, {meta['commit']}" + ("\nSMALL: a check of the pipeline at toy sizes, "
                                                              "not the figure" if meta["small"] else ""))
        if kind == "share":
            plot_share(plt, sel, title, png)
        else:
            plot_scaling(plt, sel, kind, title, png)
        made.append(os.path.basename(png))
    return made, notes


def finished_runs(d):
    """--resume: the runs of an earlier invocation in d that ended "ok" (its meta.json), each
    command line with its JSON lines (runs.jsonl holds them in the order the runs ended, each
    entry's json_lines many), its seconds and the commit that made them; {} when d holds none."""
    try:
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        with open(os.path.join(d, "runs.jsonl")) as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
    except (OSError, ValueError):
        return {}
    done, at = {}, 0
    for e in meta.get("runs", []):
        k = e.get("json_lines") or 0
        if e.get("status") in ("ok", "kept") and k > 0:
            done[e["command"]] = dict(lines=lines[at:at + k], seconds=e.get("seconds"))
        at += k
    return done


def save_meta(d, meta):
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


def run_figure(a, fid, avail, names):
    fig = FIGURES[fid]
    d = figure_dir(a, fid)
    c = Plan(a.small, a.comms, d)
    runs = fig["plan"](c)
    jsonl = os.path.join(d, "runs.jsonl")
    os.makedirs(d, exist_ok=True)
    kept = finished_runs(d) if a.resume else {}
    for old in ("runs.jsonl", "runs.csv", "meta.json"):  # from scratch: this script's own files only
        if os.path.exists(os.path.join(d, old)):
            os.remove(os.path.join(d, old))
    for old in os.listdir(d):
        if old.endswith(".png"):
            os.remove(os.path.join(d, old))
    for sub in ("logs", "traces"):  # --resume keeps the finished runs' logs and traces
        if not a.resume:
            shutil.rmtree(os.path.join(d, sub), ignore_errors=True)
    os.makedirs(os.path.join(d, "logs"), exist_ok=True)
    open(jsonl, "w").close()  # there even when no run ends (meta.json names it)
    if any("--trace" in r.args for r in runs):
        os.makedirs(os.path.join(d, "traces"), exist_ok=True)
    desc, source, kit_file = commit()
    meta = OrderedDict(schema="kit.reproduce/1", figure=fid, paper=fig["paper"], title=fig["line"],
                       notes=fig["notes"], small=a.small,
                       date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                       commit=desc, commit_source=source,
                       **({"kit_git_describe": kit_file} if kit_file and kit_file != desc else {}),
                       device=device_summary(names), gpu_names=names, gpus=avail,
                       gpus_from="--gpus" if a.gpus is not None else "nvidia-smi", cores=usable_cores(),
                       comms=list(a.comms), runs=[])
    print(f"reproduce.py: {fid} ({fig['paper']}): {len(runs)} runs -> {rel(d)}", flush=True)
    print(f"  {fig['notes']}", flush=True)
    if a.small:
        print("  --small: toy sizes with every check on, a test of the pipeline (the notes describe the "
              "full plan)", flush=True)
    rows, counts = [], OrderedDict(ran=0, kept=0, skipped=0, failed=0, pending=0)
    for i, run in enumerate(runs, 1):
        if i > 1:  # what has finished so far, so that a --resume after a killed call keeps it
            save_meta(d, meta)
        env, argv = command(run, a.bin_dir, jsonl)
        line = shell_line(env, argv)
        entry = OrderedDict(command=line, series=run.series, N=run.n, tags=list(run.tags))
        if line in kept:  # --resume: finished earlier; its lines go back in plan order
            recs = [json.loads(l) for l in kept[line]["lines"]]
            with open(jsonl, "a") as f:
                f.write("".join(l + "\n" for l in kept[line]["lines"]))
            entry.update(status="kept", seconds=kept[line]["seconds"], json_lines=len(recs),
                         reason="finished by an earlier invocation (--resume)")
            counts["kept"] += 1
            meta["runs"].append(entry)
            for r in recs:
                rows.append(dict(rec=r, series=run.series, group=run.group, N=run.n, tags=run.tags))
            print(f"  [{i}/{len(runs)}] kept (--resume): {line}", flush=True)
            continue
        if a.budget is not None and time.time() - a.started >= a.budget:
            entry.update(status="pending", reason=f"not started: --budget {a.budget:g} s spent")
            counts["pending"] += 1
            meta["runs"].append(entry)
            print(f"  [{i}/{len(runs)}] pending (--budget): {line}", flush=True)
            continue
        why = skip_reason(run, avail)
        if why:
            entry.update(status="skipped", reason=why)
            counts["skipped"] += 1
            print(f"  [{i}/{len(runs)}] {why}: {line}", flush=True)
            meta["runs"].append(entry)
            continue
        offset = os.path.getsize(jsonl) if os.path.exists(jsonl) else 0
        t0 = time.time()
        with open(os.path.join(d, "logs", f"{i:03d}-{run.app}.log"), "w") as logf:
            logf.write(f"$ {line}\n")
            logf.flush()
            p = subprocess.Popen(argv, cwd=ROOT, env=dict(os.environ, **env), stdout=logf,
                                 stderr=subprocess.STDOUT, start_new_session=True)
            try:
                rc = p.wait(timeout=a.timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)  # mpirun.sh and its ranks: the session it started
                except ProcessLookupError:
                    pass
                p.wait()
                rc = None
        secs = time.time() - t0
        with open(os.path.join(d, "logs", f"{i:03d}-{run.app}.log")) as logf:
            tail = [l.strip() for l in logf if l.strip()]
        recs = []
        if os.path.exists(jsonl):
            with open(jsonl) as f:
                f.seek(offset)
                recs = [json.loads(l) for l in f.read().splitlines() if l.strip()]
        entry.update(exit=rc, seconds=round(secs, 1), json_lines=len(recs))
        if rc == 77:
            status, reason = "skipped", (tail[-1] if len(tail) > 1 else "exit 77")
            counts["skipped"] += 1
        elif rc == 0 and recs:
            status, reason = "ok", None
            counts["ran"] += 1
        else:
            status = "failed"
            reason = (f"timed out after {a.timeout} s" if rc is None else
                      "exit 0 but no JSON line appended" if rc == 0 else
                      f"exit {rc}: {tail[-1] if len(tail) > 1 else '(no output)'}")
            counts["failed"] += 1
        entry.update(status=status, reason=reason)
        meta["runs"].append(entry)
        for r in recs:
            rows.append(dict(rec=r, series=run.series, group=run.group, N=run.n, tags=run.tags))
        last = recs[-1] if recs else None
        show = f"{last['fom']['value']:.4g} {last['fom']['unit']}, {last['verify']['status']}" if last else ""
        print(f"  [{i}/{len(runs)}] {status} ({secs:.1f} s{', ' + show if show else ''})"
              f"{': ' + reason if reason else ''}: {line}", flush=True)
    add_efficiency(rows, fig)
    write_csv(os.path.join(d, "runs.csv"), rows)
    pngs, notes = make_pngs(fig, d, rows, meta)
    meta.update(counts=counts, files=OrderedDict(jsonl="runs.jsonl", csv="runs.csv", png=pngs, logs="logs/"),
                notes_png=notes, binaries_git=sorted({r["rec"].get("git", "") for r in rows}),
                finished=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    save_meta(d, meta)
    for n in notes:
        print(f"  note: {n}")
    print(f"reproduce.py: {fid}: {counts['ran']} ran, {counts['kept']} kept, {counts['skipped']} skipped, "
          f"{counts['failed']} failed, {counts['pending']} pending; "
          f"wrote {', '.join(['runs.jsonl', 'runs.csv'] + pngs + ['meta.json'])} in {rel(d)}", flush=True)
    if counts["pending"]:
        print(f"reproduce.py: {fid}: {counts['pending']} runs not started; the same command with --resume "
              f"runs them and keeps the finished ones", flush=True)
    return counts["failed"] == 0


def dry_run(a, fid, avail):
    fig = FIGURES[fid]
    d = figure_dir(a, fid)
    runs = fig["plan"](Plan(a.small, a.comms, d))
    print(f"# {fid} ({fig['paper']}): {len(runs)} runs, from the repository root, into {rel(d)}")
    for run in runs:
        env, argv = command(run, a.bin_dir, os.path.join(d, "runs.jsonl"))
        why = skip_reason(run, avail)
        print((f"# {why}: " if why else "") + shell_line(env, argv))


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="reproduce.py", description="One command per figure of the source papers (docs/reproducing.md).",
        epilog="Figures: " + ", ".join(FIGURES) + " (or all).")
    ap.add_argument("figures", nargs="*", metavar="FIGURE", help="figure ids (--list), or all")
    ap.add_argument("--list", action="store_true", help="print the figures, one a line, and exit")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, one a line, run nothing")
    ap.add_argument("--gpus", type=int, metavar="N",
                    help="GPUs to plan for [nvidia-smi's count; 4 for --dry-run]: runs needing more are skipped")
    ap.add_argument("--out", default=os.path.join(HERE, "out", "reproduce"), metavar="DIR",
                    help="write OUT/<figure>/ [labs/out/reproduce]")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"), metavar="DIR",
                    help="the apps' binaries [build/bin]")
    ap.add_argument("--comms", default=",".join(COMMS), metavar="LIST",
                    help="--comm transports to run, comma-separated [%(default)s]")
    ap.add_argument("--small", action="store_true",
                    help="toy sizes, every check on: a test of the pipeline, not the figure")
    ap.add_argument("--timeout", type=float, metavar="S", help="stop a run after S seconds (counted failed)")
    ap.add_argument("--budget", type=float, metavar="S",
                    help="start no run after S seconds of this command (the rest: pending); with "
                         "--resume a figure can be finished over several calls")
    ap.add_argument("--resume", action="store_true",
                    help="keep the runs an earlier invocation finished in OUT/<figure>/ (same command "
                         "line, status ok) and run only the others")
    a = ap.parse_args(argv)
    a.started = time.time()
    a.comms = tuple(x for x in a.comms.split(",") if x)
    if a.gpus is not None and a.gpus < 0:
        ap.error("--gpus must be 0 or more")
    if a.budget is not None and a.budget < 0:
        ap.error("--budget must be 0 or more")
    a.out, a.bin_dir = os.path.abspath(a.out), os.path.abspath(a.bin_dir)
    return ap, a


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--dry-run all | head` ends quietly
    ap, a = parse_args(argv)
    if a.list:
        for fid, f in FIGURES.items():
            print(f"{fid:20s} {f['paper']:44s} {f['line']}")
        return 0
    if not a.figures:
        ap.print_usage(sys.stderr)
        print("reproduce.py: name a figure (--list shows them) or all", file=sys.stderr)
        return 2
    ids = []
    for name in a.figures:
        if name == "all":
            ids += list(FIGURES)
        elif name in FIGURES or name in ALIASES:
            ids.append(ALIASES.get(name, name))
        else:
            print(f"reproduce.py: unknown figure '{name}' (python3 labs/reproduce.py --list)", file=sys.stderr)
            return 2
    ids = list(OrderedDict.fromkeys(ids))
    if a.dry_run:
        avail = 4 if a.gpus is None else a.gpus
        for fid in ids:
            dry_run(a, fid, avail)
        return 0
    missing = sorted({r.app for fid in ids for r in FIGURES[fid]["plan"](Plan(a.small, a.comms, ""))
                      if not os.access(os.path.join(a.bin_dir, r.app), os.X_OK)})
    if missing:
        print(f"reproduce.py: not built in {rel(a.bin_dir)}: {', '.join(missing)} (bash labs/setup.sh, or --bin-dir)",
              file=sys.stderr)
        return 2
    avail, names = detect_gpus()
    if a.gpus is not None:
        avail = a.gpus
        names = names[:avail]
    ok = True
    for fid in ids:
        ok = run_figure(a, fid, avail, names) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
