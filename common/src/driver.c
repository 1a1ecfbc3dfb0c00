/* driver.c: shared driver pieces (kit/driver.h). */
#include "kit/driver.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit/check.h"
#include "kit/checkpoint.h"
#include "kit/input.h"
#include "kit/ranges.h"

int kit_usage_error(const kit_env *env, const char *fmt, ...) {
  if (env->rank == 0) {
    va_list ap;
    va_start(ap, fmt);
    kit_vlog_line(fmt, ap);
    va_end(ap);
  }
  return KIT_EXIT_USAGE;
}

int kit_skip(const kit_env *env, const char *app, const char *variant, const char *why) {
  if (env->rank == 0) {
    printf("%s: variant '%s' skipped: %s\n", app, variant, why);
    fflush(stdout);
  }
  return KIT_EXIT_SKIP;
}

/* Why `path` cannot take the output of `flag`, into why, or 0 if it can. Nothing is created:
 * a run refused later leaves no empty file behind. A regular file (or a new one in a folder
 * that exists and is writable) always can; a character device (/dev/null, /dev/stdout) can
 * take what is written in place, but not a checkpoint, which is renamed over its path
 * (kit_checkpoint_target_ok: no device, no symbolic link); a directory, a FIFO (a write
 * would wait for a reader), a socket or "" never can. */
static int output_path_problem(const char *flag, const char *path, char *why, size_t n) {
  const int replaced = strcmp(flag, "--checkpoint") == 0;
  const size_t len = strlen(path);
  if (len == 0) return snprintf(why, n, "an empty file name"), 1;
  if (len >= 4096) return snprintf(why, n, "the file name is too long"), 1;
  if (path[len - 1] == '/') return snprintf(why, n, "names a directory, not a file"), 1;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir)
    slash[1] = '\0';
  else if (slash)
    *slash = '\0';
  else
    snprintf(dir, sizeof dir, ".");
  /* A checkpoint is renamed over its path: only a regular file (or nothing) may be there. */
  if (replaced && kit_checkpoint_target_ok(path, why, n) != 0) return 1;
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return snprintf(why, n, "is a directory"), 1;
    if (S_ISFIFO(st.st_mode))
      return snprintf(why, n, "is a FIFO, not a regular file (writing would wait for a reader)"), 1;
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
      return snprintf(why, n, "is %s, not a regular file", kit_file_kind(st.st_mode)), 1;
    if (access(path, W_OK) != 0) return snprintf(why, n, "%s", strerror(errno)), 1;
    if (!replaced) return 0;
  } else if (errno != ENOENT) {
    return snprintf(why, n, "%s", strerror(errno)), 1;
  }
  /* A new file, or a checkpoint (written beside itself, then renamed): its directory. */
  if (stat(dir, &st) != 0) return snprintf(why, n, "directory '%.200s': %s", dir, strerror(errno)), 1;
  if (!S_ISDIR(st.st_mode)) return snprintf(why, n, "'%.200s' is not a directory", dir), 1;
  if (access(dir, W_OK | X_OK) != 0)
    return snprintf(why, n, "cannot create a file in '%.200s': %s", dir, strerror(errno)), 1;
  return 0;
}

int kit_check_output_file(const kit_env *env, const char *app, const char *flag, const char *path) {
  int bad = 0;
  char why[300] = "";
  /* "-" is standard output for --json (kit_append_line); for the other flags, a file "-". */
  if (path && env->rank == 0 && !(strcmp(path, "-") == 0 && strcmp(flag, "--json") == 0))
    bad = output_path_problem(flag, path, why, sizeof why);
  KIT_MPI_CHECK(MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (bad) kit_usage_error(env, "%s: %s: cannot open '%s' for writing: %s", app, flag, path, why);
  return bad;
}

FILE *kit_output_open(const char *flag, const char *path, const char *mode) {
  FILE *f = fopen(path, mode);
  if (!f)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%s: cannot write '%s': %s", flag, path, strerror(errno));
  errno = 0; /* from here on, only a failed write sets it (kit_output_close reports it) */
  return f;
}

void kit_output_close(FILE *f, const char *flag, const char *path) {
  /* ferror: a write that failed earlier (a full disk) may leave nothing for fclose to report;
   * errno still holds that write's reason then. */
  const int before = errno, failed = ferror(f);
  errno = 0;
  const int closed = fclose(f) == 0;
  if (!closed || failed)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%s: could not write '%s': %s", flag, path,
            !closed && errno ? strerror(errno)
            : before         ? strerror(before)
                             : "write error");
}

