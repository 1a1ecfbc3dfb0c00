/* kernels.h: the lbm GPU kernels, reached only through these extern "C" launchers
 * (DESIGN.md Sec. 9). It checks the launch and returns; work runs on `stream`. */
#ifndef LBM_KERNELS_H
#define LBM_KERNELS_H
#include <cuda_runtime_api.h>

#include "box.h"
#include "d3q19.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One update (pull streaming + BGK collision, d3q19.h) of local planes [l0, l1): f -> fn. */
void launch_lbm_update(const lbm_geom *g, const double *f, double *fn, int l0, int l1, double omega,
                       double Fx, double Fy, double Fz, cudaStream_t stream);

/* Gather the LBM_ZQ populations of local plane l that cross a z-face upwards (up = 1) or
 * downwards into the packed buffer buf (LBM_ZQ * plane doubles, lbm_face_offset's order),
 * and scatter such a buffer back into a plane (Risso Sec. 4.2, Listing 4.1: one kernel per
 * face instead of one copy per population). */
void launch_lbm_pack(const double *f, double *buf, size_t plane, size_t qs, int l, int up,
                     cudaStream_t stream);
void launch_lbm_unpack(double *f, const double *buf, size_t plane, size_t qs, int l, int up,
                       cudaStream_t stream);

/* A process grid's box (box.h): one update of local cells [lo, hi) per axis, f -> fn, each cell
 * as lbm_box_update computes it; and link n's message between the lattice f and the packed
 * buffer buf (ghost 0: the interior layer's outgoing populations, ghost 1: the ghost layer's
 * incoming ones; to_buf 1 packs, 0 unpacks), lbm_box_link_offset's order. */
void launch_lbm_box_update(const lbm_box *b, const double *f, double *fn, const int lo[3], const int hi[3],
                           double omega, double Fx, double Fy, double Fz, cudaStream_t stream);
void launch_lbm_box_link_copy(const lbm_box *b, double *f, int n, int ghost, double *buf, int to_buf,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
