#!/usr/bin/env python3
"""schema_test.py: docs/output-schema.md against the JSON lines the apps really print.

Usage: schema_test.py REPO_ROOT APP=BINARY ...   (one APP=BINARY for each app of section 4)

Each app's `cpu` variant runs on one rank (no mpiexec), small: once plainly (the base run) and
again with the options that add keys (EXTRA below), each with `--json -`; the last line of
stdout is the kit.result/1 object. The document is read as the tables it is made of:

  - 2.1, 2.3, 2.5, 2.7: the first column's `names` are the top-level fields and the keys of
    time_s, messages and verify. Every run must print exactly those.
  - Section 4, `### 4.N `app``: tables under `#### params`, `#### results`, `#### phases` and
    `#### checks`; `### 4.1 Keys that every app ...` adds results and checks to every app.
    The first column's `names` are the keys. In params, results and checks a row is
    unconditional when its `when` cell is exactly "always". In phases, the `recorded by` cell
    names the variants; `cpu` without a "(condition)" right after it is unconditional for the
    cpu variant, `cpu (...)` is conditional.

It fails when:
  1. a run prints a params or results key, a phase or a check name that the app's tables (and
     4.1's) do not list, or, for phases, lists without `cpu`;
  2. the base run does not print a key of an unconditional row (a phase: an unconditional
     `cpu` row);
  3. top-level fields or the keys of time_s, messages, verify, fom or a check object differ
     from 2.1, 2.3, 2.5 and 2.7, or ceiling_source is not one that 2.1 names;
  4. the app's section does not name its figure of merit and unit in `backquotes`;
  5. a run exits non-zero or prints no JSON line, or an app of section 4 has no binary;
  6. an app's section lacks one of its four tables, a table its `when` or `recorded by`
     column, a row its condition, or a phases row names no variant, or a key is listed twice.
Every failure is printed; the exit code is 1 if there was any.
"""

import json
import os
import re
import subprocess
import sys

BASE = {
    "laplace": ["--size", "8", "--iters", "3", "--reps", "2", "--warmup", "1"],
    "ising": ["--size", "8", "--iters", "4", "--samples", "2", "--reps", "2", "--warmup", "1"],
    "lbm": ["--size", "6,4,8", "--iters", "6", "--reps", "2", "--warmup", "1"],
    "tetfv": ["--mesh", "box:3", "--iters", "10", "--reps", "2", "--warmup", "1"],
    "particles": ["--cells", "5,4,6", "--rc", "2.0", "--iters", "10", "--reps", "1", "--warmup", "1"],
    "bfs": ["--scale", "10", "--roots", "4", "--warmup", "1"],
}
# Options that add keys a plain run does not print ({root}: the repository).
R1 = ["--reps", "1", "--warmup", "1"]
EXTRA = {
    "ising": [
        ["--size", "6,4,8", "--iters", "4", "--samples", "2", "--mattis", "--temp", "1.5"] + R1,
        ["--size", "8", "--p", "0", "--temp", "1.5", "--init", "up", "--iters", "4"] + R1,
        ["--size", "8", "--p", "0", "--temp", "10", "--init", "up", "--iters", "20"]
        + ["--layout", "checkerboard"] + R1,
    ],
    "lbm": [
        ["--case", "poiseuille", "--size", "1,1,32", "--until-steady", "1e-7"],
        ["--size", "6", "--iters", "3", "--re", "1000", "--init", "random"] + R1,
    ],
    "tetfv": [["--mesh", "box:3", "--iters", "10", "--flux", "two-point", "--init", "constant"] + R1],
    "particles": [
        ["--domain", "tube", "--cells", "12,10,6", "--rc", "2.0", "--iters", "5"] + R1,
        ["--cells", "6,5,7", "--rc", "2.0", "--iters", "10", "--neighbor", "list"] + R1,
    ],
    "bfs": [["--graph", "{root}/tests/bfs/data/small.mtx", "--roots", "4", "--prune", "--warmup", "1"]],
}
VARIANTS = ("cpu", "naive", "two-stream", "multi-thread", "hybrid")
TICKS = re.compile(r"`([^`]+)`")
CELL_SPLIT = re.compile(r"(?<!\\)\|")

errors = []


def fail(msg):
    errors.append(msg)
    print("FAIL " + msg)