int kit_distinct_gpus(const kit_env *env, int per_rank, int limit) {
  int mine = 0, total = 0;
  const int usable = kit_usable_gpus(env, limit);
  if (env->local_rank == 0) {
    mine = env->local_size * per_rank;
    if (mine > usable) mine = usable;
  }
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  return total;
}

static double mem_total_bytes(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0.0;
  char line[256];
  double kb = 0.0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemTotal: %lf kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024.0;
}

int kit_check_memory(const kit_env *env, const char *app, double host_bytes, double device_bytes,
                     int devices_used) {
  const char *skip = getenv("KIT_NO_MEMORY_CHECK");
  if (skip && *skip && strcmp(skip, "0") != 0) return 0;
  double node_need = 0.0;
  KIT_MPI_CHECK(MPI_Allreduce(&host_bytes, &node_need, 1, MPI_DOUBLE, MPI_SUM, env->node_comm));
  const double have = mem_total_bytes();
  int bad = have > 0.0 && node_need > have ? 1 : 0;
  double dev_need = 0.0, dev_have = 0.0;
#ifdef KIT_HAVE_CUDA
  if (device_bytes > 0.0 && env->device >= 0) {
    size_t free_b = 0, total_b = 0;
    KIT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    /* Ranks of this node that drive the same device add up. */
    int *dev = kit_malloc((size_t)env->local_size * sizeof *dev, "device ids");
    KIT_MPI_CHECK(MPI_Allgather(&env->device, 1, MPI_INT, dev, 1, MPI_INT, env->node_comm));
    int sharing = 0;
    for (int r = 0; r < env->local_size; ++r) sharing += dev[r] == env->device;
    free(dev);
    dev_need = device_bytes / (devices_used > 0 ? devices_used : 1) * sharing;
    dev_have = (double)total_b;
    if (dev_need > dev_have) bad |= 2;
  }
#else
  (void)device_bytes;
  (void)devices_used;
#endif
  int any = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD));
  if (!any) return 0;
  /* Rank 0 speaks for the job; the numbers are its node's and its device's. */
  double mine[4] = {node_need, have, dev_need, dev_have}, all[4];
  KIT_MPI_CHECK(MPI_Allreduce(mine, all, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  if (any & 1)
    kit_usage_error(env,
                    "%s: the problem needs %.1f GB of host memory on a node, which has %.1f GB "
                    "(fewer points, more nodes, or --no-verify; KIT_NO_MEMORY_CHECK=1 to try anyway)",
                    app, all[0] * 1e-9, all[1] * 1e-9);
  else
    kit_usage_error(env,
                    "%s: the problem needs %.1f GB of memory on a GPU, which has %.1f GB "
                    "(fewer points or more GPUs)",
                    app, all[2] * 1e-9, all[3] * 1e-9);
  return KIT_EXIT_USAGE;
}

/* Runs `steps` steps and returns the time, max over ranks. */
static double timed_steps(void *state, kit_step_fn step, int steps) {
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = kit_now();
  step(state, steps);
  double mine = kit_now() - t0, all = 0.0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return all;
}

const char *const kit_variant_names[KIT_NVARIANTS] = {"cpu", "naive", "two-stream", "multi-thread", "hybrid"};

int kit_front_door(const kit_env *env, int argc, char **argv, kit_option *opts, const char *app,
                   const char *summary, const kit_run *run, kit_describe_fn describe) {
  return kit_front_door_names(env, argc, argv, opts, app, summary, run, kit_variant_names, KIT_NVARIANTS,
                              describe);
}

int kit_front_door_names(const kit_env *env, int argc, char **argv, kit_option *opts, const char *app,
                         const char *summary, const kit_run *run, const char *const *names, int nnames,
                         kit_describe_fn describe) {
  /* Before parsing: ranks parsing different arguments could fail apart and hang the rest. */
  if (kit_same_command_line(env, app, argc, argv)) return KIT_EXIT_USAGE;
  char err[512];
  const int prc = kit_parse(argc, argv, opts, err, sizeof err);
  if (prc == KIT_PARSE_ERROR) return kit_usage_error(env, "%s", err);
  if (prc == KIT_PARSE_HELP) {
    if (env->rank == 0) kit_print_help(stdout, app, summary, opts);
    return 0;
  }
  if (strcmp(run->variant, "list") == 0) {
    if (env->rank == 0)
      for (int i = 0; i < nnames; ++i) printf("%-14s %s\n", names[i], describe(names[i]));
    return 0;
  }
  int known = 0;
  for (int i = 0; i < nnames; ++i) known |= strcmp(names[i], run->variant) == 0;
  if (!known)
    return kit_usage_error(env, "%s: --variant: unknown variant '%s' (see --variant list)", app,
                           run->variant);
  /* The flags given must apply to the variant: the option rows say which (kit_option.variants). */
  if (kit_option_applies(opts, app, run->variant, err, sizeof err)) return kit_usage_error(env, "%s", err);
  return -1;
}

int kit_restart_check(const kit_env *env, const char *app, const char *path, const double *ident, int nident,
                      size_t elem, unsigned long long count, int iters, const char *iters_flag, int *step) {
  struct {
    int bad;
    unsigned long long step;
    char why[240];
  } chk = {0, 0, ""};
  if (env->rank == 0) {
    uint64_t s = 0;
    chk.bad = kit_checkpoint_read(path, app, ident, nident, elem, count, &s, NULL, chk.why, sizeof chk.why);
    chk.step = s;
  }
  KIT_MPI_CHECK(MPI_Bcast(&chk, (int)sizeof chk, MPI_BYTE, 0, MPI_COMM_WORLD));
  if (chk.bad) return kit_usage_error(env, "%s: --restart '%s': %s", app, path, chk.why);
  if (chk.step >= (unsigned long long)iters)
    return kit_usage_error(env, "%s: --restart: the checkpoint is at step %llu; %s %d must be larger", app,
                           chk.step, iters_flag, iters);
  *step = (int)chk.step;
  return -1;
}

double kit_median_time(void *state, kit_step_fn step, int steps) {
  step(state, steps);
  double t[5];
  for (int r = 0; r < 5; ++r) {
    KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = kit_now();
    step(state, steps);
    double mine = kit_now() - t0;
    KIT_MPI_CHECK(MPI_Allreduce(&mine, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  }
  return kit_stats_of(t, 5).median;
}

int kit_mt_gpus(const kit_env *env, const char *app, int requested, int max) {
  int n = requested > 0 ? requested : env->gpus_visible;
  if (n > max) n = max;
  int lo = 0, hi = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (lo != hi) {
    kit_usage_error(env, "%s: ranks see different GPU counts; give --gpus N", app);
    return -1;
  }
  return n;
}

int kit_choose_gpus(kit_env *env, const char *app, int needs_gpu, int mt_max, int mt_thread_level,
                    int requested, int *total) {
  *total = 0;
  if (mt_max > 0) {
    const int per_rank = kit_mt_gpus(env, app, requested, mt_max);
    if (per_rank < 0) return -1;
    if (env->nranks > 1 && env->thread_level < mt_thread_level)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%s: multi-thread over several ranks needs %s", app,
              mt_thread_level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_FUNNELED");
    *total = kit_distinct_gpus(env, per_rank, 0);
    kit_select_device(env, 0);
    return per_rank;
  }
  if (!needs_gpu) return 0;
  kit_select_device(env, requested);
  *total = kit_distinct_gpus(env, 1, requested);
  return 1;
}

kit_progress kit_progress_start(const kit_run *run) {
  const char *e = getenv("KIT_PROGRESS_S");
  char *end = NULL;
  const double every = e && *e ? strtod(e, &end) : 10.0;
  int rank = 0, mpi = 0;
  KIT_MPI_CHECK(MPI_Initialized(&mpi)); /* the oracles also run in unit tests without MPI */
  if (mpi) KIT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  kit_progress p = {kit_now(), 0.0, end && *end == '\0' && every >= 0.0 ? every : 10.0,
                    !run->quiet && rank == 0};
  p.last = p.start;
  return p;
}

void kit_progress_line(kit_progress *p, const char *what, int done, int total, double per) {
  const double now = kit_now();
  if (!p->on || now - p->start < p->every || (now - p->last < p->every && done < total)) return;
  p->last = now;
  if (total > 0)
    fprintf(stderr, "progress: %s %d of %d done, %.0f s elapsed, about %.0f s left\n", what, done, total,
            now - p->start, per * (total - done));
  else
    fprintf(stderr, "progress: %s done, %.0f s elapsed\n", what, now - p->start);
  fflush(stderr);
}

void kit_progress_loop(kit_progress *p, const char *what, int done, int total) {
  if (p->on && done > 0) kit_progress_line(p, what, done, total, (kit_now() - p->start) / done);
}

kit_timing kit_time_variant(const kit_run *run, void *state, kit_step_fn step, kit_reset_fn reset,
                            const kit_halo *halo, const kit_chunking *chunks) {
  kit_timing t;
  memset(&t, 0, sizeof t);
  kit_progress pr = kit_progress_start(run);
  t.reps = run->reps;
  t.iters = run->iters;
  if (run->warmup > 0) {
    step(state, run->warmup);
    reset(state);
  }
  /* Profiled pass: phases and the trace come from here, never from the timed steps. */
  const int prof = run->iters < 10 ? run->iters : 10;
  if (prof > 0) {
    kit_phases_reset();
    kit_profile_enable(1);
    step(state, prof);
    kit_ranges_collect();
    kit_profile_enable(0);
    reset(state);
  }
  t.nphases = kit_phases_reduce(MPI_COMM_WORLD, prof, &t.phase_names, &t.phase_secs);
  kit_progress_line(&pr, "warm-up and profiled pass", 0, 0, 0.0);
  if (run->trace) kit_trace_write(run->trace, MPI_COMM_WORLD);

  if (halo) {
    t.messages_before = halo->messages;
    t.bytes_before = halo->bytes;
  }
  double *times = kit_malloc((size_t)run->reps * sizeof *times, "timings");
  for (int r = 0; r < run->reps; ++r) {
    if (r > 0) reset(state);
    if (chunks && r == run->reps - 1) {
      times[r] = 0.0;
      for (int done = 0; done < run->iters;) {
        const int n = run->iters - done < chunks->every ? run->iters - done : chunks->every;
        times[r] += timed_steps(state, step, n);
        done += n;
        chunks->fn(chunks->arg, state, done);
      }
    } else {
      times[r] = timed_steps(state, step, run->iters);
    }
    kit_progress_line(&pr, "repetition", r + 1, run->reps, times[r]);
  }
  t.time = kit_stats_of(times, run->reps);
  free(times);
  return t;
}

void kit_report_fill_run(kit_report *r, const kit_env *env, const kit_timing *t, int gpus,
                         double cpu_fraction) {
  r->ranks = env->nranks;
  r->threads = env->threads;
  r->gpus = gpus;
  snprintf(r->device, sizeof r->device, "%s", env->device_name);
  r->cpu_fraction = cpu_fraction;
  r->time = t->time;
  r->reps = t->reps;
  r->iters = t->iters;
  r->nphases = t->nphases;
  r->phase_names = t->phase_names;
  r->phase_secs = t->phase_secs;
}

void kit_report_fom(kit_report *r, const char *name, const char *unit, double value) {
  r->fom_name = name;
  r->fom_unit = unit;
  r->fom = value;
}

void kit_report_bandwidth(kit_report *r, double bytes_per_step, int steps, double ceiling,
                          const char *ceiling_source) {
  r->bytes_model = bytes_per_step;
  r->bandwidth_GBs = r->time.median > 0 ? bytes_per_step * steps / r->time.median * 1e-9 : 0.0;
  r->ceiling_GBs = ceiling;
  r->ceiling_source = ceiling_source;
  r->fraction_of_ceiling = ceiling > 0 ? r->bandwidth_GBs / ceiling : 0.0;
}

void kit_report_hybrid(kit_report *r, const char *unit, int cpu_units, double model, double t_model,
                       double t_zero) {
  if (unit) {
    char key[64];
    snprintf(key, sizeof key, "cpu_%s", unit);
    kit_report_result(r, key, cpu_units, unit);
  }
  if (model >= 0.0) kit_report_result(r, "cpu_fraction_model", model, "");
  if (t_model > 0.0) {
    kit_report_result(r, "calibration_model_s", t_model, "s");
    kit_report_result(r, "calibration_gpu_only_s", t_zero, "s");
  }
}

void kit_report_messages(kit_report *r, long long messages, long long bytes, double steps) {
  long long mine[2] = {messages, bytes}, all[2] = {0, 0};
  KIT_MPI_CHECK(MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  r->messages_per_step = steps > 0 ? (double)all[0] / steps : 0.0;
  r->bytes_per_step = steps > 0 ? (double)all[1] / steps : 0.0;
}

/* Every rank must end with the same verdict: a check that failed on one rank only (a value
 * that rank computed alone) fails the job on every rank, and rank 0's printout names the
 * first such rank. KIT_FAULT=verify@R (tests only) fails a check on rank R alone. */
static void agree_verdict(kit_report *r, const kit_env *env) {
  if (kit_fault("verify"))
    kit_report_check(r, "fault_injected", KIT_VERIFY_FAILED, 1.0, 0.0, "KIT_FAULT=verify on this rank");
  int mine[2] = {r->verify, r->verify == KIT_VERIFY_FAILED ? -env->rank : -env->nranks}, all[2];
  /* MAX of the status (FAILED > PASSED > SKIPPED), MAX of -rank: the lowest failing rank. */
  KIT_MPI_CHECK(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (all[0] == KIT_VERIFY_FAILED && r->verify != KIT_VERIFY_FAILED)
    kit_report_check(r, "other_ranks", KIT_VERIFY_FAILED, (double)-all[1], 0.0,
                     "a check failed on rank %d (its stderr, or the run on that rank, says which)", -all[1]);
}

int kit_report_finish(kit_report *r, const kit_env *env, const char *json) {
  int io = 0;
  agree_verdict(r, env);
  if (env->rank == 0) {
    /* A result that could not be written is a failed run: stdout (> /dev/full, a full
     * disk) and the --json line are checked, and the verdict is exit 3 on every rank. */
    errno = 0; /* a failed write while printing leaves its reason here */
    kit_report_print(r, stdout);
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "kit: could not write the report to standard output: %s\n",
              errno ? strerror(errno) : "write error");
      io = 1;
    }
    if (json && kit_report_json(r, json) != 0) {
      fprintf(stderr, "kit: --json: could not append the result to '%s': %s\n", json, strerror(errno));
      io = 1;
    }
  }
  KIT_MPI_CHECK(MPI_Bcast(&io, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (io) return KIT_EXIT_RUNTIME;
  return kit_report_exit_code(r); /* the same on every rank, after agree_verdict */
}

void kit_write_doubles(const char *path, const double *v, size_t n) {
  FILE *f = kit_output_open("--dump", path, "wb");
  if (fwrite(v, sizeof *v, n, f) != n)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--dump: could not write %zu doubles to '%s': %s", n, path,
            strerror(errno));
  kit_output_close(f, "--dump", path);
}
