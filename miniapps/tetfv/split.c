/* split.c: the second tier of Paper III's hierarchical partitioning (Sec. 3.1, Fig. 1 right)
 * and the blocked GPU storage (Sec. 3.2). A rank's rows are given to its devices (the GPUs of a
 * multi-thread process; the GPU and the CPU cores of a hybrid rank; the one GPU of naive and
 * two-stream) and renumbered so that each device's rows are one contiguous range, its rows
 * grouped by category (tetfv.h): rows other ranks read, rows other devices read, rows that read
 * ghosts or other devices' rows, and the bulk that only reads its own device's rows. A GPU then
 * computes its boundary categories first and copies one contiguous range to each reader, while
 * its bulk computes on another stream. Rows move whole (their slots in order), so no bit of the
 * result changes. Used by two_stream.c, multi_thread.c and hybrid.c; tested in
 * tests/tetfv/test_tetfv.cpp (tetfvSplit, tetfvBlocked). */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "tetfv.h"

static int *ints(size_t n, const char *what) {
  return kit_malloc((n + 1) * sizeof(int), what);
}

void tetfv_split_build(const tetfv_local *l, int ndev, const int *dev, tetfv_split *s) {
  memset(s, 0, sizeof *s);
  const int nown = l->nown, nghost = l->nghost;
  s->ndev = ndev;
  s->reads = calloc((size_t)ndev * ndev + 1, 1);
  s->reads_ghosts = calloc((size_t)ndev + 1, 1);
  char *sent = calloc((size_t)nown + 1, 1), *exported = calloc((size_t)nown + 1, 1),
       *imports = calloc((size_t)nown + 1, 1);
  if (!s->reads || !s->reads_ghosts || !sent || !exported || !imports)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  /* What every row is: sent to other ranks, read by another device, reading ghosts or another
   * device's rows. Padding slots name the row itself, so they never mark anything. */
  for (int k = 0; k < l->send_off[l->nsend]; ++k) sent[l->send_idx[k]] = 1;
  for (int r = 0; r < nown; ++r)
    for (int j = 0; j < TETFV_W; ++j) {
      const int c = l->m.I[(size_t)TETFV_W * r + j];
      if (c >= nown) {
        imports[r] = 1;
        s->reads_ghosts[dev[r]] = 1;
      } else if (dev[c] != dev[r]) {
        imports[r] = 1;
        exported[c] = 1;
        s->reads[dev[r] * ndev + dev[c]] = 1;
      }
    }
  /* A stable counting sort by (device, category): each category keeps the rank's order. */
  const int nkey = ndev * TETFV_NCAT;
  int *key = ints((size_t)nown, "split keys");
  s->cut = calloc((size_t)nkey + 1, sizeof(int));
  if (!s->cut) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  for (int r = 0; r < nown; ++r) {
    int cat = TETFV_CAT_BULK;
    if (sent[r] && !exported[r])
      cat = TETFV_CAT_MPI;
    else if (sent[r])
      cat = TETFV_CAT_BOTH;
    else if (exported[r])
      cat = TETFV_CAT_DEV;
    else if (imports[r])
      cat = TETFV_CAT_IMPORT;
    key[r] = dev[r] * TETFV_NCAT + cat;
    s->cut[key[r] + 1]++;
  }
  for (int k = 0; k < nkey; ++k) s->cut[k + 1] += s->cut[k];
  int *next = ints((size_t)nkey, "split cursors");
  memcpy(next, s->cut, (size_t)nkey * sizeof(int));
  s->newpos = ints((size_t)nown, "split permutation");
  for (int r = 0; r < nown; ++r) s->newpos[r] = next[key[r]]++;

  /* The renumbered part: rows moved whole, their columns renamed, ghosts in place. */
  tetfv_local *o = &s->l;
  o->nown = nown;
  o->nghost = nghost;
  o->nsep = 0;
  for (int r = 0; r < nown; ++r) o->nsep += sent[r]; /* rows other ranks read (not a prefix here) */
  o->gid = ints((size_t)nown + nghost, "split cells");
  for (int r = 0; r < nown; ++r) o->gid[s->newpos[r]] = l->gid[r];
  for (int a = nown; a < nown + nghost; ++a) o->gid[a] = l->gid[a];
  tetfv_matrix_alloc(&o->m, nown);
  for (int r = 0; r < nown; ++r) {
    const size_t to = (size_t)s->newpos[r], from = (size_t)r;
    o->m.D[to] = l->m.D[from];
    for (int j = 0; j < TETFV_W; ++j) {
      const int c = l->m.I[TETFV_W * from + j];
      o->m.A[TETFV_W * to + j] = l->m.A[TETFV_W * from + j];
      o->m.I[TETFV_W * to + j] = c < nown ? s->newpos[c] : c;
    }
  }
  o->nsend = l->nsend;
  o->nrecv = l->nrecv;
  const int nsent = l->send_off[l->nsend];
  o->send_peer = ints((size_t)l->nsend, "split peers");
  o->send_off = ints((size_t)l->nsend + 1, "split offsets");
  o->send_idx = ints((size_t)nsent, "split send lists");
  o->recv_peer = ints((size_t)l->nrecv, "split peers");
  o->recv_off = ints((size_t)l->nrecv + 1, "split offsets");
  memcpy(o->send_peer, l->send_peer, (size_t)l->nsend * sizeof(int));
  memcpy(o->send_off, l->send_off, ((size_t)l->nsend + 1) * sizeof(int));
  for (int k = 0; k < nsent; ++k) o->send_idx[k] = s->newpos[l->send_idx[k]];
  memcpy(o->recv_peer, l->recv_peer, (size_t)l->nrecv * sizeof(int));
  memcpy(o->recv_off, l->recv_off, ((size_t)l->nrecv + 1) * sizeof(int));
  o->reorder_distance = l->reorder_distance;
  free(key);
  free(next);
  free(sent);
  free(exported);
  free(imports);
}

