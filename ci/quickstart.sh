#!/usr/bin/env bash
# quickstart.sh: the README's first command. Sets up (ci/setup.sh), builds, and runs the
# main job: every mini-app and variant on a small problem, verified, on 1 and 2 ranks,
# summarised in one table (ci/main_job.py).
set -eu
cd "$(dirname "$0")/.."
bash ci/setup.sh
exec python3 ci/main_job.py "$@"
