/* grid.c: block geometry, initial state and the host sweep shared by the cpu variant,
 * the hybrid variant's CPU part and the GPU variants' set-up (laplace.h). */
#include <stdint.h>
#include <string.h>

#include "kit/driver.h"
#include "kit/philox.h"
#include "kit/procgrid.h"
#include "kit/slab.h"
#include "laplace.h"
#include "stencil.h"

laplace_block laplace_block_make(int nx, int ny, int k0, int nz) {
  return laplace_block_make_box(1, nx, 1, ny, k0, nz);
}

laplace_block laplace_block_make_box(int i0, int nx, int j0, int ny, int k0, int nz) {
  laplace_block b;
  b.nx = nx;
  b.ny = ny;
  b.i0 = i0;
  b.j0 = j0;
  b.k0 = k0;
  b.nz = nz;
  /* Rows padded to a multiple of 16 doubles (128 bytes): with the field offset by
   * LAPLACE_ALIGN_OFFSET, every row's first interior point starts a 128-byte line, so a
   * warp's loads and stores cover whole sectors (no partial-sector writes). */
  b.sy = ((size_t)nx + 2 + 15) / 16 * 16;
  b.sz = b.sy * ((size_t)ny + 2);
  b.points = ((size_t)nz + 2) * b.sz;
  return b;
}

laplace_block laplace_grid_block(const int size[3], const int procs[3], int rank) {
  kit_block part[3];
  kit_procs_split(size, procs, rank, part);
  return laplace_block_make_box(1 + part[0].begin, part[0].count, 1 + part[1].begin, part[1].count,
                                1 + part[2].begin, part[2].count);
}

void laplace_grid_neighbours(const int procs[3], int rank, int nbr[LAPLACE_FACES]) {
  for (int f = 0; f < LAPLACE_FACES; ++f) {
    int dir[3] = {0, 0, 0};
    dir[f / 2] = f % 2 ? 1 : -1;
    nbr[f] = kit_procs_neighbour(procs, rank, dir);
  }
}

laplace_face_shape laplace_face_shape_of(const laplace_block *b, int face, int ghost) {
  laplace_face_shape f;
  /* The layer's index along the face's axis: 1 or n (interior), 0 or n+1 (ghost). */
  const int n = face < LAPLACE_YM ? b->nx : b->ny, at = face % 2 ? (ghost ? n + 1 : n) : (ghost ? 0 : 1);
  f.s2 = b->sz;
  f.n2 = b->nz;
  if (face < LAPLACE_YM) { /* x face: rows j = 1..ny of column `at` */
    f.base = b->sz + b->sy + (size_t)at;
    f.s1 = b->sy;
    f.n1 = b->ny;
  } else { /* y face: points i = 1..nx of row `at` */
    f.base = b->sz + (size_t)at * b->sy + 1;
    f.s1 = 1;
    f.n1 = b->nx;
  }
  return f;
}

size_t laplace_face_count(const laplace_block *b, int face) {
  const laplace_face_shape f = laplace_face_shape_of(b, face, 0);
  return (size_t)f.n1 * (size_t)f.n2;
}

/* The one copy loop of both directions: to_buf 1 packs, 0 unpacks. */
static void face_copy(const laplace_block *b, double *u, int face, int ghost, double *buf, int to_buf) {
  const laplace_face_shape f = laplace_face_shape_of(b, face, ghost);
#pragma omp parallel for schedule(static)
  for (int l = 0; l < f.n2; ++l) {
    double *restrict flat = buf + (size_t)l * (size_t)f.n1;
    if (to_buf)
      for (int a = 0; a < f.n1; ++a) flat[a] = u[laplace_face_at(&f, a, l)];
    else
      for (int a = 0; a < f.n1; ++a) u[laplace_face_at(&f, a, l)] = flat[a];
  }
}

void laplace_face_links(const laplace_block *b, const int face_nbr[LAPLACE_FACES],
                        kit_link links[LAPLACE_FACES]) {
  for (int f = 0; f < LAPLACE_FACES; ++f) {
    const size_t n = f < LAPLACE_ZM ? laplace_face_count(b, f) : b->sz;
    links[f] =
        (kit_link){.rank = face_nbr[f], .send_count = n, .recv_count = n, .send_tag = f, .recv_tag = f ^ 1};
  }
}

/* The box's split (kit/boxsplit.h), its layer cut z first (whole planes), then y (rows within
 * the inner planes), then x (columns within the inner rows and planes). */
static kit_box_split layer_split(const laplace_block *b, const int side[LAPLACE_FACES]) {
  const int n[3] = {b->nx, b->ny, b->nz}, zyx[3] = {2, 1, 0};
  return kit_box_split_make(n, side, zyx);
}

void laplace_inner_box(const laplace_block *b, const int side[LAPLACE_FACES], int lo[3], int hi[3]) {
  const kit_box_split r = layer_split(b, side);
  for (int d = 0; d < 3; ++d) {
    lo[d] = r.in_lo[d];
    hi[d] = r.in_hi[d];
  }
}

