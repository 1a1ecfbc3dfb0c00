#!/usr/bin/env python3
"""rmat_unpermuted.py SCALE EDGEFACTOR SEED OUT [--degree-order]: an R-MAT edge list whose
labels are NOT permuted.

The Graph500 generator (and bfs's, miniapps/bfs/kronecker.h) draws each edge by choosing, at
each of SCALE bit levels, a quadrant of the adjacency matrix with probabilities A = 0.57,
B = C = 0.19, D = 0.05, then permutes the vertex labels so that a label says nothing about a
vertex's degree. This script skips the permutation: vertex 0 is the largest hub and the low
labels hold most of the edges (a vertex's expected degree depends on how many 0 bits its label
has, whichever positions they are in). With --degree-order the labels are instead the ranks
of the vertices by decreasing degree (ties by label), as in a file sorted by degree: then
degree falls with the label. Lab 09 uses both to show when --partition cyclic changes the
edge balance. Standard library only (random.Random(SEED)); writes EDGEFACTOR * 2^SCALE lines
"u v" (0-based, bfs --graph's edge-list format) after one '#' comment line."""
import random
import sys


def main():
    scale, ef, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    by_degree = sys.argv[5:] == ["--degree-order"]
    rng = random.Random(seed)
    a, ab, abc = 0.57, 0.57 + 0.19, 0.57 + 0.19 + 0.19
    edges = []
    for _ in range(ef << scale):
        u = v = 0
        for _ in range(scale):
            r = rng.random()
            u <<= 1
            v <<= 1
            if r >= abc:
                u |= 1
                v |= 1
            elif r >= ab:
                u |= 1
            elif r >= a:
                v |= 1
        edges.append((u, v))
    order = "generation order"
    if by_degree:
        n = 1 << scale
        deg = [0] * n
        for u, v in edges:
            deg[u] += 1
            deg[v] += 1
        label = [0] * n
        for k, v in enumerate(sorted(range(n), key=lambda v: (-deg[v], v))):
            label[v] = k
        edges = [(label[u], label[v]) for u, v in edges]
        order = "labels by decreasing degree"
    with open(out, "w") as f:
        f.write(f"# R-MAT, scale {scale}, edgefactor {ef}, seed {seed}, not permuted, {order} (rmat_unpermuted.py)\n")
        f.writelines(f"{u} {v}\n" for u, v in edges)


if __name__ == "__main__":
    main()
