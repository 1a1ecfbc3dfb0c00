#!/usr/bin/env python3
"""nlfs_test.py: bfs --frontier-table (Rossetti's next-level frontier arrays) checked two ways.

  nlfs_test.py oracle EDGELIST ROOT RxC PARTITION LAUNCH...
      Runs LAUNCH... --graph EDGELIST --root ROOT --grid RxC --partition PARTITION
      --frontier-table --json FILE (LAUNCH: the launcher, the binary and any other flags) and
      compares every row of the printed table, and the JSON totals, with counts made here from
      the edge list alone (standard library only, no code shared with the app):
        - the levels: a breadth-first search in Python;
        - the owners: N vertices in P = R*C blocks, the first N % P of N // P + 1 vertices;
          block partition: v in the block that holds it; cyclic: v in block v % P; block b
          is the process in grid row b % R, column b // R;
        - the arrays: rank (i, j) stores the directed entry u -> v (each undirected input edge
          gives both, a self-loop none, a repeated edge both again) when u's owner is in grid
          column j and v's owner in grid row i. At level L it writes one entry per stored
          entry whose u is at level L: m; n counts its distinct v; remote entries are those
          whose v another rank owns. Summed over ranks: m = entries out of the level-L
          frontier, n = distinct (grid column of u, v) pairs, remote = v's grid column is not
          u's.
  nlfs_test.py same COLUMNS CMD1... :: CMD2... [:: ...]
      Runs every command with --frontier-table --json FILE and requires the listed columns
      (comma-separated, of frontier,m,n,m_remote,n_remote) of their tables, and the JSON
      totals that come from them, to be identical: m must not depend on the rank count, the
      grid or the partition, and no column on the direction or the variant.
Exit 0 if all agree, 1 with the first difference, 77 when a command exits 77 (no GPU)."""
import json
import os
import subprocess
import sys
import tempfile
from collections import deque

COLS = ["level", "dir", "frontier", "m", "n", "ratio", "m_remote", "n_remote"]
JSON_KEYS = {"m": "nlfs_per_search", "n": "nlfs_unique_per_search", "m_remote": "nlfs_remote_per_search",
             "n_remote": "nlfs_remote_unique_per_search"}


class Skip(Exception):
    pass


