#!/usr/bin/env python3
"""slurm_test.py SOURCE_DIR BIN_DIR: the Slurm templates in ci/slurm/ run only command lines
the apps accept, without running a job.

Every app has a GPU template (<app>.sbatch) and a CPU one (<app>-cpu.sbatch). Each template
must pass `bash -n`, and is then run with KIT_DRY_RUN=1 (ci/slurm/kit.sh: kit_launch prints
"kit-dry-run: SRUN_OPTIONS -- APP ARGS" instead of calling srun) under a few fake Slurm
allocations and scaling modes. For every line printed:

  - the app is the template's own, and every --flag is one of the app's options, spelt out
    in full (the kit's parser would take an unambiguous prefix; a template should not);
  - a value from a fixed set (the help's "(a|b|c)") is one of them, and a flag marked
    "{naive and two-stream only}", "{hybrid only}", "{not cpu}" ... is used only there;
  - the variant is cpu in a CPU template, a GPU variant in a GPU template, and a GPU
    template runs every GPU variant of the app (naive and two-stream with --comm where the
    app has it, and shows --comm nccl and --comm ipc in a commented line);
  - the kit's own parser accepts the line: a GPU variant is run as it stands, under
    `mpirun.sh NTASKS` with CUDA_VISIBLE_DEVICES empty, and must get past parsing and the
    app's checks to the skip for want of a GPU (exit 77, nothing allocated); a cpu line is
    run with --help appended (exit 0 only if every option and value before it parsed).

Commented command lines that name "$BIN" get the flag, value and variant checks too.
Exit 0 when every check passes, 1 with one line per failure otherwise. Standard library only.
"""
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys

APPS = ["laplace", "ising", "lbm", "tetfv", "particles", "bfs"]
COMM_APPS = {"laplace", "ising", "lbm", "tetfv"}
# Fake allocations: (nodes, tasks a node, environment added). GPU lines run under mpiexec with
# the srun's task count, so keep these small.
PASSES = [
    (1, 2, {}),
    (2, 1, {"KIT_SCALING": "strong", "KIT_COMM": "nccl"}),
    (2, 2, {"KIT_SCALING": "weak", "KIT_COMM": "ipc", "KIT_ARGS": "--no-verify"}),
]

failures = []


def fail(msg):
    failures.append(msg)


def parse_help(text):
    """--help text -> {name: (takes_value, choices or None, variants rule or None)}."""
    opts = {}
    for line in text.splitlines():
        m = re.match(r"^  --([a-z0-9-]+)( \S+)?\s{2,}(.*)$", line)
        if not m:
            continue
        name, metavar, desc = m.group(1), m.group(2), m.group(3)
        ch = re.search(r"\(([a-z0-9-]+(?:\|[a-z0-9-]+)+)\)", desc)
        rule = re.search(r"\{([^}]*)\}\s*$", desc)
        opts[name] = (metavar is not None, set(ch.group(1).split("|")) if ch else None,
                      rule.group(1) if rule else None)
    return opts


def allowed(rule, variant):
    """Whether a help rule such as 'naive and two-stream only' or 'not cpu' admits variant."""
    if rule is None or variant is None:
        return True
    if rule.startswith("not "):
        return variant not in re.split(r", | and ", rule[4:])
    if rule.endswith(" only"):
        return variant in re.split(r", | and ", rule[:-5])
    return True


