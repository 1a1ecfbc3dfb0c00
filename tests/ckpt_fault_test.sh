#!/bin/sh
# ckpt_fault_test.sh DIR ITERS BIN ARGS...: a checkpoint survives a crash, and a damaged one
# is refused. BIN ARGS... is one app run (one rank, no launcher) without --iters.
#  1. the uninterrupted run to ITERS steps, --dump full.bin;
#  2. the same with --checkpoint every 3 steps and KIT_FAULT=checkpoint-kill: the process is
#     killed half-way through writing its second checkpoint (step 6), into its temporary
#     file ck.bin.tmp.XXXXXX. The file on disk must
#     still be the first one, whole: a restart from it reaches ITERS steps, passes its own
#     verification and dumps exactly run 1's field;
#  3. one data byte of that checkpoint flipped: the restart is refused, exit 2, "checksum".
set -u
dir=$1; iters=$2; shift 2
mkdir -p "$dir"; rm -f "$dir"/full.bin "$dir"/ck.bin "$dir"/ck.bin.tmp.* "$dir"/restarted.bin
"$@" --iters "$iters" --dump "$dir/full.bin" > /dev/null || { echo "ckpt_fault_test: run 1 failed"; exit 1; }
KIT_FAULT=checkpoint-kill "$@" --iters "$iters" --checkpoint "$dir/ck.bin" --checkpoint-every 3 > /dev/null 2>&1
rc=$?
[ $rc -ne 0 ] || { echo "ckpt_fault_test: the killed run exited 0 (no kill?)"; exit 1; }
# The half-written file is the writer's own, ck.bin.tmp.XXXXXX (kit/checkpoint.h).
ls "$dir"/ck.bin.tmp.?????? > /dev/null 2>&1 || { echo "ckpt_fault_test: no half-written ck.bin.tmp.XXXXXX: the kill did not hit a write"; exit 1; }
rm -f "$dir/r.jsonl"
"$@" --iters "$iters" --restart "$dir/ck.bin" --dump "$dir/restarted.bin" --json "$dir/r.jsonl" > "$dir/restarted.txt"
rc=$?
grep -E "^verification" "$dir/restarted.txt"
[ $rc -eq 0 ] || { echo "ckpt_fault_test: restart from the surviving checkpoint exited $rc"; exit 1; }
# The surviving checkpoint is the first one: the restart starts at step 3.
python3 -c "import json,sys; s=json.loads(open(sys.argv[1]).readline())['params']['start_step']; sys.exit(0 if s == 3 else 'start_step %s, expected 3' % s)" "$dir/r.jsonl" || exit 1
cmp "$dir/full.bin" "$dir/restarted.bin" || { echo "ckpt_fault_test: restarted field differs"; exit 1; }
# Flip one byte near the end (inside the data) and try again.
size=$(wc -c < "$dir/ck.bin")
python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-5]^=0x40; open(p,'wb').write(b)" "$dir/ck.bin"
[ "$(wc -c < "$dir/ck.bin")" -eq "$size" ] || exit 1
out=$("$@" --iters "$iters" --restart "$dir/ck.bin" 2>&1); rc=$?
echo "$out" | tail -1
[ $rc -eq 2 ] || { echo "ckpt_fault_test: corrupted checkpoint: exit $rc, expected 2"; exit 1; }
echo "$out" | grep -q "checksum mismatch" || { echo "ckpt_fault_test: no checksum message"; exit 1; }
echo "ckpt_fault_test: survived the kill (restart from step 3 identical), corrupted file refused"
