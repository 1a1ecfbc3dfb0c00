#!/usr/bin/env python3
"""reproduce_test.py MODE SOURCE_DIR [BIN_DIR]: labs/reproduce.py on a CPU machine.

  list     --list names exactly the figures of docs/reproducing.md's table ("One command per
           figure"), one a line with its paper and a description, each paper a key of
           docs/references.md.
  dry-run  --dry-run all exits 0, and every command it prints runs an app built in BIN_DIR
           (through labs/scripts/mpirun.sh when it has more than one rank), appends to its
           figure's runs.jsonl, and uses only options the app's --help lists, with their
           values and variant rules (tests/docs/slurm_test.py's checks). Then the app's own
           parser judges each distinct command (parse_key: the GPU-buffer transports stand
           for each other, and so do numeric CPU shares): a GPU variant is run as it stands,
           under mpirun.sh with CUDA_VISIBLE_DEVICES empty, and must get past parsing and its
           checks (sizes against ranks, grids, layouts) to the skip for want of a GPU (exit
           77, nothing run); a cpu line is run with --help appended (exit 0 only if every
           option and value before it parsed; `small` runs such lines for real). With --gpus
           2 and --gpus 0 no printed command needs more GPUs than that (the others are
           printed as comments that say why), and every figure but the timelines runs on 1,
           2 and 4 GPUs.
  dry-run-small  the same for --dry-run all --small (the toy sizes).
  unknown  an unknown figure exits 2 with one line on standard error and nothing else.
  small    sourouri2015-fig3 --gpus 0 --small end to end: the cpu runs run and verify, the GPU
           runs are skipped with "skipped: no CUDA device", runs.jsonl, runs.csv, meta.json
           (commands as the dry run prints them) and the PNG (with matplotlib) are written,
           and the command exits 0; then --resume keeps them all (nothing re-run, runs.jsonl
           unchanged), and --budget 0 into a fresh folder leaves every run pending for a
           --resume to run.
Exit 0 when every check passes, 1 with one line per failure. Standard library only.
"""
import concurrent.futures
import csv
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
    failures.append(msg)


def reproduce(src, *args, env=None):
    return subprocess.run([sys.executable, os.path.join(src, "labs", "reproduce.py"), *args], cwd=src,
                          capture_output=True, text=True, env=env, timeout=120)


def docs_ids(src):
    """The figure ids in the first column of the table in reproducing.md's section."""
    text = open(os.path.join(src, "docs", "reproducing.md")).read()
    m = re.search(r"^## One command per figure\n(.*?)(?=^## )", text, re.M | re.S)
    if not m:
        fail("docs/reproducing.md: no section '## One command per figure'")
        return []
    return re.findall(r"^\| `([a-z0-9][a-z0-9.-]*)` \|", m.group(1), re.M)


def check_list(src):
    r = reproduce(src, "--list")
    if r.returncode != 0:
        fail(f"--list exited {r.returncode}: {r.stderr.strip()}")
        return
    refs = open(os.path.join(src, "docs", "references.md")).read()
    keys = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', refs))
    listed = []
    for line in r.stdout.splitlines():
        words = line.split()
        if len(words) < 4:
            fail(f"--list: '{line}' is not 'id  paper figure  description'")
            continue
        listed.append(words[0])
        key = words[1].lower()
        if not words[0].startswith("particles-") and key not in keys:
            fail(f"--list: {words[0]}: paper '{words[1]}' is not a key of docs/references.md")
    if len(set(listed)) != len(listed):
        fail(f"--list: an id twice: {listed}")
    documented = docs_ids(src)
    for i in documented:
        if i not in listed:
            fail(f"docs/reproducing.md names {i}, which --list does not")
    for i in listed:
        if i not in documented:
            fail(f"--list prints {i}, which docs/reproducing.md's table does not name")
    if not documented:
        fail("docs/reproducing.md's table names no figure")
    else:
        print(f"--list: {len(listed)} figures, the same as docs/reproducing.md's table")


def plan_lines(text):
    """[(figure, command words or None, comment)] of a dry run's output."""
    out, fig = [], None
    for line in text.splitlines():
        m = re.match(r"^# (\S+) \(.*\): \d+ runs", line)
        if m:
            fig = m.group(1)
        elif line.startswith("# "):
            out.append((fig, None, line))
        elif line.strip():
            out.append((fig, shlex.split(line), line))
    return out


