#!/usr/bin/env bash
# mpirun.sh NP CMD...: launch NP ranks with whichever MPI is installed, without binding
# ranks to single cores (each rank runs OpenMP threads) and, for Open MPI, allowing
# root and oversubscription (the GPU machine runs as root; CI has 2 cores).
np=$1; shift
if mpiexec --version 2>&1 | grep -qE 'Open MPI|OpenRTE'; then
  exec mpiexec --allow-run-as-root --oversubscribe --bind-to none -n "$np" "$@"
else
  exec mpiexec -n "$np" "$@"
fi
