#!/usr/bin/env python3
"""compute_sanitize.py BUILD OUTDIR [TOOLS] [JOBS]: NVIDIA compute-sanitizer over the smoke
test of every GPU variant of every app.

The command lines are CTest's own (`ctest --show-only=json-v1 -R ^smoke_`), so what is
sanitized is exactly what the smoke tests run; the tool goes in front of the app binary:
    tests/smoke.sh JSON  compute-sanitizer --tool T --error-exitcode 99  bin/app --variant v ...
The cpu variants are left out (no kernels). TOOLS defaults to
memcheck,racecheck,synccheck,initcheck. A run passes when the app exits 0 (its own
verification passed under the tool) and the tool reports no error; one log per run in
OUTDIR, and a table on stdout. Exit 1 if any run fails. Run the smoke tests once without the
tool first (ci/gpu-suite.sh does), so that the bandwidth ceiling is cached and not
re-measured under the tool (KIT_CEILING_CACHE). KIT_SANITIZE_TESTS, a CTest regex
(default ^smoke_), narrows the runs to some apps' smoke tests (^smoke_ising).
"""
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import time


SANITIZER = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"


def smoke_tests(build):
    which = os.environ.get("KIT_SANITIZE_TESTS", "^smoke_")
    out = subprocess.run(["ctest", "--test-dir", build, "-R", which, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    for t in json.loads(out)["tests"]:
        cmd = t.get("command") or []
        if "--variant" not in cmd or cmd[cmd.index("--variant") + 1] == "cpu":
            continue
        env = {}
        for p in t.get("properties", []):
            if p["name"] == "ENVIRONMENT":
                env.update(kv.split("=", 1) for kv in p["value"])
        yield t["name"], cmd, env


def run_one(name, cmd, env, tool, outdir):
    # smoke.sh JSON BINARY ARGS...: the binary is the third word.
    san = [SANITIZER, "--tool", tool, "--error-exitcode", "99", "--print-limit", "20"]
    if tool == "racecheck":
        san += ["--racecheck-report", "all"]
    # Each run its own JSON file: the tools of one smoke test run at the same time.
    full = [cmd[0], os.path.join(outdir, f"{tool}_{name}.json")] + san + cmd[2:]
    log = os.path.join(outdir, f"{tool}_{name}.log")
    t0 = time.time()
    with open(log, "w") as f:
        f.write(" ".join(full) + "\n")
        f.flush()
        rc = subprocess.run(full, stdout=f, stderr=subprocess.STDOUT, env={**os.environ, **env},
                            timeout=600).returncode
    text = open(log, errors="replace").read()
    # memcheck, synccheck, initcheck: "ERROR SUMMARY: N errors"; racecheck:
    # "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)".
    m = re.search(r"ERROR SUMMARY: (\d+) error", text) or \
        re.search(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) error", text)
    errors = int(m.group(1)) if m else -1
    if rc == 77:
        verdict = "skipped"
    elif rc == 0 and errors == 0:
        verdict = "clean"
    else:
        verdict = f"FAILED (exit {rc}, {errors if errors >= 0 else '?'} errors)"
    return name, tool, verdict, time.time() - t0


def main():
    build, outdir = sys.argv[1], sys.argv[2]
    tools = (sys.argv[3] if len(sys.argv) > 3 else "memcheck,racecheck,synccheck,initcheck").split(",")
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    os.makedirs(outdir, exist_ok=True)
    tests = list(smoke_tests(build))
    if not tests:
        sys.exit("compute_sanitize: no GPU smoke tests found in " + build)
    rows = []
    with cf.ThreadPoolExecutor(jobs) as pool:
        futs = [pool.submit(run_one, n, c, e, t, outdir) for t in tools for n, c, e in tests]
        for f in cf.as_completed(futs):
            rows.append(f.result())
            print("%-34s %-10s %-28s %6.1f s" % rows[-1], flush=True)
    rows.sort()
    bad = [r for r in rows if r[2].startswith("FAILED")]
    print(f"compute-sanitizer: {len(rows)} runs ({len(tests)} smoke tests x {len(tools)} tools), "
          f"{sum(r[2] == 'clean' for r in rows)} clean, {sum(r[2] == 'skipped' for r in rows)} skipped, "
          f"{len(bad)} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
