/* gpu_tile.c: one subdomain's particles on one GPU (gpu_tile.h), the building block of the
 * GPU variants. Bernaschi et al. Sec. 3.2: the cell matrix is rebuilt on the device every
 * step (a counting sort by cell, then by id inside a cell), and only what crosses to another
 * rank comes to the host: the leavers (Sec. 3.2.2) and the frontier cells (Sec. 3.2.1).
 * Every copy and memset is asynchronous on the tile's `boundary` stream (the streams are
 * non-blocking: the legacy default stream's cudaMemcpy/cudaMemset would not be ordered with
 * them), and the host reads a pinned mirror only after synchronising that stream. */
#include "gpu_tile.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "nlist.h"

/* The thermo kernel writes rows in the PT_TH_* order. */
_Static_assert(PT_TH_PE == 0 && PT_TH_KE == 1 && PT_TH_VIR == 2 && PT_TH_PX == 3 && PT_TH_PY == 4 &&
                   PT_TH_PZ == 5 && PT_TH_N == 6,
               "kernels.cu's thermo row order");

static void *dev_alloc(size_t bytes) {
  void *p = NULL;
  KIT_CUDA_CHECK(cudaMalloc(&p, bytes > 0 ? bytes : 1));
  return p;
}

static void *pinned_alloc(size_t bytes) {
  void *p = kit_host_alloc(bytes > 0 ? bytes : 1, 1);
  memset(p, 0, bytes > 0 ? bytes : 1); /* every mirror byte defined, even where not yet filled */
  return p;
}

static void dev_zero(const pt_gpu_tile *t, void *p, size_t bytes) {
  KIT_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes > 0 ? bytes : 1, t->boundary));
}

/* The per-particle arrays for `cap` particles, zeroed (nothing is read before it is written,
 * but a bug then reads zeros, and compute-sanitizer's initcheck stays quiet). */
static void alloc_particles(pt_gpu_tile *t, long long cap) {
  const size_t c = (size_t)cap;
  t->id = dev_alloc(c * sizeof(int64_t));
  t->id2 = dev_alloc(c * sizeof(int64_t));
  t->x = dev_alloc(3 * c * sizeof(double));
  t->x2 = dev_alloc(3 * c * sizeof(double));
  t->v = dev_alloc(3 * c * sizeof(double));
  t->v2 = dev_alloc(3 * c * sizeof(double));
  t->cell = dev_alloc(c * sizeof(int));
  t->cell2 = dev_alloc(c * sizeof(int));
  t->f = dev_alloc(3 * c * sizeof(double));
  t->pe = dev_alloc(c * sizeof(double));
  t->vir = dev_alloc(c * sizeof(double));
  t->perm = dev_alloc(c * sizeof(int));
  t->leave = dev_alloc(8 * c * sizeof(double));
  dev_zero(t, t->id, c * sizeof(int64_t));
  dev_zero(t, t->id2, c * sizeof(int64_t));
  dev_zero(t, t->x, 3 * c * sizeof(double));
  dev_zero(t, t->x2, 3 * c * sizeof(double));
  dev_zero(t, t->v, 3 * c * sizeof(double));
  dev_zero(t, t->v2, 3 * c * sizeof(double));
  dev_zero(t, t->cell, c * sizeof(int));
  dev_zero(t, t->cell2, c * sizeof(int));
  dev_zero(t, t->f, 3 * c * sizeof(double));
  dev_zero(t, t->pe, c * sizeof(double));
  dev_zero(t, t->vir, c * sizeof(double));
  dev_zero(t, t->perm, c * sizeof(int));
  dev_zero(t, t->leave, 8 * c * sizeof(double));
  t->h_id = pinned_alloc(c * sizeof(int64_t));
  t->h_x = pinned_alloc(3 * c * sizeof(double));
  if (t->host_forces) {
    t->h_f = pinned_alloc(3 * c * sizeof(double));
    t->h_pe = pinned_alloc(c * sizeof(double));
    t->h_vir = pinned_alloc(c * sizeof(double));
  }
  t->cap = cap;
}

static void free_particles(pt_gpu_tile *t) {
  void *dev[] = {t->id,    t->id2, t->x,  t->x2,  t->v,    t->v2,   t->cell,
                 t->cell2, t->f,   t->pe, t->vir, t->perm, t->leave};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; ++i) KIT_CUDA_CHECK(cudaFree(dev[i]));
  kit_host_free(t->h_id, 1);
  kit_host_free(t->h_x, 1);
  if (t->host_forces) {
    kit_host_free(t->h_f, 1);
    kit_host_free(t->h_pe, 1);
    kit_host_free(t->h_vir, 1);
  }
}

/* The neighbour table the kernels read: d->nbr, with every empty cell beyond a wall (an
 * external cell without a connection) replaced by empty_cell, whose row nothing rewrites
 * while the bulk kernel runs (gpu_tile.h). Host memory, the caller frees it. */
static int *device_neighbours(const pt_decomp *d, int empty_cell) {
  const size_t m = (size_t)d->first[2] * 27;
  int *nbr = kit_malloc(m > 0 ? m * sizeof *nbr : 1, "neighbour table");
  for (size_t k = 0; k < m; ++k) {
    const int l = d->nbr[k];
    nbr[k] = l >= d->first[2] && d->ext_conn[l - d->first[2]] < 0 ? empty_cell : l;
  }
  return nbr;
}

