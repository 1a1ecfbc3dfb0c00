#!/usr/bin/env python3
"""check_json.py FILE: every line of FILE is one kit.result/1 object with the fields
docs/output-schema.md promises, a PASSED verification and consistent numbers."""
import json
import math
import sys

REQUIRED = {
    "schema": str, "app": str, "variant": str, "version": str, "git": str, "params": dict,
    "ranks": int, "threads": int, "gpus": int, "device": str, "time_s": dict, "fom": dict,
    "bytes_model": (int, float), "bandwidth_GBs": (int, float), "ceiling_GBs": (int, float),
    "fraction_of_ceiling": (int, float), "phases": dict, "messages": dict, "verify": dict,
}

def main(path):
    lines = [l for l in open(path) if l.strip()]
    if not lines:
        sys.exit(f"{path}: no JSON lines")
    for n, line in enumerate(lines, 1):
        r = json.loads(line)
        for key, typ in REQUIRED.items():
            if key not in r or not isinstance(r[key], typ):
                sys.exit(f"{path}:{n}: missing or mistyped '{key}'")
        if "cpu_fraction" not in r:
            sys.exit(f"{path}:{n}: missing 'cpu_fraction'")
        if r["schema"] != "kit.result/1":
            sys.exit(f"{path}:{n}: schema {r['schema']}")
        t = r["time_s"]
        if not (0 < t["min"] <= t["median"] <= t["max"]):
            sys.exit(f"{path}:{n}: time_s not ordered: {t}")
        if not (r["fom"]["value"] > 0 and math.isfinite(r["fom"]["value"])):
            sys.exit(f"{path}:{n}: bad figure of merit {r['fom']}")
        if r["ceiling_GBs"] > 0:
            frac = r["bandwidth_GBs"] / r["ceiling_GBs"]
            if abs(frac - r["fraction_of_ceiling"]) > 1e-9 * max(1, frac):
                sys.exit(f"{path}:{n}: fraction_of_ceiling inconsistent")
        v = r["verify"]
        if v.get("status") != "PASSED" or not v.get("checks"):
            sys.exit(f"{path}:{n}: verification {v.get('status')} with {len(v.get('checks', []))} checks")
    print(f"{path}: {len(lines)} valid kit.result/1 line(s)")

if __name__ == "__main__":
    main(sys.argv[1])
