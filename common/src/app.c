/* app.c: kit_main, the one run pipeline of every app (kit/app.h): a prologue that refuses
 * what cannot run, the timed loop, and an epilogue that verifies and reports. */
#include "kit/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/ceiling.h"
#include "kit/check.h"
#include "kit/hybrid.h"
#include "kit/ranges.h"

const kit_variant *kit_find_variant(const kit_app *app, const char *name) {
  for (const kit_variant *const *v = app->variants; *v; ++v)
    if (strcmp((*v)->name, name) == 0) return *v;
  return NULL;
}

/* --variant list's line: the summary, and whether the variant can run here. (The front
 * door's callback takes a name only; one app runs per process.) */
static const kit_app *listed_app;
static const char *describe(const char *name) {
  static char line[512];
  const kit_variant *v = kit_find_variant(listed_app, name);
  if (!v) return "(not built: no CUDA toolkit)";
  if (!v->needs_gpu || kit_gpu_count() > 0) return v->summary;
  snprintf(line, sizeof line, "%s (skipped here: no CUDA device)", v->summary);
  return line;
}

/* Adds `name` to names[0, n) unless it is there; the new count. */
static int add_name(const char **names, int n, int room, const char *name) {
  for (int i = 0; i < n; ++i)
    if (strcmp(names[i], name) == 0) return n;
  if (n < room) names[n++] = name;
  return n;
}

/* The names --variant takes: the kit's five, then the app's own, built here or not. */
static int variant_names(const kit_app *app, const char **names, int room) {
  int n = 0;
  for (int i = 0; i < KIT_NVARIANTS; ++i) n = add_name(names, n, room, kit_variant_names[i]);
  for (const kit_variant *const *v = app->variants; *v; ++v) n = add_name(names, n, room, (*v)->name);
  for (const char *const *c = app->cuda_names; c && *c; ++c) n = add_name(names, n, room, *c);
  return n;
}

/* --cpu-fraction auto's measurement of one schedule on a fresh state (kit_median_time). */
static double calibrate(const kit_variant *v, const void *ctx, int steps) {
  void *st = v->setup(ctx);
  const double t = kit_median_time(st, v->run, steps);
  v->teardown(st);
  return t;
}

/* The largest CPU share in whole units over the ranks (0: no rank gets any). */
static int cpu_units_anywhere(const kit_app *app, const void *ctx, double fraction) {
  int mine = app->cpu_units(ctx, fraction), any = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return any;
}

/* uniform_share: 1 if share f gives every rank CPU units or none (collective). */
static int share_uniform(const kit_app *app, const void *ctx, double fraction) {
  const int mine = app->cpu_units(ctx, fraction) > 0;
  int lo = 0, hi = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return !app->uniform_share || lo == hi;
}

/* --checkpoint between chunks of the last repetition (kit_time_variant's chunking). */
typedef struct chunk_arg {
  const kit_app *app;
  void *ctx;
  const kit_variant *v;
  int start; /* the step the run started from (--restart) */
} chunk_arg;
static void write_checkpoint(void *arg, void *st, int done) {
  const chunk_arg *c = arg;
  c->app->checkpoint(c->ctx, c->v, st, c->start + done);
}

