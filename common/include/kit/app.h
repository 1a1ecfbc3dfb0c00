/* kit/app.h: the variant contract and the app descriptor that one pipeline, kit_main, runs
 * (DESIGN.md Sec. 3). An app's main.c holds only what is its own: its option rows, its
 * context and this descriptor; kit_main does the rest, the same for every app:
 *   parse and refuse bad input (before anything large is allocated), --help, --variant list,
 *   the app's own rules, the output paths, GPUs, the memory check, the ceilings, the hybrid
 *   share (model, --cpu-fraction auto's measurement against the GPU-only schedule, and that
 *   schedule when no rank gets a CPU share), warm-up, profiled pass, timed repetitions (with
 *   checkpoints), the report, verification, JSON and trace, the exit code.
 * Pattern: BabelStream's Stream.h + main.cpp; CoMD's 60-line main over named modules.
 *   int main(int argc, char **argv) { ... return kit_main(&app, argc, argv); } */
#ifndef KIT_APP_H
#define KIT_APP_H
#include "kit/driver.h"
#include "kit/halo.h"
#include "kit/options.h"
#include "kit/report.h"
#include "kit/runtime.h"
#ifdef __cplusplus
extern "C" {
#endif

/* One variant: a file of its own that performs whole time steps; it owns its memory,
 * streams and threads, never the timing, the verification or the report. */
typedef struct kit_variant {
  const char *name;                   /* --variant NAME */
  const char *summary;                /* one line for --variant list */
  int needs_gpu;                      /* 1: skipped (exit 77) where no GPU is visible */
  void *(*setup)(const void *ctx);    /* allocate, set the initial state (ctx: the app's) */
  void (*reset)(void *st);            /* back to the initial state (untimed) */
  void (*run)(void *st, int steps);   /* `steps` time steps, complete on return */
  void (*fetch)(void *st, void *out); /* this rank's result, in the app's layout */
  const kit_halo *(*halo)(void *st);  /* message counters (NULL: the app reports its own) */
  void (*teardown)(void *st);
  int gpus_max;     /* > 0: one process drives up to this many GPUs (multi-thread) */
  int thread_level; /* with gpus_max over several ranks: the MPI thread level it needs */
  int hybrid;       /* 1: the CPU takes a share of the rank's work (--cpu-fraction) */
} kit_variant;

/* What one run's figure of merit and bandwidth are (kit_app.measure, from the timing). */
typedef struct kit_measure {
  const char *fom_name, *fom_unit; /* "GLUP/s" */
  double fom;                      /* its value for this run (median time) */
  double bytes_per_step;           /* the bytes model: what one step must move */
} kit_measure;

/* The app: its options, its hooks and its variants. `params` is the app's parameter struct
 * (holding `run`); every hook gets it back, and `ctx` is what `context` made. */
typedef struct kit_app {
  const char *name;                   /* "laplace" */
  const char *summary;                /* one line for --help */
  const kit_variant *const *variants; /* those built here, NULL-terminated */
  /* The app's own variant names beyond the kit's five that need CUDA to build (NULL-terminated;
   * NULL: none): a build without CUDA still takes them, and skips them as it skips the five. */
  const char *const *cuda_names;
  const char *gpu_only_fallback; /* the variant a hybrid runs with no CPU share */
  /* The same for a hybrid rank that drives several GPUs (--gpus N > 1; NULL: the hybrid itself). */
  const char *gpu_only_fallback_multi;
  kit_option *opts; /* shared and app rows, END-terminated */
  kit_run *run;     /* the shared flags, inside params */
  void *params;
  /* Rules that need no allocation and no GPU, after parsing (`variant`: the name given):
   * -1 to go on, or the exit code after one line (kit_usage_error), as for a size that does
   * not decompose. Checked on any machine, before a GPU variant skips for want of a GPU. */
  int (*check)(const kit_env *env, void *params, const char *variant);
  /* The app's output flags beyond --json, --trace and --checkpoint, checked before the run:
   * fills flags[] and paths[] (at most 4) and returns how many. May be NULL. */
  int (*outputs)(const void *params, const char **flags, const char **paths);
  /* The most GPUs one multi-thread process can use for this problem when --gpus is not
   * given (a GPU needs a plane to hold), or 0 for no limit. May be NULL. */
  int (*gpu_limit)(const kit_env *env, const void *params);
  /* Once GPUs are chosen, still before anything large is allocated: rules that depend on
   * them and the --restart check (-1 or an exit code, as check), and the host and device
   * bytes this rank will allocate, for kit_check_memory. */
  int (*plan)(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host_bytes,
              double *device_bytes);
  /* This rank's part of the problem (*ctx), given to every variant's setup; `todo` gets the
   * steps still to run (fewer than --iters after --restart). -1 to go on, or the exit code
   * after one line: what only the built problem shows (a mesh file's flaw, a rank left
   * without cells) is refused here. Freed by free_context (also after a refusal). */
  int (*context)(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo);
  void (*free_context)(void *ctx);
  /* hybrid: the whole units a CPU share gives this rank (named cpu_unit in the report, or
   * reported by the app itself when cpu_unit is NULL), and setting the share. */
  int (*cpu_units)(const void *ctx, double fraction);
  void (*set_cpu_fraction)(void *ctx, double fraction);
  const char *cpu_unit; /* "planes": the report's "cpu_planes" */
  /* 1: a share must give every rank CPU units or none (the CPU part sits between the GPU
   * part and the rank above: a thin slab that rounds to none cannot run beside one that has
   * some). An automatic share that breaks this is 0; a given one is refused. */
  int uniform_share;
  /* Optional: after the variant's set-up, before any step, a check of the state it built
   * (particles: the forces recomputed from --restart's positions are the checkpoint's; a
   * mismatch is a runtime error, kit_die). */
  void (*started)(void *ctx, const kit_variant *v, void *st);
  /* Optional: a run that is not warm-up + profiled pass + repetitions of `iters` steps (bfs:
   * one timed search per key; lbm --until-steady: chunks until a tolerance) times itself,
   * fills *t and returns 1; 0: kit_main's loop (kit_time_variant). */
  int (*timed)(void *ctx, const kit_variant *v, void *st, kit_timing *t);
  /* The figure of merit (name, unit, value) and the bytes of one step, from the timing. */
  void (*measure)(const void *ctx, const kit_timing *t, kit_measure *m);
  /* The problem's parameters into the report's `params` (the object is open). */
  void (*describe)(const void *params, const void *ctx, const kit_variant *v, kit_json *j);
  /* --checkpoint: the state after `step` steps in all, written (may be NULL: no checkpoints). */
  void (*checkpoint)(void *ctx, const kit_variant *v, void *st, int step);
  /* After the timed runs: verification, the app's results and dumps into rep. */
  void (*finish)(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep);
} kit_app;

/* The whole run (above): kit_init, the pipeline, kit_finalize; returns the exit code. */
int kit_main(const kit_app *app, int argc, char **argv);

/* The variant of that name among app->variants, or NULL. */
const kit_variant *kit_find_variant(const kit_app *app, const char *name);

#ifdef __cplusplus
}
#endif
#endif