void pt_tile_init(pt_gpu_tile *t, const pt_params *p, const pt_decomp *d, int device, long long n_hint,
                  int lo_cell, int host_forces) {
  memset(t, 0, sizeof *t);
  t->p = p;
  t->d = d;
  t->device = device;
  t->lo_cell = lo_cell;
  t->host_forces = host_forces;
  if (lo_cell < 0 || lo_cell > d->first[1])
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gpu tile: lo_cell %d outside [0, first frontier cell %d]",
            lo_cell, d->first[1]);
  KIT_CUDA_CHECK(cudaSetDevice(device));
  /* The boundary stream gets the higher priority, so its small kernels are not queued behind
   * the bulk force kernel's blocks (as lbm's two-stream). */
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&t->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&t->bulk, cudaStreamNonBlocking, least));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&t->sorted, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&t->bulk_done, cudaEventDisableTiming));

  const int ncells = d->ncells, nown = d->first[2];
  t->empty_cell = ncells + 1;
  t->cstart = dev_alloc((size_t)(ncells + 3) * sizeof(int)); /* zeroed: empty_cell's row is [0, 0) */
  t->count = dev_alloc((size_t)(nown + 1) * sizeof(int));
  t->fill = dev_alloc((size_t)nown * sizeof(int));
  t->nbr = dev_alloc((size_t)nown * 27 * sizeof(int));
  t->cells = dev_alloc((size_t)ncells * sizeof(pt_cell_entry));
  t->status = dev_alloc(PT_ST_N * sizeof(unsigned long long));
  t->partials = dev_alloc(6 * PT_THERMO_PARTIALS * sizeof(double));
  t->rows = dev_alloc(6 * PT_TILE_ROWS * sizeof(double));
  t->scan_bytes = pt_scan_temp_bytes(nown + 1);
  t->scan_tmp = dev_alloc(t->scan_bytes);
  dev_zero(t, t->cstart, (size_t)(ncells + 3) * sizeof(int));
  dev_zero(t, t->count, (size_t)(nown + 1) * sizeof(int));
  dev_zero(t, t->fill, (size_t)nown * sizeof(int));
  dev_zero(t, t->status, PT_ST_N * sizeof(unsigned long long));
  dev_zero(t, t->partials, 6 * PT_THERMO_PARTIALS * sizeof(double));
  dev_zero(t, t->rows, 6 * PT_TILE_ROWS * sizeof(double));
  /* From pageable memory: the call returns once the source has been staged. */
  int *nbr = device_neighbours(d, t->empty_cell);
  KIT_CUDA_CHECK(
      cudaMemcpyAsync(t->nbr, nbr, (size_t)nown * 27 * sizeof(int), cudaMemcpyHostToDevice, t->boundary));
  free(nbr);
  KIT_CUDA_CHECK(cudaMemcpyAsync(t->cells, d->array, (size_t)ncells * sizeof(pt_cell_entry),
                                 cudaMemcpyHostToDevice, t->boundary));
  t->binner = pt_binner_of(p, d, t->cells);
  /* An irregular domain: the voxel mask on the device, for the drift kernel's reflection. */
  if (p->geom) {
    t->walls = pt_walls_of(p->geom, p->box);
    const size_t nv = (size_t)t->walls.nv[0] * t->walls.nv[1] * t->walls.nv[2];
    t->mask = dev_alloc(nv);
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->mask, t->walls.mask, nv, cudaMemcpyHostToDevice, t->boundary));
    t->walls.mask = t->mask;
  }
  t->h_status = pinned_alloc(PT_ST_N * sizeof(unsigned long long));
  t->h_cstart = pinned_alloc((size_t)(ncells + 1) * sizeof(int));

  /* Room for the owned particles and the copies of the external cells (about as many per
   * cell), with a margin; pt_tile_reserve grows it if a step needs more. */
  const double per_cell = nown > 0 ? (double)n_hint / nown : 0.0;
  double cap = 1.3 * per_cell * ncells + 1024.0;
  if (cap > INT_MAX) cap = INT_MAX;
  /* Tests: start nearly empty, so every later step of the growth path (pt_tile_reserve, in
   * the middle of a step with the bulk stream busy) runs. */
  if (kit_fault("small-capacity")) cap = 16;
  alloc_particles(t, (long long)cap);
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
}

