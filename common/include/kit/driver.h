/* kit/driver.h: the parts of an app's main.c that are the same for every app:
 * one-line usage errors and skips, the warm-up / profiled / timed loop around a variant's
 * step function, and filling the report. Pattern: Graph500 src/main.c, CoMD's driver.
 * The timed loop (kit_time_variant):
 *   1. --warmup steps, untimed, then reset;
 *   2. a profiled pass of min(iters, 10) steps with phase timers, GPU events and --trace
 *      recording on, then reset;
 *   3. --reps repetitions of --iters steps, each timed as the max over ranks, the state
 *      reset between them, so the final state is that of exactly --iters steps; the last
 *      repetition may run in chunks with untimed work between them (checkpoints). */
#ifndef KIT_DRIVER_H
#define KIT_DRIVER_H
#include "kit/halo.h"
#include "kit/options.h"
#include "kit/report.h"
#include "kit/runtime.h"
#include "kit/stats.h"
#ifdef __cplusplus
extern "C" {
#endif

#ifdef KIT_EXACT_OFF
#define KIT_EXACT_BUILD_OFF 1
#else
#define KIT_EXACT_BUILD_OFF 0
#endif

typedef void (*kit_step_fn)(void *state, int steps);
typedef void (*kit_reset_fn)(void *state);

/* Optional work between chunks of the last timed repetition (checkpoints): fn(arg, state,
 * steps done so far) after every `every` steps and after the last. Its time is not counted. */
typedef struct kit_chunking {
  int every;
  void (*fn)(void *arg, void *state, int steps_done);
  void *arg;
} kit_chunking;

typedef struct kit_timing {
  kit_stats time; /* seconds per repetition, max over ranks */
  int reps, iters;
  int nphases; /* phases of the profiled pass, per step, max over ranks */
  const char **phase_names;
  double *phase_secs;
  long long messages_before, bytes_before; /* halo counters when timing started */
  double setup_s;                          /* kit_main: the variant's setup, max over ranks (untimed) */
} kit_timing;

/* The variant names of the kit's contract (DESIGN.md Sec. 3), in --variant list's order. */
#define KIT_NVARIANTS 5
extern const char *const kit_variant_names[KIT_NVARIANTS];
/* What --variant list says of one variant: its summary, or why it cannot run here. */
typedef const char *(*kit_describe_fn)(const char *variant);
/* The front door of every app's main: parses argv against `opts`, answers --help (usage
 * from the table) and --variant list (a line per variant: its name and describe(name)), and
 * refuses a variant name outside the contract. Returns -1 when the run goes on, otherwise
 * the exit code (0 after --help or the list, KIT_EXIT_USAGE after a usage line). */
int kit_front_door(const kit_env *env, int argc, char **argv, kit_option *opts, const char *app,
                   const char *summary, const kit_run *run, kit_describe_fn describe);

/* kit_front_door over another list of variant names (the five and an app's own, kit_main). */
int kit_front_door_names(const kit_env *env, int argc, char **argv, kit_option *opts, const char *app,
                         const char *summary, const kit_run *run, const char *const *names, int nnames,
                         kit_describe_fn describe);
/* Prints one line on rank 0 and returns KIT_EXIT_USAGE. */
int kit_usage_error(const kit_env *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "<app>: variant '<v>' skipped: <why>" on rank 0 and returns KIT_EXIT_SKIP. */
int kit_skip(const kit_env *env, const char *app, const char *variant, const char *why);
/* Before anything runs, for every output flag: 1 (after one line naming the flag, the path
 * and why) if `path` is given and cannot take the output: "", a directory, a FIFO, a
 * missing directory, no permission; a device only where written in place (not --checkpoint); "-" is
 * stdout for --json. Creates nothing. Collective. */
int kit_check_output_file(const kit_env *env, const char *app, const char *flag, const char *path);
/* An output file of `flag` opened with fopen's `mode`, or exit 3 with the reason. */
FILE *kit_output_open(const char *flag, const char *path, const char *mode);
/* Closes it; a write that failed anywhere in it (full disk, /dev/full) is exit 3 with the reason. */
void kit_output_close(FILE *f, const char *flag, const char *path);
/* Distinct GPUs the job uses: per node min(ranks on node x per_rank, usable), where usable
 * is the visible count, or `limit` (--gpus) when smaller and positive. */
int kit_distinct_gpus(const kit_env *env, int per_rank, int limit);
/* Refuses a run that cannot fit, before anything large is allocated (collective): the sum
 * of host_bytes over the ranks of a node against the node's MemTotal, and device_bytes
 * per device against that device's memory (ranks sharing a device add up). Prints one line
 * with needed and available sizes and returns KIT_EXIT_USAGE, or returns 0.
 * KIT_NO_MEMORY_CHECK=1 skips it (virtual machines whose memory grows on demand). */
int kit_check_memory(const kit_env *env, const char *app, double host_bytes, double device_bytes,
                     int devices_used);
/* --restart, before anything large is allocated: rank 0 checks the whole file (header,
 * problem parameters `ident`, element size and count, checksum) and every rank learns its
 * step. Returns -1 with *step set, or KIT_EXIT_USAGE after one line: another problem, a
 * damaged file, or a step not before --iters (named `iters_flag`). Collective. */
int kit_restart_check(const kit_env *env, const char *app, const char *path, const double *ident, int nident,
                      size_t elem, unsigned long long count, int iters, const char *iters_flag, int *step);
/* Median of five timings of `steps` steps after as many untimed ones, each the max over
 * ranks (collective): the measurement behind a hybrid's --cpu-fraction auto. The median,
 * not the best: a noisy CPU part can have a good best run and bad typical ones. */
double kit_median_time(void *state, kit_step_fn step, int steps);
/* GPUs each process of a multi-thread run drives: --gpus (`requested` > 0) or every
 * visible one, at most `max`; the same on every rank, or a usage line and -1 (collective). */
int kit_mt_gpus(const kit_env *env, const char *app, int requested, int max);
/* The GPUs this rank drives, once the no-GPU skip has passed (collective). multi-thread
 * (`mt_max` > 0): kit_mt_gpus' count, with the MPI thread level its threads need
 * (`mt_thread_level`: MPI_THREAD_FUNNELED when only the main thread calls MPI,
 * MPI_THREAD_MULTIPLE when the end GPUs' threads do) checked over several ranks, and device 0
 * selected; another GPU variant: one GPU, spread over `requested` (--gpus) devices or all;
 * cpu (`needs_gpu` 0): none. Returns the GPUs per rank and sets *total (kit_distinct_gpus),
 * or -1 after a usage line. */
int kit_choose_gpus(kit_env *env, const char *app, int needs_gpu, int mt_max, int mt_thread_level,
                    int requested, int *total);
/* Progress of a long run on stderr (rank 0; --quiet silences it): a line once the run has
 * taken KIT_PROGRESS_S seconds (default 10), then at most one per KIT_PROGRESS_S, with the
 * time left from `per` seconds a unit (total 0: no estimate). Called between timed units
 * only (kit_time_variant's repetitions, bfs's searches), never inside one. */
typedef struct kit_progress {
  double start, last, every;
  int on;
} kit_progress;
kit_progress kit_progress_start(const kit_run *run);
void kit_progress_line(kit_progress *p, const char *what, int done, int total, double per);
/* The same inside a loop of `total` like units begun at kit_progress_start (an oracle's steps,
 * run on rank 0 alone): the time left from the mean unit so far. */
void kit_progress_loop(kit_progress *p, const char *what, int done, int total);
/* Warm-up, profiled pass and timed repetitions (see above). `halo` may be NULL. */
kit_timing kit_time_variant(const kit_run *run, void *state, kit_step_fn step, kit_reset_fn reset,
                            const kit_halo *halo, const kit_chunking *chunks);

void kit_report_fill_run(kit_report *r, const kit_env *env, const kit_timing *t, int gpus,
                         double cpu_fraction);
void kit_report_fom(kit_report *r, const char *name, const char *unit, double value);
/* bandwidth = bytes_per_step * steps / median time; fraction against `ceiling`. */
void kit_report_bandwidth(kit_report *r, double bytes_per_step, int steps, double ceiling,
                          const char *ceiling_source);
/* A hybrid run's split: the CPU units summed over ranks, as "cpu_<unit>" (unit NULL: the app
 * reports its split itself), the model's share (model < 0: the share was given, not
 * modelled) and the --cpu-fraction auto measurements (t_model <= 0: none). */
void kit_report_hybrid(kit_report *r, const char *unit, int cpu_units, double model, double t_model,
                       double t_zero);
/* MPI messages and bytes this rank sent during `steps` steps; summed over ranks. */
void kit_report_messages(kit_report *r, long long messages, long long bytes, double steps);
/* Print on rank 0, append JSON if asked, return the exit code (same on every rank). */
int kit_report_finish(kit_report *r, const kit_env *env, const char *json);
/* Raw little-endian doubles (--dump); aborts with exit 3 and the reason on an I/O error. */
void kit_write_doubles(const char *path, const double *v, size_t n);

#ifdef __cplusplus
}
#endif
#endif