void tetfv_split_free(tetfv_split *s) {
  tetfv_local_free(&s->l);
  free(s->newpos);
  free(s->cut);
  free(s->reads);
  free(s->reads_ghosts);
  memset(s, 0, sizeof *s);
}

void tetfv_split_unpermute(const tetfv_split *s, const double *in, double *out) {
  for (int r = 0; r < s->l.nown; ++r) out[r] = in[s->newpos[r]];
}

void tetfv_split_permute(const tetfv_split *s, const double *in, double *out) {
  for (int r = 0; r < s->l.nown; ++r) out[s->newpos[r]] = in[r];
  for (int a = s->l.nown; a < s->l.nown + s->l.nghost; ++a) out[a] = in[a];
}

void tetfv_assign_cpu_rows(const tetfv_local *l, int ncpu, int *dev) {
  const int n = l->nown;
  for (int r = 0; r < n; ++r) dev[r] = 0;
  if (ncpu <= 0) return;
  if (ncpu > n) ncpu = n;
  int *queue = ints((size_t)n, "cpu rows");
  char *seen = calloc((size_t)n + 1, 1);
  if (!seen) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  int tail = 0, head = 0;
  /* Seeds: the rows other ranks read, in local order. */
  for (int k = 0; k < l->send_off[l->nsend]; ++k) {
    const int r = l->send_idx[k];
    if (!seen[r]) {
      seen[r] = 1;
      queue[tail++] = r;
    }
  }
  int scan = 0; /* where to look for a new seed when a component is exhausted */
  while (head < ncpu) {
    if (head == tail) { /* one rank (no separator) or a finished component: next unseen row */
      while (seen[scan]) ++scan;
      seen[scan] = 1;
      queue[tail++] = scan;
    }
    const int r = queue[head++];
    for (int j = 0; j < TETFV_W; ++j) {
      const int c = l->m.I[(size_t)TETFV_W * r + j];
      if (c < n && !seen[c]) {
        seen[c] = 1;
        queue[tail++] = c;
      }
    }
  }
  for (int k = 0; k < ncpu; ++k) dev[queue[k]] = 1;
  free(queue);
  free(seen);
}

void tetfv_assign_hybrid_rows(const tetfv_local *l, int ngpu, int ncpu, int *dev) {
  tetfv_assign_cpu_rows(l, ncpu, dev); /* 1: the CPU's */
  if (ngpu > 1) {
    char *cpu = kit_malloc((size_t)l->nown + 1, "CPU rows");
    for (int r = 0; r < l->nown; ++r) cpu[r] = (char)dev[r];
    tetfv_partition_rows(l, ngpu, cpu, dev); /* the GPUs' rows, METIS over their own graph */
    for (int r = 0; r < l->nown; ++r)
      if (cpu[r]) dev[r] = ngpu;
    free(cpu);
  }
}

void tetfv_block_rows(const tetfv_matrix *z, int r0, int r1, double *D, double *A, int *I) {
  const int n = r1 - r0, nblk = n / TETFV_GPU_B;
  for (int r = 0; r < n; ++r) D[r] = z->D[r0 + r];
  for (int b = 0; b < nblk; ++b)
    for (int j = 0; j < TETFV_W; ++j)
      for (int r = 0; r < TETFV_GPU_B; ++r) {
        const size_t to = ((size_t)b * TETFV_W + j) * TETFV_GPU_B + r;
        const size_t from = (size_t)TETFV_W * ((size_t)r0 + (size_t)b * TETFV_GPU_B + r) + j;
        A[to] = z->A[from];
        I[to] = z->I[from];
      }
  /* The remainder rows, row-major after the blocks (Paper III: "computed using a row-major
   * kernel. Due to their small number, this has a negligible effect on performance"). */
  const size_t done = (size_t)nblk * TETFV_GPU_B;
  if ((size_t)n == done) return; /* also an empty part, whose arrays may be NULL (memcpy's UB) */
  memcpy(A + done * TETFV_W, z->A + TETFV_W * ((size_t)r0 + done), (n - done) * TETFV_W * sizeof(double));
  memcpy(I + done * TETFV_W, z->I + TETFV_W * ((size_t)r0 + done), (n - done) * TETFV_W * sizeof(int));
}
