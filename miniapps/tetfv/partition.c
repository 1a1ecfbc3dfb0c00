/* partition.c: the hierarchy of Paper III Sec. 3.1-3.2 as far as the CPU needs it. METIS
 * k-way partitioning of the cell dual graph over the MPI ranks; on each rank the cells are
 * permuted so that the MPI separator (cells some other rank reads) is one contiguous block of
 * rows computed first, the interior follows, and the ghost cells are received into one
 * contiguous range per neighbour; the interior rows are reordered for cache reuse ("we use the
 * partitioner for a third time to reorder the tetrahedra in the interior computation parts",
 * blocks of 512 on the CPU), or by reverse Cuthill-McKee. The separator is not reordered
 * ("they invariably access neighbors outside the current device"). A row's slots keep their
 * order, so the ordering never changes a single bit of the result. tetfv_partition_rows is the
 * second tier for the GPUs of a multi-thread process, and for those of a hybrid one after the
 * CPU took its rows (split.c renumbers the rows it assigns). */
#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/graph_part.h"
#include "tetfv.h"

/* A CSR graph. */
typedef struct graph {
  int n;
  idx_t *xadj, *adj;
} graph;

static void graph_free(graph *g) {
  free(g->xadj);
  free(g->adj);
}

int tetfv_partition(const tetfv_mesh *m, int nparts, int *part, char *err, size_t errlen) {
  /* The cell dual graph (face neighbours) split by the kit's METIS wrapper (kit/graph_part.h). */
  const int n = m->ncells;
  int *xadj = kit_malloc(((size_t)n + 1) * sizeof *xadj, "dual graph");
  int *adj = kit_malloc(((size_t)n * 4 + 1) * sizeof *adj, "dual graph");
  xadj[0] = 0;
  for (int c = 0; c < n; ++c) {
    int e = xadj[c];
    for (int f = 0; f < 4; ++f)
      if (m->nbr[4 * (size_t)c + f] >= 0) adj[e++] = m->nbr[4 * (size_t)c + f];
    xadj[c + 1] = e;
  }
  const kit_graph g = {n, xadj, adj, NULL};
  const int rc = kit_graph_part(&g, nparts <= 1 ? 1 : nparts, 1, part, NULL, err, errlen);
  free(xadj);
  free(adj);
  return rc;
}

/* (peer, global cell) pairs, sorted and made unique. */
typedef struct pair {
  int peer, cell;
} pair;

static int cmp_pair(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
  return x->cell < y->cell ? -1 : x->cell > y->cell;
}

static size_t sort_unique(pair *p, size_t n) {
  if (n == 0) return 0;
  qsort(p, n, sizeof *p, cmp_pair);
  size_t k = 1;
  for (size_t i = 1; i < n; ++i)
    if (cmp_pair(p + i, p + k - 1) != 0) p[k++] = p[i];
  return k;
}

/* Peers of a sorted pair list: fills peer[] and off[] (npeer + 1 entries), returns npeer. */
static int peers_of(const pair *p, size_t n, int **peer, int **off) {
  int np = 0;
  for (size_t i = 0; i < n; ++i) np += i == 0 || p[i].peer != p[i - 1].peer;
  *peer = kit_malloc((size_t)(np + 1) * sizeof(int), "peers");
  *off = kit_malloc((size_t)(np + 1) * sizeof(int), "peer offsets");
  int k = 0;
  for (size_t i = 0; i < n; ++i)
    if (i == 0 || p[i].peer != p[i - 1].peer) {
      (*peer)[k] = p[i].peer;
      (*off)[k++] = (int)i;
    }
  (*off)[np] = (int)n;
  return np;
}

/* The symmetric graph of the interior rows [0, n) among themselves, from a local matrix whose
 * interior rows start at row `first`. */
/* The CSR graph of n vertices from its sorted, unique directed edges (peer = from, cell = to). */
static graph csr_of_pairs(const pair *e, size_t ne, int n) {
  graph g = {n, kit_malloc(((size_t)n + 1) * sizeof(idx_t), "row graph"),
             kit_malloc((ne + 1) * sizeof(idx_t), "row graph")};
  size_t k = 0;
  for (int r = 0; r < n; ++r) {
    g.xadj[r] = (idx_t)k;
    while (k < ne && e[k].peer == r) {
      g.adj[k] = e[k].cell;
      ++k;
    }
  }
  g.xadj[n] = (idx_t)k;
  return g;
}

