/* nlist.c: the host's Verlet lists (nlist.h) for the cpu variant's --neighbor list. A build
 * walks the 27 cells (of side >= rc + skin) around each owned particle with neighbor.h's
 * pt_list_build_one, which also puts each list in order; each thread takes a contiguous range
 * of particles into buffers of its own, joined in particle order: the lists do not depend on
 * the thread count. Between builds, pt_nlist_cells finds the slots whose order cells changed,
 * and pt_nlist_forces puts back in order the lists that hold one before summing them. See
 * README.md, "Neighbour lists". */
#include "nlist.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"

pt_order pt_order_of(const pt_params *p) {
  pt_order o;
  for (int a = 0; a < 3; ++a) {
    o.inv_side[a] = p->kinv_side[a];
    o.box[a] = p->box[a];
    o.half[a] = 0.5 * p->box[a];
    o.nc[a] = p->knc[a];
  }
  o.periodic = p->geom == NULL;
  return o;
}

void pt_nlist_init(pt_nlist *l, const pt_params *p) {
  memset(l, 0, sizeof *l);
  l->o = pt_order_of(p);
  l->rl2 = p->rl2;
  l->half_skin2 = 0.25 * p->skin * p->skin;
}

static void parts_free(pt_nlist *l);

void pt_nlist_free(pt_nlist *l) {
  parts_free(l);
  free(l->start);
  free(l->nbr);
  free(l->code);
  free(l->kx);
  free(l->count);
  free(l->kc);
  free(l->moved);
  free(l->xb);
  memset(l, 0, sizeof *l);
}

static void *grow(void *old, size_t bytes, const char *what) {
  free(old);
  return kit_malloc(bytes > 0 ? bytes : 1, what);
}

/* Room for `slots` slots and `n` owned particles (contents not kept). */
static void reserve(pt_nlist *l, long long n, long long slots) {
  if (slots > l->slot_cap) {
    long long c = l->slot_cap > 0 ? l->slot_cap : 1024;
    while (c < slots) c *= 2;
    l->kc = grow(l->kc, (size_t)c * 9 * sizeof *l->kc, "neighbour lists");
    l->kx = grow(l->kx, (size_t)c * 3 * sizeof *l->kx, "neighbour lists");
    l->moved = grow(l->moved, (size_t)c, "neighbour lists");
    l->slot_cap = c;
  }
  if (n > l->owned_cap) {
    long long c = l->owned_cap > 0 ? l->owned_cap : 1024;
    while (c < n) c *= 2;
    l->start = grow(l->start, (size_t)(c + 1) * sizeof *l->start, "neighbour lists");
    l->xb = grow(l->xb, (size_t)c * 3 * sizeof *l->xb, "neighbour lists");
    l->count = grow(l->count, (size_t)c * sizeof *l->count, "neighbour lists");
    l->owned_cap = c;
  }
}

/* One thread's part of a build: its lists in buffers of its own, kept from build to build
 * (they only grow: no page faults for fresh memory at every build). */
struct pt_nlist_part {
  int *buf, *cbuf, *list, *code, *tl, *tc;
  size_t used, cap;
  int scr; /* entries list, code, tl and tc hold */
  long long checked;
};

static void part_scratch(pt_nlist_part *b, int entries) {
  free(b->list), free(b->code), free(b->tl), free(b->tc);
  b->scr = entries;
  b->list = kit_malloc((size_t)entries * sizeof *b->list, "neighbour lists");
  b->code = kit_malloc((size_t)entries * sizeof *b->code, "neighbour lists");
  b->tl = kit_malloc((size_t)entries * sizeof *b->tl, "neighbour lists");
  b->tc = kit_malloc((size_t)entries * sizeof *b->tc, "neighbour lists");
}

static void part_room(pt_nlist_part *b, size_t need) {
  if (need <= b->cap) return;
  size_t c = b->cap > 0 ? b->cap : 4096;
  while (c < need) c *= 2;
  int *nb = kit_malloc(c * sizeof *nb, "neighbour lists"),
      *nc = kit_malloc(c * sizeof *nc, "neighbour lists");
  if (b->used) {
    memcpy(nb, b->buf, b->used * sizeof *nb);
    memcpy(nc, b->cbuf, b->used * sizeof *nc);
  }
  free(b->buf);
  free(b->cbuf);
  b->buf = nb;
  b->cbuf = nc;
  b->cap = c;
}

static void parts_free(pt_nlist *l) {
  for (int t = 0; t < l->nparts; ++t) {
    pt_nlist_part *b = &l->parts[t];
    free(b->buf), free(b->cbuf), free(b->list), free(b->code), free(b->tl), free(b->tc);
  }
  free(l->parts);
  l->parts = NULL;
  l->nparts = 0;
}

