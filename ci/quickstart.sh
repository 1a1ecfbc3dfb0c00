#!/usr/bin/env bash
# quickstart.sh: the README's first command. Sets up (ci/setup.sh), builds the six apps, and
# runs the main job: every mini-app and variant on a small problem, verified, on 1 and 2
# ranks, summarised in one table (ci/main_job.py). Arguments go to main_job.py.
set -eu
cd "$(dirname "$0")/.."
# Only the apps: the main job needs nothing else, and the test binaries (most of a full
# build on two cores) come with ci/test.sh.
bash ci/setup.sh laplace ising lbm tetfv bfs particles
echo "quickstart: running the main job (each app and variant, 1 and 2 ranks)"
exec python3 ci/main_job.py "$@"
