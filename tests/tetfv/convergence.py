#!/usr/bin/env python3
"""convergence.py: the mode-decay convergence study of tetfv (miniapps/tetfv/README.md).

Runs tetfv on box:N for three refinements N, reads each run's JSON line, prints the relative
error of the decay rate of cos(pi x)cos(pi y)cos(pi z) against pi^2 tr(K), and the observed
order log2(e_N / e_2N) between successive refinements. Exits 1 when a run fails or an order
is below MIN_ORDER (default 0.7: the scheme is first order on these meshes, README.md).

  tests/tetfv/convergence.py build/bin/tetfv 4 8 16 [-- extra tetfv flags]
"""
import json, math, os, subprocess, sys, tempfile

def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        k = args.index("--")
        args, extra = args[:k], args[k + 1:]
    if len(args) != 4:
        sys.exit(__doc__)
    app, sizes = args[0], [int(a) for a in args[1:]]
    min_order = float(os.environ.get("MIN_ORDER", "0.7"))
    errors = []
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            out = os.path.join(d, "r%d.json" % n)
            cmd = [app, "--mesh", "box:%d" % n, "--t-end", "0.02", "--reps", "1", "--warmup", "0", "--json", out] + extra
            rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
            if rc != 0:
                print("convergence.py: %s exited %d" % (" ".join(cmd), rc))
                return 1
            with open(out) as f:
                r = json.loads(f.readline())
            e = [c for c in r["verify"]["checks"] if c["name"] == "mode_decay"][0]
            if e["status"] != "PASSED":
                print("convergence.py: box:%d: mode_decay %s" % (n, e["status"]))
                return 1
            errors.append(e["value"])
    print("%6s %14s %8s" % ("N", "rate error", "order"))
    ok = True
    for i, (n, e) in enumerate(zip(sizes, errors)):
        order = ""
        if i > 0:
            o = math.log(errors[i - 1] / e) / math.log(n / sizes[i - 1])
            order = "%.2f" % o
            ok = ok and o >= min_order
        print("%6d %14.4e %8s" % (n, e, order))
    print("observed order %s (minimum %.2f)" % ("ok" if ok else "TOO LOW", min_order))
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
