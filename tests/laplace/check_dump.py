#!/usr/bin/env python3
"""check_dump.py NX NY NZ ITERS FILE: an oracle independent of the kit's C code.
Recomputes the laplace Jacobi iteration in pure Python (defaults alpha = 0, beta = 1/6,
zero initial interior, g = x + 2y + 3z on the boundary) and compares it with the raw
little-endian doubles that `laplace --dump FILE` wrote, bit for bit: Python floats are
IEEE doubles and the sum is taken in the order the README specifies."""
import struct
import sys

def main(nx, ny, nz, iters, path):
    def g(i, j, k):
        return i / (nx + 1) + 2.0 * (j / (ny + 1)) + 3.0 * (k / (nz + 1))
    size = (nx + 2) * (ny + 2) * (nz + 2)
    idx = lambda i, j, k: i + (nx + 2) * (j + (ny + 2) * k)
    u = [0.0] * size
    for k in range(nz + 2):
        for j in range(ny + 2):
            for i in range(nx + 2):
                if i in (0, nx + 1) or j in (0, ny + 1) or k in (0, nz + 1):
                    u[idx(i, j, k)] = g(i, j, k)
    alpha, beta = 0.0, 1.0 / 6.0
    for _ in range(iters):
        un = list(u)
        for k in range(1, nz + 1):
            for j in range(1, ny + 1):
                for i in range(1, nx + 1):
                    c = idx(i, j, k)
                    s = u[c + 1] + u[idx(i, j + 1, k)] + u[idx(i, j, k + 1)] + u[c - 1] + \
                        u[idx(i, j - 1, k)] + u[idx(i, j, k - 1)]
                    un[c] = alpha * u[c] + beta * s
        u = un
    data = open(path, "rb").read()
    n = nx * ny * nz
    if len(data) != 8 * n:
        sys.exit(f"{path}: {len(data)} bytes, expected {8 * n}")
    got = struct.unpack(f"<{n}d", data)
    p = 0
    worst = 0.0
    for k in range(1, nz + 1):
        for j in range(1, ny + 1):
            for i in range(1, nx + 1):
                d = abs(got[p] - u[idx(i, j, k)])
                worst = d if not d <= worst else worst  # NaN counts as the worst
                p += 1
    if not worst == 0.0:
        sys.exit(f"{path}: differs from the Python oracle by {worst:.3e}")
    print(f"{path}: {n} values equal the independent Python oracle bit for bit")

if __name__ == "__main__":
    a = sys.argv[1:]
    main(int(a[0]), int(a[1]), int(a[2]), int(a[3]), a[4])
