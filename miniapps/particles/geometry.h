/* geometry.h: irregular particle domains (geometry.c): a voxel mask read from a file or the
 * built-in branching tube, the lattice sites inside it, its occupied cutoff-cells and their
 * METIS partition over the ranks. Bernaschi et al. Sec. 3.2 simulate particles in a coronary
 * tree (Fig. 7) split by PT-SCOTCH/METIS; the tube stands in for that tree. README.md
 * ("Irregular domains") documents the mask format and the refusals. */
#ifndef PARTICLES_GEOMETRY_H
#define PARTICLES_GEOMETRY_H
#include <stddef.h>
#include <stdint.h>

#include "particles.h"
#include "walls.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt_geom {
  int nv[3];           /* voxels per axis */
  double h;            /* voxel edge */
  unsigned char *mask; /* nv0 nv1 nv2 flags, x fastest: 1 open, 0 wall */
  uint32_t checksum;   /* FNV-1a of nv, h and the mask: a checkpoint's geometry */
  /* Filled by pt_geom_setup: */
  long long nsites;   /* lattice sites in open voxels: the particles */
  int64_t *site;      /* the fcc site of particle id (sites in order) */
  int ncells;         /* global cells nc0 nc1 nc2 */
  int nocc;           /* occupied cells: those holding some open voxel */
  int *one_owner;     /* per cell: 0 if occupied, -1 if empty (the single-rank owner map) */
  int *sites_in_cell; /* per cell: particles at step 0 (METIS vertex weights) */
} pt_geom;

/* Reads a voxel mask file (README.md: format). Returns 0, or -1 with "line L: reason" in err. */
int pt_geom_read(const char *path, pt_geom *g, char *err, size_t errlen);
/* The built-in branching tube on a grid of vox voxels of edge h: a trunk along x that splits
 * into two branches (a Y in the x-y plane), README.md gives the radii. */
void pt_geom_tube(pt_geom *g, const int vox[3], double h);
/* Limits of pt_geom_setup, which scans every site of the lattice over the box: a lattice of
 * more sites, or a tiling of more cells (26 neighbours each must fit an int), is refused. */
#define PT_GEOM_MAX_SITES 100000000LL
#define PT_GEOM_MAX_CELLS (1 << 26)
/* Derives the box (nv h), the fcc lattice over it (p->cells: unit cells of edge (4/rho)^(1/3)
 * that fit), the cells, the sites in open voxels (p->n) and the occupied cells; sets p->geom.
 * Returns 0, or -1 with the reason in err (fewer than 2 sites, no cell of side >= rc, a
 * lattice or tiling above the limits). */
int pt_geom_setup(pt_params *p, pt_geom *g, char *err, size_t errlen);
/* The single-rank owner map of a tiling of nc cells per axis (inv_side = nc / box): 0 for
 * every cell that holds part of an open voxel, -1 for the others (pt_geom_setup's one_owner;
 * the oracle of a --neighbor list run needs it for the finer cells of side >= rc). */
void pt_geom_occupied(const pt_geom *g, const int nc[3], const double inv_side[3], const double box[3],
                      int *one_owner);
/* The walls of g (walls.h) for a box of edges nv h. */
pt_walls pt_walls_of(const pt_geom *g, const double box[3]);
/* METIS k-way partition of the occupied cells (26-neighbour graph, vertex weight = particles
 * at step 0, seed 1) into nparts: owner[cell] = rank, -1 for the empty cells. Returns 0, or
 * -1 with the reason in err (METIS failed, a part left without a cell). *edge_cut: the
 * graph edges between parts. */
int pt_geom_partition(const pt_geom *g, const int nc[3], int nparts, int *owner, long long *edge_cut,
                      char *err, size_t errlen);
void pt_geom_free(pt_geom *g);

#ifdef __cplusplus
}
#endif
#endif
