#!/bin/sh
# checkpoint_flip.sh MODE APP ARGS...: a checkpoint with one bit flipped must never restart
# (format 3 in common/include/kit/checkpoint.h: the checksum covers every byte
# but itself). APP ARGS... is a small run without --iters; it writes a checkpoint at step 2,
# which must restart (exit 0 to --iters 4), then damaged copies must each be refused, exit
# 2, with one line "<app>: --restart '<file>': <reason>" (besides any progress lines):
#   all   every byte of the file in turn, one bit flipped (bit i mod 8 of byte i)
#   step  the step counter's lowest bit (step 2 becomes 3: format 2 restarted from it, exit
#         0 under --no-verify), and a padding byte after the app name's NUL (format 2 read
#         the name with strcmp), each with --no-verify and with its reason
mode=$1; app=$2; shift 2
name=$(basename "$app")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$app" "$@" --iters 2 --checkpoint "$dir/ck.bin" > /dev/null 2>&1 || { echo "checkpoint_flip.sh: the checkpointing run failed" >&2; exit 1; }
"$app" "$@" --iters 4 --restart "$dir/ck.bin" > /dev/null 2>&1 || { echo "checkpoint_flip.sh: the undamaged checkpoint does not restart" >&2; exit 1; }
size=$(wc -c < "$dir/ck.bin")
# flip FROM TO BYTE BIT: TO is FROM with that bit flipped.
flip() { python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[int(sys.argv[3])]^=1<<int(sys.argv[4]); open(sys.argv[2],'wb').write(b)" "$@"; }
# refused FILE REGEX EXTRA...: the restart from FILE exits 2 with one line matching REGEX.
refused() {
  f=$1; re=$2; shift 2
  out=$(timeout 20 "$app" "$@" --iters 4 --restart "$f" 2>&1); rc=$?
  if [ "$rc" -ne 2 ] || ! printf '%s\n' "$out" | grep -Eq -- "^$name: --restart '$f': $re\$" ||
     [ "$(printf '%s\n' "$out" | grep -c -- --restart)" -ne 1 ]; then
    echo "checkpoint_flip.sh: $f ($what): exit $rc, expected 2 and one line /$re/:" >&2
    printf '%s\n' "$out" | tail -3 >&2
    return 1
  fi
}
case "$mode" in
  all)
    # The offsets in one small Python run, then one app run per damaged copy.
    python3 -c "
import sys; b=open(sys.argv[1],'rb').read()
for i in range(len(b)):
    c=bytearray(b); c[i]^=1<<(i%8); open('%s/f%d' % (sys.argv[2], i),'wb').write(c)" "$dir/ck.bin" "$dir" || exit 1
    i=0; bad=0
    while [ "$i" -lt "$size" ]; do
      what="byte $i bit $((i % 8))"
      refused "$dir/f$i" '.+' "$@" || bad=$((bad + 1))
      rm -f "$dir/f$i"
      i=$((i + 1))
    done
    [ "$bad" -eq 0 ] || { echo "checkpoint_flip.sh: $bad of $size one-bit flips not refused" >&2; exit 1; }
    echo "checkpoint_flip.sh: $name: all $size one-bit flips refused (exit 2)" ;;
  step)
    what="step bit 0"; flip "$dir/ck.bin" "$dir/step.bin" 24 0 || exit 1
    refused "$dir/step.bin" 'checksum mismatch: the file is corrupted' "$@" --no-verify || exit 1
    refused "$dir/step.bin" 'checksum mismatch: the file is corrupted' "$@" || exit 1
    # The last byte of the 16-byte name field, after "<app>\0": 0 becomes 1.
    what="name padding"; flip "$dir/ck.bin" "$dir/pad.bin" 23 0 || exit 1
    refused "$dir/pad.bin" "corrupted header: bytes after the app name's NUL are not 0" "$@" --no-verify || exit 1
    echo "checkpoint_flip.sh: $name: a flipped step and a flipped name padding refused (exit 2)" ;;
  *) echo "checkpoint_flip.sh: unknown mode $mode" >&2; exit 1 ;;
esac
