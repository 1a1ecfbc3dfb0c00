#!/usr/bin/env python3
"""lammps_dump_check.py DUMP DATA BIN STEPS: checks a particles --dump-lammps file written by a
run with --input DATA (a LAMMPS data file whose box starts at 0 and whose positions lie in it)
and --dump BIN, without LAMMPS:
  - the frames are at STEPS (comma-separated: step 0, every --dump-every steps, the last);
  - each frame is a LAMMPS text dump: ITEM: TIMESTEP, NUMBER OF ATOMS (the file's N), BOX
    BOUNDS pp pp pp (the file's box), ATOMS id type x y z vx vy vz with ids 1..N in order and
    each atom's type from the file;
  - the step-0 frame holds the file's positions and velocities, bit for bit (17 digits);
  - the last frame holds --dump's final state (raw doubles id x y z vx vy vz), bit for bit.
Exit 0 passed, 1 failed. Standard library only."""
import struct
import sys


def frames_of(path):
    with open(path) as f:
        lines = f.read().split("\n")
    frames, i = [], 0
    while i < len(lines) and lines[i]:
        head = lines[i:i + 9]
        if head[0] != "ITEM: TIMESTEP" or head[2] != "ITEM: NUMBER OF ATOMS":
            sys.exit(f"{path}: line {i + 1}: not a dump frame header: {head[:3]}")
        n = int(head[3])
        frames.append((int(head[1]), head[4], [tuple(map(float, l.split())) for l in head[5:8]], head[8],
                       [l.split() for l in lines[i + 9:i + 9 + n]]))
        i += 9 + n
    return frames


def data_of(path):
    """(box [(lo, hi)] x 3, {id: (type, x, y, z)}, {id: (vx, vy, vz)}) of a LAMMPS data file."""
    with open(path) as f:
        lines = [l.split("#")[0].split() for l in f.read().split("\n")[1:]]
    box, atoms, vel, section = [None] * 3, {}, {}, None
    for w in lines:
        if not w:
            continue
        if w[-1] in ("xhi", "yhi", "zhi"):
            box["xyz".index(w[-1][0])] = (float(w[0]), float(w[1]))
        elif w[0][0].isalpha():
            section = w[0]
        elif section == "Atoms":
            atoms[int(w[0])] = (int(w[1]), float(w[2]), float(w[3]), float(w[4]))
        elif section == "Velocities":
            vel[int(w[0])] = tuple(map(float, w[1:4]))
    return box, atoms, vel


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    dump, data, binpath, steps = sys.argv[1], sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4].split(",")]
    box, atoms, vel = data_of(data)
    n = len(atoms)
    frames = frames_of(dump)
    fails = []
    if [f[0] for f in frames] != steps:
        fails.append(f"frames at steps {[f[0] for f in frames]}, expected {steps}")
    for step, bounds, fbox, cols, rows in frames:
        if bounds != "ITEM: BOX BOUNDS pp pp pp" or fbox != box:
            fails.append(f"step {step}: box {bounds!r} {fbox}, expected pp {box}")
        if cols != "ITEM: ATOMS id type x y z vx vy vz":
            fails.append(f"step {step}: columns {cols!r}")
        if [int(r[0]) for r in rows] != list(range(1, n + 1)):
            fails.append(f"step {step}: ids are not 1..{n} in order")
        elif any(int(r[1]) != atoms[int(r[0])][0] for r in rows):
            fails.append(f"step {step}: a type differs from the data file's")
    first = {int(r[0]): tuple(map(float, r[2:8])) for r in frames[0][4]} if frames else {}
    if first != {i: atoms[i][1:] + vel[i] for i in atoms}:
        fails.append("the step-0 frame is not the data file's state")
    with open(binpath, "rb") as f:
        raw = f.read()
    final = struct.unpack(f"={len(raw) // 8}d", raw)
    last = {int(r[0]): tuple(map(float, r[2:8])) for r in frames[-1][4]} if frames else {}
    want = {int(final[7 * k]) + 1: tuple(final[7 * k + 1:7 * k + 7]) for k in range(len(final) // 7)}
    if last != want:
        fails.append("the last frame is not --dump's final state")
    print(f"lammps_dump_check.py: {len(frames)} frames at steps {[f[0] for f in frames]}, {n} atoms each")
    for f in fails:
        print(f"lammps_dump_check.py: {f}")
    print("lammps_dump_check.py: " + ("FAILED" if fails else "PASSED"))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
