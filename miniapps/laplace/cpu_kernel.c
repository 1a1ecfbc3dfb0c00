/* cpu_kernel.c: the tuned host sweep (cpu_kernel.h), after Sourouri Paper II Sec. 3.1:
 * pencil-shaped cache blocks swept up z, non-temporal stores for the new field, and an
 * auto-tuner that times a few kernels on the run's own grid at set-up. Only the order in
 * which points are visited and the kind of store change: each point is laplace_update of the
 * same seven values, so the bits equal laplace_sweep_rows' (tests/laplace/test_laplace.cpp). */
#include "cpu_kernel.h"

#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/runtime.h"
#include "stencil.h"

/* Streaming stores: SSE2's movntpd (every x86-64), AVX's vmovntpd where the build targets
 * AVX. GCC 12 parses `#pragma omp simd nontemporal(...)` but emits ordinary stores, so the
 * intrinsics are used; elsewhere the kernel stores normally and nt is reported unavailable. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define LAPLACE_NT 1
#if defined(__AVX__)
#include <immintrin.h>
#endif
#else
#define LAPLACE_NT 0
#endif

int laplace_cpu_nt_available(void) {
  return LAPLACE_NT;
}

int laplace_parse_cpu_block(const char *arg, void *dest, char *err, size_t errlen) {
  laplace_cpu_block *k = dest;
  if (strcmp(arg, "auto") == 0) {
    *k = (laplace_cpu_block){0, LAPLACE_CPU_BLOCK_AUTO, 0};
    return 0;
  }
  if (strcmp(arg, "off") == 0) {
    *k = (laplace_cpu_block){0, 0, 0};
    return 0;
  }
  /* BX, 'x', BY, then nothing or "+nt"; digits only (no sign, no spaces). */
  char *end = NULL;
  errno = 0;
  long v[2] = {-1, -1};
  const char *s = arg;
  for (int d = 0; d < 2; ++d) {
    if (*s < '0' || *s > '9') break;
    v[d] = strtol(s, &end, 10);
    if (errno) v[d] = -1;
    s = end;
    if (d == 0) {
      if (*s != 'x')
        v[0] = -1;
      else
        ++s;
    }
    if (v[d] < 0) break;
  }
  const int nt = v[1] >= 0 && strcmp(s, "+nt") == 0;
  if (v[0] < 0 || v[1] < 0 || (*s && !nt)) {
    snprintf(err, errlen, "'%s' is not BXxBY[+nt], auto or off", arg);
    return -1;
  }
  if (v[0] < 1 || v[0] > 1000000 || v[1] < 1 || v[1] > 1000000) {
    snprintf(err, errlen, "'%s': BX and BY must be in [1, 1000000]", arg);
    return -1;
  }
  *k = (laplace_cpu_block){(int)v[0], (int)v[1], nt};
  return 0;
}

const char *laplace_cpu_block_name(const laplace_cpu_block *k, char *buf, size_t n) {
  if (k->by < 0)
    snprintf(buf, n, "auto");
  else if (k->by == 0)
    snprintf(buf, n, "off");
  else
    snprintf(buf, n, "%dx%d%s", k->bx, k->by, k->nt ? "+nt" : "");
  return buf;
}

/* Points [i0, i1) of one row; c and o point at the row's point 0 in u and un. */
static inline void row_plain(const double *restrict c, double *restrict o, int i0, int i1, ptrdiff_t sy,
                             ptrdiff_t sz, double alpha, double beta) {
#pragma omp simd
  for (int i = i0; i < i1; ++i)
    o[i] = laplace_update(c[i], c[i + 1], c[i + sy], c[i + sz], c[i - 1], c[i - sy], c[i - sz], alpha, beta);
}

#if LAPLACE_NT
/* The same row, whole 64-byte lines of o written with streaming stores: the line before the
 * first one and the points after the last one with ordinary stores. */
static inline void row_nt(const double *restrict c, double *restrict o, int i0, int i1, ptrdiff_t sy,
                          ptrdiff_t sz, double alpha, double beta) {
  const uintptr_t mis = (uintptr_t)(o + i0) & 63;
  int i = mis % sizeof(double) ? i1 : i0 + (int)((64 - mis) % 64 / sizeof(double));
  if (i > i1) i = i1;
  row_plain(c, o, i0, i, sy, sz, alpha, beta);
  for (; i + 8 <= i1; i += 8) {
    _Alignas(64) double v[8];
#pragma omp simd
    for (int q = 0; q < 8; ++q)
      v[q] = laplace_update(c[i + q], c[i + q + 1], c[i + q + sy], c[i + q + sz], c[i + q - 1], c[i + q - sy],
                            c[i + q - sz], alpha, beta);
#if defined(__AVX__)
    _mm256_stream_pd(o + i, _mm256_load_pd(v));
    _mm256_stream_pd(o + i + 4, _mm256_load_pd(v + 4));
#else
    _mm_stream_pd(o + i, _mm_load_pd(v));
    _mm_stream_pd(o + i + 2, _mm_load_pd(v + 2));
    _mm_stream_pd(o + i + 4, _mm_load_pd(v + 4));
    _mm_stream_pd(o + i + 6, _mm_load_pd(v + 6));
#endif
  }
  row_plain(c, o, i, i1, sy, sz, alpha, beta);
}
#endif

