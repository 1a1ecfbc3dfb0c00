/* frontier.h: the host side of the GPU variants' communication (frontier.c): migrants out
 * and in (Bernaschi et al. Sec. 3.2.2) and frontier copies out and in (Sec. 3.2.1), between
 * host arrays and exchange.c's plans. The GPU variants keep the particles on the device and
 * bring only the leavers and the frontier cells' particles to the host; these functions turn
 * them into messages and what arrives into arrays ready for the device, in the same records
 * and the same order as cpu.c, so a copy of a particle is the same bits on every path. Pure
 * C (no CUDA): a CPU-only build compiles and unit-tests it (tests/particles). */
#ifndef PARTICLES_FRONTIER_H
#define PARTICLES_FRONTIER_H
#include "exchange.h"
#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PT_GHOST_W 4   /* a frontier copy on the wire: id x y z */
#define PT_MIGRANT_W 7 /* a migrant on the wire: id x y z vx vy vz */
#define PT_LEAVER_W 8  /* a leaver as the GPU drift kernel writes it: id x y z vx vy vz cell */

/* Particles with their local cells (the migrants that arrived, or a tile's initial set). */
typedef struct pt_set {
  long long n, cap;
  int64_t *id;
  double *x, *v; /* 3 per particle */
  int *cell;
} pt_set;
void pt_set_reserve(pt_set *s, long long cap); /* keeps the first n */
void pt_set_free(pt_set *s);

/* The received frontier copies that passed the filter, sorted by (external cell, id), and
 * the counts per external cell; scratch for the sort. Kept between steps so the stale-halo
 * fault can place old copies again. */
typedef struct pt_ghosts {
  long long n, cap;
  int64_t *id;
  double *x;
  int *cell;
  int *count;     /* per external cell (lid - first[2]), then a prefix: the rows */
  int next;       /* external cells */
  long long scap; /* scratch */
  int64_t *sid;
  double *sx;
  int *scell;
  long long *at, atcap;     /* scratch: each connection's first copy */
  long long *kept, keptcap; /* scratch: each filter block's first kept copy */
} pt_ghosts;
void pt_ghosts_free(pt_ghosts *g);

/* Sorts m leaver records (PT_LEAVER_W doubles each) by id, so the messages built from them
 * do not depend on the order a GPU's atomics gave them. */
void pt_sort_leavers(double *rec, long long m);
/* Empties the plan, then queues each leaver over the connection owning its external cell,
 * shifted into the receiver's frame exactly as cpu.c does; counts them in tr->migrated. */
void pt_pack_migrants(const pt_params *p, const pt_decomp *d, const double *rec, long long m, px_plan *migr,
                      pt_traffic *tr);
/* Appends the migrants received in the plan to `arr` with their cells; the membership test
 * of Sec. 3.2.2 (an owned cell) drops the others, as cpu.c (the count check would show it). */
void pt_unpack_migrants(const pt_params *p, const pt_decomp *d, const px_plan *migr, pt_set *arr);
/* Empties the plan, then queues the particles of every frontier cell, rows cstart[], ids and
 * positions in id[]/x[] (indexed as the cell matrix), to the connections of the cell's row of
 * the connection matrix only; counts what is sent and what sending to all would have. */
void pt_pack_frontier(const pt_params *p, const pt_decomp *d, const int *cstart, const int64_t *id,
                      const double *x, px_plan *ghost, pt_traffic *tr);
/* The received copies: keeps those in external cells (counting the others in
 * tr->ghosts_discarded), sorted by (cell, id). */
void pt_unpack_ghosts(const pt_params *p, const pt_decomp *d, const px_plan *ghost, pt_ghosts *g,
                      pt_traffic *tr);
/* Writes the copies behind `base` owned particles, id[base ..] and x[3 base ..], and the rows
 * of the external cells, cstart[first[2] .. ncells] (cstart[first[2]] = base). */
void pt_place_ghosts(const pt_decomp *d, const pt_ghosts *g, long long base, int64_t *id, double *x,
                     int *cstart);

#ifdef __cplusplus
}
#endif
#endif
