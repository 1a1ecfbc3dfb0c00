#!/usr/bin/env python3
"""paths_test.py: every path the docs name exists in the repository, and none points outside it.

A newcomer reads the docs in a clone of this repository and nothing else, so a path a doc
names must be there, and a doc must not send them to a folder of the machine it was written
on. Usage: paths_test.py [REPO_ROOT] (default: the folder two above this script).

Documents scanned: README.md, docs/*.md, labs/README.md, labs/*/README.md, miniapps/*/README.md.

Rules, kept simple on purpose (the test is meant to be read):
  1. Links. Every markdown link [text](target) whose target is not a URL (scheme:) and not a
     bare #anchor: the target less its #anchor, read relative to the document's folder, must
     exist and lie inside the repository.
  2. Named paths. Words in `backquotes` and every word of a fenced code block (```) are
     candidates. A word is a path when it contains a '/' and starts with a top-level folder
     (miniapps/ common/ docs/ labs/ tests/ ci/) or with ./ or ../. It must exist, looked up
     from the repository root or from the document's folder (docs write both), and lie inside
     the repository. Trailing punctuation and a :LINE suffix are dropped, and NAME=PATH is
     read as PATH. A word with a placeholder or pattern (< > * ? $ { } [ ] or ...) names no
     single file and is skipped, as are the folders a run makes and git ignores: build*/
     (cmake's) and labs/out/ (the labs' output).
  3. Outside paths. A word (backquoted, in a code block or a link) that starts with /work/,
     /home/, /tmp/ or names shared/ or ../shared is one machine's path and fails wherever it
     appears, except the few absolute paths that the kit's own scripts and code use on every
     machine (ABSOLUTE_OK below).
Paths in the labs' READMEs that fail today are listed in KNOWN (file and path, so that edits
elsewhere in a lab do not move them), so that the test passes and still names them; an entry
that no longer fails is printed as a note, to be removed from KNOWN.
"""

import glob
import os
import re
import sys

TOP = ("miniapps/", "common/", "docs/", "labs/", "tests/", "ci/", "./", "../")
OUTSIDE = re.compile(r"^(/work/|/home/|/tmp/|(\.\./)*shared/)")
# Absolute paths the kit itself uses on any machine: ci/gpu-suite.sh unpacks its packages
# into /tmp/deps; common/src/ceiling.c keeps the ceilings there when HOME is unset.
ABSOLUTE_OK = ("/tmp/deps", "/tmp/.cache/kit/ceilings")
PLACEHOLDER = re.compile(r"[<>*?${}\[\]]|\.\.\.")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
TICKS = re.compile(r"`([^`]+)`")
# Paths in labs/ READMEs that failed when this test was written: (file, path as printed),
# with the line it was on then.
KNOWN = set()


def documents(root):
    pats = ["README.md", "docs/*.md", "labs/README.md", "labs/*/README.md", "miniapps/*/README.md"]
    out = []
    for p in pats:
        out += sorted(glob.glob(os.path.join(root, p)))
    return out


def inside(root, path):
    real = os.path.realpath(path)
    return real == root or real.startswith(root + os.sep)


def clean(word):
    """The word less quotes, trailing punctuation and a :LINE or :LINE-LINE suffix."""
    word = word.strip("'\"")
    word = word.rstrip(".,;:)")
    word = re.sub(r":\d+(-\d+)?$", "", word)
    return word


def outside_problem(word):
    if word.startswith(ABSOLUTE_OK):
        return None
    if OUTSIDE.match(word):
        return "names a path outside the repository"
    return None


def check_word(root, docdir, word):
    """None if fine, else why the word fails."""
    word = clean(word)
    word = word.split("=")[-1]
    why = outside_problem(word)
    if why:
        return why
    if "/" not in word or not word.startswith(TOP):
        return None
    if PLACEHOLDER.search(word):
        return None
    for base in (root, docdir):
        cand = os.path.join(base, word)
        rel = os.path.relpath(os.path.normpath(cand), root)
        if rel.startswith("build") or rel.startswith("labs/out/"):
            return None
        if os.path.exists(cand):
            return None if inside(root, cand) else "points outside the repository"
    return "does not exist in the repository"


def check_link(root, docdir, target):
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
        return None
    why = outside_problem(target)
    if why:
        return why
    path = target.split("#", 1)[0]
    if PLACEHOLDER.search(path):
        return None
    cand = os.path.join(docdir, path)
    if not inside(root, cand):
        return "points outside the repository"
    if not os.path.exists(cand):
        return "does not exist in the repository"
    return None


def scan(root, doc):
    """Yield (line number, word, why) for each failing path of one document."""
    docdir = os.path.dirname(doc)
    fenced = False
    with open(doc, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                words = line.split()
            else:
                words = [w for span in TICKS.findall(line) for w in span.split()]
                for target in LINK.findall(line):
                    why = check_link(root, docdir, target)
                    if why:
                        yield n, target, why
            for w in words:
                why = check_word(root, docdir, w)
                if why:
                    yield n, clean(w).split("=")[-1], why


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", ".."))
    failures, known_seen, ndocs = [], set(), 0
    for doc in documents(root):
        ndocs += 1
        rel = os.path.relpath(doc, root)
        for n, word, why in scan(root, doc):
            if (rel, word) in KNOWN:
                known_seen.add((rel, word))
                print("known %s:%d: `%s` %s" % (rel, n, word, why))
                continue
            failures.append("%s:%d: `%s` %s" % (rel, n, word, why))
    for f in failures:
        print("FAIL " + f)
    # A stale entry is only a note: the labs may be fixed while this list is not yet updated.
    for rel, word in sorted(set(KNOWN) - known_seen):
        print("note: KNOWN entry %s `%s` no longer fails; remove it" % (rel, word))
    print("paths_test: %d documents, %d failing paths, %d known (labs/) paths still failing"
          % (ndocs, len(failures), len(known_seen)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
