/* gpu_rank.h: what every GPU variant holds per subdomain (one per rank, or one per thread in
 * multi-thread): the GPU tile (gpu_tile.h), the two exchange plans (frontier copies and
 * migrants, exchange.h), the received copies, the arrivals, the traffic counters; and the
 * host half of the step that all GPU variants share: migration out and in (Bernaschi et al.
 * Sec. 3.2.2) and the frontier exchange out and in (Sec. 3.2.1), each split into a start and a
 * finish so a variant can put work (or, in multi-thread, a barrier) between them. The
 * variant files (naive.c, two_stream.c, multi_thread.c, hybrid.c) say in which order and on
 * which stream; the mechanics live here. Host C on the CUDA runtime. */
#ifndef PARTICLES_GPU_RANK_H
#define PARTICLES_GPU_RANK_H
#include "exchange.h"
#include "frontier.h"
#include "gpu_tile.h"
#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt_gpu_rank {
  const pt_params *p;
  pt_decomp dec;            /* this subdomain's tiling, owned */
  const pt_particles *init; /* its initial particles (not owned) */
  pt_gpu_tile t;
  px_plan ghost, migr;
  pt_ghosts g; /* the last received copies, sorted */
  pt_set arr;  /* this step's arrivals */
  pt_traffic tr;
  long long leavers;    /* this step's, from pt_rank_migrate_start */
  int stale, exchanged; /* KIT_FAULT=stale-halo: the frontier exchange happens once only */
  int images;           /* 1: alone in the periodic box, its images made on the device (the
                           tile's images, --images device); 0: staged through the host */
  long long img_sent;   /* the last device images' candidates, until their kept count is read */
  int list;             /* --neighbor list (with images only): the list step (pt_rv_run) */
  int ranges;           /* 1: this subdomain's thread opens the host ranges (KIT_RANGE_PUSH) */
} pt_gpu_rank;

/* Takes ownership of `dec`. tiles_per_rank 0: one subdomain per rank, plans over `comm` with
 * the cpu variant's tags; T > 0: subdomain `tile` of a multi-thread process (px_init_tiles).
 * lo_cell, host_forces: pt_tile_init's. faults: honour KIT_FAULT. */
void pt_rank_setup(pt_gpu_rank *r, const pt_params *p, MPI_Comm comm, pt_decomp dec, const pt_particles *init,
                   int device, int lo_cell, int host_forces, int tiles_per_rank, int tile, int faults);
void pt_rank_free(pt_gpu_rank *r);
/* The initial particles onto the device and sorted (no exchange yet): setup and reset. */
void pt_rank_load(pt_gpu_rank *r);
/* After the initial forces: the counters cover time steps only (as cpu.c). */
void pt_rank_zero_counters(pt_gpu_rank *r);

/* Migration: the leavers to the host and into the plan, MPI started (remote connections). */
void pt_rank_migrate_start(pt_gpu_rank *r);
/* Migration: MPI finished, the arrivals filtered, onto the device, the cell matrix rebuilt.
 * (Local connections of multi-thread must have been taken before.) */
void pt_rank_migrate_finish(pt_gpu_rank *r);
/* The frontier cells' particles (already in the mirror: pt_tile_fetch_frontier) packed for the
 * connections of their rows, MPI started. Nothing under KIT_FAULT=stale-halo after the first. */
void pt_rank_frontier_start(pt_gpu_rank *r);
/* MPI finished, the copies filtered and sorted into r->g (the old ones kept under the fault). */
void pt_rank_frontier_finish(pt_gpu_rank *r);
/* The frontier copies behind the owned particles, with the external cells' rows, ready for
 * the forces kernels: the four stages above with their ranges (d2h, frontier start and
 * finish, h2d), or, for a rank alone in the periodic box, its images made on the device. */
void pt_rank_ghosts(pt_gpu_rank *r);
/* 1 if this step exchanges frontier copies (not the stale-halo fault's later steps). */
int pt_rank_exchanges(const pt_gpu_rank *r);

/* The variant contract's fetch / thermo / traffic for one subdomain. */
long long pt_rank_fetch(pt_gpu_rank *r, double *out);
const pt_traffic *pt_rank_traffic(pt_gpu_rank *r);

/* One rank per GPU (naive, two-stream, hybrid): the step every such variant takes, with the
 * variant's own forces stage in the middle. Such a variant's state begins with a
 * pt_rank_variant (so its address is the state's), and its contract functions, but setup,
 * are the pt_rv_* below. One step:
 *   1. half kick, drift and binning on the GPU (boundary stream);
 *   2. migration: pt_rank_migrate_start, then _finish (the cell matrix rebuilt);
 *   3. forces(v): the frontier exchange and the forces, in the variant's order;
 *   4. the second half kick and thermodynamics, after the bulk stream where there is one. */
typedef struct pt_rank_variant {
  pt_gpu_rank r;
  void (*forces)(struct pt_rank_variant *v); /* step 3, also the initial forces */
  int bulk;                                  /* 1: forces() used the bulk stream (join it) */
} pt_rank_variant;

/* A zeroed state of `size` bytes (a pt_rank_variant first) for rank c's subdomain on its GPU,
 * pt_rank_setup's lo_cell and host_forces; the variant sets its own fields, then calls
 * pt_rv_start for the initial state and forces. */
pt_rank_variant *pt_rv_new(const pt_ctx *c, size_t size, int lo_cell, int host_forces,
                           void (*forces)(pt_rank_variant *), int bulk);
void pt_rv_start(pt_rank_variant *v);
void pt_rv_reset(void *st);
void pt_rv_run(void *st, int steps);
void pt_rv_fetch(void *st, void *out);
long long pt_rv_count(void *st);
const double *pt_rv_thermo(void *st, int *steps);
const pt_traffic *pt_rv_traffic(void *st);
void pt_rv_teardown(void *st); /* frees the state too */
/* The pt_variant entries after setup: those of base (kit_variant) and particles' own. */
#define PT_RV_BASE \
  .reset = pt_rv_reset, .run = pt_rv_run, .fetch = pt_rv_fetch, .halo = NULL, .teardown = pt_rv_teardown
#define PT_RV_HOOKS .count = pt_rv_count, .thermo = pt_rv_thermo, .traffic = pt_rv_traffic

#ifdef __cplusplus
}
#endif
#endif
