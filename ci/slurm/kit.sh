# kit.sh: sourced by every ci/slurm/*.sbatch template (from the repository root, where
# sbatch starts the job when you submit from there). Not a job script of its own.
#
# kit_launch SRUN_OPTION... -- APP ARG...: srun the app with those srun options. With
# KIT_DRY_RUN=1 it prints the srun options, "--" and the app's command line instead,
# shell-quoted on one line after "kit-dry-run:", and runs nothing: tests/docs/slurm_test.py
# reads those lines and checks every flag against the app's own option table. Outside a job,
# give the SLURM_* variables a template reads yourself, e.g.
#   KIT_DRY_RUN=1 SLURM_JOB_ID=0 SLURM_NNODES=2 SLURM_NTASKS_PER_NODE=2 bash ci/slurm/lbm.sbatch
kit_launch() {
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    opts+=("$1")
    shift
  done
  [ $# -gt 0 ] || { echo "kit_launch: no '--' before the command" >&2; return 2; }
  shift
  if [ "${KIT_DRY_RUN:-0}" = 1 ]; then
    local a line=kit-dry-run:
    for a in "${opts[@]}" -- "$@"; do
      if [[ $a =~ ^[A-Za-z0-9_./:,=+@%-]+$ ]]; then line+=" $a"; else line+=" $(printf '%q' "$a")"; fi
    done
    printf '%s\n' "$line"
  else
    # One run that fails or skips (exit 77: a transport or variant this machine cannot run)
    # does not stop the job's other runs; kit_summary's status reports a failure at the end.
    srun "${opts[@]}" "$@" || {
      local rc=$?
      echo "kit_launch: exit $rc: $*" >&2
      [ "$rc" = 77 ] || KIT_FAILED=1
    }
  fi
}

# kit_summary OUT.jsonl: the table of what the job measured (labs/scripts/summarize.py);
# nothing in a dry run. Its status (the job's, as the last command) is 1 when a run failed.
kit_summary() {
  [ "${KIT_DRY_RUN:-0}" = 1 ] || python3 labs/scripts/summarize.py "$@" || true
  return "${KIT_FAILED:-0}"
}

# kit_scaling DEFAULT: weak or strong, from KIT_SCALING (DEFAULT when unset). Call it as
# SCALING=$(kit_scaling weak), so that a bad value stops the job (set -e).
kit_scaling() {
  case ${KIT_SCALING:-$1} in
    weak | strong) echo "${KIT_SCALING:-$1}" ;;
    *)
      echo "KIT_SCALING must be weak or strong, not '${KIT_SCALING}'" >&2
      return 2
      ;;
  esac
}