static graph interior_graph(const tetfv_matrix *z, int first, int n) {
  pair *e = kit_malloc(((size_t)n * TETFV_W * 2 + 1) * sizeof *e, "interior graph");
  size_t ne = 0;
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < TETFV_W; ++k) {
      const int c = z->I[(size_t)TETFV_W * (first + r) + k] - first;
      if (c < 0 || c >= n || c == r) continue;
      e[ne++] = (pair){r, c};
      e[ne++] = (pair){c, r};
    }
  graph g = csr_of_pairs(e, sort_unique(e, ne), n);
  free(e);
  return g;
}

/* Reverse Cuthill-McKee: breadth-first from a minimum-degree vertex of each component,
 * neighbours by ascending degree, the whole order reversed. order[new] = old. */
static void rcm(const graph *g, int *order) {
  const int n = g->n;
  char *seen = calloc((size_t)n + 1, 1);
  int *nb = kit_malloc(64 * sizeof(int), "rcm");
  if (!seen) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  int head = 0, tail = 0;
  for (;;) {
    int start = -1;
    for (int v = 0; v < n; ++v)
      if (!seen[v] && (start < 0 || g->xadj[v + 1] - g->xadj[v] < g->xadj[start + 1] - g->xadj[start]))
        start = v;
    if (start < 0) break;
    seen[start] = 1;
    order[tail++] = start;
    while (head < tail) {
      const int v = order[head++];
      int k = 0;
      for (idx_t e = g->xadj[v]; e < g->xadj[v + 1] && k < 64; ++e)
        if (!seen[g->adj[e]]) {
          seen[g->adj[e]] = 1;
          nb[k++] = (int)g->adj[e];
        }
      /* Insertion sort by degree (k <= 16 in practice), index breaking ties. */
      for (int a = 1; a < k; ++a) {
        const int x = nb[a];
        const idx_t dx = g->xadj[x + 1] - g->xadj[x];
        int b = a - 1;
        while (b >= 0 && (g->xadj[nb[b] + 1] - g->xadj[nb[b]] > dx ||
                          (g->xadj[nb[b] + 1] - g->xadj[nb[b]] == dx && nb[b] > x))) {
          nb[b + 1] = nb[b];
          --b;
        }
        nb[b + 1] = x;
      }
      for (int a = 0; a < k; ++a) order[tail++] = nb[a];
    }
  }
  for (int a = 0, b = n - 1; a < b; ++a, --b) {
    const int t = order[a];
    order[a] = order[b];
    order[b] = t;
  }
  free(seen);
  free(nb);
}

/* METIS blocks of about `block` rows (Paper III Sec. 3.2), each block in its old order. */
static void metis_blocks(const graph *g, int block, int *order) {
  const int n = g->n;
  const int nb = (n + block - 1) / block;
  for (int v = 0; v < n; ++v) order[v] = v;
  if (nb <= 1) return;
  idx_t nv = n, ncon = 1, np = nb, cut = 0, opt[METIS_NOPTIONS];
  idx_t *where = kit_malloc((size_t)n * sizeof(idx_t), "blocks");
  METIS_SetDefaultOptions(opt);
  opt[METIS_OPTION_SEED] = 1;
  opt[METIS_OPTION_NUMBERING] = 0;
  if (METIS_PartGraphKway(&nv, &ncon, g->xadj, g->adj, NULL, NULL, NULL, &np, NULL, NULL, opt, &cut, where) !=
      METIS_OK)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "METIS_PartGraphKway failed ordering %d interior cells", n);
  /* Counting sort by block: stable, so each block keeps the old order. */
  int *start = calloc((size_t)nb + 1, sizeof(int));
  if (!start) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  for (int v = 0; v < n; ++v) start[where[v] + 1]++;
  for (int b = 0; b < nb; ++b) start[b + 1] += start[b];
  for (int v = 0; v < n; ++v) order[start[where[v]]++] = v;
  free(start);
  free(where);
}

