/* stencil.h: the physics of one laplace update, written once for C and CUDA.
 * u_new = alpha*u + beta*(u[i+1] + u[j+1] + u[k+1] + u[i-1] + u[j-1] + u[k-1]),
 * summed left to right in exactly that order, so the CPU reference, the hybrid CPU part
 * and every GPU kernel produce the same bits (DESIGN.md Sec. 6; Sourouri Paper II
 * Sec. 2.1 7-point stencil). Arguments are values, not pointers, so a kernel may keep
 * the z-neighbours in registers while the CPU loads them from memory. */
#ifndef LAPLACE_STENCIL_H
#define LAPLACE_STENCIL_H
#include "kit/hd.h"

static inline KIT_HD double laplace_update(double c, double xp, double yp, double zp, double xm, double ym,
                                           double zm, double alpha, double beta) {
  const double s = xp + yp + zp + xm + ym + zm;
  return alpha * c + beta * s;
}

/* The Dirichlet boundary values, also the exact fixed point of the iteration when
 * alpha + 6 beta = 1: g = x + 2y + 3z on the unit cube's grid (i in 0..nx+1). */
static inline KIT_HD double laplace_g(int i, int j, int k, int nx, int ny, int nz) {
  const double x = (double)i / (double)(nx + 1);
  const double y = (double)j / (double)(ny + 1);
  const double z = (double)k / (double)(nz + 1);
  return x + 2.0 * y + 3.0 * z;
}
#endif
