/* kit/procgrid.h: process grids (--procs PxQxR, Sourouri Paper II's 2D and 3D decompositions;
 * Risso Sec. 4.1-4.4's 3D blocks): P ranks along x, Q along y, R along z. Rank r sits at
 * coordinates (px, py, pz) with r = (px*Q + py)*R + pz: z fastest, so 1x1xN is the z-slab
 * order every app had before (rank r holds the r-th slab). Each axis is split as
 * kit_block_split splits z: the first n % P ranks along it get one cell more. Neighbours are
 * looked up in any of the 26 directions of a 3D block (6 faces, 12 edges, 8 corners); what
 * travels through each is the app's business (laplace: the 6 faces; lbm's D3Q19: 6 faces and
 * 12 edges). No periodic axes: a direction that leaves the grid has no neighbour. */
#ifndef KIT_PROCGRID_H
#define KIT_PROCGRID_H
#include <mpi.h>
#include <stddef.h>

#include "kit/boxsplit.h"
#include "kit/runtime.h"
#include "kit/slab.h"
#ifdef __cplusplus
extern "C" {
#endif

/* --procs PxQxR into int[3] (a kit_opt_parser): three integers in [1, 1000000] joined by 'x'. */
int kit_procs_parse(const char *arg, void *dest, char *err, size_t errlen);
/* 1 if the grid splits along z only (1x1xN): the apps' slab code paths. */
int kit_procs_is_slab(const int procs[3]);
/* procs {0, 0, 0} (no --procs given) becomes the default 1x1xnranks; a given grid is kept. */
void kit_procs_resolve(int procs[3], int nranks);
/* The grid's rules for a run of env->nranks ranks on size[3] cells: P*Q*R must be the rank
 * count, and a grid other than 1x1xN needs at least one cell per rank along every axis (a
 * slab's own z rule is the app's). -1 if it can run, else the exit code (2) after one line,
 * "<app>: --procs PxQxR ...", `unit` naming the cells ("points", "cells"). */
int kit_procs_check(const kit_env *env, const char *app, const int procs[3], const int size[3],
                    const char *unit);
void kit_procs_coords(const int procs[3], int rank, int coords[3]);
/* The rank at coords, or MPI_PROC_NULL outside the grid (the domain's edge). */
int kit_procs_rank(const int procs[3], const int coords[3]);
/* Rank `rank`'s share of size[3] cells along each axis: part[d].begin (0-based), part[d].count. */
void kit_procs_split(const int size[3], const int procs[3], int rank, kit_block part[3]);

/* The 27 offsets (dx, dy, dz) in {-1, 0, 1}^3, numbered (dx+1) + 3 (dy+1) + 9 (dz+1); 13 is the
 * rank itself, the other 26 its face (one offset non-zero), edge (two) and corner (three)
 * neighbours. */
#define KIT_PROCS_DIRS 27
#define KIT_PROCS_SELF 13
static inline int kit_procs_dir_index(int dx, int dy, int dz) {
  return (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1);
}
static inline void kit_procs_dir_of(int index, int dir[3]) {
  dir[0] = index % 3 - 1;
  dir[1] = index / 3 % 3 - 1;
  dir[2] = index / 9 - 1;
}
/* The rank at offset dir[3] from `rank`, MPI_PROC_NULL where that leaves the grid. */
int kit_procs_neighbour(const int procs[3], int rank, const int dir[3]);
/* All 27 at once, by kit_procs_dir_index (nbr[KIT_PROCS_SELF] = rank). */
void kit_procs_neighbours(const int procs[3], int rank, int nbr[KIT_PROCS_DIRS]);

/* A grid's gather on rank 0 of comm (collective). Every rank holds its box (part[3], as
 * kit_procs_split gives it) as part[2].count planes, each `comps` components of part[1].count
 * rows of part[0].count cells, `per` doubles per cell; rank 0 gets the whole domain in the same
 * layout (size[2] planes of comps components of size[1] rows of size[0] cells), NULL elsewhere.
 * The boxes must tile the domain (checked: each inside it, their cells adding up to it); one
 * message per plane of a box. Exits (KIT_EXIT_RUNTIME) if they do not. */
double *kit_procs_gather(MPI_Comm comm, const kit_block part[3], const int size[3], int comps, int per,
                         const double *mine);

#ifdef __cplusplus
}
#endif
#endif
