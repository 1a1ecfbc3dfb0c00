/* cpu_kernel.h: the tuned host sweep of Sourouri Paper II Sec. 3.1: pencil (cache) blocking,
 * non-temporal stores and a small auto-tuner, for the `cpu` variant and the `hybrid`
 * variant's CPU part. Every point is still computed by laplace_update (stencil.h) from the
 * same seven values, so any block shape, store kind and thread count gives the bits of
 * laplace_sweep_rows (grid.c), the kernel `--cpu-block off` keeps. See README.md in this
 * folder, "The tuned CPU kernel". */
#ifndef LAPLACE_CPU_KERNEL_H
#define LAPLACE_CPU_KERNEL_H
#include <stddef.h>

#include "laplace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* laplace_cpu_block, the kernel a host sweep runs: laplace.h (it is a parameter, --cpu-block). */

/* 1 when this build has non-temporal stores (x86 with SSE2); nt is ignored otherwise. */
int laplace_cpu_nt_available(void);

/* --cpu-block BXxBY[+nt]|auto|off into a laplace_cpu_block (a kit_opt_parser). */
int laplace_parse_cpu_block(const char *arg, void *dest, char *err, size_t errlen);
/* "auto", "off", "BXxBY" or "BXxBY+nt". */
const char *laplace_cpu_block_name(const laplace_cpu_block *k, char *buf, size_t n);

/* One sweep over local planes [l0, l1) with kernel k, as a worksharing loop over the innermost
 * enclosing OpenMP team (call from every thread of it; serial without a team). */
void laplace_cpu_sweep_rows(const laplace_params *p, const laplace_block *b, const double *u, double *un,
                            int l0, int l1, const laplace_cpu_block *k);
/* The same in a parallel region of `threads` threads (laplace_sweep_host with a kernel). */
void laplace_cpu_sweep(const laplace_params *p, const laplace_block *b, const double *u, double *un, int l0,
                       int l1, int threads, const laplace_cpu_block *k);

/* The same on a part of the planes: points [i0, i1) of rows [j0, j1) of planes [l0, l1) (local
 * indices, interior 1..n), each computed as the whole sweep computes it, so sweeping the parts
 * of any partition of a box writes the whole sweep's bits. The threads split the part's rows;
 * pencils are clamped to the part. The orphaned form, then the one with its own team. */
void laplace_cpu_sweep_box_rows(const laplace_params *p, const laplace_block *b, const double *u, double *un,
                                int i0, int i1, int j0, int j1, int l0, int l1, const laplace_cpu_block *k);
void laplace_cpu_sweep_box(const laplace_params *p, const laplace_block *b, const double *u, double *un,
                           int i0, int i1, int j0, int j1, int l0, int l1, int threads,
                           const laplace_cpu_block *k);

/* A process grid's overlap (cpu.c): the outer layer's sweep (laplace_layer_parts, laplace.h),
 * in one team of `threads` threads, with k's pencils and ordinary stores; the inner box
 * (laplace_inner_box) is the rest. */
void laplace_cpu_sweep_layer(const laplace_params *p, const laplace_block *b, const double *u, double *un,
                             const int side[LAPLACE_FACES], int threads, const laplace_cpu_block *k);

/* The kernel a variant uses: the request itself (clamped to the grid, nt dropped where the
 * build has no streaming stores) unless it is auto. For auto, the fastest of a few candidates:
 * off, and pencils of whole rows by 8, 16, 32, 64 rows (those thinner than the grid) or by the
 * whole plane, each with and without non-temporal stores. Each is timed for two sweeps of
 * planes [l0, l1) u -> un with `threads` threads: the better of the two, each the slowest
 * rank's time. Collective over MPI_COMM_WORLD: every rank calls it and gets the same answer.
 * un's interior planes [l0, l1) are overwritten. Rank 0 prints the choice on stderr; a later
 * call on the same grid and thread count (hybrid's calibration set-ups) returns it again
 * without timing or printing. laplace_cpu_block_used reports the result. */
laplace_cpu_block laplace_cpu_block_resolve(const laplace_cpu_block *request, const kit_env *env,
                                            const laplace_params *p, const laplace_block *b, const double *u,
                                            double *un, int l0, int l1, int threads);
/* The kernel the last laplace_cpu_block_resolve chose; 0 if none ran in this process. */
int laplace_cpu_block_used(laplace_cpu_block *k);

#ifdef __cplusplus
}
#endif
#endif
