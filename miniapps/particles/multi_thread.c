/* multi_thread.c: the `multi-thread` variant. One process drives several GPUs, one OpenMP
 * thread per GPU (Sourouri Paper I's thread-per-GPU scheme on Bernaschi et al. Sec. 3.2's
 * particle decomposition). The box is tiled over ranks x threads (--ranks gives that grid,
 * or MPI_Dims_create of it), an irregular domain into METIS parts, one per tile (problem.c);
 * tile q is thread q % T of rank q / T, and each thread owns a whole subdomain with its
 * cells, connection matrix and GPU (gpu_rank.h). Thread i drives
 * device (local rank x T + i) % visible devices, so several threads may share one GPU (which
 * lets a one-GPU machine run the multi-GPU path).
 * Exchange: between threads of the process through host memory, without MPI: each thread
 * packs its send lists as the other variants do, a barrier, and each reads what its
 * neighbouring threads queued for it (px_take_local); between processes MPI as usual, each
 * thread posting its own messages (MPI_THREAD_MULTIPLE; tags per thread pair). One step,
 * thread i:
 *   1. half kick, drift, binning (GPU); the leavers packed; MPI started; barrier;
 *      the local migrants taken, MPI finished, arrivals to the GPU, the cell matrix;
 *   2. internal cells on the bulk stream;
 *   3. frontier cells to the host and packed; MPI started; barrier; local copies taken, MPI
 *      finished, copies to the GPU; frontier cells on the boundary stream;
 *   4. after the bulk: second half kick, thermodynamics.
 * Why two barriers a step suffice: a thread rewrites its migrant lists only after the
 * frontier barrier, by which every thread has read them, and its frontier lists only after
 * the next migrant barrier, likewise. Both barriers are passed even under the stale-halo
 * fault, so the reads and rewrites stay ordered.
 * Host work: a tile thread's pack and unpack loops run on a nested team of its share of the
 * cores (on_tiles); a single tile runs outside any region, as a one-GPU variant does.
 *   build/bin/particles --variant multi-thread --gpus 2 --cells 40 --iters 100 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_rank.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "lj.h"

typedef struct mt_state {
  pt_ctx c;
  int ntile; /* T: tiles (threads) of this process */
  pt_gpu_rank tile[PT_MT_MAX_GPUS];
  pt_particles init[PT_MT_MAX_GPUS]; /* each tile's initial particles */
  int *peer[PT_MT_MAX_GPUS];         /* per connection: the local thread at the other end, or -1 */
  int *back[PT_MT_MAX_GPUS];         /*   and its connection back to us */
  double *th;                        /* thermo rows summed over the tiles */
  int th_cap;
  pt_traffic tr;
} mt_state;

/* Local connections: what the neighbouring threads queued for thread i (after a barrier). */
static void take_local(mt_state *s, int i, int migrants) {
  pt_gpu_rank *r = &s->tile[i];
  px_plan *mine = migrants ? &r->migr : &r->ghost;
  for (int k = 0; k < mine->n; ++k) {
    const int j = s->peer[i][k];
    if (j < 0) continue;
    px_take_local(mine, k, migrants ? &s->tile[j].migr : &s->tile[j].ghost, s->back[i][k]);
  }
}

/* Steps 2-3 (also the initial forces): called by every thread, holds one barrier. */
static void forces(mt_state *s, int i) {
  pt_gpu_rank *r = &s->tile[i];
  pt_gpu_tile *t = &r->t;
  const pt_decomp *d = &r->dec;
  pt_tile_forces_bulk(t, 0, d->first[1]);
  pt_tile_fetch_frontier(t);
  pt_rank_frontier_start(r);
  if (i == 0) KIT_RANGE_PUSH("barrier");
#pragma omp barrier
  if (i == 0) KIT_RANGE_POP();
  if (pt_rank_exchanges(r)) take_local(s, i, 0);
  pt_rank_frontier_finish(r);
  pt_tile_put_ghosts(t, &r->g);
  const int g = kit_gpu_range_begin("gpu_frontier", t->boundary);
  pt_tile_forces(t, d->first[1], d->first[2], t->boundary);
  kit_gpu_range_end(g, t->boundary);
}

static void step(mt_state *s, int i) {
  pt_gpu_rank *r = &s->tile[i];
  pt_tile_kick_drift(&r->t);
  pt_rank_migrate_start(r);
  if (i == 0) KIT_RANGE_PUSH("barrier");
#pragma omp barrier
  if (i == 0) KIT_RANGE_POP();
  take_local(s, i, 1);
  pt_rank_migrate_finish(r);
  forces(s, i);
  pt_tile_end_step(&r->t, 1);
  r->tr.steps++;
}

/* The parallel regions need exactly one thread per tile (their barriers count them). */
static void check_team(int want) {
  if (omp_get_num_threads() != want)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "multi-thread needs %d OpenMP threads (one per tile), got %d", want, omp_get_num_threads());
}

