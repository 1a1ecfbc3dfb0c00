# sweep_lib.sh: sourced by the *_sweep.sh scripts. run CMD...: run one benchmark with
# --json $out appended, report a skip (exit 77) or a failure on stderr and carry on, so one
# failed run does not lose the rest of a sweep. KIT_RUN_TIMEOUT=S stops a run after S seconds
# (reported as "timed out"), so one slow run cannot eat a device call's whole time limit.
run() {
  echo "+ [${SECONDS}s] $*" >&2
  local limit=()
  [ -n "${KIT_RUN_TIMEOUT:-}" ] && limit=(timeout -k 10 "$KIT_RUN_TIMEOUT")
  "${limit[@]}" "$@" --json "$out" >/dev/null
  local rc=$?
  if [ $rc -eq 77 ]; then echo "skipped (not available here): $*" >&2
  elif [ $rc -eq 124 ] && [ -n "${KIT_RUN_TIMEOUT:-}" ]; then echo "timed out after ${KIT_RUN_TIMEOUT}s: $*" >&2
  elif [ $rc -ne 0 ]; then echo "run failed ($rc): $*" >&2; fi
}
