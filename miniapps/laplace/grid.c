/* grid.c: block geometry, initial state and the host sweep shared by the cpu variant,
 * the hybrid variant's CPU part and the GPU variants' set-up (laplace.h). */
#include <stdint.h>
#include <string.h>

#include "kit/driver.h"
#include "kit/philox.h"
#include "kit/slab.h"
#include "laplace.h"
#include "stencil.h"

laplace_block laplace_block_make(int nx, int ny, int k0, int nz) {
  laplace_block b;
  b.nx = nx;
  b.ny = ny;
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

void laplace_fill(const laplace_params *p, const laplace_block *b, double *u) {
  const int NX = p->size[0], NY = p->size[1], NZ = p->size[2];
  const int random = strcmp(p->init, "random") == 0;
  const uint32_t key0 = (uint32_t)p->run.seed, key1 = (uint32_t)(p->run.seed >> 32);
  memset(u, 0, b->points * sizeof *u); /* row padding, never read, defined anyway */
#pragma omp parallel for collapse(2) schedule(static)
  for (int l = 0; l < b->nz + 2; ++l)
    for (int j = 0; j <= NY + 1; ++j) {
      const int k = b->k0 - 1 + l;
      for (int i = 0; i <= NX + 1; ++i) {
        const size_t c = (size_t)l * b->sz + (size_t)j * b->sy + (size_t)i;
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

/* Host: fields, staging and fetch buffers on every rank, the gathered field and the oracle's
 * two full fields on rank 0 (when anything needs the whole field); device: three fields. */
void laplace_memory(const laplace_params *p, const kit_env *env, double *host, double *device) {
  const double plane = ((double)p->size[0] + 2 + 16) * ((double)p->size[1] + 2) * 8.0;
  const double slab = plane * (kit_block_split(p->size[2], env->nranks, env->rank).count + 2);
  const double whole = plane * (p->size[2] + 2),
               interior = 8.0 * p->size[0] * (double)p->size[1] * p->size[2];
  *host = 3.0 * slab;
  if (env->rank == 0 && (p->run.verify || p->dump || p->run.checkpoint))
    *host += 2.0 * whole + 2.0 * interior;
  if (env->rank == 0 && p->run.restart) *host += interior;
  *device = 3.0 * slab;
}

/* The sizes every machine refuses (kit_app.check): before anything is allocated, before a
 * GPU variant skips for want of a GPU. */
int laplace_check(const kit_env *env, void *params, const char *variant) {
  const laplace_params *p = params;
  if (p->size[2] < env->nranks)
    return kit_usage_error(
        env,
        "laplace: --size: %d z-planes cannot be split over %d ranks (each rank needs at least one plane)",
        p->size[2], env->nranks);
  /* A z-plane travels as one MPI message of (nx+2 rounded up to 16) x (ny+2) doubles. */
  if (((double)p->size[0] + 2 + 15) / 16 * 16 * ((double)p->size[1] + 2) > 2147483647.0)
    return kit_usage_error(env,
                           "laplace: --size: an xy-plane of %d x %d points is too large for one MPI message "
                           "(at most 2^31-1 values)",
                           p->size[0], p->size[1]);
  /* The GPU kernel's grid covers y and z with blocks of at least one row and one plane. */
  if (strcmp(variant, "cpu") != 0 && (p->size[1] > 65535 || p->size[2] > 65535))
    return kit_usage_error(env, "laplace: --size: the GPU variants take ny and nz up to 65535");
  return -1;
}