int laplace_layer_parts(const laplace_block *b, const int side[LAPLACE_FACES], int part[LAPLACE_FACES][6]) {
  const kit_box_split r = layer_split(b, side);
  int n = 0;
  for (int a = 2; a >= 0; --a) /* planes, rows, columns: each below, then above */
    for (int s = 0; s < 2; ++s) {
      const int f = 2 * a + s;
      if (r.lo[f][0] >= r.hi[f][0] || r.lo[f][1] >= r.hi[f][1] || r.lo[f][2] >= r.hi[f][2]) continue;
      for (int d = 0; d < 3; ++d) {
        part[n][2 * d] = r.lo[f][d];
        part[n][2 * d + 1] = r.hi[f][d];
      }
      ++n;
    }
  return n;
}

void laplace_face_pack(const laplace_block *b, const double *u, int face, int ghost, double *buf) {
  face_copy(b, (double *)u, face, ghost, buf, 1);
}

void laplace_face_unpack(const laplace_block *b, double *u, int face, int ghost, const double *buf) {
  face_copy(b, u, face, ghost, (double *)buf, 0);
}

void laplace_fill(const laplace_params *p, const laplace_block *b, double *u) {
  const int NX = p->size[0], NY = p->size[1], NZ = p->size[2];
  const int random = strcmp(p->init, "random") == 0;
  const uint32_t key0 = (uint32_t)p->run.seed, key1 = (uint32_t)(p->run.seed >> 32);
  memset(u, 0, b->points * sizeof *u); /* row padding, never read, defined anyway */
#pragma omp parallel for collapse(2) schedule(static)
  for (int l = 0; l < b->nz + 2; ++l)
    for (int lj = 0; lj <= b->ny + 1; ++lj) {
      /* Global indices: the ghost layers hold the boundary at the domain's edge, else the
       * neighbour's initial values. */
      const int k = b->k0 - 1 + l, j = b->j0 - 1 + lj;
      for (int li = 0; li <= b->nx + 1; ++li) {
        const int i = b->i0 - 1 + li;
        const size_t c = (size_t)l * b->sz + (size_t)lj * b->sy + (size_t)li;
        const int boundary = i == 0 || i == NX + 1 || j == 0 || j == NY + 1 || k == 0 || k == NZ + 1;
        if (boundary) {
          u[c] = laplace_g(i, j, k, NX, NY, NZ);
        } else if (p->restart && k >= p->restart_k0 && k < p->restart_k0 + p->restart_nz) {
          u[c] = p->restart[((size_t)(k - p->restart_k0) * NY + (size_t)(j - 1)) * NX + (size_t)(i - 1)];
        } else if (random) {
          /* Keyed by the global point index: identical for any decomposition. */
          const uint64_t gid =
              (uint64_t)i + ((uint64_t)NX + 2) * ((uint64_t)j + ((uint64_t)NY + 2) * (uint64_t)k);
          u[c] = kit_philox_uniform(key0, key1, (uint32_t)gid, (uint32_t)(gid >> 32), 0, 0, 0);
        } else {
          u[c] = 0.0;
        }
      }
    }
}

/* The loop body shared by both entry points: rows of planes [l0, l1), split over the
 * threads of the innermost enclosing team (orphaned worksharing; serial without a team). */
void laplace_sweep_rows(const laplace_params *p, const laplace_block *b, const double *u, double *un, int l0,
                        int l1) {
  const double alpha = p->alpha, beta = p->beta;
  const size_t sy = b->sy, sz = b->sz;
  const int nx = b->nx, ny = b->ny;
#pragma omp for collapse(2) schedule(static)
  for (int l = l0; l < l1; ++l)
    for (int j = 1; j <= ny; ++j) {
      const size_t row = (size_t)l * sz + (size_t)j * sy;
      const double *restrict c = u + row;
      double *restrict o = un + row;
#pragma omp simd
      for (int i = 1; i <= nx; ++i)
        o[i] =
            laplace_update(c[i], c[i + 1], c[i + sy], c[i + sz], c[i - 1], c[i - sy], c[i - sz], alpha, beta);
    }
}

void laplace_sweep_host(const laplace_params *p, const laplace_block *b, const double *u, double *un, int l0,
                        int l1, int threads) {
  if (l1 <= l0) return;
#pragma omp parallel num_threads(threads)
  laplace_sweep_rows(p, b, u, un, l0, l1);
}

void laplace_copy_interior(const laplace_block *b, const double *u, int l0, int l1, double *out) {
  const size_t nx = (size_t)b->nx, ny = (size_t)b->ny;
#pragma omp parallel for collapse(2) schedule(static)
  for (int l = l0; l < l1; ++l)
    for (size_t j = 1; j <= ny; ++j)
      memcpy(out + ((size_t)(l - l0) * ny + (j - 1)) * nx, u + (size_t)l * b->sz + j * b->sy + 1,
             nx * sizeof(double));
}