static int clamp(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

void laplace_cpu_sweep_rows(const laplace_params *p, const laplace_block *b, const double *u, double *un,
                            int l0, int l1, const laplace_cpu_block *k) {
  laplace_cpu_sweep_box_rows(p, b, u, un, 1, b->nx + 1, 1, b->ny + 1, l0, l1, k);
}

void laplace_cpu_sweep_box_rows(const laplace_params *p, const laplace_block *b, const double *u, double *un,
                                int i0, int i1, int j0, int j1, int l0, int l1, const laplace_cpu_block *k) {
  const int whole = i0 == 1 && i1 == b->nx + 1 && j0 == 1 && j1 == b->ny + 1;
  if (k->by <= 0 && whole) {
    laplace_sweep_rows(p, b, u, un, l0, l1);
    return;
  }
  if (l1 <= l0 || i1 <= i0 || j1 <= j0) return; /* the same for every thread: none reaches the loop */
  const double alpha = p->alpha, beta = p->beta;
  const ptrdiff_t sy = (ptrdiff_t)b->sy, sz = (ptrdiff_t)b->sz;
  if (k->by <= 0) {
    /* off on a part of the planes: laplace_sweep_rows' loop over the part's rows. */
#pragma omp for collapse(2) schedule(static)
    for (int l = l0; l < l1; ++l)
      for (int j = j0; j < j1; ++j) {
        const size_t row = (size_t)l * b->sz + (size_t)j * b->sy;
        row_plain(u + row, un + row, i0, i1, sy, sz, alpha, beta);
      }
    return;
  }
  const int nx = i1 - i0, ny = j1 - j0; /* the part's points per row and rows per plane */
  const int bx = clamp(k->bx, 1, nx), by = clamp(k->by, 1, ny);
  const int nt = k->nt && LAPLACE_NT;
  (void)nt; /* unused without streaming stores */
  /* The threads split the rows (l, j) as laplace_sweep_rows does: thread w takes the w-th
   * of `team` equal runs of rows, planes after planes, so it owns about planes/team
   * consecutive planes (where laplace_fill's first touch placed them) or, for a single
   * boundary plane, a band of its rows. Only the order changes: the thread sweeps its rows
   * pencil by pencil, each pencil up all its planes, so that the planes below, at and above
   * a row are still in cache when the row is computed. */
  const int team = omp_get_num_threads();
  const long long rows = (long long)(l1 - l0) * ny;
#pragma omp for schedule(static)
  for (int w = 0; w < team; ++w) {
    const long long r0 = rows * w / team, r1 = rows * (w + 1) / team; /* rows [r0, r1) */
    if (r0 == r1) continue;
    const int la = l0 + (int)(r0 / ny), lb = l0 + (int)((r1 - 1) / ny); /* first and last plane */
    const int ja = j0 + (int)(r0 % ny), jb = j0 + (int)((r1 - 1) % ny); /* first row, last row */
    for (int y0 = j0; y0 < j1; y0 += by)
      for (int x0 = i0; x0 < i1; x0 += bx) {
        const int x1 = x0 + bx < i1 ? x0 + bx : i1;
        for (int l = la; l <= lb; ++l) {
          const int lo = l == la && ja > y0 ? ja : y0;
          const int hi = l == lb && jb + 1 < y0 + by ? jb + 1 : (y0 + by < j1 ? y0 + by : j1);
          for (int j = lo; j < hi; ++j) {
            const size_t row = (size_t)l * b->sz + (size_t)j * b->sy;
#if LAPLACE_NT
            if (nt) {
              row_nt(u + row, un + row, x0, x1, sy, sz, alpha, beta);
              continue;
            }
#endif
            row_plain(u + row, un + row, x0, x1, sy, sz, alpha, beta);
          }
        }
      }
#if LAPLACE_NT
    /* Streaming stores are weakly ordered: drain them before the loop's barrier lets another
     * thread (or MPI, or a copy to the GPU) read the planes. */
    if (nt) _mm_sfence();
#endif
  }
}

void laplace_cpu_sweep(const laplace_params *p, const laplace_block *b, const double *u, double *un, int l0,
                       int l1, int threads, const laplace_cpu_block *k) {
  if (l1 <= l0) return;
#pragma omp parallel num_threads(threads)
  laplace_cpu_sweep_rows(p, b, u, un, l0, l1, k);
}

void laplace_cpu_sweep_box(const laplace_params *p, const laplace_block *b, const double *u, double *un,
                           int i0, int i1, int j0, int j1, int l0, int l1, int threads,
                           const laplace_cpu_block *k) {
  if (l1 <= l0 || i1 <= i0 || j1 <= j0) return;
#pragma omp parallel num_threads(threads)
  laplace_cpu_sweep_box_rows(p, b, u, un, i0, i1, j0, j1, l0, l1, k);
}

void laplace_cpu_sweep_layer(const laplace_params *p, const laplace_block *b, const double *u, double *un,
                             const int side[LAPLACE_FACES], int threads, const laplace_cpu_block *k) {
  int part[LAPLACE_FACES][6];
  const int nparts = laplace_layer_parts(b, side, part);
  /* The layer's points are read right after (packed, or sent from the field): ordinary
   * stores keep them in cache. */
  const laplace_cpu_block lk = {k->bx, k->by, 0};
#pragma omp parallel num_threads(threads)
  for (int q = 0; q < nparts; ++q) {
    const int *r = part[q];
    laplace_cpu_sweep_box_rows(p, b, u, un, r[0], r[1], r[2], r[3], r[4], r[5], &lk);
  }
}

/* The tuner's memory: the last choice, and the grid and team it was made for. */
static laplace_cpu_block chosen;
static int chosen_valid, chosen_key[4];
static laplace_cpu_block used;
static int used_valid;

int laplace_cpu_block_used(laplace_cpu_block *k) {
  if (used_valid) *k = used;
  return used_valid;
}

/* One sweep's time with kernel k, the slowest rank's (collective). */
static double time_sweep(const laplace_params *p, const laplace_block *b, const double *u, double *un, int l0,
                         int l1, int threads, const laplace_cpu_block *k) {
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = kit_now();
  laplace_cpu_sweep(p, b, u, un, l0, l1, threads, k);
  double t = kit_now() - t0, slowest = 0.0;
  KIT_MPI_CHECK(MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return slowest;
}

laplace_cpu_block laplace_cpu_block_resolve(const laplace_cpu_block *request, const kit_env *env,
                                            const laplace_params *p, const laplace_block *b, const double *u,
                                            double *un, int l0, int l1, int threads) {
  if (request->by >= 0) {
    /* What will run: the pencil clamped to the grid, streaming only where the build has it. */
    used = request->by == 0
               ? (laplace_cpu_block){0, 0, 0}
               : (laplace_cpu_block){clamp(request->bx, 1, b->nx > 0 ? b->nx : 1),
                                     clamp(request->by, 1, b->ny > 0 ? b->ny : 1), request->nt && LAPLACE_NT};
    used_valid = 1;
    return used;
  }
  /* Every rank must take the same branch: ranks' slabs differ, so agree on "seen before". */
  const int key[4] = {b->nx, b->ny, l1 - l0, threads};
  int seen = chosen_valid && memcmp(key, chosen_key, sizeof key) == 0, all_seen = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&seen, &all_seen, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  if (all_seen) {
    used = chosen;
    used_valid = 1;
    return used;
  }
  /* The candidates depend on nx and ny only: the largest box's, so that every rank has the
   * same list even where a process grid splits x or y unevenly (the sweep clamps a pencil to
   * its box). Off comes first, so a tie keeps today's kernel. */
  const int local[2] = {b->nx, b->ny};
  int big[2];
  KIT_MPI_CHECK(MPI_Allreduce(local, big, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  laplace_cpu_block cand[2 + 2 * 5];
  int n = 0;
  cand[n++] = (laplace_cpu_block){0, 0, 0};
  const int rows[5] = {8, 16, 32, 64, big[1]};
  for (int r = 0; r < 5; ++r) {
    if (r < 4 && rows[r] >= big[1]) continue;
    for (int nt = 0; nt <= LAPLACE_NT; ++nt) cand[n++] = (laplace_cpu_block){big[0], rows[r], nt};
  }
  laplace_cpu_sweep(p, b, u, un, l0, l1, threads, &cand[0]); /* warms the caches and the pages */
  /* Two rounds over all candidates, the better sweep of each: a burst of load from elsewhere
   * then spoils one sweep of several candidates rather than both of one. */
  double t[sizeof cand / sizeof *cand];
  for (int round = 0; round < 2; ++round)
    for (int c = 0; c < n; ++c) {
      const double s = time_sweep(p, b, u, un, l0, l1, threads, &cand[c]);
      if (round == 0 || s < t[c]) t[c] = s;
    }
  int best = 0;
  for (int c = 1; c < n; ++c)
    if (t[c] < t[best]) best = c;
  char name[64];
  kit_log(env,
          "laplace: cpu block auto: %s, %.4g ms a sweep (off %.4g ms; best of 2 sweeps of %d kernels, %d %s)",
          laplace_cpu_block_name(&cand[best], name, sizeof name), t[best] * 1e3, t[0] * 1e3, n, threads,
          threads == 1 ? "thread" : "threads");
  chosen = used = cand[best];
  memcpy(chosen_key, key, sizeof key);
  chosen_valid = used_valid = 1;
  return used;
}
