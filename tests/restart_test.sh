#!/bin/sh
# restart_test.sh DIR NP_A NP_B MPIEXEC...: checkpoint/restart must be invisible, for any app
# with --checkpoint, --restart and --dump. The app is $KIT_APP_BIN with the flags
# $KIT_APP_ARGS (variant, size, ...), both from the environment.
#  1. the uninterrupted run: 12 steps on NP_A ranks, --dump full.bin;
#  2. 7 steps on NP_A ranks with --checkpoint (every 3 steps and at the end);
#  3. a restart from that checkpoint on NP_B ranks to 12 steps, --dump restarted.bin.
# Run 3 must pass its own verification (the oracle starts from the true initial state)
# and its output must equal run 1's byte for byte. MPIEXEC... is the launcher up to "-n".
set -u
dir=$1; a=$2; b=$3; shift 3
bin=${KIT_APP_BIN:?}
mkdir -p "$dir"; rm -f "$dir"/full.bin "$dir"/ck.bin "$dir"/restarted.bin
common=${KIT_APP_ARGS:?}
"$@" "$a" "$bin" $common --iters 12 --dump "$dir/full.bin" >/dev/null; rc=$?; [ $rc -eq 0 ] || exit $rc
"$@" "$a" "$bin" $common --iters 7 --checkpoint "$dir/ck.bin" --checkpoint-every 3 >/dev/null || exit 1
"$@" "$b" "$bin" $common --iters 12 --restart "$dir/ck.bin" --dump "$dir/restarted.bin" > "$dir/restarted.txt"
rc=$?
grep -E "oracle|verification" "$dir/restarted.txt"
[ $rc -eq 0 ] || { echo "restart_test: the restarted run exited $rc"; exit 1; }
cmp "$dir/full.bin" "$dir/restarted.bin" || { echo "restart_test: restarted field differs"; exit 1; }
echo "restart_test: $common: checkpoint on $a ranks, restart on $b ranks: identical"