/* Everything before the timed loop that can refuse the run: -1 to go on, or the exit code. */
static int prologue(const kit_app *app, kit_env *env, int argc, char **argv, const kit_variant **v, int *gpus,
                    int *gpus_total) {
  const char *names[32];
  const int nnames = variant_names(app, names, 32);
  listed_app = app;
  const int front = kit_front_door_names(env, argc, argv, app->opts, app->name, app->summary, app->run, names,
                                         nnames, describe);
  if (front >= 0) return front;
  const kit_run *run = app->run;
  /* The app's rules first: a size that cannot run is bad input on any machine. */
  const int rc = app->check(env, app->params, run->variant);
  if (rc >= 0) return rc;
  if (run->checkpoint_every > 0 && !run->checkpoint)
    return kit_usage_error(env, "%s: --checkpoint-every needs --checkpoint FILE", app->name);
  *v = kit_find_variant(app, run->variant);
  if (!*v) return kit_skip(env, app->name, run->variant, "built without CUDA");
  if ((*v)->gpus_max > 0 && run->gpus > (*v)->gpus_max)
    return kit_usage_error(env, "%s: --gpus: %s drives at most %d GPUs per process", app->name, (*v)->name,
                           (*v)->gpus_max);
  if ((*v)->needs_gpu && !kit_all_ranks_have_gpu(env))
    return kit_skip(env, app->name, run->variant, "no CUDA device");
  /* Output paths, before anything runs (kit_check_output_file: nothing is created). */
  const char *flags[4 + 3] = {"--json", "--trace", "--checkpoint"},
                        *paths[4 + 3] = {run->json, run->trace, run->checkpoint};
  const int nout = 3 + (app->outputs ? app->outputs(app->params, flags + 3, paths + 3) : 0);
  for (int i = 0; i < nout; ++i)
    if (kit_check_output_file(env, app->name, flags[i], paths[i])) return KIT_EXIT_USAGE;
  /* GPUs: one per rank, or (gpus_max) every GPU the process may use, at most one per unit of
   * work when --gpus is not given (the default must not refuse a problem for the machine). */
  int mt_max = (*v)->gpus_max;
  /* A hybrid variant drives several GPUs per process only when told (--gpus N); by default,
   * one GPU per rank like the other CPU+GPU schemes. */
  if ((*v)->hybrid && !run->gpus_given) mt_max = 0;
  const int limit = app->gpu_limit && !run->gpus_given ? app->gpu_limit(env, app->params) : 0;
  if (mt_max > 0 && limit > 0 && limit < mt_max) mt_max = limit;
  *gpus = kit_choose_gpus(env, app->name, (*v)->needs_gpu, mt_max, (*v)->thread_level, run->gpus, gpus_total);
  if (*gpus < 0) return KIT_EXIT_USAGE;
  double host = 0.0, device = 0.0;
  const int prc = app->plan(env, app->params, *v, *gpus, &host, &device);
  if (prc >= 0) return prc;
  const int devices = *gpus < env->gpus_visible ? *gpus : env->gpus_visible;
  const int mrc = kit_check_memory(env, app->name, host, (*v)->needs_gpu ? device : 0.0, devices);
  return mrc ? mrc : -1;
}