def sections(text):
    """(level, title, lines) for every heading, the lines up to the next heading."""
    out, cur, fence = [], None, False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^(#{1,6}) (.*)$", line)
        if m:
            cur = (len(m.group(1)), m.group(2).strip(), [])
            out.append(cur)
        elif cur:
            cur[2].append(line)
    return out


def table(lines):
    """The first markdown table in lines: (header cells, rows of cells)."""
    rows = []
    for l in lines:
        if l.startswith("|"):
            rows.append(l)
        elif rows:
            break
    if len(rows) < 2:
        return [], []
    split = lambda l: [c.strip() for c in CELL_SPLIT.split(l.strip().strip("|"))]
    return [h.lower() for h in split(rows[0])], [split(r) for r in rows[2:]]


def names(cell):
    return TICKS.findall(cell)


def first_column(secs, number):
    """The names in the first column of section `number`'s table (e.g. "2.3"), and the rows."""
    for _, title, lines in secs:
        if title.split(" ")[0] == number:
            _, rows = table(lines)
            return {n for r in rows for n in names(r[0])}, rows
    fail(f"docs: no section {number}")
    return set(), []


def parse_app_tables(where, lines):
    """{params|results|checks: {key: unconditional}, phases: {name: cpu state}} of one section."""
    out, part = {}, None
    blocks = {}
    for line in lines:
        m = re.match(r"^#### (\w+)\s*$", line)
        if m:
            part = m.group(1)
            blocks[part] = []
        elif part:
            blocks[part].append(line)
    for part, blines in blocks.items():
        header, rows = table(blines)
        if not rows:
            fail(f"docs: {where}, {part}: no table")
            continue
        keys = {}
        if part == "phases":
            if "recorded by" not in header:
                fail(f"docs: {where}, phases: no 'recorded by' column")
                continue
            col = header.index("recorded by")
            for r in rows:
                rec = r[col] if col < len(r) else ""
                if not any(v in names(rec) for v in VARIANTS):
                    fail(f"docs: {where}, phases: row {r[0]} names no variant in `recorded by`")
                state = "cond" if re.search(r"`cpu`\s*\(", rec) else ("always" if "`cpu`" in rec else None)
                for n in names(r[0]):
                    prev = keys.get(n)  # a name may have one row per group of variants
                    keys[n] = "always" if "always" in (prev, state) else (prev or state)
        else:
            if "when" not in header:
                fail(f"docs: {where}, {part}: no 'when' column")
                continue
            col = header.index("when")
            for r in rows:
                when = r[col] if col < len(r) else ""
                if not when:
                    fail(f"docs: {where}, {part}: row {r[0]} has an empty `when`")
                for n in names(r[0]):
                    if n in keys:
                        fail(f"docs: {where}, {part}: `{n}` listed twice")
                    keys[n] = when == "always"
        out[part] = keys
    return out


def parse_doc(path):
    text = open(path, encoding="utf-8").read()
    secs = sections(text)
    doc = {"apps": {}, "common": {}, "app_text": {}}
    doc["top"], top_rows = first_column(secs, "2.1")
    doc["time_s"], _ = first_column(secs, "2.3")
    doc["messages"], _ = first_column(secs, "2.5")
    doc["verify"], verify_rows = first_column(secs, "2.7")
    doc["fom_row"] = " ".join(" ".join(r) for r in top_rows if "fom" in names(r[0]))
    doc["ceiling_row"] = " ".join(" ".join(r) for r in top_rows if "ceiling_source" in names(r[0]))
    doc["checks_row"] = " ".join(" ".join(r) for r in verify_rows if "checks" in names(r[0]))
    for i, (level, title, lines) in enumerate(secs):
        if level != 3:
            continue
        body = list(lines)
        for lvl, t, more in secs[i + 1:]:  # the #### subsections belong to it
            if lvl <= 3:
                break
            body += ["#" * lvl + " " + t] + more
        m = re.match(r"^4\.\d+ `(\w+)`$", title)
        if m:
            doc["apps"][m.group(1)] = parse_app_tables(f"section {title}", body)
            for part in ("params", "results", "phases", "checks"):
                if part not in doc["apps"][m.group(1)]:
                    fail(f"docs: section {title} has no #### {part} table")
            doc["app_text"][m.group(1)] = "\n".join(body)
        elif re.match(r"^4\.\d+ Keys that every app", title):
            doc["common"] = parse_app_tables(f"section {title}", body)
    if not doc["apps"]:
        fail("docs: no app section (### 4.N `app`)")
    return doc


def run(binary, args):
    cmd = [binary, "--variant", "cpu"] + args + ["--json", "-"]
    shown = " ".join([os.path.basename(binary)] + cmd[1:])
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f"{shown}: {e}")
        return shown, None
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        fail(f"{shown}: exit {p.returncode}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        return shown, None
    try:
        return shown, json.loads(lines[-1])
    except ValueError as e:
        fail(f"{shown}: last line is not JSON ({e}): {lines[-1][:200]}")
        return shown, None


def same_keys(shown, what, printed, documented, where):
    for k in sorted(set(printed) - documented):
        fail(f"{shown}: {what} `{k}` is printed but not listed in {where}")
    for k in sorted(documented - set(printed)):
        fail(f"{shown}: {what} `{k}` is listed in {where} but not printed")


def check_common(shown, d, doc):
    same_keys(shown, "field", d, doc["top"], "2.1")
    same_keys(shown, "time_s key", d["time_s"], doc["time_s"], "2.3")
    same_keys(shown, "messages key", d["messages"], doc["messages"], "2.5")
    same_keys(shown, "verify key", d["verify"], doc["verify"], "2.7")
    for k in d["fom"]:
        if not re.search(r"\b%s\b" % re.escape(k), doc["fom_row"]):
            fail(f"{shown}: fom key `{k}` is not in 2.1's `fom` row")
    if d["ceiling_source"] not in doc["ceiling_row"]:
        fail(f"{shown}: ceiling_source {d['ceiling_source']!r} is not in 2.1's `ceiling_source` row")
    for c in d["verify"]["checks"]:
        for k in c:
            if not re.search(r"\b%s\b" % re.escape(k), doc["checks_row"]):
                fail(f"{shown}: check field `{k}` is not in 2.7's `checks` row")


def check_app(app, shown, d, doc, base):
    t = doc["apps"][app]
    common = doc["common"]
    where = f"section 4's `{app}`"
    params, results = t.get("params", {}), {**common.get("results", {}), **t.get("results", {})}
    checks, phases = {**common.get("checks", {}), **t.get("checks", {})}, t.get("phases", {})
    printed_checks = [c["name"] for c in d["verify"]["checks"]]
    for what, printed, documented in (("params", d["params"], params), ("results", d["results"], results),
                                      ("checks", printed_checks, checks)):
        for k in printed:
            if k not in documented:
                fail(f"{shown}: {what} key `{k}` is printed but not listed in {where} {what} table")
        if base:
            for k, always in documented.items():
                if always and k not in printed:
                    fail(f"{shown}: {what} key `{k}` is `always` in {where} {what} table but not printed")
    for k in d["phases"]:
        if k not in phases:
            fail(f"{shown}: phase `{k}` is recorded but not listed in {where} phases table")
        elif phases[k] is None:
            fail(f"{shown}: phase `{k}` is recorded by cpu, but {where} phases table does not say `cpu`")
    if base:
        for k, state in phases.items():
            if state == "always" and k not in d["phases"]:
                fail(f"{shown}: phase `{k}` is recorded by `cpu` in {where} phases table but not printed")
        text = doc["app_text"][app]
        for k in sorted({d["fom"]["name"], d["fom"]["unit"]}):
            if f"`{k}`" not in text:
                fail(f"{shown}: the figure of merit's `{k}` is not named in {where} section")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    root = argv[1]
    bins = dict(a.split("=", 1) for a in argv[2:])
    doc = parse_doc(os.path.join(root, "docs", "output-schema.md"))
    runs = 0
    for app in sorted(doc["apps"]):
        if app not in bins:
            fail(f"no binary given for {app} (pass {app}=PATH)")
            continue
        configs = [(BASE.get(app, []), True)]
        for extra in EXTRA.get(app, []):
            extra = [a.replace("{root}", root) for a in extra]
            configs.append((extra, False))
        for args, base in configs:
            shown, d = run(bins[app], args)
            runs += 1
            if d is None:
                continue
            if d.get("app") != app:
                fail(f"{shown}: app is {d.get('app')!r}, not {app!r}")
                continue
            check_common(shown, d, doc)
            check_app(app, shown, d, doc, base)
    for app in sorted(set(bins) - set(doc["apps"])):
        fail(f"{app}: given a binary, but docs/output-schema.md has no section 4.N `{app}`")
    print(f"schema_test: {runs} runs of {len(doc['apps'])} apps, {len(errors)} failure(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