void pt_tile_free(pt_gpu_tile *t) {
  KIT_CUDA_CHECK(cudaSetDevice(t->device));
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->bulk));
  free_particles(t);
  void *dev[] = {t->cstart, t->count,    t->fill, t->nbr,     t->cells,
                 t->status, t->partials, t->rows, t->scan_tmp};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; ++i) KIT_CUDA_CHECK(cudaFree(dev[i]));
  if (t->mask) KIT_CUDA_CHECK(cudaFree(t->mask));
  if (t->images) {
    void *img[] = {t->pair, t->pair_len, t->pair_off, t->wrap,   t->ic_id, t->ic_x, t->ic_src,
                   t->ic_e, t->ic_perm,  t->gsrc,     t->ecount, t->efill, t->erow};
    for (size_t i = 0; i < sizeof img / sizeof *img; ++i) KIT_CUDA_CHECK(cudaFree(img[i]));
    kit_host_free(t->h_kept, 1);
  }
  if (t->list) {
    void *lst[] = {t->kx, t->kc, t->moved, t->xb, t->lcount, t->lstat, t->lnbr, t->lcode};
    for (size_t i = 0; i < sizeof lst / sizeof *lst; ++i) KIT_CUDA_CHECK(cudaFree(lst[i]));
  }
  kit_host_free(t->h_status, 1);
  kit_host_free(t->h_cstart, 1);
  if (t->h_leave) kit_host_free(t->h_leave, 1);
  KIT_CUDA_CHECK(cudaEventDestroy(t->sorted));
  KIT_CUDA_CHECK(cudaEventDestroy(t->bulk_done));
  KIT_CUDA_CHECK(cudaStreamDestroy(t->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(t->bulk));
  free(t->th);
  memset(t, 0, sizeof *t);
}

void pt_tile_clear(pt_gpu_tile *t) {
  t->n = t->ng = 0;
  t->th_rows = 0;
  t->rows_used = 0;
}

void pt_tile_reserve(pt_gpu_tile *t, long long need, long long keep) {
  if (need <= t->cap) return;
  if (need > INT_MAX)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gpu tile: %lld particles on one device, at most %d", need,
            INT_MAX);
  long long cap = t->cap;
  while (cap < need) cap = cap + cap / 2 + 1024;
  if (cap > INT_MAX) cap = INT_MAX;
  /* Nothing may still read or write the old arrays: a bulk force kernel, a copy. */
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->bulk));
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
  pt_gpu_tile old = *t;
  alloc_particles(t, cap);
  const size_t k = (size_t)(keep > 0 ? keep : 0);
  if (k) {
    const cudaStream_t s = t->boundary;
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->id, old.id, k * sizeof(int64_t), cudaMemcpyDeviceToDevice, s));
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->x, old.x, 3 * k * sizeof(double), cudaMemcpyDeviceToDevice, s));
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->v, old.v, 3 * k * sizeof(double), cudaMemcpyDeviceToDevice, s));
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->cell, old.cell, k * sizeof(int), cudaMemcpyDeviceToDevice, s));
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->f, old.f, 3 * k * sizeof(double), cudaMemcpyDeviceToDevice, s));
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->pe, old.pe, k * sizeof(double), cudaMemcpyDeviceToDevice, s));
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->vir, old.vir, k * sizeof(double), cudaMemcpyDeviceToDevice, s));
    memcpy(t->h_id, old.h_id, k * sizeof(int64_t));
    memcpy(t->h_x, old.h_x, 3 * k * sizeof(double));
    if (t->host_forces) {
      memcpy(t->h_f, old.h_f, 3 * k * sizeof(double));
      memcpy(t->h_pe, old.h_pe, k * sizeof(double));
      memcpy(t->h_vir, old.h_vir, k * sizeof(double));
    }
  }
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
  free_particles(&old);
}

/* The drift kernels' status row: counters 0, smallest ids all ones (kernels.h). */
static void status_reset(pt_gpu_tile *t) {
  const cudaStream_t s = t->boundary;
  KIT_CUDA_CHECK(cudaMemsetAsync(t->status, 0, PT_ST_LOST_ID * sizeof(unsigned long long), s));
  KIT_CUDA_CHECK(cudaMemsetAsync(t->status + PT_ST_LOST_ID, 0xFF,
                                 (PT_ST_N - PT_ST_LOST_ID) * sizeof(unsigned long long), s));
}

static void status_fetch(pt_gpu_tile *t) {
  KIT_CUDA_CHECK(cudaMemcpyAsync(t->h_status, t->status, PT_ST_N * sizeof(unsigned long long),
                                 cudaMemcpyDeviceToHost, t->boundary));
}

void pt_tile_kick_drift(pt_gpu_tile *t) {
  const double dt = t->p->dt, half = 0.5 * dt;
  const cudaStream_t s = t->boundary;
  status_reset(t);
  const int r = kit_gpu_range_begin("gpu_kick_drift", s);
  launch_pt_kick_drift_bin((int)t->n, t->id, t->x, t->v, t->f, half, dt, t->walls, t->binner, t->d->first[2],
                           t->images ? t->wrap : NULL, t->cell, t->leave, t->status, s);
  kit_gpu_range_end(r, s);
  status_fetch(t);
}