void tetfv_local_build(const tetfv_matrix *g, const int *part, int rank, const char *reorder, int block,
                       tetfv_local *l) {
  memset(l, 0, sizeof *l);
  const int n = g->n;
  /* What this rank sends: its cells that rows of other ranks read; what it receives: the
   * cells of other ranks its own rows read. Every rank derives both from the same global
   * matrix, so the two sides of each message agree on its contents and order. */
  size_t ns = 0, nr = 0, cs = 1024, cr = 1024;
  pair *snd = kit_malloc(cs * sizeof *snd, "send lists"),
       *rcv = kit_malloc(cr * sizeof *rcv, "receive lists");
  int nown = 0;
  for (int i = 0; i < n; ++i) {
    const int mine = part[i] == rank;
    nown += mine;
    for (int k = 0; k < TETFV_W; ++k) {
      const int c = g->I[(size_t)TETFV_W * i + k];
      if (mine && part[c] != rank) {
        if (nr == cr && !(rcv = realloc(rcv, (cr *= 2) * sizeof *rcv)))
          kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of memory");
        rcv[nr++] = (pair){part[c], c};
      } else if (!mine && part[c] == rank) {
        if (ns == cs && !(snd = realloc(snd, (cs *= 2) * sizeof *snd)))
          kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of memory");
        snd[ns++] = (pair){part[i], c};
      }
    }
  }
  ns = sort_unique(snd, ns);
  nr = sort_unique(rcv, nr);
  l->nown = nown;
  l->nghost = (int)nr;
  l->gid = kit_malloc(((size_t)nown + nr + 1) * sizeof(int), "local cells");
  int *g2l = kit_malloc(((size_t)n + 1) * sizeof(int), "global to local");
  for (int i = 0; i < n; ++i) g2l[i] = -1;
  char *sep = calloc((size_t)n + 1, 1);
  if (!sep) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  for (size_t k = 0; k < ns; ++k) sep[snd[k].cell] = 1;
  /* Separator first, then the interior, each in global order for now. */
  int q = 0;
  for (int i = 0; i < n; ++i)
    if (part[i] == rank && sep[i]) l->gid[q++] = i;
  l->nsep = q;
  for (int i = 0; i < n; ++i)
    if (part[i] == rank && !sep[i]) l->gid[q++] = i;
  for (size_t k = 0; k < nr; ++k) l->gid[q++] = rcv[k].cell;
  for (int a = 0; a < nown + l->nghost; ++a) g2l[l->gid[a]] = a;
  /* The local matrix: rows copied slot for slot, columns renumbered. */
  tetfv_matrix_alloc(&l->m, nown);
  for (int r = 0; r < nown; ++r) {
    const int i = l->gid[r];
    l->m.D[r] = g->D[i];
    for (int k = 0; k < TETFV_W; ++k) {
      l->m.A[(size_t)TETFV_W * r + k] = g->A[(size_t)TETFV_W * i + k];
      l->m.I[(size_t)TETFV_W * r + k] = g2l[g->I[(size_t)TETFV_W * i + k]];
    }
  }
  /* The interior order for cache reuse. */
  const int nint = nown - l->nsep;
  if (nint > 1 && strcmp(reorder, "none") != 0) {
    graph ig = interior_graph(&l->m, l->nsep, nint);
    int *order = kit_malloc((size_t)nint * sizeof(int), "interior order");
    if (strcmp(reorder, "rcm") == 0)
      rcm(&ig, order);
    else
      metis_blocks(&ig, block, order);
    graph_free(&ig);
    /* Apply: new local row nsep + a was old local row nsep + order[a]. */
    int *newpos = kit_malloc(((size_t)nown + l->nghost + 1) * sizeof(int), "renumbering");
    for (int a = 0; a < nown + l->nghost; ++a) newpos[a] = a;
    for (int a = 0; a < nint; ++a) newpos[l->nsep + order[a]] = l->nsep + a;
    tetfv_matrix old = l->m;
    int *oldgid = l->gid;
    tetfv_matrix_alloc(&l->m, nown);
    l->gid = kit_malloc(((size_t)nown + l->nghost + 1) * sizeof(int), "local cells");
    for (int a = 0; a < nown + l->nghost; ++a) l->gid[newpos[a]] = oldgid[a];
    for (int r = 0; r < nown; ++r) {
      const int to = newpos[r];
      l->m.D[to] = old.D[r];
      for (int k = 0; k < TETFV_W; ++k) {
        l->m.A[(size_t)TETFV_W * to + k] = old.A[(size_t)TETFV_W * r + k];
        l->m.I[(size_t)TETFV_W * to + k] = newpos[old.I[(size_t)TETFV_W * r + k]];
      }
    }
    for (int a = 0; a < nown + l->nghost; ++a) g2l[l->gid[a]] = a;
    tetfv_matrix_free(&old);
    free(oldgid);
    free(newpos);
    free(order);
  }
  /* How far a row reaches within the interior: what the reordering is meant to shrink. */
  double dist = 0.0;
  long cnt = 0;
  for (int r = l->nsep; r < nown; ++r)
    for (int k = 0; k < TETFV_W; ++k) {
      const int c = l->m.I[(size_t)TETFV_W * r + k];
      if (c >= l->nsep && c < nown && c != r) {
        dist += abs(c - r);
        cnt++;
      }
    }
  l->reorder_distance = cnt ? dist / cnt : 0.0;
  /* Send lists (local indices, in the order the receiver's ghost range expects). */
  l->nsend = peers_of(snd, ns, &l->send_peer, &l->send_off);
  l->send_idx = kit_malloc((ns + 1) * sizeof(int), "send lists");
  for (size_t k = 0; k < ns; ++k) l->send_idx[k] = g2l[snd[k].cell];
  l->nrecv = peers_of(rcv, nr, &l->recv_peer, &l->recv_off);
  free(snd);
  free(rcv);
  free(sep);
  free(g2l);
}