def split_command(words):
    """(environment, ranks, exe, args) of one printed command."""
    i = 0
    env = {}
    while i < len(words) and re.match(r"^[A-Z_][A-Z0-9_]*=", words[i]):
        k, v = words[i].split("=", 1)
        env[k] = v
        i += 1
    words = words[i:]
    if words and words[0].endswith("labs/scripts/mpirun.sh"):
        return env, int(words[1]), words[2], words[3:], words[0]
    return env, 1, words[0], words[1:], None


def gpus_needed(ranks, args):
    variant = args[args.index("--variant") + 1] if "--variant" in args else None
    if variant == "cpu":
        return 0
    if variant == "multi-thread":
        return ranks * int(args[args.index("--gpus") + 1])
    return ranks


def parse_key(argv):
    """What the app's parser and checks see, less what they treat alike: one GPU-buffer
    transport stands for the others (host is kept: some options need it), one numeric CPU
    share for the others, and the --trace and --json paths are dropped."""
    key, skip = [], False
    for prev, x in zip([""] + list(argv), argv):
        if skip:
            skip = False
            continue
        if x in ("--json", "--trace"):
            skip = True
            continue
        if prev == "--comm" and x != "host":
            x = "(gpu transport)"
        if prev == "--cpu-fraction" and x != "auto":
            x = "(share)"
        key.append(x)
    return tuple(key)


def check_dry_run(src, bindir, small):
    sys.path.insert(0, os.path.join(src, "tests", "docs"))
    sys.dont_write_bytecode = True
    import slurm_test as st  # its option-table checks (parse_help, check_args)
    tmp = tempfile.mkdtemp(prefix="reproduce-dry-")
    try:
        helps, variants = {}, {}
        for app in st.APPS:
            exe = os.path.join(bindir, app)
            if not os.access(exe, os.X_OK):
                fail(f"{exe}: not built")
                continue
            helps[app] = st.parse_help(subprocess.run([exe, "--help"], capture_output=True, text=True).stdout)
            out = subprocess.run([exe, "--variant", "list"], capture_output=True, text=True).stdout
            variants[app] = [l.split()[0] for l in out.splitlines() if l.strip()]
        runs = {}
        per_fig_counts = {}
        for extra in ([["--small"]] if small else [[]]):
            r = reproduce(src, "--dry-run", "all", "--bin-dir", bindir, "--out", tmp, *extra)
            if r.returncode != 0:
                fail(f"--dry-run all {' '.join(extra)}: exit {r.returncode}: {r.stderr.strip()}")
                continue
            lines = plan_lines(r.stdout)
            if not [w for _, w, _ in lines if w]:
                fail(f"--dry-run all {' '.join(extra)}: no command printed")
            for fig, words, line in lines:
                if words is None:
                    fail(f"--dry-run all {' '.join(extra)} (4 GPUs): a command left out: {line}")
                    continue
                where = f"--dry-run {fig}{' --small' if extra else ''}: {line[:120]}"
                env, ranks, exe, args, launcher = split_command(words)
                full = os.path.join(src, exe)
                if not os.access(full, os.X_OK):
                    fail(f"{where}: {exe} is not an executable")
                    continue
                if os.path.realpath(os.path.dirname(full)) != os.path.realpath(bindir):
                    fail(f"{where}: {exe} is not in the build's bin folder {bindir}")
                if ranks > 1 and os.path.realpath(os.path.join(src, launcher)) != os.path.realpath(
                        os.path.join(src, "labs", "scripts", "mpirun.sh")):
                    fail(f"{where}: ranks launched by {launcher}, not labs/scripts/mpirun.sh")
                app = os.path.basename(exe)
                if app not in helps:
                    fail(f"{where}: {app} is not one of the kit's apps")
                    continue
                n0 = len(st.failures)
                variant = st.check_args(where, app, args, helps[app], variants[app])
                for m in st.failures[n0:]:
                    fail(m)
                del st.failures[n0:]
                if variant is None:
                    fail(f"{where}: no --variant")
                    continue
                want = os.path.join(tmp, fig + ("-small" if extra else ""), "runs.jsonl")
                if args.count("--json") != 1 or os.path.abspath(os.path.join(
                        src, args[args.index("--json") + 1])) != want:
                    fail(f"{where}: does not append to the figure's runs.jsonl ({want})")
                if "OMP_NUM_THREADS" not in env and "OMP_NUM_THREADS" not in os.environ:
                    fail(f"{where}: no OMP_NUM_THREADS")
                if not extra:
                    per_fig_counts.setdefault(fig, set()).add(gpus_needed(ranks, args))
                if variant == "cpu":
                    argv = (full, *args, "--help")
                    runs.setdefault(parse_key(argv), (argv, where, 0, env))
                else:
                    argv = ("bash", os.path.join(src, "labs", "scripts", "mpirun.sh"), str(ranks), full, *args)
                    runs.setdefault(parse_key(argv), (argv, where, 77, env))
        for fig, ns in sorted(per_fig_counts.items()):
            want = {4} if fig == "bernaschi2015-fig2" else {1, 2, 4}
            if not want <= ns:
                fail(f"--dry-run {fig}: runs on {sorted(ns)} GPUs, not on each of {sorted(want)}")
        for gpus in () if small else ("2", "0"):
            r = reproduce(src, "--dry-run", "all", "--bin-dir", bindir, "--out", tmp, "--gpus", gpus)
            skipped = 0
            for fig, words, line in plan_lines(r.stdout):
                if words is None:
                    skipped += 1
                    want = "skipped: no CUDA device" if gpus == "0" else "skipped: needs 4 GPUs, 2 here"
                    if not line.startswith("# " + want + ": "):
                        fail(f"--dry-run all --gpus {gpus}: '{line[:80]}' does not say '{want}'")
                    continue
                env, ranks, exe, args, _ = split_command(words)
                if gpus_needed(ranks, args) > int(gpus):
                    fail(f"--dry-run all --gpus {gpus}: needs {gpus_needed(ranks, args)} GPUs: {line[:120]}")
            if r.returncode != 0 or skipped == 0:
                fail(f"--dry-run all --gpus {gpus}: exit {r.returncode}, {skipped} runs shown as skipped")

        def parse(item):
            argv, where, want, env = item
            res = subprocess.run(argv, cwd=src, env=dict(os.environ, CUDA_VISIBLE_DEVICES="", **env),
                                 capture_output=True, text=True, timeout=60)
            if res.returncode != want:
                msg = ((res.stderr + res.stdout).strip().splitlines() or ["(no message)"])[-1]
                return f"{where}: exit {res.returncode}, not {want}: {msg}"
            return None

        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for msg in pool.map(parse, [runs[k] for k in sorted(runs)]):
                if msg:
                    fail(msg)
        if any(files for _, _, files in os.walk(tmp)):
            fail(f"the parse checks wrote into {tmp}: the skips must run nothing")
        print(f"--dry-run{' --small' if small else ''}: {len(runs)} distinct commands accepted by the apps' parsers")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_unknown(src):
    r = reproduce(src, "no-such-figure")
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or r.stdout or len(lines) != 1 or "no-such-figure" not in lines[0]:
        fail(f"unknown figure: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r} "
             "(want exit 2 and one line naming it)")
    else:
        print(f"unknown figure: exit 2: {lines[0]}")


