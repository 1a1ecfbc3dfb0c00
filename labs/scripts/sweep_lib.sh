# sweep_lib.sh: sourced by the *_sweep.sh scripts. run CMD...: run one benchmark with
# --json $out appended, report a skip (exit 77) or a failure on stderr and carry on, so one
# failed run does not lose the rest of a sweep.
run() {
  echo "+ $*" >&2
  "$@" --json "$out" >/dev/null
  local rc=$?
  if [ $rc -eq 77 ]; then echo "skipped (not available here): $*" >&2
  elif [ $rc -ne 0 ]; then echo "run failed ($rc): $*" >&2; fi
}