long long pt_tile_leavers(pt_gpu_tile *t, double **rec) {
  const cudaStream_t s = t->boundary;
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  /* cpu.c's checks, in its order: the walls' (after the drift), then the binning's. */
  if (t->h_status[PT_ST_UNREFLECTED])
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "particle %llu moved more than one voxel in one step (--dt too large, or the system blew up)",
            t->h_status[PT_ST_UNREFLECTED_ID]);
  if (t->h_status[PT_ST_LOST])
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "particle %llu moved more than one cell in one step (--dt too large, or the system blew up)",
            t->h_status[PT_ST_LOST_ID]);
  t->wall_hits = (long long)t->h_status[PT_ST_WALL_HITS];
  t->wrapped = (long long)t->h_status[PT_ST_WRAPPED];
  const long long m = (long long)t->h_status[PT_ST_LEAVERS];
  if (m > t->n)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gpu tile: %lld leavers out of %lld particles", m, t->n);
  if (m > t->h_leave_cap) {
    if (t->h_leave) kit_host_free(t->h_leave, 1);
    t->h_leave_cap = 2 * m + 256;
    t->h_leave = pinned_alloc((size_t)t->h_leave_cap * PT_LEAVER_W * sizeof(double));
  }
  if (m > 0) {
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->h_leave, t->leave, (size_t)m * PT_LEAVER_W * sizeof(double),
                                   cudaMemcpyDeviceToHost, s));
    KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  pt_sort_leavers(t->h_leave, m);
  *rec = t->h_leave;
  return m;
}

/* The cell matrix's counting sort (Sec. 3.2.1), on the boundary stream: items [0, n) into
 * nrows rows by row[] (-1: none), counted (count: nrows + 1), scanned into the rows' starts
 * (start[nrows] = the items kept), a slot each (fill: nrows), the slots of a row ordered by
 * id[], whatever order the atomics gave them: perm[] is the order. The owned particles by
 * cell, and one rank's own images by external cell, are sorted so. */
static void counting_sort(pt_gpu_tile *t, int n, const int *row, int nrows, int *count, int *start, int *fill,
                          const int64_t *id, int *perm) {
  const cudaStream_t s = t->boundary;
  KIT_CUDA_CHECK(cudaMemsetAsync(count, 0, ((size_t)nrows + 1) * sizeof(int), s));
  launch_pt_count(n, row, count, s);
  launch_pt_scan(count, start, nrows + 1, t->scan_tmp, t->scan_bytes, s);
  KIT_CUDA_CHECK(cudaMemsetAsync(fill, 0, (size_t)nrows * sizeof(int), s));
  launch_pt_scatter(n, row, start, fill, perm, s);
  launch_pt_sort_rows(nrows, start, id, perm, s);
}

void pt_tile_arrive_and_sort(pt_gpu_tile *t, const pt_set *arr, long long leavers) {
  const pt_decomp *d = t->d;
  const cudaStream_t s = t->boundary;
  const int nown = d->first[2];
  const long long slots = t->n + arr->n, n_new = slots - leavers;
  pt_tile_reserve(t, slots, t->n);
  if (arr->n > 0) {
    /* From pageable memory: each call returns once the source has been staged. */
    const size_t n = (size_t)t->n, m = (size_t)arr->n;
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->id + n, arr->id, m * sizeof(int64_t), cudaMemcpyHostToDevice, s));
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->x + 3 * n, arr->x, 3 * m * sizeof(double), cudaMemcpyHostToDevice, s));
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->v + 3 * n, arr->v, 3 * m * sizeof(double), cudaMemcpyHostToDevice, s));
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->cell + n, arr->cell, m * sizeof(int), cudaMemcpyHostToDevice, s));
  }
  /* The cell matrix (Sec. 3.2.1): count per owned cell (leavers and lost have cell -1),
   * exclusive scan into the rows (cstart[first[2]] = the new count), a slot per particle,
   * the slots of a cell ordered by id, and the particles gathered in that order. */
  const int r = kit_gpu_range_begin("gpu_sort", s);
  counting_sort(t, (int)slots, t->cell, nown, t->count, t->cstart, t->fill, t->id, t->perm);
  launch_pt_gather((int)n_new, t->perm, t->id, t->x, t->v, t->cell, t->id2, t->x2, t->v2, t->cell2, s);
  kit_gpu_range_end(r, s);
  int64_t *ti = t->id;
  t->id = t->id2, t->id2 = ti;
  double *tx = t->x;
  t->x = t->x2, t->x2 = tx;
  double *tv = t->v;
  t->v = t->v2, t->v2 = tv;
  int *tc = t->cell;
  t->cell = t->cell2, t->cell2 = tc;
  KIT_CUDA_CHECK(cudaMemcpyAsync(t->h_cstart + t->lo_cell, t->cstart + t->lo_cell,
                                 (size_t)(nown - t->lo_cell + 1) * sizeof(int), cudaMemcpyDeviceToHost, s));
  KIT_CUDA_CHECK(cudaEventRecord(t->sorted, s));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  /* Particle conservation on this tile: the rows must hold exactly the stayers and arrivals. */
  if (t->h_cstart[nown] != n_new)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "gpu tile: the cell matrix holds %d particles, expected %lld", t->h_cstart[nown], n_new);
  /* The external cells' rows empty, at this step's offset, until the copies come
   * (pt_tile_put_ghosts), as cpu.c sets them: hybrid's CPU computes internal cells before,
   * and one may touch an empty cell beyond a wall. (No device kernel reads a wall cell's
   * row: empty_cell, gpu_tile.h.) */
  for (int c = nown + 1; c <= d->ncells; ++c) t->h_cstart[c] = (int)n_new;
  t->n = n_new;
  t->ng = 0;
}

