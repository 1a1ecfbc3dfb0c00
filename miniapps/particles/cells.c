/* cells.c: the tiling of a rank's subdomain into internal, frontier and external cells, the
 * cell array, the neighbour table and the connection matrix (Bernaschi et al. Sec. 3.2.1).
 * For the periodic box the subdomain of a rank is a block of whole cells of the global
 * tiling (cells of side L / floor(L / rc) >= rc), so:
 *   internal  = owned cells whose 26 neighbours are all owned (property 2: every point is
 *               farther than one cell side >= rc from the subdomain boundary);
 *   frontier  = owned cells with a neighbour that is not owned (property 3);
 *   external  = cells not owned that touch an owned cell (property 4: the one-cell shell).
 * Coordinates are unwrapped, so across a periodic face the shell holds images (coordinate -1
 * and nc) with gids of their own; a rank that spans a whole axis sees its own particles there.
 * An irregular domain (pt_decomp_build_owned) gives the owner of every cell in a map (METIS
 * parts of the occupied cells, geometry.c) instead of the rank grid: the subdomain is any set
 * of cells, nothing is periodic (every shift 0), an empty neighbour beyond a wall makes no cell
 * frontier, and the empty cells touching owned ones are external cells without a connection
 * (so every owned cell keeps 27 neighbours and the force loop needs no test).
 * Every count derived from the box and rc is checked in 64 bits first (pt_check_tiling):
 * an --input header of 65534.5 x 65534.5 x 3.5 at rc 1 once wrapped the int cell count of
 * build() and overflowed the heap (tests/hostile/particles.cmake).
 * Pure code, no MPI: tests/particles checks it on hand-made decompositions. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/slab.h"
#include "lj.h"
#include "particles.h"

int pt_rank_of(const int dims[3], const int coords[3]) {
  return (coords[2] * dims[1] + coords[1]) * dims[0] + coords[0];
}

void pt_owner_coords(const int nc[3], const int dims[3], const int cell[3], int rank_coords[3]) {
  for (int a = 0; a < 3; ++a) {
    /* The blocks are contiguous and ordered: the owner is the last block starting <= cell. */
    int q = 0;
    while (q + 1 < dims[a] && kit_block_split(nc[a], dims[a], q + 1).begin <= cell[a]) ++q;
    rank_coords[a] = q;
  }
}

/* The three below are binning.h's, which the GPU kernels call too: one binning for both. */
int64_t pt_gid(const int nc[3], const int c[3]) {
  return pt_gid_hd(nc, c);
}

int pt_lookup(const pt_decomp *d, int64_t gid) {
  return pt_lookup_hd(d->array, d->ncells, gid);
}

pt_binner pt_binner_of(const pt_params *p, const pt_decomp *d, const pt_cell_entry *cells) {
  pt_binner b;
  for (int a = 0; a < 3; ++a) {
    b.inv_side[a] = p->inv_side[a];
    b.box[a] = p->box[a];
    b.nc[a] = d->nc[a];
  }
  b.ncells = d->ncells;
  b.cells = cells;
  return b;
}

int pt_cell_of(const pt_params *p, const pt_decomp *d, const double x[3]) {
  const pt_binner b = pt_binner_of(p, d, d->array);
  return pt_bin(&b, x);
}

int pt_check_tiling(const pt_params *p, char *err, size_t errlen) {
  /* In double: nc is at most 1e6 per axis (pt_derive_cells), so nothing wraps, and a
   * product above 2^53 is still far above the limits. */
  const double cells = (double)p->nc[0] * p->nc[1] * p->nc[2];
  const double shell = (double)(p->nc[0] + 2) * (p->nc[1] + 2) * (p->nc[2] + 2);
  if (shell > (double)PT_MAX_CELLS) {
    snprintf(err, errlen,
             "--rc %g tiles the box %.6g x %.6g x %.6g into %d x %d x %d cells, "
             "%.3g with their one-cell shell, more than %lld (a larger --rc or a smaller box)",
             p->rc, p->box[0], p->box[1], p->box[2], p->nc[0], p->nc[1], p->nc[2], shell, PT_MAX_CELLS);
    return -1;
  }
  if (cells > (double)PT_SPARSE_CELLS && cells > (double)PT_CELLS_PER_PARTICLE * (double)p->n) {
    snprintf(err, errlen,
             "--rc %g tiles the box %.6g x %.6g x %.6g into %d x %d x %d = %.3g cells for %lld particles, "
             "more than %d cells a particle (a larger --rc or a smaller box)",
             p->rc, p->box[0], p->box[1], p->box[2], p->nc[0], p->nc[1], p->nc[2], cells, p->n,
             PT_CELLS_PER_PARTICLE);
    return -1;
  }
  return 0;
}

