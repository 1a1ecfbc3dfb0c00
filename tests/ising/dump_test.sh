#!/bin/sh
# dump_test.sh OUT LX LY LZ SWEEPS SAMPLES SEED P TEMP MATTIS LAUNCH...: run the app (LAUNCH...,
# ending with the ising binary and its flags) with --dump OUT, then check OUT against the
# Python oracle check_dump.py. MATTIS is 0 or 1.
out=$1; lx=$2; ly=$3; lz=$4; sw=$5; ns=$6; seed=$7; p=$8; temp=$9; shift 9
mattis=$1; shift
flags="--p $p"; extra=""
if [ "$mattis" = 1 ]; then flags="--mattis"; extra="--mattis"; fi
rm -f "$out"
"$@" --size "$lx,$ly,$lz" --iters "$sw" --samples "$ns" --seed "$seed" --temp "$temp" $flags --dump "$out"; rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
exec python3 "$(dirname "$0")/check_dump.py" "$lx" "$ly" "$lz" "$sw" "$ns" "$seed" "$p" "$temp" "$out" $extra
