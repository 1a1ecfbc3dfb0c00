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
#include "neighbor.h"
#include "walls.h"

#ifdef __cplusplus
extern "C" {
#endif

/* status[] of the drift kernel: leavers written, particles lost (moved beyond the shell),
 * reflections off the walls, particles the wall rule could not reflect (moved more than one
 * voxel), particles wrapped round the periodic box on the device, particles that moved more
 * than skin/2 since the last list build (--neighbor list), and the smallest id lost and not
 * reflected. The caller zeroes the counters [0, PT_ST_LOST_ID) and sets the two ids
 * to all ones before the launch. */
enum {
  PT_ST_LEAVERS = 0,
  PT_ST_LOST = 1,
  PT_ST_WALL_HITS = 2,
  PT_ST_UNREFLECTED = 3,
  PT_ST_WRAPPED = 4,
  PT_ST_FAR = 5,
  PT_ST_LOST_ID = 6,
  PT_ST_UNREFLECTED_ID = 7,
  PT_ST_N = 8
};

/* Half kick and drift of particles [0, n) (lj.h's vv_kick, vv_drift); with walls (w.mask, in
 * device memory, not NULL: an irregular domain) walls.h's pt_wall_reflect, as cpu.c calls it
 * after every drift; then binning (binning.h): cell[i] = its owned cell; one that moved into
 * an external cell (first_external and above) leaves: its record (id x y z vx vy vz cell, 8
 * doubles) goes to leave[] at a slot taken with an atomic counter (the host sorts them by id)
 * and cell[i] = -1, as does one lost. wrap (NULL: none): 4 ints per external cell, {1, shift}
 * where its connection is this rank itself: a particle moving there is wrapped in place
 * (images.h's pt_wrap_migrant) and counted in PT_ST_WRAPPED instead of leaving. */
void launch_pt_kick_drift_bin(int n, const int64_t *id, double *x, double *v, const double *f, double half_dt,
                              double dt, pt_walls w, pt_binner b, int first_external, const int *wrap,
                              int *cell, double *leave, unsigned long long *status, cudaStream_t stream);

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

/* One rank's own periodic images (images.h, gpu_tile.c), pair q = (frontier cell, a shift
 * to this rank itself), 4 ints each in pair[]: cell, shift x, y, z.
 * len[q] = the particles of the pair's cell (cstart's row), len[npairs] = 0: scanned into
 * each pair's first candidate. */
void launch_pt_image_lengths(int npairs, const int *pair, const int *cstart, int *len, cudaStream_t stream);
/* Candidate off[q] + k is the copy of the k-th particle of pair q's cell over its shift
 * (pt_image_of): cand_id, cand_x (3 each), cand_src (the particle copied) and cand_e, the
 * external cell (from first_external) it falls in or -1 (dropped). One thread per pair. */
void launch_pt_image_candidates(int npairs, const int *pair, const int *off, const int *cstart,
                                const int64_t *id, const double *x, pt_binner b, int first_external,
                                int64_t *cand_id, double *cand_x, int *cand_src, int *cand_e,
                                cudaStream_t stream);
/* The kept candidates, perm[] ordered by (external cell, id) by the counting sort over
 * rows[] (ne + 1 entries, rows[ne] kept in all), placed behind the `base` owned particles:
 * x[3 (base + s) ..] = cand_x[3 perm[s] ..], id[base + s] and src[s] (the particle it copies)
 * for s < rows[ne], and the external cells' rows cstart_ext[e] = base + rows[e] for
 * 1 <= e <= ne (cstart_ext = cstart + first_external; its entry 0, the owned count, is left
 * alone: a bulk force kernel may be reading it). ncand: the candidates (an upper bound of
 * rows[ne], read on the device). */
void launch_pt_place_images(int ncand, int ne, const int *rows, const int *perm, const double *cand_x,
                            const int64_t *cand_id, const int *cand_src, int base, double *x, int64_t *id,
                            int *src, int *cstart_ext, cudaStream_t stream);

/* --neighbor list on a rank alone in the periodic box (neighbor.h's functions, gpu_tile.c):
 * between builds the particles keep their slots and wrap in place; a build sorts them by
 * cell, makes the images and the lists, whose entries then name the particles themselves
 * (the copies of a rank alone are its own particles, src[] above).
 * Binning only (a build's sort): cell[i] = its owned cell, or -1 counted in PT_ST_LOST. */
void launch_pt_bin(int n, const int64_t *id, const double *x, pt_binner b, int first_external, int *cell,
                   unsigned long long *status, cudaStream_t stream);
/* Half kick and drift, then a particle outside [0, L) wrapped in place (pt_migrant_coord, as
 * cpu.c's list step) and PT_ST_FAR counted if it moved more than skin/2 (nearest image) since
 * xb, or is not a number. */
void launch_pt_kick_drift_wrap(int n, double *x, double *v, const double *f, double half_dt, double dt,
                               pt_order o, const double *xb, double half_skin2, unsigned long long *status,
                               cudaStream_t stream);
/* kx[3 j + a]: the order cell coordinates of slots [0, nslots) as held (a build's codes). */
void launch_pt_order_slots(int nslots, const double *x, pt_order o, int *kx, cudaStream_t stream);
/* The lists of owned particles [0, n), transposed (neighbor.h's layout st: entry k of particle
 * i at list[k st + i], st >= n), each the slots within sqrt(rl2) of the 27 cells around its
 * cell in (code, id) order (pt_list_build_one's lists), every copy's slot (>= n) replaced by the
 * particle it copies, src[slot - n]; kx: pt_order_slots. count[i] = the length; a list longer
 * than cap is only counted. stat[0] += every length, stat[1] = the longest (stat zeroed by the
 * caller). A warp per particle; pt_list_build_shared(cap) bytes of shared memory a block. */
void launch_pt_list_build(int n, const int *cell, const double *x, const int *kx, const int64_t *id,
                          const int *nbr, const int *cstart, double rl2, int cap, int st, int *count,
                          int *list, int *code, const int *src, unsigned long long *stat,
                          cudaStream_t stream);
size_t pt_list_build_shared(int cap);
/* Its warps per block, and the shared memory a block has besides (each warp's 27 cells' rows
 * and candidate offsets): a block needs pt_list_build_shared(cap) + PT_LIST_BUILD_STATIC. */
#define PT_LIST_BUILD_WARPS 4
#define PT_LIST_BUILD_STATIC (2 * PT_LIST_BUILD_WARPS * 27 * sizeof(int))
/* After a build: kc = pt_order_cells of particles [0, n), moved = 0, xb = x. */
void launch_pt_list_positions(int n, const double *x, pt_order o, int *kc, unsigned char *moved, double *xb,
                              cudaStream_t stream);
/* Between builds: kc of particles [0, n) at x, moved[i] = 1 where they changed. */
void launch_pt_list_cells(int n, const double *x, pt_order o, int *kc, unsigned char *moved,
                          cudaStream_t stream);
/* Forces of particles [i0, i1) over their lists (count[i] entries, layout st), each first put back in order
 * (pt_list_reorder), then summed (lj_force_list): nlist.c's pt_nlist_forces, thread per
 * particle. */
void launch_pt_list_forces(int i0, int i1, const double *x, pt_order o, const int *kc,
                           const unsigned char *moved, const int64_t *id, const int *count, int st, int *list,
                           int *code, double rc2, double eshift, double *f, double *pe, double *vir,
                           cudaStream_t stream);

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
