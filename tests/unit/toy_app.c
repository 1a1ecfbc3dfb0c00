/* toy_app.c: the smallest app on kit_main (kit/app.h), with a sixth variant beside `cpu`:
 * the test that an app may add variants through the contract (one table line each), that
 * --variant list shows them, and that the pipeline runs one to a verdict. The "physics":
 * every step adds 1 to each of a rank's `--size` cells; the check is the closed form, cells
 * x steps in all (a variant that skips a step or a cell fails it).
 *   toy_app --variant sixth --size 10 --iters 7 */
#include <stdlib.h>

#include "kit/app.h"
#include "kit/check.h"

typedef struct toy_params {
  kit_run run;
  int size; /* cells per rank */
} toy_params;

typedef struct toy_state {
  int n;
  double *u;
  kit_halo halo; /* no messages: the counters stay 0 */
} toy_state;

static void *setup(const void *ctx) {
  const toy_params *p = ctx;
  toy_state *s = kit_malloc(sizeof *s, "toy state");
  *s = (toy_state){.n = p->size, .u = calloc((size_t)p->size, sizeof(double))};
  return s;
}
static void reset(void *st) {
  toy_state *s = st;
  for (int i = 0; i < s->n; ++i) s->u[i] = 0.0;
}
static void run_plain(void *st, int steps) {
  toy_state *s = st;
  for (int k = 0; k < steps; ++k)
    for (int i = 0; i < s->n; ++i) s->u[i] += 1.0;
}
/* The sixth variant: the same update, cells in the other order, all steps of a cell at once. */
static void run_sixth(void *st, int steps) {
  toy_state *s = st;
  for (int i = s->n - 1; i >= 0; --i) s->u[i] += (double)steps;
}
static void fetch(void *st, void *out) {
  toy_state *s = st;
  for (int i = 0; i < s->n; ++i) ((double *)out)[i] = s->u[i];
}
static const kit_halo *halo(void *st) {
  return &((toy_state *)st)->halo;
}
static void teardown(void *st) {
  free(((toy_state *)st)->u);
  free(st);
}

static const kit_variant toy_cpu = {.name = "cpu",
                                    .summary = "every cell, every step",
                                    .setup = setup,
                                    .reset = reset,
                                    .run = run_plain,
                                    .fetch = fetch,
                                    .halo = halo,
                                    .teardown = teardown};
static const kit_variant toy_sixth = {.name = "sixth",
                                      .summary = "all steps of a cell at once, cells backwards",
                                      .setup = setup,
                                      .reset = reset,
                                      .run = run_sixth,
                                      .fetch = fetch,
                                      .halo = halo,
                                      .teardown = teardown};
static const kit_variant *const variants[] = {&toy_cpu, &toy_sixth, NULL};

static int check(const kit_env *env, void *params, const char *variant) {
  return -1;
}
static int plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host,
                double *device) {
  *host = 8.0 * ((toy_params *)params)->size;
  return -1;
}
static int context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo) {
  *ctx = params;
  return -1;
}
static void free_context(void *ctx) {}
static void measure(const void *ctx, const kit_timing *t, kit_measure *m) {
  const double n = ((const toy_params *)ctx)->size;
  *m = (kit_measure){"cell updates/s", "1/s", n * t->iters / t->time.median, 16.0 * n};
}
static void describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j) {
  kit_json_int(j, "size", ((const toy_params *)params)->size);
}
static void finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep) {
  const toy_params *p = ctx;
  double *u = kit_malloc((size_t)p->size * sizeof(double), "toy result");
  v->fetch(st, u);
  double worst = 0.0;
  for (int i = 0; i < p->size; ++i) {
    const double d = u[i] > p->run.iters ? u[i] - p->run.iters : p->run.iters - u[i];
    if (d > worst) worst = d;
  }
  kit_report_check(rep, "closed_form", worst == 0.0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, worst, 0.0,
                   "every cell = --iters");
  free(u);
}

int main(int argc, char **argv) {
  toy_params p = {.run = kit_run_defaults(), .size = 8};
  kit_option opts[KIT_RUN_NOPTS + 2];
  int n = kit_run_options(&p.run, opts);
  opts[n++] = (kit_option){"size", KIT_OPT_INT, &p.size, "N", "cells per rank", 1, 1e6, 0, NULL, NULL, NULL};
  opts[n].type = KIT_OPT_END;
  const kit_app app = {.name = "toy_app",
                       .summary = "the kit_main contract's test app",
                       .variants = variants,
                       .opts = opts,
                       .run = &p.run,
                       .params = &p,
                       .check = check,
                       .plan = plan,
                       .context = context,
                       .free_context = free_context,
                       .measure = measure,
                       .describe = describe,
                       .finish = finish};
  return kit_main(&app, argc, argv);
}