double pt_tile_cells_max(const int nc[3], const int dims[3]) {
  double c = 1.0;
  for (int a = 0; a < 3; ++a) c *= (double)(nc[a] / dims[a] + (nc[a] % dims[a] != 0) + 2);
  return c;
}

static int cmp_entry(const void *a, const void *b) {
  const int64_t x = ((const pt_cell_entry *)a)->gid, y = ((const pt_cell_entry *)b)->gid;
  return x < y ? -1 : x > y;
}

static int shift_code(const int s[3]) {
  return (s[0] + 1) + 3 * (s[1] + 1) + 9 * (s[2] + 1);
}

static int cmp_conn(const void *a, const void *b) {
  const pt_conn *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  const int cx = shift_code(x->shift), cy = shift_code(y->shift);
  return cx < cy ? -1 : cx > cy;
}

/* The index of unwrapped cell coordinates c in an owner map, or -1 outside the grid. */
static long long map_index(const pt_decomp *d, const int c[3]) {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= d->nc[a]) return -1;
  return ((long long)c[2] * d->nc[1] + c[1]) * d->nc[0] + c[0];
}

/* The rank owning cell c: -1 for an empty cell or one beyond the grid of an irregular domain. */
static int map_owner(const pt_decomp *d, const int c[3]) {
  const long long i = map_index(d, c);
  return i < 0 ? -1 : d->owner[i];
}

static int owned(const pt_decomp *d, const int c[3]) {
  if (d->owner) return map_owner(d, c) == d->me;
  for (int a = 0; a < 3; ++a)
    if (c[a] < d->lo[a] || c[a] >= d->hi[a]) return 0;
  return 1;
}

/* Some rank owns cell c (in the periodic box every cell and image is someone's). */
static int occupied(const pt_decomp *d, const int c[3]) {
  return d->owner ? map_owner(d, c) >= 0 : 1;
}

/* The owner rank and image shift of a cell outside this rank's block (rank -1: nobody's). */
static pt_conn conn_of(const pt_decomp *d, const int c[3]) {
  pt_conn k;
  int w[3], rc[3];
  if (d->owner) {
    k.rank = map_owner(d, c);
    k.shift[0] = k.shift[1] = k.shift[2] = 0;
    return k;
  }
  for (int a = 0; a < 3; ++a) {
    const int n = d->nc[a];
    w[a] = ((c[a] % n) + n) % n;
    k.shift[a] = (c[a] - w[a]) / n; /* -1, 0 or +1: which periodic image */
  }
  pt_owner_coords(d->nc, d->dims, w, rc);
  k.rank = pt_rank_of(d->dims, rc);
  return k;
}

static int find_conn(const pt_decomp *d, pt_conn k) {
  for (int i = 0; i < d->nconn; ++i)
    if (cmp_conn(&d->conn[i], &k) == 0) return i;
  return -1;
}

static void build(pt_decomp *d);

void pt_decomp_build(pt_decomp *d, const int nc[3], const int dims[3], const int coords[3]) {
  memset(d, 0, sizeof *d);
  for (int a = 0; a < 3; ++a) {
    d->nc[a] = nc[a];
    d->dims[a] = dims[a];
    d->coords[a] = coords[a];
    const kit_block b = kit_block_split(nc[a], dims[a], coords[a]);
    d->lo[a] = b.begin;
    d->hi[a] = b.begin + b.count;
  }
  build(d);
}

void pt_decomp_build_owned(pt_decomp *d, const int nc[3], const int *owner, int me) {
  memset(d, 0, sizeof *d);
  d->owner = owner;
  d->me = me;
  /* lo, hi: the bounding box of the owned cells (empty: lo = hi). */
  for (int a = 0; a < 3; ++a) {
    d->nc[a] = nc[a];
    d->dims[a] = 1;
    d->lo[a] = nc[a];
    d->hi[a] = 0;
  }
  for (int k = 0; k < nc[2]; ++k)
    for (int j = 0; j < nc[1]; ++j)
      for (int i = 0; i < nc[0]; ++i) {
        const int c[3] = {i, j, k};
        if (!owned(d, c)) continue;
        for (int a = 0; a < 3; ++a) {
          if (c[a] < d->lo[a]) d->lo[a] = c[a];
          if (c[a] + 1 > d->hi[a]) d->hi[a] = c[a] + 1;
        }
      }
  for (int a = 0; a < 3; ++a)
    if (d->lo[a] > d->hi[a]) d->lo[a] = d->hi[a] = 0;
  build(d);
  d->owner = NULL; /* the map is the caller's; the tiling no longer needs it */
}