void tetfv_local_free(tetfv_local *l) {
  free(l->gid);
  tetfv_matrix_free(&l->m);
  free(l->send_peer);
  free(l->send_off);
  free(l->send_idx);
  free(l->recv_peer);
  free(l->recv_off);
  memset(l, 0, sizeof *l);
}

void tetfv_partition_rows(const tetfv_local *l, int nparts, const char *skip, int *part) {
  const int nown = l->nown;
  /* The rows to split, in local order, and their positions among them. */
  int *rows = kit_malloc(((size_t)nown + 1) * sizeof(int), "device parts");
  int *pos = kit_malloc(((size_t)nown + 1) * sizeof(int), "device parts");
  int n = 0;
  for (int r = 0; r < nown; ++r) {
    part[r] = -1;
    pos[r] = skip && skip[r] ? -1 : n;
    if (pos[r] >= 0) rows[n++] = r;
  }
  int ok = 0;
  if (nparts > 1 && n >= nparts) {
    /* The graph of those rows alone: edges to skipped rows and ghosts are left out. */
    pair *e = kit_malloc(((size_t)n * TETFV_W * 2 + 1) * sizeof *e, "device graph");
    size_t ne = 0;
    for (int a = 0; a < n; ++a)
      for (int k = 0; k < TETFV_W; ++k) {
        const int c = l->m.I[(size_t)TETFV_W * rows[a] + k];
        if (c >= nown || pos[c] < 0 || pos[c] == a) continue;
        e[ne++] = (pair){a, pos[c]};
        e[ne++] = (pair){pos[c], a};
      }
    graph g = csr_of_pairs(e, sort_unique(e, ne), n);
    free(e);
    idx_t nv = n, ncon = 1, np = nparts, cut = 0, opt[METIS_NOPTIONS];
    idx_t *where = kit_malloc(((size_t)n + 1) * sizeof(idx_t), "device parts");
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_SEED] = 1;
    opt[METIS_OPTION_NUMBERING] = 0;
    if (METIS_PartGraphKway(&nv, &ncon, g.xadj, g.adj, NULL, NULL, NULL, &np, NULL, NULL, opt, &cut, where) ==
        METIS_OK) {
      int *count = calloc((size_t)nparts, sizeof(int));
      if (!count) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
      ok = 1;
      for (int a = 0; a < n; ++a) {
        if (where[a] < 0 || where[a] >= nparts)
          ok = 0;
        else
          count[where[a]]++;
      }
      for (int d = 0; d < nparts; ++d) ok = ok && count[d] > 0;
      if (ok)
        for (int a = 0; a < n; ++a) part[rows[a]] = (int)where[a];
      free(count);
    }
    free(where);
    graph_free(&g);
  }
  if (!ok) /* One part, or METIS could not give every part a row: even ranges in local order. */
    for (int d = 0, a = 0; d < nparts; ++d) {
      const int count = n / nparts + (d < n % nparts);
      for (int k = 0; k < count; ++k) part[rows[a++]] = d;
    }
  free(rows);
  free(pos);
}
