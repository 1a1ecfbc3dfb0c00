/* nlist.h: the host's Verlet lists (nlist.c) for the cpu variant's --neighbor list: the
 * build over a rank's cell matrix, the per-step order cells of every slot, the displacement
 * test, and the forces in --neighbor cells' order. The per-particle pieces are neighbor.h's
 * KIT_HD functions, which a GPU kernel can call. See README.md, "Neighbour lists". */
#ifndef PARTICLES_NLIST_H
#define PARTICLES_NLIST_H
#include <stddef.h>
#include <stdint.h>

#include "neighbor.h"
#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt_nlist_part pt_nlist_part; /* a build thread's buffers (nlist.c) */

/* A rank's lists. Slots: the owned particles [0, n) and the copies of other ranks' particles
 * [n, slots), as the cpu variant's combined arrays hold them at the build. */
typedef struct pt_nlist {
  pt_order o;
  double rl2;           /* (rc + skin)^2 */
  double half_skin2;    /* (skin / 2)^2: the displacement that calls for a build */
  long long n, slots;   /* owned particles and slots at the last build */
  long long inner;      /* owned [0, inner) were in internal cells: their lists hold owned slots only */
  int *start;           /* n + 1: particle i's list is nbr[start[i] .. start[i + 1]) */
  int *nbr;             /* the lists, in (code, id) order (neighbor.h) */
  int *code;            /* per entry: pt_order_code, as of the last reorder */
  size_t nbr_cap;       /* entries nbr can hold */
  int *kc;              /* 9 per slot: pt_order_cells of its position */
  unsigned char *moved; /* per slot: its order cells changed at the last pt_nlist_cells */
  double *xb;           /* 3 per owned particle: its position at the build */
  long long slot_cap, owned_cap;
  int *kx, *count;      /* a build's scratch: 3 per slot, 1 per owned particle */
  pt_nlist_part *parts; /* a build's per-thread buffers */
  int nparts;
  long long checked; /* distances the last build computed */
} pt_nlist;

/* The order of a problem: its order cells (p->knc) and its box. */
pt_order pt_order_of(const pt_params *p);
/* Sets up empty lists for problem p. */
void pt_nlist_init(pt_nlist *l, const pt_params *p);
void pt_nlist_free(pt_nlist *l);
/* A build: the lists of owned particles [0, n), in (code, id) order, over the cell matrix
 * cstart of tiling d (rows of every local cell, owned particles sorted by cell, the copies
 * behind them at [n, slots)), at positions x where the copies are shifted next to the
 * subdomain as the cells path holds them; cell[i]: the owned particle's cell. OpenMP inside;
 * the lists do not depend on the thread count. */
void pt_nlist_build(pt_nlist *l, const pt_decomp *d, long long n, long long slots, const double *x,
                    const int64_t *id, const int *cstart, const int *cell);
/* Then, once the copies hold their owners' positions unshifted (x): the order cells of every
 * slot and the positions of the build. */
void pt_nlist_positions(pt_nlist *l, const double *x);
/* 1 if an owned particle moved more than skin/2 (nearest image) since the build, or a position
 * is not a number. */
int pt_nlist_far(const pt_nlist *l, const double *x);
/* The order cells of slots [b, e) at positions x; marks those whose cells changed. */
void pt_nlist_cells(pt_nlist *l, long long b, long long e, const double *x);
/* Forces, half pair energies and virials of owned particles [b, e) over their lists, each list
 * first put back in order if it or a neighbour changed order cells (pt_nlist_cells of every slot
 * it holds must have run). f, pe, vir: indexed by particle. */
void pt_nlist_forces(pt_nlist *l, long long b, long long e, const double *x, const int64_t *id, double rc2,
                     double eshift, double *f, double *pe, double *vir);
/* Entries of all lists. */
long long pt_nlist_entries(const pt_nlist *l);

#ifdef __cplusplus
}
#endif
#endif
