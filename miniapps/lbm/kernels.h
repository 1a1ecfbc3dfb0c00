/* kernels.h: the lbm GPU kernel, reached only through this extern "C" launcher
 * (DESIGN.md Sec. 9). It checks the launch and returns; work runs on `stream`. */
#ifndef LBM_KERNELS_H
#define LBM_KERNELS_H
#include <cuda_runtime_api.h>

#include "d3q19.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One update (pull streaming + BGK collision, d3q19.h) of local planes [l0, l1): f -> fn. */
void launch_lbm_update(const lbm_geom *g, const double *f, double *fn, int l0, int l1, double omega, double Fx,
                       double Fy, double Fz, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
