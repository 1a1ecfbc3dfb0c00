/* gpu_tile.h: one subdomain's particles resident on one GPU, shared by the GPU variants
 * (naive, two-stream, multi-thread, hybrid): positions, velocities and forces on the device,
 * the cell matrix rebuilt there every step by a counting sort, and pinned host mirrors of
 * what crosses to the host: the leavers (Bernaschi et al. Sec. 3.2.2), the rows of the cell
 * matrix and the particles of the frontier cells (Sec. 3.2.1), the received copies. Host C
 * on the CUDA runtime; every call is checked (KIT_CUDA_CHECK).
 * Ordering rules, which every variant keeps:
 *  - everything that reorders or resizes the arrays runs on the `boundary` stream, and every
 *    function that hands data to the host returns only after synchronising that stream;
 *  - `bulk` runs force kernels only, after waiting for the event `sorted`, and records
 *    `bulk_done`, which the boundary stream waits for before the next kick (pt_tile_end_step);
 *  - pt_tile_reserve, the only place arrays are reallocated, synchronises both streams first;
 *  - the bulk kernel never reads a row of the cell matrix that the boundary stream rewrites
 *    while it runs (pt_tile_put_ghosts writes the external cells' rows). In the box no
 *    internal cell touches an external one. In an irregular domain an internal cell may
 *    touch an empty cell w beyond a wall: its row [cstart[w], cstart[w + 1]) is empty before
 *    and after the copies are placed, but at another offset, so a kernel reading one bound
 *    before the copy and the other after would take in particles of other cells. The
 *    device's neighbour table names instead one extra cell whose row is empty for good
 *    (empty_cell, after the ncells rows): no kernel reads a wall cell's row. (The fake GPU
 *    runs one stream at a time: it cannot show that race, only that the rows stay empty.) */
#ifndef PARTICLES_GPU_TILE_H
#define PARTICLES_GPU_TILE_H
#include <cuda_runtime_api.h>

#include "frontier.h"
#include "neighbor.h"
#include "particles.h"
#include "walls.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PT_TILE_ROWS 64 /* thermo rows kept on the device between copies to the host */

