#!/bin/sh
# checkpoint_paths.sh MODE APP ARGS...: where --checkpoint writes (docs/files-and-errors.md;
# common/include/kit/checkpoint.h). APP ARGS... is a small run without --iters. The writer
# creates its own temporary file, path.tmp.XXXXXX, with O_EXCL, and renames it over path:
#   planted   ck.bin.tmp -> precious.txt planted beside the target: the run writes ck.bin
#             (which restarts) and leaves precious.txt and the link as they were (before, it
#             wrote through the link into precious.txt)
#   symlink   --checkpoint at a symlink to precious.txt: exit 2 before the run, "is a
#             symbolic link", link and file untouched (the rename would replace the link)
#   fifo      --checkpoint at a FIFO: exit 2 before the run, "is a FIFO", still a FIFO
#   device    --checkpoint at a character device (a private copy of /dev/null made with
#             mknod, so a regression cannot replace the real one; skipped, 77, where mknod
#             is not allowed): exit 2 before the run, still a device
#   shared    two runs writing 500 checkpoints each to the same path at the same time:
#             both exit 0 and the file restarts (before, they shared path.tmp and one
#             renamed the other's file away: "could not write checkpoint")
#   restart-fifo  --restart from a FIFO: exit 2 within seconds, "is not a regular file (a
#             FIFO)" (before, the reader blocked in open waiting for a writer)
#   reason    a file name of 250 bytes, whose temporary name is too long for the folder:
#             exit 3, "could not write checkpoint '...': ...: File name too long" (before, no
#             reason). A cause that root hits too, unlike a read-only folder.
mode=$1; app=$2; shift 2
name=$(basename "$app")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "checkpoint_paths.sh $mode: $*" >&2; exit 1; }
# refused TARGET REGEX: --checkpoint TARGET exits 2 before the run with one line matching REGEX.
refused() {
  out=$(timeout 20 "$app" "$@" --iters 2 --checkpoint "$target" 2>&1); rc=$?
  printf '%s\n' "$out"
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
  printf '%s\n' "$out" | grep -Eq -- "^$name: --checkpoint: cannot open '$target' for writing: $re\$" || fail "no line /$re/"
  ! printf '%s\n' "$out" | grep -q "^verification" || fail "the run went ahead before the refusal"
}
echo "precious" > "$dir/precious.txt"
case "$mode" in
  planted)
    ln -s "$dir/precious.txt" "$dir/ck.bin.tmp" || exit 1
    "$app" "$@" --iters 2 --checkpoint "$dir/ck.bin" > /dev/null || fail "the checkpointing run failed"
    [ "$(cat "$dir/precious.txt")" = precious ] || fail "precious.txt was overwritten through the planted link"
    [ -L "$dir/ck.bin.tmp" ] || fail "the planted link was replaced"
    [ -f "$dir/ck.bin" ] && [ ! -L "$dir/ck.bin" ] || fail "no checkpoint written"
    "$app" "$@" --iters 4 --restart "$dir/ck.bin" > /dev/null || fail "the checkpoint does not restart"
    echo "checkpoint_paths.sh: the planted link was neither followed nor replaced" ;;
  symlink)
    ln -s "$dir/precious.txt" "$dir/ck.bin" || exit 1
    target=$dir/ck.bin re="is a symbolic link, not a regular file .*"
    refused "$@"
    [ -L "$dir/ck.bin" ] && [ "$(cat "$dir/precious.txt")" = precious ] || fail "the link or its file changed" ;;
  fifo)
    command -v mkfifo > /dev/null && mkfifo "$dir/ck.bin" || { echo "cannot make a FIFO"; exit 77; }
    target=$dir/ck.bin re="is a FIFO, not a regular file"
    refused "$@"
    [ -p "$dir/ck.bin" ] || fail "the FIFO was replaced" ;;
  device)
    mknod "$dir/null" c 1 3 2> /dev/null || { echo "mknod not allowed here: skipped"; exit 77; }
    target=$dir/null re="is a character device, not a regular file"
    refused "$@"
    [ -c "$dir/null" ] || fail "the device node was replaced" ;;
  shared)
    # One thread each: two OpenMP teams spinning on two cores would crawl.
    export OMP_NUM_THREADS=1
    "$app" "$@" --iters 500 --warmup 0 --reps 1 --checkpoint "$dir/ck.bin" --checkpoint-every 1 > "$dir/a.txt" 2>&1 &
    pid=$!
    "$app" "$@" --iters 500 --warmup 0 --reps 1 --checkpoint "$dir/ck.bin" --checkpoint-every 1 > "$dir/b.txt" 2>&1
    rb=$?
    wait "$pid"; ra=$?
    [ "$ra" -eq 0 ] && [ "$rb" -eq 0 ] || { tail -2 "$dir/a.txt" "$dir/b.txt"; fail "exit $ra and $rb, expected 0 and 0"; }
    "$app" "$@" --iters 501 --restart "$dir/ck.bin" > /dev/null || fail "the shared checkpoint does not restart"
    ! ls "$dir"/ck.bin.tmp* > /dev/null 2>&1 || fail "temporary files left behind"
    echo "checkpoint_paths.sh: two runs sharing a checkpoint path both passed; the file restarts" ;;
  restart-fifo)
    command -v mkfifo > /dev/null && mkfifo "$dir/ck.bin" || { echo "cannot make a FIFO"; exit 77; }
    out=$(timeout 20 "$app" "$@" --iters 4 --restart "$dir/ck.bin" 2>&1); rc=$?
    printf '%s\n' "$out"
    [ "$rc" -eq 2 ] || fail "exit $rc, expected 2 (124: blocked in open)"
    printf '%s\n' "$out" | grep -q -- "^$name: --restart '$dir/ck.bin': is not a regular file (a FIFO)\$" ||
      fail "no 'is not a regular file (a FIFO)' line" ;;
  reason)
    long=$(printf '%0250d' 0)
    out=$("$app" "$@" --iters 2 --checkpoint "$dir/$long" 2>&1); rc=$?
    printf '%s\n' "$out" | tail -2
    [ "$rc" -eq 3 ] || fail "exit $rc, expected 3"
    printf '%s\n' "$out" | grep -q "could not write checkpoint '$dir/$long': .*: File name too long" ||
      fail "no reason (errno's text) in the message" ;;
  *) fail "unknown mode" ;;
esac