void pt_tile_fetch_frontier(pt_gpu_tile *t) {
  const cudaStream_t s = t->boundary;
  const size_t i0 = (size_t)t->h_cstart[t->lo_cell], m = (size_t)t->n - i0;
  const int r = kit_gpu_range_begin("gpu_d2h", s);
  if (m > 0) {
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->h_id + i0, t->id + i0, m * sizeof(int64_t), cudaMemcpyDeviceToHost, s));
    KIT_CUDA_CHECK(
        cudaMemcpyAsync(t->h_x + 3 * i0, t->x + 3 * i0, 3 * m * sizeof(double), cudaMemcpyDeviceToHost, s));
  }
  kit_gpu_range_end(r, s);
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
}

void pt_tile_put_ghosts(pt_gpu_tile *t, const pt_ghosts *g) {
  const pt_decomp *d = t->d;
  const cudaStream_t s = t->boundary;
  const size_t n = (size_t)t->n, ne = (size_t)(d->ncells - d->first[2]);
  pt_tile_reserve(t, t->n + g->n, t->n);
  pt_place_ghosts(d, g, t->n, t->h_id, t->h_x, t->h_cstart);
  const int r = kit_gpu_range_begin("gpu_h2d", s);
  /* The force kernels need only the copies' positions and the external cells' rows; the
   * rows write cstart[first[2] + 1 ..], which no bulk force kernel reads (an internal cell's
   * neighbours are owned, or empty cells beyond a wall, which the device's neighbour table
   * replaces by empty_cell). */
  if (g->n > 0)
    KIT_CUDA_CHECK(cudaMemcpyAsync(t->x + 3 * n, t->h_x + 3 * n, 3 * (size_t)g->n * sizeof(double),
                                   cudaMemcpyHostToDevice, s));
  KIT_CUDA_CHECK(cudaMemcpyAsync(t->cstart + d->first[2] + 1, t->h_cstart + d->first[2] + 1, ne * sizeof(int),
                                 cudaMemcpyHostToDevice, s));
  kit_gpu_range_end(r, s);
  t->ng = g->n;
}

void pt_tile_images_init(pt_gpu_tile *t) {
  const pt_decomp *d = t->d;
  const int nf = d->first[2] - d->first[1], ne = d->ncells - d->first[2];
  /* The pairs in the host path's order (frontier cells, then each cell's connections): the
   * candidates come out as its send buffers would, though only their sort decides the order. */
  t->npairs = d->conn_start[nf];
  int *pair = kit_malloc(4 * ((size_t)t->npairs + 1) * sizeof *pair, "image pairs");
  for (int f = 0; f < nf; ++f)
    for (int q = d->conn_start[f]; q < d->conn_start[f + 1]; ++q) {
      const pt_conn *k = &d->conn[d->conn_list[q]];
      if (k->rank != d->me)
        kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
                "gpu tile: device images need every connection to be %d", d->me);
      pair[4 * q] = d->first[1] + f;
      for (int a = 0; a < 3; ++a) pair[4 * q + 1 + a] = k->shift[a];
    }
  int *wrap = kit_malloc(4 * ((size_t)ne + 1) * sizeof *wrap, "image wraps");
  for (int e = 0; e < ne; ++e) {
    const int k = d->ext_conn[e];
    wrap[4 * e] = k >= 0;
    for (int a = 0; a < 3; ++a) wrap[4 * e + 1 + a] = k >= 0 ? d->conn[k].shift[a] : 0;
  }
  t->pair = dev_alloc(4 * (size_t)t->npairs * sizeof(int));
  t->pair_len = dev_alloc(((size_t)t->npairs + 1) * sizeof(int));
  t->pair_off = dev_alloc(((size_t)t->npairs + 1) * sizeof(int));
  t->wrap = dev_alloc(4 * (size_t)ne * sizeof(int));
  t->ecount = dev_alloc(((size_t)ne + 1) * sizeof(int));
  t->efill = dev_alloc(((size_t)ne + 1) * sizeof(int));
  t->erow = dev_alloc(((size_t)ne + 1) * sizeof(int));
  dev_zero(t, t->erow, ((size_t)ne + 1) * sizeof(int));
  /* From pageable memory: each call returns once the source has been staged. */
  KIT_CUDA_CHECK(cudaMemcpyAsync(t->pair, pair, 4 * (size_t)t->npairs * sizeof(int), cudaMemcpyHostToDevice,
                                 t->boundary));
  KIT_CUDA_CHECK(
      cudaMemcpyAsync(t->wrap, wrap, 4 * (size_t)ne * sizeof(int), cudaMemcpyHostToDevice, t->boundary));
  free(pair);
  free(wrap);
  t->h_kept = pinned_alloc(sizeof(int));
  /* The scans now also run over the pairs and the external cells. */
  const int most = t->npairs > ne ? t->npairs + 1 : ne + 1;
  const size_t bytes = pt_scan_temp_bytes(most);
  if (bytes > t->scan_bytes) {
    KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
    KIT_CUDA_CHECK(cudaFree(t->scan_tmp));
    t->scan_tmp = dev_alloc(bytes);
    t->scan_bytes = bytes;
  }
  t->icap = t->ncand = 0;
  t->images = 1;
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
}

