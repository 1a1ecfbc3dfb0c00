#!/usr/bin/env python3
"""make_mask.py: a porous voxel mask for particles --domain FILE (miniapps/particles/README.md,
"Irregular domains"), the second irregular geometry of the particles sweeps beside the
built-in tube (Bernaschi Sec. 3.2: irregular domains split by a graph partitioner).

The mask is the pore space of a bed of solid spheres: spheres of RADIUS voxels are placed at
uniformly random centres (Python's random, seeded, so a seed gives the same file on every
machine) until the solid fraction reaches SOLID; a voxel is open when its centre lies in no
sphere. Unlike the tube, its open voxels fill the whole box irregularly, so every cut of a
partition crosses pores and every rank has many neighbours.

    python3 labs/scripts/make_mask.py OUT NX NY NZ [--edge H] [--radius R] [--solid F] [--seed S]

The voxel edge defaults to the fcc unit cell at particles' default density 0.8442,
(4 / 0.8442)^(1/3), so each open voxel holds four lattice sites."""
import argparse
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("nx", type=int)
    ap.add_argument("ny", type=int)
    ap.add_argument("nz", type=int)
    ap.add_argument("--edge", type=float, default=(4 / 0.8442) ** (1 / 3), help="voxel edge H")
    ap.add_argument("--radius", type=float, default=6.0, help="sphere radius in voxels [6]")
    ap.add_argument("--solid", type=float, default=0.4, help="solid fraction to reach [0.4]")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    for name, v in (("nx", a.nx), ("ny", a.ny), ("nz", a.nz)):
        if not 1 <= v <= 1024:
            sys.exit(f"make_mask.py: {name} = {v}: the mask format takes 1 to 1024 voxels per axis")
    if not (0 <= a.solid < 1 and a.radius > 0 and a.edge > 0):
        sys.exit("make_mask.py: --solid must be in [0, 1), --radius and --edge above 0")
    rng = random.Random(a.seed)
    nx, ny, nz, r = a.nx, a.ny, a.nz, a.radius
    solid = bytearray(nx * ny * nz)  # 1: inside a sphere
    filled, total = 0, nx * ny * nz
    while filled < a.solid * total:
        cx, cy, cz = rng.uniform(0, nx), rng.uniform(0, ny), rng.uniform(0, nz)
        for k in range(max(0, int(cz - r)), min(nz, int(cz + r) + 1)):
            dz2 = (k + 0.5 - cz) ** 2
            for j in range(max(0, int(cy - r)), min(ny, int(cy + r) + 1)):
                dyz2 = dz2 + (j + 0.5 - cy) ** 2
                if dyz2 > r * r:
                    continue
                row = (k * ny + j) * nx
                for i in range(max(0, int(cx - r)), min(nx, int(cx + r) + 1)):
                    if dyz2 + (i + 0.5 - cx) ** 2 <= r * r and not solid[row + i]:
                        solid[row + i] = 1
                        filled += 1
    with open(a.out, "w") as f:
        f.write(f"# make_mask.py {nx} {ny} {nz} --edge {a.edge!r} --radius {r} --solid {a.solid} --seed {a.seed}\n")
        f.write(f"# pore space of random spheres: {total - filled} of {total} voxels open\n")
        f.write(f"{nx} {ny} {nz} {a.edge!r}\n")
        for k in range(nz):
            for j in range(ny):
                row = (k * ny + j) * nx
                f.write("".join("0" if solid[row + i] else "1" for i in range(nx)) + "\n")
    print(f"make_mask.py: {a.out}: {nx} x {ny} x {nz} voxels, {total - filled} open ({(total - filled) / total:.1%})")


if __name__ == "__main__":
    main()