def check_args(where, app, args, opts, variants):
    """Flag, value and variant checks of one argument list; returns the --variant value."""
    variant, i, used = None, 0, []
    while i < len(args):
        a = args[i]
        if a == "...":  # "the rest as above" in a comment
            i += 1
            continue
        if not a.startswith("--"):
            fail(f"{where}: '{a}' is not an option (a value without its flag?)")
            i += 1
            continue
        name = a[2:].split("=", 1)[0]
        if name not in opts:
            fail(f"{where}: {app} has no option --{name} (build/bin/{app} --help)")
            i += 1
            continue
        takes, choices, rule = opts[name]
        value = None
        if takes:
            if "=" in a:
                value = a.split("=", 1)[1]
            elif i + 1 < len(args):
                i += 1
                value = args[i]
            else:
                fail(f"{where}: --{name} needs a value")
        used.append((name, rule))
        if name == "variant":
            variant = value
        if choices and value is not None and "$" not in value and value not in choices:
            fail(f"{where}: --{name} {value}: not one of {'|'.join(sorted(choices))}")
        i += 1
    if variant is not None and "$" not in variant:
        if variant not in variants:
            fail(f"{where}: {app} has no variant '{variant}'")
        for name, rule in used:
            if not allowed(rule, variant):
                fail(f"{where}: --{name} does not apply to --variant {variant} ({{{rule}}})")
    return variant


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    src, bindir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    slurm = os.path.join(src, "ci", "slurm")
    mpirun = os.path.join(src, "labs", "scripts", "mpirun.sh")
    helps, variant_lists = {}, {}
    for app in APPS:
        exe = os.path.join(bindir, app)
        if not os.access(exe, os.X_OK):
            fail(f"{exe}: not built")
            continue
        helps[app] = parse_help(subprocess.run([exe, "--help"], capture_output=True, text=True).stdout)
        out = subprocess.run([exe, "--variant", "list"], capture_output=True, text=True).stdout
        variant_lists[app] = [l.split()[0] for l in out.splitlines() if l.strip()]
        if "variant" not in helps[app] or "cpu" not in variant_lists[app]:
            fail(f"{app}: could not read --help or --variant list")
    templates = sorted(f for f in os.listdir(slurm) if f.endswith(".sbatch"))
    r = subprocess.run(["bash", "-n", os.path.join(slurm, "kit.sh")], capture_output=True, text=True)
    if r.returncode:
        fail(f"ci/slurm/kit.sh: bash -n: {r.stderr.strip()}")
    for app in APPS:
        for t in (f"{app}.sbatch", f"{app}-cpu.sbatch"):
            if t not in templates:
                fail(f"ci/slurm/{t}: missing (every app has a GPU and a CPU template)")
    if failures:
        print("\n".join(failures))
        return 1

    runs = {}  # command -> (where, exit code wanted); a line that several passes print runs once
    for t in templates:
        path = os.path.join(slurm, t)
        app, cpu = t[: -len(".sbatch")], False
        if app.endswith("-cpu"):
            app, cpu = app[: -len("-cpu")], True
        if app not in APPS:
            continue  # a template of the user's own (strong.sbatch, ...)
        opts, variants = helps[app], variant_lists[app]
        r = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
        if r.returncode:
            fail(f"ci/slurm/{t}: bash -n: {r.stderr.strip()}")
            continue
        text = open(path).read()
        # Commented command lines: the flags a user is told to try.
        for n, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#") and '"$BIN"' in line:
                tail = line.split('"$BIN"', 1)[1].split("#", 1)[0]
                check_args(f"ci/slurm/{t}:{n} (comment)", app, shlex.split(tail, posix=True), opts, variants)
        if not cpu and app in COMM_APPS:
            for c in ("nccl", "ipc"):
                if not re.search(rf"^#.*\"\$BIN\".*--comm {c}\b", text, re.M):
                    fail(f"ci/slurm/{t}: no commented command line with --comm {c}")
        seen = set()
        for nodes, per_node, extra in PASSES:
            env = dict(os.environ, KIT_DRY_RUN="1", SLURM_JOB_ID="0", SLURM_NNODES=str(nodes),
                       SLURM_NTASKS_PER_NODE=str(per_node), SLURM_NTASKS=str(nodes * per_node),
                       SLURM_CPUS_PER_TASK="2", **extra)
            for k in ("KIT_BIN", "KIT_OUT", "KIT_LAYOUT", "KIT_SCALING", "KIT_COMM", "KIT_ARGS"):
                if k not in extra:
                    env.pop(k, None)
            label = f"ci/slurm/{t} ({nodes} node(s) x {per_node}{''.join(f', {k}={v}' for k, v in extra.items())})"
            r = subprocess.run(["bash", path], cwd=src, env=env, capture_output=True, text=True)
            if r.returncode:
                fail(f"{label}: dry run exited {r.returncode}: {r.stderr.strip()}")
                continue
            lines = [l[len("kit-dry-run:"):] for l in r.stdout.splitlines() if l.startswith("kit-dry-run:")]
            if not lines:
                fail(f"{label}: the dry run printed no command line")
            for k, line in enumerate(lines, 1):
                where = f"{label} line {k}"
                words = shlex.split(line)
                if "--" not in words:
                    fail(f"{where}: no '--' between the srun options and the command")
                    continue
                cut = words.index("--")
                srun, cmd = words[:cut], words[cut + 1:]
                if not cmd or os.path.basename(cmd[0]) != app:
                    fail(f"{where}: runs {cmd[:1]}, not {app}")
                    continue
                variant = check_args(where, app, cmd[1:], opts, variants)
                if variant is None:
                    fail(f"{where}: no --variant")
                    continue
                seen.add(variant)
                if cpu != (variant == "cpu"):
                    fail(f"{where}: --variant {variant} in a {'CPU' if cpu else 'GPU'} template")
                if not cpu and app in COMM_APPS and allowed(opts["comm"][2], variant) and "--comm" not in cmd:
                    fail(f"{where}: --variant {variant} without --comm")
                ntasks = [int(s.split("=", 1)[1]) for s in srun if s.startswith("--ntasks=")]
                if len(ntasks) != 1:
                    fail(f"{where}: srun options without one --ntasks=N")
                    continue
                exe = os.path.join(bindir, app)
                if variant == "cpu":
                    runs.setdefault((exe, *cmd[1:], "--help"), (where, 0))
                else:
                    runs.setdefault(("bash", mpirun, str(ntasks[0]), exe, *cmd[1:]), (where, 77))
        if not cpu:
            missing = [v for v in variants if v != "cpu" and v not in seen]
            if missing:
                fail(f"ci/slurm/{t}: runs no {', '.join(missing)} (every GPU variant of {app})")

    def parse(item):
        run, (where, want) = item
        res = subprocess.run(run, cwd=src, env=dict(os.environ, CUDA_VISIBLE_DEVICES=""),
                             capture_output=True, text=True, timeout=50)
        if res.returncode != want:
            msg = (res.stderr.strip().splitlines() or ["(no message)"])[-1]
            cmd = run[run.index("--variant") - 1:]
            return f"{where}: {os.path.basename(cmd[0])} {' '.join(cmd[1:])}: exit {res.returncode}, not {want}: {msg}"
        return None

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for msg in pool.map(parse, sorted(runs.items())):
            if msg:
                fail(msg)
    if failures:
        print("\n".join(failures))
        return 1
    print(f"slurm templates: {len(runs)} command lines of {len(templates)} templates accepted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
