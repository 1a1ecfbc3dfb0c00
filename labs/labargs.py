"""labargs.py: the command line every lab script shares (labs/README.md, "Where the labs write").

  --data FILE [FILE ...]  what to read; default the data the lab ships (files or folders)
  --outdir DIR            where to write; default labs/out/<lab>/ (git-ignored), made if missing

The committed tables and figures next to each lab's README are refreshed only when asked
for by name (--outdir labs/<lab>), so running a lab never changes a tracked file by accident.
"""
import argparse
import os
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
