/* walls.h: reflecting walls of an irregular particle domain, written once for C and CUDA.
 * Bernaschi et al. Sec. 3.2 (Fig. 7) confine their particles to a vessel tree; here the
 * geometry is a voxel mask (geometry.c, README.md "Irregular domains") and a particle whose
 * drift ends in a closed voxel (a wall voxel, or outside the mask's grid) is reflected:
 *   for every axis a along which its voxel changed during the step (old voxel o, new n,
 *   |n_a - o_a| = 1), the position is mirrored across the face of voxel o it crossed,
 *   x_a -> 2 F - x_a with F = (o_a + 1) h moving up or o_a h moving down, and v_a -> -v_a.
 * The particle is then back in voxel o, which is open; |v| is unchanged, so reflection
 * conserves the kinetic energy and only the position jump (smaller than one drift) perturbs
 * the potential energy. Only the voxel where the step ends is tested: a step cutting the
 * corner of a closed voxel between two open ones is not reflected (it moves far less than a
 * voxel). The domain is not periodic. cpu.c and the GPU drift kernel (kernels.cu) call it
 * after every drift; reference.c writes the rule out again for the all-pairs integrator. */
#ifndef PARTICLES_WALLS_H
#define PARTICLES_WALLS_H
#include <math.h>
#include <stdint.h>

#include "kit/hd.h"
#include "lj.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The voxel mask, by value (a kernel argument could take it): nv voxels of edge h per axis
 * covering the box [0, nv h), mask[(z nv1 + y) nv0 + x] = 1 for an open voxel. */
typedef struct pt_walls {
  int nv[3];
  double h, inv_h;
  double box[3];
  const unsigned char *mask;
} pt_walls;

/* The voxel coordinate along axis a: lj.h's cell_coord on the voxel grid, so x < 0 gives a
 * coordinate < 0 and x >= box one >= nv (outside the grid: closed). */
static inline KIT_HD int pt_voxel_coord(const pt_walls *w, double x, int a) {
  return cell_coord(x, w->inv_h, w->box[a], w->nv[a]);
}

/* 1 if voxel v is inside the grid and open. */
static inline KIT_HD int pt_voxel_open(const pt_walls *w, const int v[3]) {
  for (int a = 0; a < 3; ++a)
    if (v[a] < 0 || v[a] >= w->nv[a]) return 0;
  return w->mask[((int64_t)v[2] * w->nv[1] + v[1]) * w->nv[0] + v[0]] != 0;
}

/* 1 if position x lies in an open voxel. */
static inline KIT_HD int pt_in_open_voxel(const pt_walls *w, const double x[3]) {
  int v[3];
  for (int a = 0; a < 3; ++a) v[a] = pt_voxel_coord(w, x[a], a);
  return pt_voxel_open(w, v);
}

/* After a drift from x0 to x: 0 if x is in an open voxel, 1 if it was reflected (x, v changed,
 * now in x0's voxel), -1 if the rule cannot apply (x0 not in an open voxel, or the particle
 * moved more than one voxel along an axis: --dt too large or a blown-up run). */
static inline KIT_HD int pt_wall_reflect(const pt_walls *w, const double x0[3], double x[3], double v[3]) {
  int o[3], n[3];
  for (int a = 0; a < 3; ++a) {
    o[a] = pt_voxel_coord(w, x0[a], a);
    n[a] = pt_voxel_coord(w, x[a], a);
  }
  if (pt_voxel_open(w, n)) return 0;
  if (!pt_voxel_open(w, o)) return -1;
  for (int a = 0; a < 3; ++a) {
    const int d = n[a] - o[a];
    if (d == 0) continue;
    if (d > 1 || d < -1) return -1;
    const double face = (double)(d > 0 ? o[a] + 1 : o[a]) * w->h;
    x[a] = 2.0 * face - x[a];
    v[a] = -v[a];
    /* The mirror image can round onto the face itself, which may bin into voxel n: step it
     * back into o by ulps (a few at most). HUGE_VAL, a double: C++ (nvcc) then calls
     * nextafter(double, double), which the device has, not a host-only template. */
    for (int k = 0; k < 8 && pt_voxel_coord(w, x[a], a) != o[a]; ++k)
      x[a] = nextafter(x[a], pt_voxel_coord(w, x[a], a) > o[a] ? -HUGE_VAL : HUGE_VAL);
    if (pt_voxel_coord(w, x[a], a) != o[a]) return -1;
  }
  return 1;
}

#ifdef __cplusplus
}
#endif
#endif
