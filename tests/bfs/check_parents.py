#!/usr/bin/env python3
"""check_parents.py EDGELIST PARENTS ROOT: an oracle independent of the C code.

Reads a whitespace edge list (0-based, '#' comments, optional weight) and the raw int64
parent array that `bfs --dump-parents` wrote, runs a breadth-first search in Python and
checks that the parents form a BFS tree of the same graph: the root is its own parent, the
reached vertices are exactly the root's component, and every other reached vertex's parent is
a neighbour exactly one level closer to the root. Exit 0 if so, 1 with the first problem."""
import struct
import sys
from collections import deque


def main(el, dump, root):
    adj = {}
    n = 0
    for line in open(el):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        u, v = int(line[0]), int(line[1])
        adj.setdefault(u, set()).add(v)
        adj.setdefault(v, set()).add(u)
        n = max(n, u + 1, v + 1)
    data = open(dump, "rb").read()
    if len(data) != 8 * n:
        return f"{dump}: {len(data)} bytes, expected {8 * n} for {n} vertices"
    parent = struct.unpack(f"<{n}q", data)
    level = {root: 0}
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for v in adj.get(u, ()):
            if v not in level:
                level[v] = level[u] + 1
                queue.append(v)
    if parent[root] != root:
        return f"parent[root {root}] = {parent[root]}"
    for v in range(n):
        reached = parent[v] != -1
        if reached != (v in level):
            return f"vertex {v}: parent {parent[v]} but Python says {'reached' if v in level else 'unreached'}"
        if reached and v != root:
            p = parent[v]
            if p not in adj.get(v, ()):
                return f"vertex {v}: parent {p} is not a neighbour"
            if level[p] != level[v] - 1:
                return f"vertex {v} (level {level[v]}): parent {p} is at level {level[p]}"
    print(f"check_parents: {len(level)} reached vertices of {n}, {max(level.values())} levels: OK")
    return None


if __name__ == "__main__":
    problem = main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    if problem:
        print("check_parents: FAILED:", problem)
        sys.exit(1)