/* Room for `need` candidates (nothing kept: they are made afresh). */
static void reserve_candidates(pt_gpu_tile *t, long long need) {
  if (need <= t->icap) return;
  if (need > INT_MAX)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gpu tile: %lld image copies on one device, at most %d",
            need, INT_MAX);
  long long cap = t->icap + t->icap / 2 + 1024;
  if (cap < need) cap = need;
  if (cap > INT_MAX) cap = INT_MAX;
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
  if (t->icap > 0) {
    void *old[] = {t->ic_id, t->ic_x, t->ic_src, t->ic_e, t->ic_perm, t->gsrc};
    for (size_t i = 0; i < sizeof old / sizeof *old; ++i) KIT_CUDA_CHECK(cudaFree(old[i]));
  }
  const size_t c = (size_t)cap;
  t->ic_id = dev_alloc(c * sizeof(int64_t));
  t->ic_x = dev_alloc(3 * c * sizeof(double));
  t->ic_src = dev_alloc(c * sizeof(int));
  t->ic_e = dev_alloc(c * sizeof(int));
  t->ic_perm = dev_alloc(c * sizeof(int));
  t->gsrc = dev_alloc(c * sizeof(int));
  t->icap = cap;
}

void pt_tile_image_candidates(pt_gpu_tile *t, long long ncand) {
  const cudaStream_t s = t->boundary;
  reserve_candidates(t, ncand);
  const int r = kit_gpu_range_begin("gpu_images", s);
  launch_pt_image_lengths(t->npairs, t->pair, t->cstart, t->pair_len, s);
  launch_pt_scan(t->pair_len, t->pair_off, t->npairs + 1, t->scan_tmp, t->scan_bytes, s);
  launch_pt_image_candidates(t->npairs, t->pair, t->pair_off, t->cstart, t->id, t->x, t->binner,
                             t->d->first[2], t->ic_id, t->ic_x, t->ic_src, t->ic_e, s);
  kit_gpu_range_end(r, s);
  t->ncand = ncand;
}

void pt_tile_place_images(pt_gpu_tile *t) {
  const pt_decomp *d = t->d;
  const cudaStream_t s = t->boundary;
  const int ne = d->ncells - d->first[2];
  pt_tile_reserve(t, t->n + t->ncand, t->n);
  /* The cell matrix's counting sort again, over the external cells: count, scan into rows,
   * a slot each, the slots of a cell by id (pt_unpack_ghosts' order), then placed. */
  const int r = kit_gpu_range_begin("gpu_place_images", s);
  counting_sort(t, (int)t->ncand, t->ic_e, ne, t->ecount, t->erow, t->efill, t->ic_id, t->ic_perm);
  launch_pt_place_images((int)t->ncand, ne, t->erow, t->ic_perm, t->ic_x, t->ic_id, t->ic_src, (int)t->n,
                         t->x, t->id, t->gsrc, t->cstart + d->first[2], s);
  kit_gpu_range_end(r, s);
  KIT_CUDA_CHECK(cudaMemcpyAsync(t->h_kept, t->erow + ne, sizeof(int), cudaMemcpyDeviceToHost, s));
}

/* ---- --neighbor list ------------------------------------------------------------------- */
void pt_tile_list_init(pt_gpu_tile *t) {
  t->order = pt_order_of(t->p);
  t->rl2 = t->p->rl2;
  t->half_skin2 = 0.25 * t->p->skin * t->p->skin;
  t->list = 1;
  /* The first build's room a list; KIT_FAULT=small-capacity: so little that it runs twice. */
  t->lcols = kit_fault("small-capacity") ? 4 : 64;
  int optin = 0;
  KIT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, t->device));
  t->lshared_max = (size_t)optin;
}

/* A device array of `need` elements of `size` bytes in place of *p (contents not kept); the
 * streams must be idle. */
static void regrow(void **p, long long need, size_t size) {
  if (*p) KIT_CUDA_CHECK(cudaFree(*p));
  *p = dev_alloc((size_t)need * size);
}

void pt_tile_bin(pt_gpu_tile *t) {
  const cudaStream_t s = t->boundary;
  status_reset(t);
  launch_pt_bin((int)t->n, t->id, t->x, t->binner, t->d->first[2], t->cell, t->status, s);
  status_fetch(t);
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  if (t->h_status[PT_ST_LOST])
    kit_die(
        KIT_EXIT_RUNTIME, __FILE__, __LINE__,
        "particle %llu moved beyond the box's cells since the last list build (--dt too large, or the system "
        "blew up)",
        t->h_status[PT_ST_LOST_ID]);
}