def expected_commit(src):
    """git describe where SRC is a work tree's top, else .kit-git-describe, else unknown."""
    r = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=src, capture_output=True, text=True)
    if r.returncode == 0 and os.path.realpath(r.stdout.strip()) == os.path.realpath(src):
        return subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=src,
                              capture_output=True, text=True).stdout.strip()
    f = os.path.join(src, ".kit-git-describe")
    line = open(f).readline().strip() if os.path.exists(f) else ""
    return line or "unknown"


def check_small(src, bindir):
    fig = "sourouri2015-fig3"
    tmp = tempfile.mkdtemp(prefix="reproduce-small-")
    try:
        args = [fig, "--gpus", "0", "--small", "--out", tmp, "--bin-dir", bindir]
        r = reproduce(src, *args)
        if r.returncode != 0:
            fail(f"{' '.join(args)}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
            return
        d = os.path.join(tmp, fig + "-small")
        meta = json.load(open(os.path.join(d, "meta.json")))
        recs = [json.loads(l) for l in open(os.path.join(d, "runs.jsonl")) if l.strip()]
        dry = reproduce(src, "--dry-run", *args).stdout
        planned = [re.sub(r"^# skipped: no CUDA device: ", "", l) for l in dry.splitlines()
                   if not re.match(r"^# \S+ \(", l)]
        cmds = [e["command"] for e in meta["runs"]]
        if cmds != planned:
            fail(f"meta.json's commands differ from the dry run's:\n  {cmds}\n  {planned}")
        ok = [e for e in meta["runs"] if e["status"] == "ok"]
        gpu = [e for e in meta["runs"] if "--variant cpu" not in e["command"]]
        if not ok or any("--variant cpu" not in e["command"] for e in ok):
            fail(f"meta.json: the runs that ran are not the cpu ones: {[e['command'] for e in ok]}")
        if not gpu or any(e["status"] != "skipped" or e["reason"] != "skipped: no CUDA device" for e in gpu):
            fail("meta.json: the GPU runs are not all 'skipped: no CUDA device'")
        if meta["counts"] != {"ran": len(ok), "kept": 0, "skipped": len(gpu), "failed": 0, "pending": 0}:
            fail(f"meta.json: counts {meta['counts']}")
        if meta["device"] != "no GPU" or meta["commit"] != expected_commit(src) or not meta["date"]:
            fail(f"meta.json: device {meta['device']!r}, commit {meta['commit']!r} (want "
                 f"{expected_commit(src)!r}), date {meta['date']!r}")
        if len(recs) != len(ok) or any(x["verify"]["status"] != "PASSED" or x["variant"] != "cpu" for x in recs):
            fail(f"runs.jsonl: {len(recs)} lines for {len(ok)} runs, or one not a verified cpu run")
        rows = list(csv.DictReader(open(os.path.join(d, "runs.csv"))))
        if len(rows) != len(recs) or sorted({r["N"] for r in rows}) != ["1", "2", "4"]:
            fail(f"runs.csv: {len(rows)} rows, N {sorted({r['N'] for r in rows})}")
        elif any(r["N"] == "1" and r["efficiency"] != "1.0000" for r in rows) or any(not r["efficiency"] for r in rows):
            fail("runs.csv: an efficiency missing, or not 1 at N = 1")
        try:
            import matplotlib  # noqa: F401
            have_mpl = True
        except ImportError:
            have_mpl = False
        png = os.path.join(d, fig + ".png")
        if have_mpl and not (os.path.exists(png) and meta["files"]["png"] == [fig + ".png"]):
            fail(f"{png}: not written")
        if not have_mpl and not any("matplotlib" in n for n in meta["notes_png"]):
            fail("meta.json: no note that the PNG was skipped for want of matplotlib")
        print(f"{fig} --small --gpus 0: {len(ok)} cpu runs verified, {len(gpu)} GPU runs skipped"
              + (", PNG written" if have_mpl else ", PNG skipped (no matplotlib)"))
        check_resume(src, args, d, meta, open(os.path.join(d, "runs.jsonl")).read())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_resume(src, args, d, meta, lines):
    """--resume keeps every finished run (nothing re-run, the same JSON lines in plan order),
    and --budget 0 starts nothing: every run pending, which a --resume then runs."""
    ok = [e["command"] for e in meta["runs"] if e["status"] == "ok"]
    r = reproduce(src, *args, "--resume")
    again = json.load(open(os.path.join(d, "meta.json")))
    if r.returncode != 0 or [e["command"] for e in again["runs"] if e["status"] == "kept"] != ok:
        fail(f"--resume: exit {r.returncode}, kept {[e['command'] for e in again['runs'] if e['status'] == 'kept']}")
    if again["counts"]["ran"] != 0 or open(os.path.join(d, "runs.jsonl")).read() != lines:
        fail(f"--resume ran again ({again['counts']}) or changed runs.jsonl")
    budget = args[:args.index("--out") + 1] + [args[args.index("--out") + 1] + "-budget"] + \
        args[args.index("--out") + 2:]
    bd = os.path.join(budget[budget.index("--out") + 1], os.path.basename(d))
    r = reproduce(src, *budget, "--budget", "0")
    m0 = json.load(open(os.path.join(bd, "meta.json")))
    if r.returncode != 0 or m0["counts"]["pending"] != len(meta["runs"]) or open(os.path.join(bd, "runs.jsonl")).read():
        fail(f"--budget 0: exit {r.returncode}, counts {m0['counts']}: every run should be pending, none run")
    r = reproduce(src, *budget, "--resume")
    m1 = json.load(open(os.path.join(bd, "meta.json")))
    if r.returncode != 0 or m1["counts"]["ran"] != len(ok) or m1["counts"]["pending"]:
        fail(f"--resume after --budget 0: exit {r.returncode}, counts {m1['counts']}")
    shutil.rmtree(budget[budget.index("--out") + 1], ignore_errors=True)
    print(f"--resume kept {len(ok)} finished runs; --budget 0 left {len(meta['runs'])} pending, run by --resume")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("list", "dry-run", "dry-run-small", "unknown", "small"):
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    mode, src = sys.argv[1], os.path.abspath(sys.argv[2])
    bindir = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else os.path.join(src, "build", "bin")
    {"list": lambda: check_list(src), "dry-run": lambda: check_dry_run(src, bindir, False),
     "dry-run-small": lambda: check_dry_run(src, bindir, True),
     "unknown": lambda: check_unknown(src), "small": lambda: check_small(src, bindir)}[mode]()
    if failures:
        print("\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