/* The tiling of the cells owned() accepts within [lo, hi), their shell and connections. */
static void build(pt_decomp *d) {
  const int *nc = d->nc;
  int ext[3];
  for (int a = 0; a < 3; ++a) ext[a] = d->hi[a] - d->lo[a] + 2; /* the bounding box plus its shell */
  const int64_t nbox = (int64_t)ext[0] * ext[1] * ext[2];
  /* pt_check_tiling (the box) and pt_geom_setup (walls) refuse larger tilings as input:
   * reaching this is a caller that skipped them, not a size to allocate. */
  if (nbox > PT_MAX_CELLS * 27)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "cell tiling: a tile's box of %d x %d x %d cells exceeds the int indices", ext[0], ext[1],
            ext[2]);
  /* Classify every cell of the extended bounding box. */
  int *group = kit_malloc((size_t)nbox * sizeof *group, "cell groups");
  int count[3] = {0, 0, 0};
  for (int k = 0; k < ext[2]; ++k)
    for (int j = 0; j < ext[1]; ++j)
      for (int i = 0; i < ext[0]; ++i) {
        const int c[3] = {d->lo[0] - 1 + i, d->lo[1] - 1 + j, d->lo[2] - 1 + k};
        int own = owned(d, c), foreign = 0, touches = 0;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              if (!dx && !dy && !dz) continue;
              const int n[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
              const int o = owned(d, n);
              foreign |= !o && occupied(d, n); /* another rank's (or an image): data needed */
              touches |= o;
            }
        const int g = own ? (foreign ? PT_FRONTIER : PT_INTERNAL) : (touches ? PT_EXTERNAL : -1);
        group[((size_t)k * ext[1] + j) * ext[0] + i] = g;
        if (g >= 0) count[g]++;
      }
  d->first[0] = 0;
  d->first[1] = count[0];
  d->first[2] = count[0] + count[1];
  d->first[3] = d->ncells = count[0] + count[1] + count[2];
  if ((int64_t)d->ncells * 27 > INT_MAX) /* the neighbour table's 27 lid + m */
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "cell tiling: %d local cells exceed the int indices",
            d->ncells);
  d->coord = kit_malloc((size_t)d->ncells * 3 * sizeof *d->coord, "cell coordinates");
  d->array = kit_malloc((size_t)d->ncells * sizeof *d->array, "cell array");
  /* Local indices: each group numbered in gid order (the box walk is in gid order). */
  int next[3] = {d->first[0], d->first[1], d->first[2]}, e = 0;
  for (int k = 0; k < ext[2]; ++k)
    for (int j = 0; j < ext[1]; ++j)
      for (int i = 0; i < ext[0]; ++i) {
        const int g = group[((size_t)k * ext[1] + j) * ext[0] + i];
        if (g < 0) continue;
        const int c[3] = {d->lo[0] - 1 + i, d->lo[1] - 1 + j, d->lo[2] - 1 + k};
        const int lid = next[g]++;
        memcpy(d->coord + 3 * lid, c, sizeof c);
        d->array[e].gid = pt_gid(nc, c);
        d->array[e].lid = lid;
        e++;
      }
  free(group);
  qsort(d->array, (size_t)d->ncells, sizeof *d->array, cmp_entry);

  /* Neighbour table of the owned cells: every neighbour is owned or external, so all found. */
  const int nown = d->first[2];
  d->nbr = kit_malloc((size_t)(nown > 0 ? nown : 1) * 27 * sizeof *d->nbr, "cell neighbours");
  for (int lid = 0; lid < nown; ++lid) {
    const int *c = d->coord + 3 * lid;
    int m = 0;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int n[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
          const int l = pt_lookup(d, pt_gid(nc, n));
          if (l < 0)
            kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
                    "cell tiling: a neighbour of an owned cell is missing");
          d->nbr[27 * lid + m++] = l;
        }
  }

  /* Connections: the owners (and images) of the external cells, sorted. */
  const int next_ = count[2];
  d->conn = kit_malloc((size_t)(next_ > 0 ? next_ : 1) * sizeof *d->conn, "connections");
  d->nconn = 0;
  for (int lid = d->first[2]; lid < d->ncells; ++lid) {
    const pt_conn k = conn_of(d, d->coord + 3 * lid);
    if (k.rank >= 0 && find_conn(d, k) < 0) d->conn[d->nconn++] = k;
  }
  qsort(d->conn, (size_t)d->nconn, sizeof *d->conn, cmp_conn);
  d->ext_conn = kit_malloc((size_t)(next_ > 0 ? next_ : 1) * sizeof *d->ext_conn, "external connections");
  for (int lid = d->first[2]; lid < d->ncells; ++lid) {
    const pt_conn k = conn_of(d, d->coord + 3 * lid);
    d->ext_conn[lid - d->first[2]] = k.rank >= 0 ? find_conn(d, k) : -1; /* -1: beyond a wall */
    d->nwall += k.rank < 0;
  }
  d->nbr_ranks = 0;
  for (int i = 0; i < d->nconn; ++i) d->nbr_ranks += i == 0 || d->conn[i].rank != d->conn[i - 1].rank;

  /* The connection matrix: a frontier cell goes to the connections of its external
   * neighbours, each once, in connection order. */
  const int nf = count[1];
  /* A frontier cell has 26 neighbours, so at most 26 connections, however many there are. */
  const int row = d->nconn < 26 ? (d->nconn > 0 ? d->nconn : 1) : 26;
  d->conn_start = kit_malloc((size_t)(nf + 1) * sizeof *d->conn_start, "connection matrix");
  d->conn_list =
      kit_malloc((size_t)(nf > 0 ? nf : 1) * (size_t)row * sizeof *d->conn_list, "connection matrix");
  int *mark = kit_malloc((size_t)(d->nconn > 0 ? d->nconn : 1) * sizeof *mark, "connection marks");
  int pos = 0;
  for (int f = 0; f < nf; ++f) {
    const int lid = d->first[1] + f;
    d->conn_start[f] = pos;
    for (int i = 0; i < d->nconn; ++i) mark[i] = 0;
    for (int m = 0; m < 27; ++m) {
      const int l = d->nbr[27 * lid + m];
      if (pt_group(d, l) == PT_EXTERNAL && d->ext_conn[l - d->first[2]] >= 0)
        mark[d->ext_conn[l - d->first[2]]] = 1;
    }
    for (int i = 0; i < d->nconn; ++i)
      if (mark[i]) d->conn_list[pos++] = i;
  }
  d->conn_start[nf] = pos;
  free(mark);
}

