/* steady.c: --until-steady, lbm's run of its own (Risso Sec. 5.2 and 6.1: the validation
 * flows are compared at their steady state). One repetition in chunks of --check-every steps,
 * until the largest change of any velocity component over a chunk is below TOL x U, or
 * --iters steps (the cap). Only the steps are timed, not the checks between them; there is
 * no warm-up (it would have to be undone) and no profiled pass. kit_main's `timed` hook. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/stats.h"
#include "run.h"

/* Runs `steps` steps and returns the time, max over ranks. */
static double timed_run(const kit_variant *v, void *st, int steps) {
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = kit_now();
  v->run(st, steps);
  double mine = kit_now() - t0, all = 0.0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return all;
}

int lbm_timed(void *ctx, const kit_variant *v, void *st, kit_timing *t) {
  lbm_run *r = ctx;
  const lbm_params *p = r->c.p;
  lbm_outcome *o = &r->out;
  if (p->until_steady <= 0.0) return 0; /* a run of fixed --iters: kit_main's loop */
  memset(t, 0, sizeof *t);
  o->steady_mode = 1;
  const size_t n = 4 * r->c.blk.plane * (size_t)r->c.blk.nz;
  double *prev = kit_malloc(n * sizeof(double), "steady check"),
         *cur = kit_malloc(n * sizeof(double), "steady check");
  v->fetch(st, prev);
  const kit_halo *h = v->halo ? v->halo(st) : NULL;
  if (h) {
    t->messages_before = h->messages;
    t->bytes_before = h->bytes;
  }
  double seconds = 0.0;
  int done = 0, checks = 0;
  o->change = INFINITY;
  while (done < p->run.iters) {
    const int todo = p->run.iters - done < p->check_every ? p->run.iters - done : p->check_every;
    seconds += timed_run(v, st, todo);
    done += todo;
    v->fetch(st, cur);
    double mine = 0.0;
    for (size_t c = 0; c < n; c += 4)
      for (int a = 1; a < 4; ++a) {
        const double d = fabs(cur[c + a] - prev[c + a]);
        if (!(d <= mine)) mine = d; /* NaN: the run blew up */
      }
    double all = 0.0;
    KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    o->change = all / p->u_ref;
    double *swap = prev;
    prev = cur;
    cur = swap;
    if (++checks % 20 == 0)
      kit_log(r->c.env, "lbm: step %d: max|du|/U over %d steps = %.3e", done, p->check_every, o->change);
    if (o->change < p->until_steady) {
      o->steady_reached = 1;
      break;
    }
    if (isnan(o->change)) break;
  }
  free(prev);
  free(cur);
  o->steps = done;
  t->time = kit_stats_of(&seconds, 1);
  t->reps = 1;
  t->iters = done;
  return 1;
}