def run(cmd):
    """The table's rows (dicts; the total row under key 'total') and the JSON results."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.json")
        p = subprocess.run(cmd + ["--frontier-table", "--json", path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode == 77:
            raise Skip(p.stdout)
        if p.returncode != 0:
            print(p.stdout)
            raise SystemExit(f"nlfs_test: {' '.join(cmd)} exited {p.returncode}")
        with open(path) as f:
            results = json.loads(f.readline())["results"]
    lines = p.stdout.splitlines()
    at = next((k for k, l in enumerate(lines) if l.startswith("next-level frontier arrays")), None)
    if at is None:
        print(p.stdout)
        raise SystemExit("nlfs_test: no frontier table in the output")
    if lines[at + 1].split() != ["level", "dir", "frontier", "m", "n", "m/n", "m_remote", "n_remote"]:
        raise SystemExit(f"nlfs_test: unexpected header {lines[at + 1]!r}")
    rows, total = [], None
    for line in lines[at + 2:]:
        f = line.split()
        if len(f) != len(COLS):
            break
        row = {}
        for c, x in zip(COLS, f):
            row[c] = x if c == "dir" or x == "total" else float(x) if c == "ratio" else int(x)
        if row["level"] == "total":
            total = row
            break
        rows.append(row)
    if total is None:
        raise SystemExit("nlfs_test: the table has no total row")
    return rows, total, results


def read_edges(path):
    edges, n = [], 0
    for line in open(path):
        f = line.split("#", 1)[0].split()
        if f:
            u, v = int(f[0]), int(f[1])
            edges.append((u, v))
            n = max(n, u + 1, v + 1)
    return n, edges


def expected(path, root, R, C, partition):
    n, edges = read_edges(path)
    adj = [[] for _ in range(n)]  # the directed entries, with multiplicity, no self-loops
    for u, v in edges:
        if u != v:
            adj[u].append(v)
            adj[v].append(u)
    level = [-1] * n
    level[root] = 0
    q = deque([root])
    while q:
        u = q.popleft()
        for v in adj[u]:
            if level[v] < 0:
                level[v] = level[u] + 1
                q.append(v)
    P = R * C
    size = [n // P + (1 if b < n % P else 0) for b in range(P)]
    first = [sum(size[:b]) for b in range(P)]

    def block(v):
        if partition == "cyclic":
            return v % P
        return next(b for b in range(P) if first[b] <= v < first[b] + size[b])

    col = [block(v) // R for v in range(n)]  # the grid column of v's owner
    rows = []
    for L in range(max(level) + 1):
        frontier = [u for u in range(n) if level[u] == L]
        m = mr = 0
        distinct, distinct_r = set(), set()
        for u in frontier:
            for v in adj[u]:
                remote = col[v] != col[u]
                m += 1
                mr += remote
                distinct.add((col[u], v))
                if remote:
                    distinct_r.add((col[u], v))
        rows.append({"level": L, "frontier": len(frontier), "m": m, "n": len(distinct), "m_remote": mr,
                     "n_remote": len(distinct_r)})
    return rows


def check_ratio(rows, total):
    for r in rows + [total]:
        want = r["m"] / r["n"] if r["n"] else 0.0
        if abs(r["ratio"] - want) > 0.006:
            raise SystemExit(f"nlfs_test: level {r['level']}: m/n printed {r['ratio']}, m {r['m']} / n {r['n']}")
    for c in ("frontier", "m", "n", "m_remote", "n_remote"):
        if sum(r[c] for r in rows) != total[c]:
            raise SystemExit(f"nlfs_test: the total row's {c} is not the sum of the levels")


def check_json(total, results):
    """One search (--root): the JSON's per-search sums are the table's totals."""
    for c, key in JSON_KEYS.items():
        if results.get(key) != total[c]:
            raise SystemExit(f"nlfs_test: JSON {key} {results.get(key)}, the table's total {total[c]}")
    want = total["m"] / total["n"] if total["n"] else 0.0
    if abs(results["unique_ratio"] - want) > 1e-12 * max(1.0, want):
        raise SystemExit(f"nlfs_test: JSON unique_ratio {results['unique_ratio']}, total m/n {want}")


def oracle(argv):
    path, root, grid, partition = argv[0], int(argv[1]), argv[2], argv[3]
    R, C = (int(x) for x in grid.split("x"))
    launch = argv[4:]
    rows, total, results = run(launch + ["--graph", path, "--root", str(root), "--grid", grid,
                                         "--partition", partition])
    want = expected(path, root, R, C, partition)
    if len(rows) != len(want):
        raise SystemExit(f"nlfs_test: {len(rows)} levels printed, {len(want)} in Python's search")
    for got, w in zip(rows, want):
        for c in w:
            if got[c] != w[c]:
                raise SystemExit(f"nlfs_test: level {w['level']}: {c} {got[c]}, Python counts {w[c]}")
    check_ratio(rows, total)
    check_json(total, results)
    print(f"nlfs_test: {len(rows)} levels on {grid} ({partition}): m {total['m']}, n {total['n']}, "
          f"remote {total['m_remote']}/{total['n_remote']}, as Python counts them")


def same(argv):
    cols = argv[0].split(",")
    cmds, cur = [], []
    for a in argv[1:] + ["::"]:
        if a == "::":
            cmds.append(cur)
            cur = []
        else:
            cur.append(a)
    ref = None
    for cmd in cmds:
        rows, total, results = run(cmd)
        check_ratio(rows, total)
        view = ([[r[c] for c in cols] for r in rows], [total[c] for c in cols],
                [results[JSON_KEYS[c]] for c in cols if c in JSON_KEYS])
        print(f"nlfs_test: {' '.join(cmd)}: levels {len(rows)}, " +
              ", ".join(f"{c} {total[c]}" for c in cols))
        if ref is None:
            ref = view
        elif view != ref:
            raise SystemExit(f"nlfs_test: columns {argv[0]} differ from the first command's")
    print(f"nlfs_test: {len(cmds)} runs agree on {argv[0]}")


def main():
    try:
        if sys.argv[1] == "oracle":
            oracle(sys.argv[2:])
        elif sys.argv[1] == "same":
            same(sys.argv[2:])
        else:
            raise SystemExit(f"nlfs_test: unknown mode {sys.argv[1]}")
    except Skip as s:
        print(s)
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