void pt_decomp_free(pt_decomp *d) {
  free(d->coord);
  free(d->array);
  free(d->nbr);
  free(d->conn);
  free(d->conn_start);
  free(d->conn_list);
  free(d->ext_conn);
  memset(d, 0, sizeof *d);
}

/* A copy of n bytes at src (at least one byte allocated, as the builders do). */
static void *dup_bytes(const void *src, size_t n, const char *what) {
  void *d = kit_malloc(n > 0 ? n : 1, what);
  if (n > 0) memcpy(d, src, n);
  return d;
}

void pt_decomp_copy(pt_decomp *dst, const pt_decomp *src) {
  *dst = *src;
  const size_t ncells = (size_t)src->ncells, nown = (size_t)src->first[2], next_ = ncells - nown;
  const size_t nf = (size_t)(src->first[2] - src->first[1]);
  dst->coord = dup_bytes(src->coord, 3 * ncells * sizeof *src->coord, "cell coordinates");
  dst->array = dup_bytes(src->array, ncells * sizeof *src->array, "cell array");
  dst->nbr = dup_bytes(src->nbr, 27 * nown * sizeof *src->nbr, "cell neighbours");
  dst->conn = dup_bytes(src->conn, (size_t)src->nconn * sizeof *src->conn, "connections");
  dst->conn_start = dup_bytes(src->conn_start, (nf + 1) * sizeof *src->conn_start, "connection matrix");
  dst->conn_list =
      dup_bytes(src->conn_list, (size_t)src->conn_start[nf] * sizeof *src->conn_list, "connection matrix");
  dst->ext_conn = dup_bytes(src->ext_conn, next_ * sizeof *src->ext_conn, "external connections");
}

void pt_particles_reserve(pt_particles *s, long long cap) {
  if (cap <= s->cap) return;
  long long c = s->cap > 0 ? s->cap : 64;
  while (c < cap) c *= 2;
  int64_t *id = kit_malloc((size_t)c * sizeof *id, "particle ids");
  double *x = kit_malloc((size_t)c * 3 * sizeof *x, "particle positions");
  double *v = kit_malloc((size_t)c * 3 * sizeof *v, "particle velocities");
  if (s->n > 0) {
    memcpy(id, s->id, (size_t)s->n * sizeof *id);
    memcpy(x, s->x, (size_t)s->n * 3 * sizeof *x);
    memcpy(v, s->v, (size_t)s->n * 3 * sizeof *v);
  }
  free(s->id);
  free(s->x);
  free(s->v);
  s->id = id;
  s->x = x;
  s->v = v;
  s->cap = c;
}

