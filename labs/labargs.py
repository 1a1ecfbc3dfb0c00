"""labargs.py: the command line every lab script shares (labs/README.md, "Where the labs write").

  --data FILE [FILE ...]  what to read; default the data the lab ships (files or folders)
  --outdir DIR            where to write; default labs/out/<lab>/ (git-ignored), made if missing

The committed tables and figures next to each lab's README are refreshed only when asked
for by name (--outdir labs/<lab>), so running a lab never changes a tracked file by accident.
"""
import argparse
import datetime
import os
import re
import sys

# Importing this module from a lab would otherwise leave labs/__pycache__ behind; it is
# git-ignored, but a run that writes nowhere but --outdir is easier to reason about.
sys.dont_write_bytecode = True

LABS = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(LABS, "out")


def lab_name(script):
    """The lab folder's name ('05-scaling') of a script inside it."""
    return os.path.basename(os.path.dirname(os.path.abspath(script)))


def default_outdir(script):
    return os.path.join(OUT, lab_name(script))


class _Parser(argparse.ArgumentParser):
    """Takes the inputs also as leading positional arguments, the form every lab script had
    before --data (ci/gpu-suite.sh and docs/reproducing.md still use it): same meaning."""

    def parse_args(self, args=None, namespace=None):
        a = super().parse_args(args, namespace)
        if a.legacy:
            if a.data is not self._data_default:
                self.error("give the inputs either with --data or as arguments, not both")
            if self._data_nargs == 1 and len(a.legacy) > 1:
                self.error("one input only")
            a.data = a.legacy
        return a


def data_given(argv):
    """Whether ARGV names inputs: --data, or the older leading positional argument."""
    return "--data" in argv or bool(argv and not argv[0].startswith("-"))


def parser(script, data, description=None, data_help="input files", nargs="+", **kw):
    """An ArgumentParser with --data (default DATA, a list) and --outdir (default
    labs/out/<lab>/). The caller adds its own options and calls outdir() after parsing."""
    ap = _Parser(description=description, **kw)
    ap._data_default, ap._data_nargs = data, nargs
    ap.add_argument("legacy", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("--data", nargs=nargs, default=data, metavar="FILE",
                    help=data_help + " [the lab's shipped data: %s]" % " ".join(rel(p) for p in data))
    ap.add_argument("--outdir", default=default_outdir(script),
                    help="folder for what the script writes, made if missing [%s]; "
                    "--outdir %s refreshes the committed copies" % (rel(default_outdir(script)),
                                                                   rel(os.path.dirname(os.path.abspath(script)))))
    return ap


def outdir(path):
    """Makes PATH (and its parents) if missing and returns it."""
    os.makedirs(path, exist_ok=True)
    return path


def rel(path):
    """PATH relative to the current folder when that is shorter (for messages and help)."""
    try:
        r = os.path.relpath(path)
    except ValueError:
        return path
    return r if len(r) < len(os.path.abspath(path)) else os.path.abspath(path)


def is_default(paths, data):
    """Whether --data was left at (or given as) the shipped data."""
    return [os.path.abspath(p) for p in paths] == [os.path.abspath(p) for p in data]


# --- Where the figure's date and the machine's cores come from (the rules of every lab's
# plot). Never the file's modification date or today's: a copied or re-checked-out
# file has a new one.
DATE_FIELDS = ("time", "date", "started", "timestamp")


def record_date(r):
    """A YYYY-MM-DD from a timestamp field of one JSON line (ISO text or seconds since 1970,
    UTC), else None. kit.result/1 lines have none so far; a later schema may."""
    for k in DATE_FIELDS:
        v = r.get(k)
        if isinstance(v, str) and re.match(r"\d{4}-\d{2}-\d{2}", v):
            return v[:10]
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            return datetime.datetime.fromtimestamp(v, datetime.timezone.utc).strftime("%Y-%m-%d")
    return None


def path_date(path):
    """The YYYY-MM-DD in the name of PATH's folder (labs/data/h200-2026-11-23/...) or, failing
    that, of the file itself; None without one."""
    d = os.path.dirname(os.path.abspath(path))
    for part in (os.path.basename(d), os.path.basename(path)):
        m = re.search(r"\d{4}-\d{2}-\d{2}", part)
        if m:
            return m.group(0)
    return None


def path_cores(path):
    """The cores of the machine that wrote PATH, as recorded beside it: a folder named like
    cpu-2core-DATE, or the first line of the folder's README.md ("..., 16 cores, DATE");
    None when neither says."""
    d = os.path.dirname(os.path.abspath(path))
    m = re.search(r"(\d+)-?cores?\b", os.path.basename(d))
    if m:
        return int(m.group(1))
    try:
        with open(os.path.join(d, "README.md")) as f:
            first = f.readline()
    except OSError:
        return None
    m = re.search(r"(\d+)[ -]cores?\b", first)
    return int(m.group(1)) if m else None