/* Runs body(s, i, steps) for every tile i, each on its own thread with its tile's device
 * current. The host loops a tile runs (frontier.c's pack and unpack) are OpenMP regions of
 * their own, nested in the tiles' region, and each tile gets its share of the cores for
 * them: omp_get_max_threads() / T threads (at least 1), with two active levels allowed
 * unless OMP_MAX_ACTIVE_LEVELS or OMP_NESTED is set (then that setting stands; 1 runs each
 * tile's loops on its own thread). One tile runs on the calling thread, outside any region:
 * libgomp keeps its pool of threads for the outermost regions only and starts a nested
 * team's threads afresh at every region, and under a region of one thread (inactive, so
 * nesting is not refused) every host loop started 15 threads of 16 that way (README.md,
 * "Not done yet"). With several tiles the nested teams still pay that start. */
static void on_tiles(mt_state *s, void (*body)(mt_state *, int, int), int steps) {
  const int T = s->ntile;
  if (T == 1) {
    KIT_CUDA_CHECK(cudaSetDevice(s->tile[0].t.device));
    body(s, 0, steps);
  } else {
    const int threads = omp_get_max_threads(), share = threads / T > 1 ? threads / T : 1;
    const int levels = omp_get_max_active_levels();
    if (share > 1 && levels < 2 && !getenv("OMP_MAX_ACTIVE_LEVELS") && !getenv("OMP_NESTED"))
      omp_set_max_active_levels(2);
#pragma omp parallel num_threads(T)
    {
      check_team(T);
      const int i = omp_get_thread_num();
      omp_set_num_threads(share); /* this tile thread's nested teams */
      KIT_CUDA_CHECK(cudaSetDevice(s->tile[i].t.device));
      body(s, i, steps);
    }
    omp_set_max_active_levels(levels);
  }
  KIT_CUDA_CHECK(cudaSetDevice(s->c.env->device));
}

/* The initial state of tile i and its forces (setup and reset). */
static void init_tile(mt_state *s, int i, int steps) {
  (void)steps;
  pt_gpu_rank *r = &s->tile[i];
  pt_rank_load(r);
  forces(s, i);
  pt_tile_join(&r->t);
  pt_tile_thermo_row(&r->t);
  pt_tile_sync(&r->t);
  pt_rank_zero_counters(r);
}

/* The tile owning the cell of position x: the tile grid's (p->ranks), or in an irregular
 * domain the owner map's (METIS parts, one per tile: problem.c). */
static int tile_of(const pt_params *p, const int *owner, const double x[3]) {
  int cell[3], rc[3];
  for (int a = 0; a < 3; ++a) cell[a] = cell_coord(x[a], p->inv_side[a], p->box[a], p->nc[a]);
  if (owner) return owner[((long long)cell[2] * p->nc[1] + cell[1]) * p->nc[0] + cell[0]];
  pt_owner_coords(p->nc, p->ranks, cell, rc);
  return pt_rank_of(p->ranks, rc);
}

static void *mt_setup(const void *ctx) {
  const pt_ctx *c = ctx;
  mt_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  s->c = *c;
  const pt_params *p = c->p;
  const kit_env *env = c->env;
  const int T = c->gpus, rank = env->rank, visible = env->gpus_visible;
  if (T < 1 || T > PT_MT_MAX_GPUS || visible < 1)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "multi-thread: %d tiles on %d visible devices", T, visible);
  s->ntile = T;
  const int *dims = p->ranks; /* the tile grid, ranks x threads (problem.c) */
  /* Each tile's initial particles: this rank's, by the tile owning their cell. */
  for (long long k = 0; k < c->init->n; ++k) {
    const double *x = c->init->x + 3 * k;
    const int q = tile_of(p, c->owner, x);
    if (q / T != rank)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "initial particle %lld belongs to tile %d, not to rank %d", (long long)c->init->id[k], q, rank);
    pt_particles_push(&s->init[q % T], c->init->id[k], x, c->init->v + 3 * k);
  }
  for (int i = 0; i < T; ++i) {
    const int q = rank * T + i;
    const int coords[3] = {q % dims[0], (q / dims[0]) % dims[1], q / (dims[0] * dims[1])};
    pt_decomp dec;
    if (c->owner)
      pt_decomp_build_owned(&dec, p->nc, c->owner, q);
    else
      pt_decomp_build(&dec, p->nc, dims, coords);
    const int device = (env->local_rank * T + i) % visible;
    pt_rank_setup(&s->tile[i], p, c->comm, dec, &s->init[i], device, dec.first[1], 0, T, q, c->faults);
    s->tile[i].ranges = 0; /* only thread 0 opens host ranges (kit/ranges.h) */
  }
  s->tile[0].ranges = 1;
  /* Local connections: the other end's thread and its connection back, (me, -shift). */
  for (int i = 0; i < T; ++i) {
    const pt_decomp *d = &s->tile[i].dec;
    const int me = rank * T + i, n = d->nconn > 0 ? d->nconn : 1;
    s->peer[i] = kit_malloc((size_t)n * sizeof(int), "multi-thread peers");
    s->back[i] = kit_malloc((size_t)n * sizeof(int), "multi-thread peers");
    for (int k = 0; k < d->nconn; ++k) {
      const pt_conn *cn = &d->conn[k];
      s->peer[i][k] = s->back[i][k] = -1;
      if (cn->rank / T != rank) continue;
      const int j = cn->rank % T;
      const pt_decomp *o = &s->tile[j].dec;
      for (int kk = 0; kk < o->nconn; ++kk)
        if (o->conn[kk].rank == me && o->conn[kk].shift[0] == -cn->shift[0] &&
            o->conn[kk].shift[1] == -cn->shift[1] && o->conn[kk].shift[2] == -cn->shift[2])
          s->back[i][k] = kk;
      if (s->back[i][k] < 0)
        kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
                "multi-thread: tile %d has no connection back to tile %d", cn->rank, me);
      s->peer[i][k] = j;
    }
  }
  on_tiles(s, init_tile, 0);
  return s;
}

