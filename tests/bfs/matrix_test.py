#!/usr/bin/env python3
"""matrix_test.py LAUNCH... -- ARGS...: --message-matrix against the run's own counters.

Runs `LAUNCH... ARGS... --message-matrix F --json J` (ARGS should hold --roots 1 or --root V:
one timed search, so the per-search figures are that search's) and checks:
  1. the run passes (exit 0; 77, no GPU here, is passed on as a skip);
  2. F has one line per level, 0, 1, ..., schema bfs.message_matrix/1, a direction, and two
     P x P matrices, P = grid_rows * grid_cols of the JSON result line;
  3. the diagonal is zero, expand entries lie within a grid column and fold entries within a
     grid row (rank s = i*C + j);
  4. each level's matrix sums equal that level's expand_bytes and fold_bytes in the printed
     table of the first search, and the sums over levels equal the JSON's
     expand_bytes_per_search and fold_bytes_per_search.
Exit 0 if so, 1 with the first failure."""
import json
import os
import re
import subprocess
import sys
import tempfile


def fail(msg, text=""):
    if text:
        print(text)
    print("matrix_test: " + msg)
    return 1


def table(text):
    """The first search's per-level (expand_bytes, fold_bytes) from the printed table."""
    rows, on = [], False
    for line in text.splitlines():
        if line.startswith("levels of the first search"):
            on = True
            continue
        if on and line.strip().startswith("level"):
            continue
        if on:
            m = re.match(r"^\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s", line)
            if not m:
                break
            rows.append((int(m.group(3)), int(m.group(4))))
    return rows


def main():
    sep = sys.argv.index("--")
    launch, args = sys.argv[1:sep], sys.argv[sep + 1:]
    with tempfile.TemporaryDirectory() as tmp:
        mm, js = os.path.join(tmp, "matrix.jsonl"), os.path.join(tmp, "result.json")
        p = subprocess.run(launch + args + ["--message-matrix", mm, "--json", js], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode == 77:
            print(p.stdout)
            return 77
        if p.returncode != 0:
            return fail(f"the run exited {p.returncode}", p.stdout)
        with open(js) as f:
            res = json.loads(f.readline())
        with open(mm) as f:
            lines = [json.loads(line) for line in f]
    R, C = res["params"]["grid_rows"], res["params"]["grid_cols"]
    P = R * C
    levels = table(p.stdout)
    if not lines or len(lines) != len(levels):
        return fail(f"{len(lines)} matrix lines, {len(levels)} levels in the table", p.stdout)
    tot_e = tot_f = 0
    for l, rec in enumerate(lines):
        if rec.get("schema") != "bfs.message_matrix/1" or rec.get("level") != l:
            return fail(f"line {l}: schema or level wrong: {rec.get('schema')} {rec.get('level')}")
        if rec.get("direction") not in ("top-down", "bottom-up"):
            return fail(f"line {l}: direction {rec.get('direction')!r}")
        for key in ("expand", "fold"):
            m = rec[key]
            if len(m) != P or any(len(row) != P for row in m):
                return fail(f"level {l}: {key} is not {P} x {P}")
            for s in range(P):
                for d in range(P):
                    v = m[s][d]
                    if v < 0:
                        return fail(f"level {l}: {key}[{s}][{d}] = {v} < 0")
                    if v and s == d:
                        return fail(f"level {l}: {key}[{s}][{s}] = {v}: a self-send was counted")
                    same = (s % C == d % C) if key == "expand" else (s // C == d // C)
                    if v and not same:
                        return fail(f"level {l}: {key}[{s}][{d}] = {v} crosses the grid "
                                    f"{'column' if key == 'expand' else 'row'}")
        e = sum(map(sum, rec["expand"]))
        f_ = sum(map(sum, rec["fold"]))
        if (e, f_) != levels[l]:
            return fail(f"level {l}: matrix sums expand {e}, fold {f_}; the table says {levels[l]}")
        tot_e += e
        tot_f += f_
    want_e = res["results"]["expand_bytes_per_search"]
    want_f = res["results"]["fold_bytes_per_search"]
    print(f"{len(lines)} levels on a {R}x{C} grid: matrix sums expand {tot_e} B, fold {tot_f} B; "
          f"the JSON's per search: expand {want_e} B, fold {want_f} B")
    if tot_e != want_e or tot_f != want_f:
        return fail("the matrix sums differ from the JSON's bytes per search")
    return 0


if __name__ == "__main__":
    sys.exit(main())