int kit_main(const kit_app *app, int argc, char **argv) {
  kit_env env;
  kit_init(&argc, &argv, &env);
  const kit_variant *v = NULL;
  int gpus = 0, gpus_total = 0;
  const int early = prologue(app, &env, argc, argv, &v, &gpus, &gpus_total);
  if (early >= 0) return kit_finalize(early);
  const kit_run *run = app->run;
  /* One line, once, when a node runs more threads than it has cores (kit_threads_rule). */
  if (env.oversubscribed) {
    const char *omp = getenv("OMP_NUM_THREADS");
    kit_log(&env,
            "%s: %d ranks x %d OpenMP thread%s on a node of %d cores: oversubscribed, "
            "expect slow and noisy timings (%s)",
            app->name, env.local_size, env.threads, env.threads == 1 ? "" : "s", env.node_cores,
            omp && *omp ? "unset OMP_NUM_THREADS and each rank takes cores / ranks"
                        : "more ranks than cores: use fewer ranks");
  }

  /* This rank's part of the problem: what only the built problem shows is refused here,
   * before anything is measured. */
  int todo_iters = run->iters;
  void *ctx = NULL;
  const int crc = app->context(&env, app->params, v, gpus, &ctx, &todo_iters);
  if (crc >= 0) {
    if (ctx) app->free_context(ctx);
    return kit_finalize(crc);
  }

  /* Ceilings measured on this machine, and the hybrid share derived from them. */
  const int uses_host = !v->needs_gpu || v->hybrid;
  const double host_bw = uses_host ? kit_host_triad_ceiling(&env, run->measure_ceilings) : 0.0;
  const double dev_bw = v->needs_gpu ? kit_device_triad_ceiling(&env, run->measure_ceilings) : 0.0;
  double cpu_fraction = -1.0, model = -1.0, t_model = 0.0, t_zero = 0.0;
  if (v->hybrid)
    cpu_fraction = run->cpu_fraction >= 0.0
                       ? run->cpu_fraction
                       : (model = kit_cpu_share(host_bw / env.nranks, dev_bw * gpus, KIT_HYBRID_DERATE));
  /* The share-0 schedule: the GPU-only variant (for a rank driving several GPUs, the one that
   * does), or the hybrid itself with no CPU share. */
  const char *fallback = gpus > 1 ? app->gpu_only_fallback_multi : app->gpu_only_fallback;
  const kit_variant *gpu_only = fallback ? kit_find_variant(app, fallback) : v;
  if (v->hybrid) {
    if (model > 0.0 && !share_uniform(app, ctx, model)) {
      kit_log(&env, "%s: hybrid auto: model share %.4f leaves some ranks without CPU %s: using 0", app->name,
              model, app->cpu_unit ? app->cpu_unit : "share");
      cpu_fraction = 0.0;
    }
    if (run->cpu_fraction >= 0.0 && !share_uniform(app, ctx, cpu_fraction)) {
      app->free_context(ctx);
      return kit_finalize(kit_usage_error(&env,
                                          "%s: --cpu-fraction %g gives some ranks CPU %s and others none "
                                          "(their parts are too thin); use a larger "
                                          "share, a smaller one, or fewer ranks",
                                          app->name, cpu_fraction, app->cpu_unit ? app->cpu_unit : "work"));
    }
    app->set_cpu_fraction(ctx, cpu_fraction);
  }
  /* --cpu-fraction auto: Paper II's model proposes a share; a short measurement against the
   * GPU-only schedule decides, so that the hybrid never loses to it (docs/hybrid.md). */
  if (cpu_fraction > 0.0 && model > 0.0 && cpu_units_anywhere(app, ctx, model) > 0) {
    const int steps = todo_iters < 5 ? 5 : (todo_iters > 20 ? 20 : todo_iters);
    t_model = calibrate(v, ctx, steps);
    app->set_cpu_fraction(ctx, 0.0);
    t_zero = calibrate(gpu_only, ctx, steps);
    cpu_fraction = t_model < t_zero ? model : 0.0;
    app->set_cpu_fraction(ctx, cpu_fraction);
    kit_log(&env,
            "%s: hybrid auto: model share %.4f took %.3g s, share 0 took %.3g s for %d steps: using %.4f",
            app->name, model, t_model, t_zero, steps, cpu_fraction);
  }
  /* A hybrid run that gives no rank a CPU unit is Paper II's GPU-only scheme: run that
   * schedule rather than the hybrid's with idle CPU groups (docs/hybrid.md). */
  const kit_variant *exec = v;
  if (v->hybrid && gpu_only != v && cpu_units_anywhere(app, ctx, cpu_fraction) == 0) {
    exec = gpu_only;
    kit_log(&env, "%s: hybrid: no CPU %s on any rank: running the %s schedule", app->name,
            app->cpu_unit ? app->cpu_unit : "share", gpu_only->name);
  }

  /* The timed loop: warm-up, profiled pass, repetitions; checkpoints between chunks (or the
   * app's own, app->timed). */
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t_setup = kit_now();
  void *st = exec->setup(ctx);
  double setup_s = kit_now() - t_setup;
  KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &setup_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  if (app->started) app->started(ctx, exec, st);
  const kit_halo *h = exec->halo ? exec->halo(st) : NULL;
  kit_run todo = *run;
  todo.iters = todo_iters;
  kit_timing timing;
  if (!app->timed || !app->timed(ctx, exec, st, &timing)) {
    chunk_arg ck = {app, ctx, exec, run->iters - todo_iters};
    const kit_chunking chunks = {run->checkpoint_every > 0 ? run->checkpoint_every : todo.iters,
                                 write_checkpoint, &ck};
    timing = kit_time_variant(&todo, st, exec->run, exec->reset, h,
                              run->checkpoint && app->checkpoint ? &chunks : NULL);
  }
  timing.setup_s = setup_s;

  /* The report: the run, the figure of merit against the ceiling of what ran, messages. */
  kit_report rep;
  kit_report_init(&rep, app->name, v->name);
  app->describe(app->params, ctx, exec, &rep.params);
  kit_json_end_object(&rep.params);
  kit_measure m;
  app->measure(ctx, &timing, &m);
  const double ceiling = (v->needs_gpu ? dev_bw * gpus_total : 0.0) + (uses_host ? host_bw : 0.0);
  kit_report_fill_run(&rep, &env, &timing, gpus_total, cpu_fraction);
  kit_report_fom(&rep, m.fom_name, m.fom_unit, m.fom);
  kit_report_bandwidth(&rep, m.bytes_per_step, timing.iters, ceiling,
                       v->needs_gpu
                           ? (v->hybrid ? "device triad x GPUs + host triad x nodes" : "device triad x GPUs")
                           : "host triad x nodes");
  if (h)
    kit_report_messages(&rep, h->messages - timing.messages_before, h->bytes - timing.bytes_before,
                        (double)timing.reps * timing.iters);
  if (v->hybrid) {
    int units = app->cpu_units(ctx, cpu_fraction), total = 0;
    KIT_MPI_CHECK(MPI_Allreduce(&units, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    kit_report_hybrid(&rep, app->cpu_unit, total, model, t_model, t_zero);
  }
  app->finish(ctx, exec, st, &timing, &rep);
  const int code = kit_report_finish(&rep, &env, run->json);
  kit_report_free(&rep);
  exec->teardown(st);
  app->free_context(ctx);
  return kit_finalize(code);
}
