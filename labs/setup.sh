#!/usr/bin/env bash
# labs/setup.sh: what the lab scripts need beyond the kit itself: the kit built
# (ci/setup.sh) and Python 3 with matplotlib. The labs' commands run `python3`, the first
# one on PATH, so that is the interpreter checked and, if need be, given matplotlib: a
# Debian package serves only /usr/bin/python3, which is not the one on PATH under pyenv,
# conda or a virtual environment. The check runs again after installing, and the script says
# "ready" only when `python3 -c "import matplotlib"` works. The GPU machine has matplotlib.
set -eu
cd "$(dirname "$0")/.."
bash ci/setup.sh
py=$(command -v python3 || true)
if [ -z "$py" ]; then
  echo "labs/setup.sh: no python3 on PATH; install Python 3 (sudo apt-get install -y python3), then run this again" >&2
  exit 1
fi
has_mpl() { "$py" -c "import matplotlib" >/dev/null 2>&1; }
if ! has_mpl; then
  # Debian's package only where it serves this very interpreter; else pip for it.
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1 &&
    [ "$("$py" -c 'import sys; print(sys.executable)')" = /usr/bin/python3 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-matplotlib >/dev/null || true
  fi
  has_mpl || "$py" -m pip install -q matplotlib >/dev/null 2>&1 || "$py" -m pip install -q --user matplotlib >/dev/null 2>&1 || true
fi
if ! has_mpl; then
  echo "labs/setup.sh: NOT ready: $py (python3 on PATH) cannot import matplotlib, and installing it failed." >&2
  echo "  Install it for that interpreter:  $py -m pip install --user matplotlib" >&2
  if [ "$py" != /usr/bin/python3 ]; then
    echo "  (or put /usr/bin first on PATH and: sudo apt-get install -y python3-matplotlib)" >&2
  else
    echo "  (or: sudo apt-get install -y python3-matplotlib)" >&2
  fi
  echo "  The plot scripts of labs 06, 07, 08 (--no-png), 09 (--no-png) and 11 print their tables without it." >&2
  exit 1
fi
echo "labs/setup.sh: ready (${KIT_BUILD_DIR:-build}/bin has the apps; $py has matplotlib $("$py" -c 'import matplotlib; print(matplotlib.__version__)'))"
