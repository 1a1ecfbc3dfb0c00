/* kernels.h: the particles GPU kernels, reached only through these extern "C" launchers
 * (DESIGN.md Sec. 9). Each checks its launch and returns; the work runs on `stream`. An empty
 * range launches nothing. Particle indices are int on the device (the cell matrix rows are
 * int, as in cpu.c): gpu_tile.c refuses more than INT_MAX particles on one device.
 * Bernaschi et al. Sec. 3.2; see README.md in this folder. */
#ifndef PARTICLES_KERNELS_H
#define PARTICLES_KERNELS_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "binning.h"
#include "walls.h"

#ifdef __cplusplus
extern "C" {
#endif

/* status[] of the drift kernel: leavers written, particles lost (moved beyond the shell),
 * reflections off the walls, particles the wall rule could not reflect (moved more than one
 * voxel), and the smallest id lost and not reflected. The caller zeroes the counters
 * [0, PT_ST_LOST_ID) and sets the two ids to all ones before the launch. */
enum {
  PT_ST_LEAVERS = 0,
  PT_ST_LOST = 1,
  PT_ST_WALL_HITS = 2,
  PT_ST_UNREFLECTED = 3,
  PT_ST_LOST_ID = 4,
  PT_ST_UNREFLECTED_ID = 5,
  PT_ST_N = 6
};

/* Half kick and drift of particles [0, n) (lj.h's vv_kick, vv_drift); with walls (w.mask, in
 * device memory, not NULL: an irregular domain) walls.h's pt_wall_reflect, as cpu.c calls it
 * after every drift; then binning (binning.h): cell[i] = its owned cell; one that moved into
 * an external cell (first_external and above) leaves: its record (id x y z vx vy vz cell, 8
 * doubles) goes to leave[] at a slot taken with an atomic counter (the host sorts them by id)
 * and cell[i] = -1, as does one lost. */
void launch_pt_kick_drift_bin(int n, const int64_t *id, double *x, double *v, const double *f, double half_dt,
                              double dt, pt_walls w, pt_binner b, int first_external, int *cell,
                              double *leave, unsigned long long *status, cudaStream_t stream);

/* The cell matrix, a counting sort by cell (Sec. 3.2.1): count[c] += 1 for every particle of
 * [0, n) with cell[c] >= 0 (count zeroed by the caller). */
void launch_pt_count(int n, const int *cell, int *count, cudaStream_t stream);
/* Device temporary storage an exclusive scan of n ints needs (CUB), and the scan: out[i] =
 * in[0] + ... + in[i-1]. Integer sums: exact in any order. */
size_t pt_scan_temp_bytes(int n);
void launch_pt_scan(const int *in, int *out, int n, void *temp, size_t temp_bytes, cudaStream_t stream);
/* perm[cstart[c] + k] = i for the k-th particle of cell c to claim a slot (fill zeroed). The
 * slot order within a cell is the atomics' and varies; sort_rows fixes it. */
void launch_pt_scatter(int n, const int *cell, const int *cstart, int *fill, int *perm, cudaStream_t stream);
/* Sorts every row [cstart[c], cstart[c+1]) of perm, c < ncells, by id[perm[.]]: the order
 * inside a cell is then by id, whatever the atomics did (ids in a cell are distinct). */
void launch_pt_sort_rows(int ncells, const int *cstart, const int64_t *id, int *perm, cudaStream_t stream);
/* dst[s] = src[perm[s]] for id, x, v, cell, s < n. */
void launch_pt_gather(int n, const int *perm, const int64_t *id, const double *x, const double *v,
                      const int *cell, int64_t *id2, double *x2, double *v2, int *cell2, cudaStream_t stream);

/* Forces, energy and virial of particles [i0, i1) (owned, sorted by cell): lj_force_on (lj.h),
 * one thread per particle, no atomics. */
void launch_pt_forces(int i0, int i1, const int *cell, const double *x, const int *nbr, const int *cstart,
                      double rc2, double eshift, double *f, double *pe, double *vir, cudaStream_t stream);
/* Second half kick of particles [0, n). */
void launch_pt_kick(int n, double *v, const double *f, double half_dt, cudaStream_t stream);
/* One thermo row (PT_TH_* order: pe, ke, virial, px, py, pz) of particles [0, n) into row[6],
 * by a fixed reduction tree (partials: PT_THERMO_PARTIALS x 6 doubles): the same bits every
 * run for the same particles in the same order. */
#define PT_THERMO_PARTIALS 256
void launch_pt_thermo(int n, const double *v, const double *pe, const double *vir, double *partials,
                      double *row, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