/* The grid a run uses: --procs, or 1x1xN before laplace_check resolved it. */
static void grid_of(const laplace_params *p, int nranks, int procs[3]) {
  for (int d = 0; d < 3; ++d) procs[d] = p->procs[d];
  kit_procs_resolve(procs, nranks);
}

/* Host: fields, staging and fetch buffers on every rank (the rank's box, and its x and y
 * faces' send and receive buffers), the gathered field and the oracle's two full fields on
 * rank 0 (when anything needs the whole field); device: three fields and, on a grid, the x
 * and y faces' send and receive buffers. */
void laplace_memory(const laplace_params *p, const kit_env *env, double *host, double *device) {
  int procs[3];
  grid_of(p, env->nranks, procs);
  const laplace_block b = laplace_grid_block(p->size, procs, env->rank);
  const double plane = ((double)b.nx + 2 + 16) * ((double)b.ny + 2) * 8.0;
  const double box = plane * (b.nz + 2);
  const double faces = 2.0 * 2.0 * 8.0 * ((double)b.ny * b.nz + (double)b.nx * b.nz);
  const double whole = ((double)p->size[0] + 2 + 16) * ((double)p->size[1] + 2) * 8.0 * (p->size[2] + 2),
               interior = 8.0 * p->size[0] * (double)p->size[1] * p->size[2];
  const int grid = !laplace_grid_is_slab(procs);
  *host = 3.0 * box + (grid ? faces : 0.0);
  if (env->rank == 0 && (p->run.verify || p->dump || p->run.checkpoint))
    *host += 2.0 * whole + 2.0 * interior;
  if (env->rank == 0 && p->run.restart) *host += interior;
  *device = 3.0 * box + (grid ? faces : 0.0); /* naive's and two-stream's packed x and y faces */
}

/* The sizes and grids every machine refuses (kit_app.check): before anything is allocated,
 * before a GPU variant skips for want of a GPU. Resolves the default grid, 1x1xN. */
int laplace_check(const kit_env *env, void *params, const char *variant) {
  laplace_params *p = params;
  kit_procs_resolve(p->procs, env->nranks);
  const int *g = p->procs;
  /* P*Q*R against the rank count, and a box's points along each axis (kit/procgrid.h). */
  const int grc = kit_procs_check(env, "laplace", g, p->size, "points");
  if (grc >= 0) return grc;
  if (laplace_grid_is_slab(g) && p->size[2] < g[2])
    return kit_usage_error(
        env,
        "laplace: --size: %d z-planes cannot be split over %d ranks (each rank needs at least one plane)",
        p->size[2], g[2]);
  const int single = p->mt_scheme && strcmp(p->mt_scheme, "single") == 0;
  if (p->exchange_order && !single)
    return kit_usage_error(env, "laplace: --exchange-order applies only to --mt-scheme single");
  if (single && env->nranks > 1)
    return kit_usage_error(env,
                           "laplace: --mt-scheme single: one host thread drives the GPUs of one process "
                           "(Paper I's Baseline); run it on one rank, not %d",
                           env->nranks);
  if (!laplace_grid_is_slab(g) && !kit_variant_in(LAPLACE_GRID_VARIANTS, variant))
    return kit_usage_error(env,
                           "laplace: --procs %dx%dx%d: --variant %s splits along z only (1x1xN); cpu, naive "
                           "and two-stream run other grids",
                           g[0], g[1], g[2], variant);
  /* A z-plane travels as one MPI message of (nx+2 rounded up to 16) x (ny+2) doubles, an x or
   * y face as one of ny x nz or nx x nz (the largest box's, for a grid). */
  if (((double)p->size[0] + 2 + 15) / 16 * 16 * ((double)p->size[1] + 2) > 2147483647.0)
    return kit_usage_error(env,
                           "laplace: --size: an xy-plane of %d x %d points is too large for one MPI message "
                           "(at most 2^31-1 values)",
                           p->size[0], p->size[1]);
  const laplace_block big = laplace_grid_block(p->size, g, 0); /* rank 0's box is a largest one */
  if ((g[0] > 1 && (double)big.ny * big.nz > 2147483647.0) ||
      (g[1] > 1 && (double)big.nx * big.nz > 2147483647.0))
    return kit_usage_error(
        env,
        "laplace: --procs %dx%dx%d: an x or y face of a %d x %d x %d box is too large for one "
        "MPI message (at most 2^31-1 values)",
        g[0], g[1], g[2], big.nx, big.ny, big.nz);
  /* The GPU kernel's grid covers y and z with blocks of at least one row and one plane. */
  if (strcmp(variant, "cpu") != 0 && (p->size[1] > 65535 || p->size[2] > 65535))
    return kit_usage_error(env, "laplace: --size: the GPU variants take ny and nz up to 65535");
  return -1;
}