void pt_tile_list_build(pt_gpu_tile *t) {
  const cudaStream_t s = t->boundary;
  const long long n = t->n;
  /* The copies kept (and every queued kernel done: the arrays may be regrown below). */
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->bulk));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  const long long slots = n + (t->images ? *t->h_kept : 0);
  if (slots > t->kcap) {
    const long long c = slots + slots / 4 + 1024;
    regrow((void **)&t->kx, c, 3 * sizeof(int));
    t->kcap = c;
  }
  if (n > t->lcap || !t->lstat) {
    const long long c = n + n / 4 + 1024;
    if (c > INT_MAX)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gpu tile: %lld particles for the lists", c);
    void **a[] = {(void **)&t->kc, (void **)&t->moved, (void **)&t->xb, (void **)&t->lcount,
                  (void **)&t->lstat};
    const size_t size[] = {9 * sizeof(int), 1, 3 * sizeof(double), sizeof(int), sizeof(unsigned long long)};
    const long long count[] = {c, c, c, c, 2};
    for (int k = 0; k < 5; ++k) regrow(a[k], count[k], size[k]);
    t->lcap = c;
    t->ecap = 0; /* the stride changed: the lists are laid out again */
  }
  const int r = kit_gpu_range_begin("gpu_list_build", s);
  launch_pt_order_slots((int)slots, t->x, t->order, t->kx, s);
  /* Transposed (neighbor.h's layout): room for the longest list in every column. A build
   * with too little room only counts; the second one, with room for the longest, writes. */
  unsigned long long stat[2] = {0, 0};
  for (int pass = 0; pass < 2; ++pass) {
    const long long need = (long long)t->lcols * t->lcap;
    if (need > t->ecap) {
      const long long c = need + t->lcap;
      void **a[] = {(void **)&t->lnbr, (void **)&t->lcode};
      for (int k = 0; k < 2; ++k) regrow(a[k], c, sizeof(int));
      t->ecap = c;
    }
    if (pt_list_build_shared(t->lcols) + PT_LIST_BUILD_STATIC > t->lshared_max)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "gpu tile: a neighbour list of %d entries is longer than the GPU build holds (%zu bytes of "
              "shared memory); --neighbor cells has no such limit",
              t->lcols, pt_list_build_shared(t->lcols));
    t->lstride = (int)t->lcap;
    KIT_CUDA_CHECK(cudaMemsetAsync(t->lstat, 0, 2 * sizeof(unsigned long long), s));
    launch_pt_list_build((int)n, t->cell, t->x, t->kx, t->id, t->nbr, t->cstart, t->rl2, t->lcols, t->lstride,
                         t->lcount, t->lnbr, t->lcode, t->gsrc, t->lstat, s);
    KIT_CUDA_CHECK(cudaMemcpyAsync(stat, t->lstat, sizeof stat, cudaMemcpyDeviceToHost, s));
    KIT_CUDA_CHECK(cudaStreamSynchronize(s));
    if (stat[1] <= (unsigned long long)t->lcols) break;
    if (pass == 1)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gpu tile: a list of %llu entries after room for %d",
              stat[1], t->lcols);
    t->lcols = (int)(stat[1] + stat[1] / 8 + 8); /* room to grow before the next build needs more */
  }
  launch_pt_list_positions((int)n, t->x, t->order, t->kc, t->moved, t->xb, s);
  kit_gpu_range_end(r, s);
  t->entries = (long long)stat[0];
}

void pt_tile_list_kick_drift(pt_gpu_tile *t) {
  const double dt = t->p->dt;
  const cudaStream_t s = t->boundary;
  status_reset(t);
  const int r = kit_gpu_range_begin("gpu_kick_drift", s);
  launch_pt_kick_drift_wrap((int)t->n, t->x, t->v, t->f, 0.5 * dt, dt, t->order, t->xb, t->half_skin2,
                            t->status, s);
  kit_gpu_range_end(r, s);
  status_fetch(t);
}

int pt_tile_list_far(pt_gpu_tile *t) {
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
  return t->h_status[PT_ST_FAR] > 0;
}

void pt_tile_list_cells(pt_gpu_tile *t) {
  const int r = kit_gpu_range_begin("gpu_list_cells", t->boundary);
  launch_pt_list_cells((int)t->n, t->x, t->order, t->kc, t->moved, t->boundary);
  kit_gpu_range_end(r, t->boundary);
}

void pt_tile_list_forces(pt_gpu_tile *t) {
  const int r = kit_gpu_range_begin("gpu_list_forces", t->boundary);
  launch_pt_list_forces(0, (int)t->n, t->x, t->order, t->kc, t->moved, t->id, t->lcount, t->lstride, t->lnbr,
                        t->lcode, t->p->rc2, t->p->eshift, t->f, t->pe, t->vir, t->boundary);
  kit_gpu_range_end(r, t->boundary);
}

static int rows_of(const pt_gpu_tile *t, int c) {
  if (c == 0) return 0;
  if (c < t->lo_cell || c > t->d->first[2])
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gpu tile: the rows of cell %d are not on the host", c);
  return t->h_cstart[c];
}

void pt_tile_forces(pt_gpu_tile *t, int c0, int c1, cudaStream_t stream) {
  const int i0 = rows_of(t, c0), i1 = rows_of(t, c1);
  launch_pt_forces(i0, i1, t->cell, t->x, t->nbr, t->cstart, t->p->rc2, t->p->eshift, t->f, t->pe, t->vir,
                   stream);
}