static void mt_reset(void *st) {
  on_tiles(st, init_tile, 0);
}

/* `steps` steps of tile i, then its device work finished. */
static void run_tile(mt_state *s, int i, int steps) {
  for (int t = 0; t < steps; ++t) {
    if (i == 0) KIT_RANGE_PUSH("step");
    step(s, i);
    if (i == 0) KIT_RANGE_POP();
  }
  if (i == 0) KIT_RANGE_PUSH("wait_gpu");
  pt_tile_sync(&s->tile[i].t);
  if (i == 0) KIT_RANGE_POP();
}

static void mt_run(void *st, int steps) {
  on_tiles(st, run_tile, steps);
}

static long long mt_count(void *st) {
  mt_state *s = st;
  long long total = 0;
  for (int i = 0; i < s->ntile; ++i) total += pt_rank_fetch(&s->tile[i], NULL);
  return total;
}

static void mt_fetch(void *st, void *out) {
  mt_state *s = st;
  long long total = 0;
  for (int i = 0; i < s->ntile; ++i) total += pt_rank_fetch(&s->tile[i], (double *)out + 10 * total);
  KIT_CUDA_CHECK(cudaSetDevice(s->c.env->device));
}

/* The tiles' rows summed in tile order: the same bits every run. */
static const double *mt_thermo(void *st, int *steps) {
  mt_state *s = st;
  const int rows = s->tile[0].t.th_rows;
  for (int i = 1; i < s->ntile; ++i)
    if (s->tile[i].t.th_rows != rows)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "multi-thread: tiles hold %d and %d thermo rows", rows,
              s->tile[i].t.th_rows);
  if (rows > s->th_cap) {
    free(s->th);
    s->th = kit_malloc((size_t)rows * PT_TH_N * sizeof *s->th, "thermo");
    s->th_cap = rows;
  }
  for (size_t k = 0; k < (size_t)rows * PT_TH_N; ++k) {
    double sum = 0.0;
    for (int i = 0; i < s->ntile; ++i) sum += s->tile[i].t.th[k];
    s->th[k] = sum;
  }
  *steps = rows - 1;
  return s->th;
}

static const pt_traffic *mt_traffic(void *st) {
  mt_state *s = st;
  memset(&s->tr, 0, sizeof s->tr);
  for (int i = 0; i < s->ntile; ++i) {
    const pt_traffic *t = pt_rank_traffic(&s->tile[i]);
    s->tr.messages += t->messages;
    s->tr.bytes += t->bytes;
    s->tr.ghosts_sent += t->ghosts_sent;
    s->tr.ghosts_all_nbrs += t->ghosts_all_nbrs;
    s->tr.ghosts_discarded += t->ghosts_discarded;
    s->tr.migrated += t->migrated;
    s->tr.wall_hits += t->wall_hits;
  }
  s->tr.steps = s->tile[0].tr.steps; /* every tile does every step */
  return &s->tr;
}

static void mt_teardown(void *st) {
  mt_state *s = st;
  for (int i = 0; i < s->ntile; ++i) {
    pt_rank_free(&s->tile[i]);
    pt_particles_free(&s->init[i]);
    free(s->peer[i]);
    free(s->back[i]);
  }
  KIT_CUDA_CHECK(cudaSetDevice(s->c.env->device));
  free(s->th);
  free(s);
}

/* One process per node (or several), an OpenMP thread per tile and GPU; the threads call MPI
 * themselves when tiles of several processes meet (MPI_THREAD_MULTIPLE). */
const pt_variant pt_multi_thread = {
    .base = {.name = "multi-thread",
             .summary = "one process, an OpenMP thread per GPU (tile); "
                        "threads exchange through host memory, MPI between processes",
             .needs_gpu = 1,
             .setup = mt_setup,
             .reset = mt_reset,
             .run = mt_run,
             .fetch = mt_fetch,
             .halo = NULL,
             .teardown = mt_teardown,
             .gpus_max = PT_MT_MAX_GPUS,
             .thread_level = MPI_THREAD_MULTIPLE},
    .count = mt_count,
    .thermo = mt_thermo,
    .traffic = mt_traffic,
};