typedef struct pt_gpu_tile {
  const pt_params *p;
  const pt_decomp *d;
  int device;
  int lo_cell; /* the host mirror covers cells [lo_cell, ncells): first[1], or lower
                  for hybrid (its CPU cells and their neighbours) */
  cudaStream_t boundary, bulk;
  cudaEvent_t sorted, bulk_done;
  long long cap;   /* particles every per-particle array holds */
  long long n, ng; /* owned particles, received copies behind them */
  /* Device. The sort gathers (id, x, v, cell) into the second set and swaps. */
  int64_t *id, *id2;
  double *x, *x2, *v, *v2; /* 3 per particle */
  int *cell, *cell2;
  double *f, *pe, *vir;       /* forces (3 each), half pair energies and virials */
  int *perm;                  /* the sort's permutation */
  double *leave;              /* leaver records, 8 doubles each */
  int *cstart;                /* the cell matrix rows: ncells + 1, then empty_cell's row */
  int empty_cell;             /* ncells + 1: a cell whose row [0, 0) nothing ever writes */
  int *count, *fill;          /* first[2] + 1 and first[2] counters */
  int *nbr;                   /* 27 per owned cell: d->nbr, empty cells beyond a wall -> empty_cell */
  pt_cell_entry *cells;       /* the cell array (d->array) */
  pt_binner binner;           /* binning on the device */
  unsigned char *mask;        /* irregular domains: the voxel mask on the device, else NULL */
  pt_walls walls;             /* the walls over `mask` (walls.mask NULL: the periodic box) */
  unsigned long long *status; /* PT_ST_N: leavers, lost, wall hits, unreflected, smallest ids */
  void *scan_tmp;
  size_t scan_bytes;
  double *partials, *rows; /* thermo: the reduction's partials, PT_TILE_ROWS rows */
  int rows_used;
  /* Pinned host mirrors. h_id, h_x are indexed as the device arrays; valid for the particles
   * of cells [lo_cell, first[2]) after pt_tile_fetch_frontier and for the copies after
   * pt_tile_put_ghosts. h_cstart: rows lo_cell .. ncells. h_f, h_pe, h_vir (hybrid only):
   * what the CPU computed, copied up by pt_tile_put_forces. */
  unsigned long long *h_status;
  long long wall_hits; /* reflections of the last drift (pt_tile_leavers sets it) */
  long long wrapped;   /* particles the last drift wrapped round the box (images) */
  double *h_leave;
  long long h_leave_cap;
  int *h_cstart;
  int64_t *h_id;
  double *h_x, *h_f, *h_pe, *h_vir;
  int host_forces;
  /* One rank alone in the periodic box (pt_tile_images_init): its own periodic images and
   * wrap-around migration made on the device (images.h), no host staging. Device: */
  int images;                 /* 1: set up */
  int npairs;                 /* (frontier cell, shift) pairs: the host path's copies, as pairs */
  int *pair, *pair_len;       /* 4 per pair (cell, shift); each pair's particles, npairs + 1 */
  int *pair_off;              /* each pair's first candidate (the scan of pair_len) */
  int *wrap;                  /* 4 per external cell: {1, shift} (every one is this rank's) */
  long long icap, ncand;      /* candidates the arrays hold, and this exchange's */
  int64_t *ic_id;             /* candidates: the copies' ids, positions (3 each), */
  double *ic_x;               /*   the particles they copy, external cells (-1: */
  int *ic_src, *ic_e;         /*   dropped) and the sort's permutation; */
  int *ic_perm, *gsrc;        /*   per kept copy (slot n + s): the particle it copies */
  int *ecount, *efill, *erow; /* ne + 1: the counting sort by external cell */
  int *h_kept;                /* pinned: erow[ne], the copies kept, valid after a synchronisation */
  /* --neighbor list on a rank alone in the periodic box (pt_tile_list_init; neighbor.h):
   * between builds the particles keep their slots and wrap in place. Device: */
  int list;
  pt_order order;
  double rl2, half_skin2;
  long long kcap;            /* slots kx holds */
  int *kx;                   /* 3 per slot: order cells at a build (copies included) */
  long long lcap;            /* particles the arrays below hold */
  int *kc;                   /* 9 per particle: pt_order_cells */
  unsigned char *moved;      /* per particle: its order cells changed this step */
  double *xb;                /* 3 per particle: the position at the last build */
  int *lcount;               /* per particle: its list's length */
  unsigned long long *lstat; /* a build's total entries and longest list */
  long long ecap, entries;   /* entries the arrays hold, and the last build's */
  int lstride;               /* the lists transposed (neighbor.h): entry k of particle i at
                                k lstride + i, lstride = lcap */
  int *lnbr, *lcode;         /* the lists (particles, not copies) and their codes */
  int lcols;                 /* entries each particle's column holds (the longest list, and room) */
  size_t lshared_max;        /* the device's shared memory a block may opt in to (the build's limit) */
  /* Thermo rows (PT_TH_N doubles, step 0 first) since the last pt_tile_clear. */
  double *th;
  int th_rows, th_cap;
} pt_gpu_tile;

/* Device `device` made current; arrays for about n_hint owned particles (they grow when
 * needed); lo_cell as above; host_forces: also the pinned h_f, h_pe, h_vir (hybrid). */
void pt_tile_init(pt_gpu_tile *t, const pt_params *p, const pt_decomp *d, int device, long long n_hint,
                  int lo_cell, int host_forces);
void pt_tile_free(pt_gpu_tile *t);
/* No particles, no thermo rows (the start of setup and reset). */
void pt_tile_clear(pt_gpu_tile *t);
/* Room for `need` particles, keeping the first `keep` of every per-particle array and mirror;
 * synchronises both streams when it has to grow. */
void pt_tile_reserve(pt_gpu_tile *t, long long need, long long keep);

/* Step 1 (boundary stream): half kick, drift, reflection off the walls (irregular domains)
 * and binning of the owned particles. */
void pt_tile_kick_drift(pt_gpu_tile *t);
/* Step 2a: waits, stops the run if a particle moved more than one voxel or one cell, sets
 * wall_hits, and returns the leaver records (PT_LEAVER_W doubles each, sorted by id) in *rec;
 * their count. */
