/* cuda_aware.c: does the MPI library take CUDA device pointers? (lbm --halo cuda-aware; Risso
 * Sec. 2.3.1 and 4.2, GPUBufferedScheme). Asked at run time, never assumed from the build:
 *   Open MPI: mpi-ext.h defines MPIX_CUDA_AWARE_SUPPORT (1 when built with CUDA) and declares
 *             MPIX_Query_cuda_support(), which says whether this run has it;
 *   MPICH >= 4.0: mpi.h declares MPIX_Query_cuda_support() (1 when built with a GPU library
 *             and GPU support is on: MPIR_CVAR_ENABLE_GPU);
 *   anything else (MPICH 3, derivatives that say neither): treated as not CUDA-aware.
 * A library that is not CUDA-aware would read a device pointer as host memory and crash or
 * send garbage, so the driver skips the run (exit 77) rather than trying. */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#include "lbm.h"

int lbm_mpi_cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
#if MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0; /* Open MPI built without CUDA */
#endif
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000 && !defined(OPEN_MPI)
  return MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}
