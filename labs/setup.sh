#!/usr/bin/env bash
# labs/setup.sh: what the lab scripts need beyond the kit itself: the kit built
# (ci/setup.sh) and Python 3 with matplotlib. Installs Debian's python3-matplotlib when run
# as root, otherwise prints the line to run. The GPU machine has matplotlib already.
set -eu
cd "$(dirname "$0")/.."
bash ci/setup.sh
if ! python3 -c "import matplotlib" >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-matplotlib >/dev/null ||
      python3 -m pip install -q matplotlib
  else
    echo "labs/setup.sh: matplotlib is missing. Install it with:"
    echo "  sudo apt-get install -y python3-matplotlib     (or: python3 -m pip install --user matplotlib)"
    exit 1
  fi
fi
echo "labs/setup.sh: ready (${KIT_BUILD_DIR:-build}/bin has the apps; python3 has matplotlib)"