long long pt_tile_leavers(pt_gpu_tile *t, double **rec);
/* Step 2b-3: the arrivals (cells set) go behind the particles, `leavers` of which have left,
 * and the cell matrix is rebuilt: sorted by (cell, id). Returns after the rows of cells
 * lo_cell .. first[2] are in h_cstart and the external cells' rows there are empty (until
 * pt_tile_put_ghosts; an internal cell of an irregular domain may touch an empty cell
 * beyond a wall, as in cpu.c); records `sorted`. */
void pt_tile_arrive_and_sort(pt_gpu_tile *t, const pt_set *arr, long long leavers);
/* Step 4a: ids and positions of the particles of cells [lo_cell, first[2]) into the mirror. */
void pt_tile_fetch_frontier(pt_gpu_tile *t);
/* Step 6: the received copies behind the owned particles, in the mirror and (boundary
 * stream, asynchronous) on the device, with the rows of the external cells. */
void pt_tile_put_ghosts(pt_gpu_tile *t, const pt_ghosts *g);
/* One rank alone in the periodic box (every connection of d is to d->me, gpu_rank.c decides):
 * the pair and wrap tables on the device; the drift kernel wraps migrants in place from now
 * on (pt_tile_leavers then returns only those the wrap could not place). */
void pt_tile_images_init(pt_gpu_tile *t);
/* Step 4-6 on the device (boundary stream): the `ncand` candidate copies of every frontier
 * cell over its shifts (ncand: what the host path would send, from h_cstart's rows). */
void pt_tile_image_candidates(pt_gpu_tile *t, long long ncand);
/* The candidates (this exchange's, or the last ones under KIT_FAULT=stale-halo) filtered and
 * sorted by (external cell, id) behind the owned particles, with the external cells' rows on
 * the device; h_kept is their count once the boundary stream has been synchronised. The
 * host's h_cstart keeps the external rows empty: only device kernels read the copies. */
void pt_tile_place_images(pt_gpu_tile *t);
/* --neighbor list (gpu_rank.c's list step; one rank in the periodic box, the images set up):
 * list_init the order and cutoffs; bin: every particle binned (a build's sort; a particle
 * beyond the box's cells stops the run); list_build, after the images are placed: the lists
 * (entries = their total); list_kick_drift: half kick, drift, wrap in place and the
 * displacement test; list_far: waits, 1 if a particle moved more than skin/2 (a build is
 * due); list_cells: the order cells between builds; list_forces: every particle's forces over
 * its list, put back in order first (boundary stream). */
void pt_tile_list_init(pt_gpu_tile *t);
void pt_tile_bin(pt_gpu_tile *t);
void pt_tile_list_build(pt_gpu_tile *t);
void pt_tile_list_kick_drift(pt_gpu_tile *t);
int pt_tile_list_far(pt_gpu_tile *t);
void pt_tile_list_cells(pt_gpu_tile *t);
void pt_tile_list_forces(pt_gpu_tile *t);
/* Forces of the owned particles of cells [c0, c1) on `stream`; c0 and c1 are 0 or in
 * [lo_cell, first[2]] (whose rows the host knows). */
void pt_tile_forces(pt_gpu_tile *t, int c0, int c1, cudaStream_t stream);
/* Hybrid: the forces the CPU computed for cells [c0, first[2]) (h_f, h_pe, h_vir) to the device
 * (boundary stream). */
void pt_tile_put_forces(pt_gpu_tile *t, int c0);
/* Forces of cells [c0, c1) on the bulk stream, once the cell matrix is ready (waits for
 * `sorted`); records `bulk_done`. c0, c1 as pt_tile_forces. */
void pt_tile_forces_bulk(pt_gpu_tile *t, int c0, int c1);
/* The boundary stream waits for what the bulk stream queued so far (bulk_done). */
void pt_tile_join(pt_gpu_tile *t);
/* Step 7: waits for the bulk stream (if it ran this step), second half kick, thermo row. */
void pt_tile_end_step(pt_gpu_tile *t, int bulk_ran);
/* The thermo row of the current state without a kick (step 0). */
void pt_tile_thermo_row(pt_gpu_tile *t);
/* Waits for both streams and moves the thermo rows to t->th (end of run, set-up). */
void pt_tile_sync(pt_gpu_tile *t);
/* This tile's particles, 10 doubles each (id x y z vx vy vz fx fy fz); returns the count. */
long long pt_tile_fetch(pt_gpu_tile *t, double *out);

#ifdef __cplusplus
}
#endif
#endif