void pt_particles_push(pt_particles *s, int64_t id, const double x[3], const double v[3]) {
  if (s->n == s->cap) pt_particles_reserve(s, s->n + 1);
  s->id[s->n] = id;
  memcpy(s->x + 3 * s->n, x, 3 * sizeof *x);
  memcpy(s->v + 3 * s->n, v, 3 * sizeof *v);
  s->n++;
}

void pt_particles_free(pt_particles *s) {
  free(s->id);
  free(s->x);
  free(s->v);
  memset(s, 0, sizeof *s);
}

/* One particle of the pair search: its wrapped global cell, id and position. */
typedef struct close_entry {
  int64_t cell, id;
  const double *x;
} close_entry;

static int cmp_close(const void *a, const void *b) {
  const close_entry *x = a, *y = b;
  if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The global cell of x, wrapped into [0, nc) per axis (the index over the nc grid). */
static int64_t wrapped_cell(const pt_params *p, const double x[3], int c[3]) {
  for (int a = 0; a < 3; ++a) {
    const int n = p->nc[a];
    c[a] = ((cell_coord(x[a], p->inv_side[a], p->box[a], n) % n) + n) % n;
  }
  return ((int64_t)c[2] * p->nc[1] + c[1]) * p->nc[0] + c[0];
}

static void add_entries(const pt_params *p, const pt_particles *s, close_entry *e, long long *m) {
  for (long long i = 0; s && i < s->n; ++i) {
    int c[3];
    e[*m].cell = wrapped_cell(p, s->x + 3 * i, c);
    e[*m].id = s->id[i];
    e[(*m)++].x = s->x + 3 * i;
  }
}

int pt_close_pair(const pt_params *p, const pt_particles *mine, const pt_particles *near, double rmin,
                  int64_t pair[2], double *dist) {
  const long long total = mine->n + (near ? near->n : 0);
  close_entry *e = kit_malloc((size_t)(total > 0 ? total : 1) * sizeof *e, "pair check");
  long long m = 0;
  add_entries(p, mine, e, &m);
  add_entries(p, near, e, &m);
  qsort(e, (size_t)m, sizeof *e, cmp_close);
  int found = 0;
  for (long long i = 0; i < mine->n; ++i) {
    const double *xi = mine->x + 3 * i;
    int c[3];
    wrapped_cell(p, xi, c);
    /* The 27 cells around (distinct when nc >= 3; each a run of the sorted entries). */
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int off[3] = {dx, dy, dz};
          int w[3];
          for (int a = 0; a < 3; ++a) w[a] = (c[a] + off[a] + p->nc[a]) % p->nc[a];
          const int64_t key = ((int64_t)w[2] * p->nc[1] + w[1]) * p->nc[0] + w[0];
          long long lo = 0, hi = m; /* the first entry of cell key */
          while (lo < hi) {
            const long long mid = lo + (hi - lo) / 2;
            if (e[mid].cell < key)
              lo = mid + 1;
            else
              hi = mid;
          }
          for (long long j = lo; j < m && e[j].cell == key; ++j) {
            if (e[j].id == mine->id[i]) continue;
            double r2 = 0.0;
            for (int a = 0; a < 3; ++a) {
              double t = e[j].x[a] - xi[a]; /* the minimum image */
              if (t > 0.5 * p->box[a]) t -= p->box[a];
              if (t < -0.5 * p->box[a]) t += p->box[a];
              r2 += t * t;
            }
            if (!(r2 < rmin * rmin)) continue;
            const int64_t lo_id = e[j].id < mine->id[i] ? e[j].id : mine->id[i];
            const int64_t hi_id = e[j].id < mine->id[i] ? mine->id[i] : e[j].id;
            if (!found || lo_id < pair[0] || (lo_id == pair[0] && hi_id < pair[1])) {
              pair[0] = lo_id;
              pair[1] = hi_id;
              *dist = sqrt(r2);
            }
            found = 1;
          }
        }
  }
  free(e);
  return found;
}

long long pt_count_frontier(const pt_decomp *d, const int *cstart, pt_traffic *tr) {
  long long sent = 0, all = 0;
  for (int c = d->first[1]; c < d->first[2]; ++c) {
    const int f = c - d->first[1], np = cstart[c + 1] - cstart[c];
    sent += (long long)np * (d->conn_start[f + 1] - d->conn_start[f]);
    all += (long long)np * d->nconn;
  }
  tr->ghosts_sent += sent;
  tr->ghosts_all_nbrs += all;
  return sent;
}
