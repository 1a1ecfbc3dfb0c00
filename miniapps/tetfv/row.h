/* row.h: the physics of one cell update and the tetrahedron geometry, written once for the
 * CPU oracle, the cpu variant, the hybrid's CPU part and the GPU kernels (static inline KIT_HD).
 * Paper III Sec. 2 (`../shared/seeds/001_5c64d68c2bfeada2.txt`): one explicit step is
 * u_new = D u_old + A u_old[I], D the diagonal, A and I padded N x 16 arrays. The 16 terms are
 * summed in one fixed order (slot 0 to 15) after the diagonal, so every variant, rank count and
 * cell ordering that keeps a row's slots in place gives the same bits (KIT_EXACT: no FMA). */
#ifndef TETFV_ROW_H
#define TETFV_ROW_H
#include <stddef.h>

#include "kit/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pi, spelled out: strict C11 has no M_PI. */
#define TETFV_PI 3.14159265358979323846

/* Off-diagonal slots per row: 4 face neighbours and up to 12 second-level neighbours. */
#define TETFV_W 16

/* Row i of the step, its slots read `stride` apart: 17 multiplications and 16 additions
 * (Paper III's 33 flops), the diagonal term first, then slot 0 to 15. The CPU stores a row's
 * slots side by side (stride 1); the GPU stores blocks of TETFV_GPU_B rows column-major (stride
 * TETFV_GPU_B, gpu_block.h), so the same expression, in the same order, gives the same bits.
 * Unused slots hold weight 0 and the row's own index, so they read a value already in cache. */
static inline KIT_HD double tetfv_row_at(double d, const double *a, const int *c, int stride, const double *u,
                                         int i) {
  double v = d * u[i];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int j = 0; j < TETFV_W; ++j) v += a[(size_t)j * (size_t)stride] * u[c[(size_t)j * (size_t)stride]];
  return v;
}

/* Row i of the step, row-major storage (a row's slots contiguous). */
static inline KIT_HD double tetfv_row(const double *D, const double *A, const int *I, const double *u,
                                      int i) {
  return tetfv_row_at(D[i], A + (size_t)TETFV_W * (size_t)i, I + (size_t)TETFV_W * (size_t)i, 1, u, i);
}

/* Six times the signed volume of tetrahedron (p0, p1, p2, p3): positive when p3 lies on the
 * side of triangle (p0, p1, p2) its right-hand normal points to (gmsh's orientation). */
static inline KIT_HD double tetfv_det6(const double *p0, const double *p1, const double *p2,
                                       const double *p3) {
  const double a[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  const double b[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
  const double c[3] = {p3[0] - p0[0], p3[1] - p0[1], p3[2] - p0[2]};
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* Area-weighted normal (b - a) x (c - a) / 2 of triangle (a, b, c): its length is the area. */
static inline KIT_HD void tetfv_area_normal(const double *a, const double *b, const double *c, double *n) {
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  n[0] = 0.5 * (u[1] * v[2] - u[2] * v[1]);
  n[1] = 0.5 * (u[2] * v[0] - u[0] * v[2]);
  n[2] = 0.5 * (u[0] * v[1] - u[1] * v[0]);
}

#ifdef __cplusplus
}
#endif
#endif