void pt_nlist_build(pt_nlist *l, const pt_decomp *d, long long n, long long slots, const double *x,
                    const int64_t *id, const int *cstart, const int *cell) {
  reserve(l, n > 0 ? n : 1, slots); /* start[0] even for a rank without particles */
  l->n = n;
  l->slots = slots;
  l->inner = cstart[d->first[1]]; /* the owned rows of the internal cells come first */
  const int nt = omp_get_max_threads();
  if (nt != l->nparts) {
    parts_free(l);
    l->parts = calloc((size_t)nt, sizeof *l->parts);
    if (!l->parts)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory for the neighbour lists");
    l->nparts = nt;
    for (int t = 0; t < nt; ++t) part_scratch(&l->parts[t], 256);
  }
  int *kx = l->kx, *count = l->count;
  size_t total = 0;
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    /* The order cell of every slot as it is held: a copy's is that of its image here, the
     * one the cells path bins and sums (kc, pt_nlist_positions, holds all three images of the
     * unshifted position). */
#pragma omp for schedule(static)
    for (long long j = 0; j < slots; ++j)
      for (int a = 0; a < 3; ++a)
        kx[3 * j + a] = cell_coord(x[3 * j + a], l->o.inv_side[a], l->o.box[a], l->o.nc[a]);
    const long long i0 = n * t / T, i1 = n * (t + 1) / T;
    pt_nlist_part *b = &l->parts[t];
    int bucket[PT_ORDER_CODES + 1];
    b->used = 0;
    b->checked = 0;
    for (long long i = i0; i < i1; ++i) {
      long long tested = 0;
      int m = pt_list_build_one((int)i, cell[i], x, kx, id, d->nbr, cstart, l->rl2, b->list, b->code, 1,
                                b->scr, b->tl, b->tc, bucket, &tested);
      if (m > b->scr) { /* a crowded neighbourhood: larger scratch, and again */
        int e = b->scr;
        while (e < m) e *= 2;
        part_scratch(b, e);
        tested = 0;
        m = pt_list_build_one((int)i, cell[i], x, kx, id, d->nbr, cstart, l->rl2, b->list, b->code, 1, b->scr,
                              b->tl, b->tc, bucket, &tested);
      }
      b->checked += tested;
      part_room(b, b->used + (size_t)m);
      memcpy(b->buf + b->used, b->list, (size_t)m * sizeof *b->list);
      memcpy(b->cbuf + b->used, b->code, (size_t)m * sizeof *b->code);
      b->used += (size_t)m;
      count[i] = m;
    }
#pragma omp barrier
#pragma omp single
    {
      /* The parts join in particle order: offsets, room, the lists' starts. */
      l->checked = 0;
      for (int q = 0; q < T; ++q) {
        total += l->parts[q].used;
        l->checked += l->parts[q].checked;
      }
      if (total > (size_t)2147483647)
        kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%zu list entries on one rank exceed the int offsets",
                total);
      if (total > l->nbr_cap) {
        size_t c = total + total / 4;
        l->nbr = grow(l->nbr, c * sizeof *l->nbr, "neighbour lists");
        l->code = grow(l->code, c * sizeof *l->code, "neighbour lists");
        l->nbr_cap = c;
      }
      l->start[0] = 0;
      for (long long i = 0; i < n; ++i) l->start[i + 1] = l->start[i] + count[i];
    }
    if (b->used) {
      memcpy(l->nbr + l->start[i0], b->buf, b->used * sizeof *l->nbr);
      memcpy(l->code + l->start[i0], b->cbuf, b->used * sizeof *l->code);
    }
  }
}

void pt_nlist_positions(pt_nlist *l, const double *x) {
  const long long slots = l->slots;
#pragma omp parallel for schedule(static)
  for (long long j = 0; j < slots; ++j) {
    pt_order_cells(&l->o, x + 3 * j, l->kc + 9 * j);
    l->moved[j] = 0;
  }
  if (l->n > 0) memcpy(l->xb, x, (size_t)l->n * 3 * sizeof *x);
}

int pt_nlist_far(const pt_nlist *l, const double *x) {
  const long long n = l->n;
  int far = 0;
#pragma omp parallel for schedule(static) reduction(max : far)
  for (long long i = 0; i < n; ++i)
    if (pt_list_far_one(&l->o, x + 3 * i, l->xb + 3 * i, l->half_skin2)) far = 1;
  return far;
}

void pt_nlist_cells(pt_nlist *l, long long b, long long e, const double *x) {
#pragma omp parallel for schedule(static)
  for (long long j = b; j < e; ++j)
    l->moved[j] = (unsigned char)pt_order_cells_update(&l->o, x + 3 * j, l->kc + 9 * j);
}

void pt_nlist_forces(pt_nlist *l, long long b, long long e, const double *x, const int64_t *id, double rc2,
                     double eshift, double *f, double *pe, double *vir) {
  const pt_order *o = &l->o;
  const int *start = l->start, *kc = l->kc;
  const unsigned char *moved = l->moved;
  int *nbr = l->nbr, *code = l->code;
#pragma omp parallel for schedule(dynamic, 64)
  for (long long i = b; i < e; ++i) {
    const int s0 = start[i], s1 = start[i + 1];
    /* A neighbour in another order cell moves in the order (and all of them when i changed
     * cells, or was wrapped across a face); then the sum, in (code, id) order. */
    pt_list_reorder(o, (int)i, x, kc, moved, id, nbr, code, 1, s0, s1);
    lj_force_list((int)i, x, nbr, 1, s0, s1, o, rc2, eshift, f + 3 * i, pe + i, vir + i);
  }
}

long long pt_nlist_entries(const pt_nlist *l) {
  return l->n > 0 ? l->start[l->n] : 0;
}
