#!/usr/bin/env python3
"""fcc_lattice_sum.py RC DENSITY SHIFT APP ARGS...: run APP (a particles command line) and
check the 'pe0_per_particle' it prints against the potential energy per particle of a perfect
fcc lattice, summed here independently over lattice vectors in exact rational arithmetic:
    u = 1/2 sum_{R != 0, |R| < rc} 4 (R^-12 - R^-6)   (minus V(rc) per neighbour with --shift),
with R = a/2 (n1, n2, n3), n1 + n2 + n3 even, a = (4 / density)^(1/3). The periodic box of the
app is at least 3 rc wide, so every neighbour within rc of a site is a distinct lattice vector
of the infinite lattice. Pass: relative difference <= 1e-12."""
import math
import subprocess
import sys
from fractions import Fraction

def lattice_sum(rc, density, shift):
    a = (4.0 / density) ** (1.0 / 3.0)
    h2 = (a / 2) ** 2                      # |R|^2 = h2 * m, m = n1^2 + n2^2 + n3^2
    nmax = int(2 * rc / a) + 2
    counts = {}                            # shell m -> number of lattice vectors
    for n1 in range(-nmax, nmax + 1):
        for n2 in range(-nmax, nmax + 1):
            for n3 in range(-nmax, nmax + 1):
                m = n1 * n1 + n2 * n2 + n3 * n3
                if m == 0 or (n1 + n2 + n3) % 2:
                    continue
                if h2 * m < rc * rc:
                    counts[m] = counts.get(m, 0) + 1
    vrc = 4 * (rc ** -12 - rc ** -6) if shift else 0.0
    # Shells summed with exact fractions of the float inputs, then rounded once.
    total = Fraction(0)
    for m, c in sorted(counts.items()):
        r2 = Fraction(h2) * m
        total += c * (4 * (1 / r2 ** 6 - 1 / r2 ** 3) - Fraction(vrc))
    return float(total / 2), sum(counts.values())

def main():
    rc, density, shift = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3] == "1"
    out = subprocess.run(sys.argv[4:], capture_output=True, text=True)
    sys.stdout.write(out.stdout)
    sys.stderr.write(out.stderr)
    if out.returncode != 0:
        sys.exit(f"fcc_lattice_sum.py: the app exited with {out.returncode}")
    got = [l.split()[1] for l in out.stdout.splitlines() if l.startswith("pe0_per_particle:")]
    if len(got) != 1:
        sys.exit("fcc_lattice_sum.py: no pe0_per_particle line")
    ref, nb = lattice_sum(rc, density, shift)
    app = float(got[0])
    rel = abs(app - ref) / abs(ref)
    print(f"fcc lattice sum: {nb} neighbours within rc, u = {ref!r}; app {app!r}; relative diff {rel:.3e}")
    if not rel <= 1e-12:
        sys.exit("fcc_lattice_sum.py: FAILED (limit 1e-12)")
    print("fcc lattice sum: PASSED")

if __name__ == "__main__":
    main()
