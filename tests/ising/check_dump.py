#!/usr/bin/env python3
"""check_dump.py: an oracle for the ising app written from its random-number contract alone
(miniapps/ising/README.md), in Python, sharing no code with the C sources: Philox4x32-10,
the bond, spin and Metropolis counters, colour 0 then colour 1, periodic neighbours.
Simulates a small lattice and compares the app's --dump (int8 spins, x fastest, sample after
sample) with it.
  check_dump.py LX LY LZ SWEEPS SAMPLES SEED P TEMP DUMP [--mattis]"""
import math
import sys

M32 = 0xFFFFFFFF


def philox(ctr, key):
    c = list(ctr)
    k0, k1 = key
    for _ in range(10):
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        hi0, lo0 = p0 >> 32, p0 & M32
        hi1, lo1 = p1 >> 32, p1 & M32
        c = [hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0]
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return c


def u(key, c0, c1, c2, c3, word):
    return philox((c0, c1, c2, c3), key)[word] * 2.0 ** -32


def main():
    a = sys.argv[1:]
    mattis = "--mattis" in a
    a = [x for x in a if x != "--mattis"]
    LX, LY, LZ, sweeps, samples, seed = (int(x) for x in a[:6])
    p, temp, path = float(a[6]), float(a[7]), a[8]
    N = LX * LY * LZ
    w = {dE: math.exp(-dE / temp) for dE in (4, 8, 12)}
    data = open(path, "rb").read()
    if len(data) != N * samples:
        sys.exit(f"check_dump: {path} has {len(data)} bytes, expected {N * samples}")
    site = lambda x, y, z: x + LX * (y + LY * z)
    worst = 0
    for k in range(samples):
        key = (seed & M32, k)
        if mattis:
            e = [-1 if u(key, s, 0, 0, 4, 0) < 0.5 else 1 for s in range(N)]
        # J[s][d]: the bond from s to its +d neighbour. Keyed by site and direction, not by the
        # pair of sites: on a side of 2 the +d and -d neighbours coincide, two distinct bonds.
        plus = lambda x, y, z: (site((x + 1) % LX, y, z), site(x, (y + 1) % LY, z), site(x, y, (z + 1) % LZ))
        J = [[0, 0, 0] for _ in range(N)]
        for z in range(LZ):
            for y in range(LY):
                for x in range(LX):
                    s = site(x, y, z)
                    for d, n in enumerate(plus(x, y, z)):
                        J[s][d] = e[s] * e[n] if mattis else (-1 if u(key, s, d, 0, 1, 0) < p else 1)
        spin = [-1 if u(key, s, 0, 0, 2, 0) < 0.5 else 1 for s in range(N)]
        for t in range(sweeps):
            for c in (0, 1):
                for z in range(LZ):
                    for y in range(LY):
                        for x in range(LX):
                            if (x + y + z) % 2 != c:
                                continue
                            s = site(x, y, z)
                            minus = (site((x - 1) % LX, y, z), site(x, (y - 1) % LY, z), site(x, y, (z - 1) % LZ))
                            h = sum(J[s][d] * spin[n] for d, n in enumerate(plus(x, y, z)))
                            h += sum(J[m][d] * spin[m] for d, m in enumerate(minus))
                            dE = 2 * spin[s] * h
                            if dE <= 0:
                                spin[s] = -spin[s]
                            else:
                                half = s >> 1
                                if u(key, half >> 2, t, c, 3, half & 3) < w[dE]:
                                    spin[s] = -spin[s]
        got = [b - 256 if b > 127 else b for b in data[k * N:(k + 1) * N]]
        bad = sum(1 for i in range(N) if got[i] != spin[i])
        worst = max(worst, bad)
        print(f"sample {k}: {bad} of {N} spins differ from the Python oracle")
    if worst:
        sys.exit(1)
    print("check_dump: PASSED")


if __name__ == "__main__":
    main()