void pt_tile_put_forces(pt_gpu_tile *t, int c0) {
  const cudaStream_t s = t->boundary;
  const size_t i0 = (size_t)rows_of(t, c0), m = (size_t)t->n - i0;
  if (m == 0 || !t->host_forces) return;
  const int r = kit_gpu_range_begin("gpu_h2d_forces", s);
  KIT_CUDA_CHECK(
      cudaMemcpyAsync(t->f + 3 * i0, t->h_f + 3 * i0, 3 * m * sizeof(double), cudaMemcpyHostToDevice, s));
  KIT_CUDA_CHECK(cudaMemcpyAsync(t->pe + i0, t->h_pe + i0, m * sizeof(double), cudaMemcpyHostToDevice, s));
  KIT_CUDA_CHECK(cudaMemcpyAsync(t->vir + i0, t->h_vir + i0, m * sizeof(double), cudaMemcpyHostToDevice, s));
  kit_gpu_range_end(r, s);
}

/* Thermo rows from the device to t->th; the boundary stream must be idle. */
static void flush_rows(pt_gpu_tile *t) {
  if (t->rows_used == 0) return;
  if (t->th_rows + t->rows_used > t->th_cap) {
    int cap = t->th_cap > 0 ? t->th_cap : 64;
    while (cap < t->th_rows + t->rows_used) cap *= 2;
    double *th = kit_malloc((size_t)cap * PT_TH_N * sizeof *th, "thermo");
    if (t->th_rows) memcpy(th, t->th, (size_t)t->th_rows * PT_TH_N * sizeof *th);
    free(t->th);
    t->th = th;
    t->th_cap = cap;
  }
  KIT_CUDA_CHECK(cudaMemcpyAsync(t->th + (size_t)t->th_rows * PT_TH_N, t->rows,
                                 (size_t)t->rows_used * PT_TH_N * sizeof(double), cudaMemcpyDeviceToHost,
                                 t->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
  t->th_rows += t->rows_used;
  t->rows_used = 0;
}

void pt_tile_thermo_row(pt_gpu_tile *t) {
  if (t->rows_used == PT_TILE_ROWS) {
    KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
    flush_rows(t);
  }
  launch_pt_thermo((int)t->n, t->v, t->pe, t->vir, t->partials, t->rows + (size_t)t->rows_used * PT_TH_N,
                   t->boundary);
  t->rows_used++;
}

void pt_tile_forces_bulk(pt_gpu_tile *t, int c0, int c1) {
  /* The kernel reads the sorted arrays and their rows: it waits for the sort (the host has
   * seen it finish too, but the event states the dependence where the stream can see it). */
  KIT_CUDA_CHECK(cudaStreamWaitEvent(t->bulk, t->sorted, 0));
  const int r = kit_gpu_range_begin("gpu_internal", t->bulk);
  pt_tile_forces(t, c0, c1, t->bulk);
  kit_gpu_range_end(r, t->bulk);
  KIT_CUDA_CHECK(cudaEventRecord(t->bulk_done, t->bulk));
}

void pt_tile_join(pt_gpu_tile *t) {
  KIT_CUDA_CHECK(cudaStreamWaitEvent(t->boundary, t->bulk_done, 0));
}

void pt_tile_end_step(pt_gpu_tile *t, int bulk_ran) {
  const cudaStream_t s = t->boundary;
  /* The kick reads every force: the bulk stream's included. */
  if (bulk_ran) pt_tile_join(t);
  const int r = kit_gpu_range_begin("gpu_kick", s);
  launch_pt_kick((int)t->n, t->v, t->f, 0.5 * t->p->dt, s);
  kit_gpu_range_end(r, s);
  pt_tile_thermo_row(t);
}

void pt_tile_sync(pt_gpu_tile *t) {
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->bulk));
  KIT_CUDA_CHECK(cudaStreamSynchronize(t->boundary));
  flush_rows(t);
}

long long pt_tile_fetch(pt_gpu_tile *t, double *out) {
  if (!out) return t->n;
  KIT_CUDA_CHECK(cudaSetDevice(t->device));
  pt_tile_sync(t);
  const size_t n = (size_t)t->n;
  if (n == 0) return 0;
  int64_t *id = kit_malloc(n * sizeof *id, "fetch");
  double *x = kit_malloc(3 * n * sizeof *x, "fetch"), *v = kit_malloc(3 * n * sizeof *v, "fetch"),
         *f = kit_malloc(3 * n * sizeof *f, "fetch");
  const cudaStream_t s = t->boundary;
  KIT_CUDA_CHECK(cudaMemcpyAsync(id, t->id, n * sizeof *id, cudaMemcpyDeviceToHost, s));
  KIT_CUDA_CHECK(cudaMemcpyAsync(x, t->x, 3 * n * sizeof *x, cudaMemcpyDeviceToHost, s));
  KIT_CUDA_CHECK(cudaMemcpyAsync(v, t->v, 3 * n * sizeof *v, cudaMemcpyDeviceToHost, s));
  KIT_CUDA_CHECK(cudaMemcpyAsync(f, t->f, 3 * n * sizeof *f, cudaMemcpyDeviceToHost, s));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  for (size_t i = 0; i < n; ++i) {
    double *r = out + 10 * i;
    r[0] = (double)id[i];
    memcpy(r + 1, x + 3 * i, 3 * sizeof(double));
    memcpy(r + 4, v + 3 * i, 3 * sizeof(double));
    memcpy(r + 7, f + 3 * i, 3 * sizeof(double));
  }
  free(id), free(x), free(v), free(f);
  return (long long)n;
}
