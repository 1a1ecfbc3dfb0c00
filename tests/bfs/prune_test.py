#!/usr/bin/env python3
"""prune_test.py VARIANT LAUNCH... -- ARGS...: --prune (Rossetti's sort-unique, recipe 3) must
not send more than the plain run, and must account for what it saved.

Runs `LAUNCH... --variant cpu ARGS...` (the reference: no pruning, the same default direction,
auto) and
`LAUNCH... --variant VARIANT --prune ARGS...`, each with --json, and checks:
  1. both pass verification (exit 0; the Graph500 rules and the oracle's levels);
  2. the pruned run sends no more bytes (expand + fold per search) than the reference;
  3. its unpruned_bytes_per_search equals the reference's expand + fold: the messages before
     the sort-unique are exactly the cpu variant's, so the saving is measured, not assumed.
Exit 0 if so, 1 with the first failure, 77 if VARIANT is not available here (no GPU)."""
import json
import os
import subprocess
import sys
import tempfile


def run(cmd, json_path):
    p = subprocess.run(cmd + ["--json", json_path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def main():
    variant = sys.argv[1]
    sep = sys.argv.index("--")
    launch, args = sys.argv[2:sep], sys.argv[sep + 1:]
    with tempfile.TemporaryDirectory() as tmp:
        out = {}
        # The reference searches in the pruned variant's direction, every variant's default
        # auto (a bottom-up level sends other messages than a top-down one).
        reference = ["--variant", "cpu"]
        for name, extra in (("reference", reference), ("pruned", ["--variant", variant, "--prune"])):
            path = os.path.join(tmp, name + ".json")
            rc, text = run(launch + extra + args, path)
            if name == "pruned" and rc == 77:
                print(text)
                return 77
            if rc != 0:
                print(text)
                print(f"prune_test: the {name} run exited {rc}")
                return 1
            with open(path) as f:
                out[name] = json.loads(f.readline())["results"]
    ref, pru = out["reference"], out["pruned"]
    sent_ref = ref["expand_bytes_per_search"] + ref["fold_bytes_per_search"]
    sent_pru = pru["expand_bytes_per_search"] + pru["fold_bytes_per_search"]
    unpruned = pru["unpruned_bytes_per_search"]
    print(f"bytes per search: without --prune {sent_ref:.0f}, {variant} with --prune {sent_pru:.0f} "
          f"(before its sort-unique {unpruned:.0f}; saved {unpruned - sent_pru:.0f})")
    if sent_pru > sent_ref:
        print("prune_test: --prune sent more bytes than the plain run")
        return 1
    if unpruned != sent_ref:
        print("prune_test: the messages before the sort-unique are not the plain run's")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
