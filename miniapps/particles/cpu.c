/* cpu.c: the `cpu` variant. MPI ranks x OpenMP threads, no GPU; with one rank it is the CPU
 * baseline. One velocity-Verlet step reads like Bernaschi et al. Sec. 3.2:
 *   1. half kick and drift of every owned particle (an irregular domain: reflected off its
 *      walls, walls.h);
 *   2. migration (Sec. 3.2.2): bin every particle into the cell it moved to (binary search
 *      of the cell array); those now in external cells leave over the connection of that
 *      cell; arrivals pass the membership test (an owned cell) and join;
 *   3. the cell matrix: owned particles sorted by (cell, id), every step;
 *   4. interdomain interactions (Sec. 3.2.1): the particles of each frontier cell are sent
 *      to the connections of its row of the connection matrix, and only those;
 *   5. forces on the internal cells while those messages travel (the bulk);
 *   6. receive, filter (keep what falls in external cells), sort the copies by (cell, id);
 *   7. forces on the frontier cells (the boundary), then the second half kick.
 * Forces: every owned particle sums over the 27 neighbouring cells in a fixed order and the
 * particles of a cell in id order (lj_force_on in lj.h, which the GPU kernels call too); no
 * Newton's-third-law halving, so a particle's force is one thread's sum, independent of the
 * thread count and the rank grid.
 * --neighbor list (README.md, "Neighbour lists"; neighbor.h, nlist.c): steps 2-4 run only at a
 * list build, when a particle of any rank moved more than skin/2 since the last one (cells of
 * side >= rc + skin, then the lists); between builds a particle leaving the box is wrapped in
 * place as migration would, the copies' positions travel to the slots of the build, and each
 * force sums its list in --neighbor cells' order: the same state, bit for bit.
 *   mpiexec -n 4 build/bin/particles --variant cpu --cells 8 --iters 100
 *   build/bin/particles --cells 20 --iters 100 --neighbor list --skin 0.3 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "geometry.h"
#include "images.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "lj.h"
#include "nlist.h"
#include "particles.h"

#define GHOST_W 4   /* id x y z */
#define MIGRANT_W 7 /* id x y z vx vy vz */

typedef struct cpu_state {
  pt_ctx c;
  const pt_params *p;
  const pt_decomp *d;
  /* Owned particles first, then the received copies (ghosts), in the combined arrays. */
  long long n, ng, cap;
  int64_t *id;      /* n + ng */
  double *x;        /* 3 (n + ng) */
  double *v, *f;    /* 3 n */
  double *pe, *vir; /* n: half the pair energies and virials of each particle */
  int *cell;        /* n: local cell */
  int *cstart;      /* the cell matrix: particles of local cell l are [cstart[l], cstart[l+1]) */
  /* The received copies, kept apart so a stale-halo fault can reuse them. */
  long long gn, gcap;
  int64_t *gid;
  double *gx;
  int *gcell;
  px_plan ghost, migr;
  pt_traffic tr;
  double *th; /* thermo rows, PT_TH_N each */
  int th_rows, th_cap;
  int stale, exchanged; /* KIT_FAULT=stale-halo: exchange the copies once only */
  int has_walls;        /* an irregular domain: reflect off `walls` after every drift */
  pt_walls walls;
  /* Scratch for the sort. */
  long long scap;
  int64_t *sid;
  double *sx, *sv;
  int *scell, *count, *saux;
  /* --neighbor list (nlist.h, README.md "Neighbour lists"): the lists, and what the copies
   * need between builds. The slots stay as the build left them; each step the owners send the
   * positions of the particles they sent at the build (fwd, x y z), over the same connections
   * in the same order, and each record lands in the slot its copy got at the build. */
  int list;
  pt_nlist nl;
  px_plan fwd;
  int *sidx, *sstart;  /* per connection k: the owned slots sent at the build, sidx[sstart[k] ..) */
  int *rslot, *rstart; /* per connection k: the slot of each record received (-1: filtered) */
  int *gorig;          /* per received copy: its record's index, carried through the sort */
  long long sidx_cap, rslot_cap, gorig_cap;
  long long fwd_sent, fwd_all; /* copies sent each step, and what send-to-all would send */
} cpu_state;

static void *xalloc(size_t bytes, const char *what) {
  return kit_malloc(bytes > 0 ? bytes : 1, what);
}

static void reserve(cpu_state *s, long long need) {
  if (need <= s->cap) return;
  long long c = s->cap > 0 ? s->cap : 1024;
  while (c < need) c *= 2;
  int64_t *id = xalloc((size_t)c * sizeof *id, "particles");
  double *x = xalloc((size_t)c * 3 * sizeof *x, "particles"),
         *v = xalloc((size_t)c * 3 * sizeof *v, "particles"),
         *f = xalloc((size_t)c * 3 * sizeof *f, "particles"),
         *pe = xalloc((size_t)c * sizeof *pe, "particles"),
         *vir = xalloc((size_t)c * sizeof *vir, "particles");
  int *cell = xalloc((size_t)c * sizeof *cell, "particles");
  if (s->cap > 0) {
    memcpy(id, s->id, (size_t)(s->n + s->ng) * sizeof *id);
    memcpy(x, s->x, (size_t)(s->n + s->ng) * 3 * sizeof *x);
    memcpy(v, s->v, (size_t)s->n * 3 * sizeof *v);
    memcpy(f, s->f, (size_t)s->n * 3 * sizeof *f);
    memcpy(cell, s->cell, (size_t)s->n * sizeof *cell);
    memcpy(pe, s->pe, (size_t)s->n * sizeof *pe);
    memcpy(vir, s->vir, (size_t)s->n * sizeof *vir);
  }
  free(s->id), free(s->x), free(s->v), free(s->f), free(s->pe), free(s->vir), free(s->cell);
  s->id = id, s->x = x, s->v = v, s->f = f, s->pe = pe, s->vir = vir, s->cell = cell;
  s->cap = c;
}

static void reserve_scratch(cpu_state *s, long long need) {
  if (need <= s->scap) return;
  long long c = s->scap > 0 ? s->scap : 1024;
  while (c < need) c *= 2;
  free(s->sid), free(s->sx), free(s->sv), free(s->scell), free(s->saux);
  s->sid = xalloc((size_t)c * sizeof *s->sid, "sort scratch");
  s->sx = xalloc((size_t)c * 3 * sizeof *s->sx, "sort scratch");
  s->sv = xalloc((size_t)c * 3 * sizeof *s->sv, "sort scratch");
  s->scell = xalloc((size_t)c * sizeof *s->scell, "sort scratch");
  s->saux = xalloc((size_t)c * sizeof *s->saux, "sort scratch");
  s->scap = c;
}

/* Counting sort of n records by cell (cells [c0, c1)), stable, then insertion sort by id
 * inside each cell (a dozen particles at the benchmark density): the order of a cell's
 * particles depends only on which particles it holds, never on where they came from.
 * Writes the cell matrix rows cstart[c0 .. c1] (offset by `base`). v and aux (an int per
 * record that travels with it) may be NULL. */
static void sort_by_cell(cpu_state *s, long long n, int c0, int c1, long long base, int64_t *id, double *x,
                         double *v, int *cell, int *aux) {
  reserve_scratch(s, n);
  int *cnt = s->count;
  for (int c = c0; c <= c1; ++c) cnt[c] = 0;
  for (long long i = 0; i < n; ++i) cnt[cell[i] + 1]++;
  for (int c = c0; c < c1; ++c) cnt[c + 1] += cnt[c];
  for (int c = c0; c <= c1; ++c) s->cstart[c] = (int)(base + cnt[c]);
  for (long long i = 0; i < n; ++i) {
    const long long to = cnt[cell[i]]++;
    s->sid[to] = id[i];
    s->scell[to] = cell[i];
    if (aux) s->saux[to] = aux[i];
    memcpy(s->sx + 3 * to, x + 3 * i, 3 * sizeof *x);
    if (v) memcpy(s->sv + 3 * to, v + 3 * i, 3 * sizeof *v);
  }
  for (int c = c0; c < c1; ++c)
    for (long long i = s->cstart[c] - base + 1; i < s->cstart[c + 1] - base; ++i)
      for (long long j = i; j > s->cstart[c] - base && s->sid[j - 1] > s->sid[j]; --j) {
        const int64_t t = s->sid[j];
        s->sid[j] = s->sid[j - 1];
        s->sid[j - 1] = t;
        if (aux) {
          const int u = s->saux[j];
          s->saux[j] = s->saux[j - 1];
          s->saux[j - 1] = u;
        }
        for (int a = 0; a < 3; ++a) {
          double u = s->sx[3 * j + a];
          s->sx[3 * j + a] = s->sx[3 * (j - 1) + a];
          s->sx[3 * (j - 1) + a] = u;
          if (v) {
            u = s->sv[3 * j + a];
            s->sv[3 * j + a] = s->sv[3 * (j - 1) + a];
            s->sv[3 * (j - 1) + a] = u;
          }
        }
      }
  if (n == 0) return; /* the arrays may still be NULL (memcpy's UB, UBSan): no ghosts behind walls */
  memcpy(id, s->sid, (size_t)n * sizeof *id);
  memcpy(cell, s->scell, (size_t)n * sizeof *cell);
  memcpy(x, s->sx, (size_t)n * 3 * sizeof *x);
  if (v) memcpy(v, s->sv, (size_t)n * 3 * sizeof *v);
  if (aux) memcpy(aux, s->saux, (size_t)n * sizeof *aux);
}

/* Forces on the owned particles of cells [c0, c1). */
static void forces(cpu_state *s, int c0, int c1) {
  const double rc2 = s->p->rc2, eshift = s->p->eshift;
  const int *nbr = s->d->nbr, *cs = s->cstart;
  const double *x = s->x;
#pragma omp parallel for schedule(dynamic, 8)
  for (int c = c0; c < c1; ++c)
    for (int i = cs[c]; i < cs[c + 1]; ++i)
      lj_force_on(i, c, x, nbr, cs, rc2, eshift, s->f + 3 * i, s->pe + i, s->vir + i);
}

/* The pair distances the forces of owned cells [c0, c1) compute: each particle against every
 * other particle of its 27 cells (the report's pair_checks_per_step). */
static long long cell_pair_checks(const cpu_state *s, int c0, int c1) {
  const int *nbr = s->d->nbr, *cs = s->cstart;
  long long t = 0;
  for (int c = c0; c < c1; ++c) {
    const long long np = cs[c + 1] - cs[c];
    if (np == 0) continue;
    long long around = 0;
    for (int m = 0; m < 27; ++m) around += cs[nbr[27 * c + m] + 1] - cs[nbr[27 * c + m]];
    t += np * (around - 1);
  }
  return t;
}

/* Migration's two halves shared by the cells step and a list build: particle i stays, as the
 * kept-th, in owned cell c; and, once the leavers are packed, the messages move and the
 * newcomers are appended. */
static void keep(cpu_state *s, long long i, long long kept, int c) {
  s->id[kept] = s->id[i];
  memmove(s->x + 3 * kept, s->x + 3 * i, 3 * sizeof(double));
  memmove(s->v + 3 * kept, s->v + 3 * i, 3 * sizeof(double));
  s->cell[kept] = c;
}
static void take_migrants(cpu_state *s, long long kept) {
  const pt_decomp *d = s->d;
  const pt_params *p = s->p;
  s->n = kept;
  s->ng = 0;
  px_start(&s->migr);
  px_finish(&s->migr);
  for (int k = 0; k < s->migr.n; ++k)
    for (size_t m = 0; m < s->migr.rcount[k]; ++m) {
      const double *r = s->migr.rbuf[k] + m * MIGRANT_W;
      const int c = pt_cell_of(p, d, r + 1);
      /* The membership test: a newcomer must land in an owned cell. In the box it always
       * does; one that did not would be lost, which the particle-count check reports. */
      if (c < 0 || pt_group(d, c) == PT_EXTERNAL) continue;
      reserve(s, s->n + 1);
      s->id[s->n] = (int64_t)r[0];
      memcpy(s->x + 3 * s->n, r + 1, 3 * sizeof(double));
      memcpy(s->v + 3 * s->n, r + 4, 3 * sizeof(double));
      s->cell[s->n++] = c;
    }
}

/* Step 2: migration (Sec. 3.2.2). */
static void migrate(cpu_state *s) {
  const pt_decomp *d = s->d;
  const pt_params *p = s->p;
  px_clear(&s->migr);
  long long kept = 0;
  for (long long i = 0; i < s->n; ++i) {
    const int c = pt_cell_of(p, d, s->x + 3 * i);
    if (c < 0)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "particle %lld moved more than one cell in one step (--dt too large, or the system blew up)",
              (long long)s->id[i]);
    if (pt_group(d, c) != PT_EXTERNAL) {
      keep(s, i, kept++, c);
      continue;
    }
    /* Departing: over the connection that owns the external cell, shifted into the
     * receiver's frame; x + L may round up to L itself, which belongs to no cell of [0, L). */
    const int k = d->ext_conn[c - d->first[2]];
    if (k < 0)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "particle %lld went through a wall into a cell no rank owns", (long long)s->id[i]);
    const int *sh = d->conn[k].shift;
    double *r = px_send_slot(&s->migr, k);
    r[0] = (double)s->id[i];
    for (int a = 0; a < 3; ++a) {
      r[1 + a] = pt_migrant_coord(s->x[3 * i + a], sh[a], p->box[a]);
      r[4 + a] = s->v[3 * i + a];
    }
    s->tr.migrated++;
  }
  take_migrants(s, kept);
}

/* Step 4: pack the frontier cells for the connections of their rows, and start. */
static void send_frontier(cpu_state *s) {
  const pt_decomp *d = s->d;
  const pt_params *p = s->p;
  px_clear(&s->ghost);
  for (int c = d->first[1]; c < d->first[2]; ++c) {
    const int f = c - d->first[1];
    for (int q = d->conn_start[f]; q < d->conn_start[f + 1]; ++q) {
      const int k = d->conn_list[q];
      const int *sh = d->conn[k].shift;
      for (int i = s->cstart[c]; i < s->cstart[c + 1]; ++i) {
        double *r = px_send_slot(&s->ghost, k);
        r[0] = (double)s->id[i];
        for (int a = 0; a < 3; ++a) r[1 + a] = pt_image_coord(s->x[3 * i + a], sh[a], p->box[a]);
      }
    }
  }
  pt_count_frontier(d, s->cstart, &s->tr);
  px_start(&s->ghost);
}

/* Step 6: receive, filter by cell (Sec. 3.2.1: keep what lies in external cells), sort. */
static void receive_frontier(cpu_state *s) {
  const pt_decomp *d = s->d;
  px_finish(&s->ghost);
  long long total = 0;
  for (int k = 0; k < s->ghost.n; ++k) total += (long long)s->ghost.rcount[k];
  if (total > s->gcap) {
    free(s->gid), free(s->gx), free(s->gcell);
    s->gcap = total;
    s->gid = xalloc((size_t)total * sizeof *s->gid, "ghosts");
    s->gx = xalloc((size_t)total * 3 * sizeof *s->gx, "ghosts");
    s->gcell = xalloc((size_t)total * sizeof *s->gcell, "ghosts");
  }
  s->gn = 0;
  for (int k = 0; k < s->ghost.n; ++k)
    for (size_t m = 0; m < s->ghost.rcount[k]; ++m) {
      const double *r = s->ghost.rbuf[k] + m * GHOST_W;
      const int c = pt_cell_of(s->p, d, r + 1);
      if (c < 0 || pt_group(d, c) != PT_EXTERNAL) {
        s->tr.ghosts_discarded++;
        continue;
      }
      s->gid[s->gn] = (int64_t)r[0];
      memcpy(s->gx + 3 * s->gn, r + 1, 3 * sizeof(double));
      s->gcell[s->gn++] = c;
    }
  sort_by_cell(s, s->gn, d->first[2], d->ncells, 0, s->gid, s->gx, NULL, s->gcell, NULL);
}

/* The copies into the combined arrays behind the owned particles; rows of the external cells. */
static void place_ghosts(cpu_state *s) {
  const pt_decomp *d = s->d;
  reserve(s, s->n + s->gn);
  s->ng = s->gn;
  if (s->gn > 0) { /* no copies yet (walls all round): the arrays may be NULL */
    memcpy(s->id + s->n, s->gid, (size_t)s->gn * sizeof *s->id);
    memcpy(s->x + 3 * s->n, s->gx, (size_t)s->gn * 3 * sizeof *s->x);
  }
  /* gcell is sorted, so the rows of the external cells are its runs. */
  long long g = 0;
  for (int c = d->first[2]; c < d->ncells; ++c) {
    s->cstart[c] = (int)(s->n + g);
    while (g < s->gn && s->gcell[g] == c) ++g;
  }
  s->cstart[d->ncells] = (int)(s->n + s->gn);
}

static void thermo_row(cpu_state *s) {
  if (s->th_rows == s->th_cap) {
    s->th_cap = s->th_cap > 0 ? 2 * s->th_cap : 64;
    double *t = xalloc((size_t)s->th_cap * PT_TH_N * sizeof *t, "thermo");
    if (s->th_rows) memcpy(t, s->th, (size_t)s->th_rows * PT_TH_N * sizeof *t);
    free(s->th);
    s->th = t;
  }
  double *row = s->th + (size_t)s->th_rows++ * PT_TH_N;
  /* Serial sums in particle order: the same for any thread count. */
  double pe = 0.0, ke = 0.0, vir = 0.0, px = 0.0, py = 0.0, pz = 0.0;
  for (long long i = 0; i < s->n; ++i) {
    const double *v = s->v + 3 * i;
    pe += s->pe[i];
    vir += s->vir[i];
    ke += 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    px += v[0];
    py += v[1];
    pz += v[2];
  }
  row[PT_TH_PE] = pe;
  row[PT_TH_KE] = ke;
  row[PT_TH_VIR] = vir;
  row[PT_TH_PX] = px;
  row[PT_TH_PY] = py;
  row[PT_TH_PZ] = pz;
}

/* Steps 3-7: cell matrix, frontier exchange overlapped with the internal cells, forces. */
static void compute_forces(cpu_state *s) {
  const pt_decomp *d = s->d;
  KIT_RANGE_PUSH("sort");
  s->ng = 0;
  sort_by_cell(s, s->n, 0, d->first[2], 0, s->id, s->x, s->v, s->cell, NULL);
  /* The external rows empty until the copies arrive: an internal cell of an irregular domain
   * may touch an empty cell beyond a wall (an external cell no copy ever fills). */
  for (int c = d->first[2]; c <= d->ncells; ++c) s->cstart[c] = (int)s->n;
  KIT_RANGE_POP();
  const int exchange = !(s->stale && s->exchanged);
  KIT_RANGE_PUSH("pack");
  if (exchange) send_frontier(s);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("internal");
  forces(s, d->first[0], d->first[1]);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("mpi_wait");
  if (exchange) receive_frontier(s);
  s->exchanged = 1;
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("unpack");
  place_ghosts(s);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("frontier");
  forces(s, d->first[1], d->first[2]);
  KIT_RANGE_POP();
  s->tr.pair_checks += cell_pair_checks(s, 0, d->first[2]);
}

/* ---- --neighbor list (nlist.h; README.md, "Neighbour lists") --------------------------------
 * Between builds the particles keep their slots and ranks; a build does what every step of
 * --neighbor cells does (migration, the sort, the frontier exchange) and then the lists. */

/* The connection to the rank owning the cell of x, a position in the box (the periodic box's
 * rank grid); -1 if none is a neighbour. */
static int conn_to_owner(const cpu_state *s, const double x[3]) {
  const pt_decomp *d = s->d;
  const pt_params *p = s->p;
  int w[3], rank_coords[3];
  for (int a = 0; a < 3; ++a) {
    w[a] = cell_coord(x[a], p->inv_side[a], p->box[a], p->nc[a]);
    if (w[a] < 0 || w[a] >= p->nc[a]) return -1;
  }
  pt_owner_coords(d->nc, d->dims, w, rank_coords);
  const int owner = pt_rank_of(d->dims, rank_coords);
  for (int k = 0; k < d->nconn; ++k)
    if (d->conn[k].rank == owner) return k;
  return -1;
}

/* After the drift: a particle that left the box is wrapped in place with migration's arithmetic
 * (migrate: x - s L per axis, and x + L that rounds to L is the largest double below L), so it
 * holds the position --neighbor cells gives it at this step; then the test for a build: did a
 * particle of any rank move more than skin/2 since the last one (one MPI_Allreduce)? */
static int list_wrap_check(cpu_state *s) {
  if (!s->has_walls) {
    const long long n = s->n;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) pt_list_wrap(&s->nl.o, s->x + 3 * i);
  }
  int far = pt_nlist_far(&s->nl, s->x), any = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&far, &any, 1, MPI_INT, MPI_MAX, s->c.comm));
  return any;
}

/* Migration at a build (Sec. 3.2.2): a particle now in another rank's cell leaves for its
 * owner, unshifted (wrapped at its step, it is in the box already). One wrapped across a
 * periodic face may be in no cell of this rank's: its cell's owner is then found on the grid. */
static void migrate_list(cpu_state *s) {
  const pt_decomp *d = s->d;
  const pt_params *p = s->p;
  px_clear(&s->migr);
  long long kept = 0;
  for (long long i = 0; i < s->n; ++i) {
    const int c = pt_cell_of(p, d, s->x + 3 * i);
    if (c >= 0 && pt_group(d, c) != PT_EXTERNAL) {
      keep(s, i, kept++, c);
      continue;
    }
    const int k = c >= 0 ? d->ext_conn[c - d->first[2]] : s->has_walls ? -1 : conn_to_owner(s, s->x + 3 * i);
    if (k < 0) {
      if (c >= 0)
        kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
                "particle %lld went through a wall into a cell no rank owns", (long long)s->id[i]);
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "particle %lld moved beyond the neighbouring ranks' cells since the last list build (--dt too "
              "large, or the system blew up)",
              (long long)s->id[i]);
    }
    double *r = px_send_slot(&s->migr, k);
    r[0] = (double)s->id[i];
    memcpy(r + 1, s->x + 3 * i, 3 * sizeof(double));
    memcpy(r + 4, s->v + 3 * i, 3 * sizeof(double));
    s->tr.migrated++;
  }
  take_migrants(s, kept);
}

static int *grow_ints(int *a, long long *cap, long long need, const char *what) {
  if (need <= *cap) return a;
  long long c = *cap > 0 ? *cap : 1024;
  while (c < need) c *= 2;
  free(a);
  *cap = c;
  return xalloc((size_t)c * sizeof *a, what);
}

/* A build's frontier exchange: as send_frontier, but the records are unshifted (the receiver
 * shifts them to bin them, and keeps them unshifted in its slots); which owned slots went to
 * each connection, in order, is kept for the steps until the next build. */
static void send_frontier_list(cpu_state *s) {
  const pt_decomp *d = s->d;
  const int nk = d->nconn;
  int *st = s->sstart, *cur = s->rstart; /* rstart is the cursor here: receive_frontier_list resets it */
  for (int k = 0; k <= nk; ++k) st[k] = 0;
  long long all = 0;
  for (int c = d->first[1]; c < d->first[2]; ++c) {
    const int f = c - d->first[1], np = s->cstart[c + 1] - s->cstart[c];
    for (int q = d->conn_start[f]; q < d->conn_start[f + 1]; ++q) st[d->conn_list[q] + 1] += np;
    all += (long long)np * d->nconn;
  }
  for (int k = 0; k < nk; ++k) st[k + 1] += st[k];
  s->sidx = grow_ints(s->sidx, &s->sidx_cap, st[nk], "list send slots");
  for (int k = 0; k < nk; ++k) cur[k] = st[k];
  px_clear(&s->ghost);
  for (int c = d->first[1]; c < d->first[2]; ++c) {
    const int f = c - d->first[1];
    for (int q = d->conn_start[f]; q < d->conn_start[f + 1]; ++q) {
      const int k = d->conn_list[q];
      for (int i = s->cstart[c]; i < s->cstart[c + 1]; ++i) {
        s->sidx[cur[k]++] = i;
        double *r = px_send_slot(&s->ghost, k);
        r[0] = (double)s->id[i];
        memcpy(r + 1, s->x + 3 * i, 3 * sizeof(double));
      }
    }
  }
  s->fwd_sent = st[nk];
  s->fwd_all = all;
  px_start(&s->ghost);
}

/* A build's receive: each record is shifted as its sender would have (x - s L, s the sender's
 * image of this rank), binned, filtered and sorted as receive_frontier does; the slot of every
 * record is kept for the steps until the next build, and the record itself (ghost_record) for
 * the unshifted position. */
static void receive_frontier_list(cpu_state *s) {
  const pt_decomp *d = s->d;
  const pt_params *p = s->p;
  px_finish(&s->ghost);
  int *rs = s->rstart;
  rs[0] = 0;
  for (int k = 0; k < s->ghost.n; ++k) rs[k + 1] = rs[k] + (int)s->ghost.rcount[k];
  const long long total = rs[s->ghost.n];
  if (total > s->gcap) {
    free(s->gid), free(s->gx), free(s->gcell);
    s->gcap = total;
    s->gid = xalloc((size_t)total * sizeof *s->gid, "ghosts");
    s->gx = xalloc((size_t)total * 3 * sizeof *s->gx, "ghosts");
    s->gcell = xalloc((size_t)total * sizeof *s->gcell, "ghosts");
  }
  s->rslot = grow_ints(s->rslot, &s->rslot_cap, total, "list receive slots");
  s->gorig = grow_ints(s->gorig, &s->gorig_cap, total, "list receive slots");
  s->gn = 0;
  for (int k = 0; k < s->ghost.n; ++k) {
    const int *sh = d->conn[k].shift; /* the sender's image of this rank is -sh */
    for (size_t m = 0; m < s->ghost.rcount[k]; ++m) {
      const double *r = s->ghost.rbuf[k] + m * GHOST_W;
      double y[3];
      for (int a = 0; a < 3; ++a) y[a] = pt_image_coord(r[1 + a], -sh[a], p->box[a]);
      const int c = pt_cell_of(p, d, y);
      s->rslot[rs[k] + (int)m] = -1;
      if (c < 0 || pt_group(d, c) != PT_EXTERNAL) {
        s->tr.ghosts_discarded++;
        continue;
      }
      s->gid[s->gn] = (int64_t)r[0];
      memcpy(s->gx + 3 * s->gn, y, sizeof y);
      s->gcell[s->gn] = c;
      s->gorig[s->gn++] = rs[k] + (int)m;
    }
  }
  sort_by_cell(s, s->gn, d->first[2], d->ncells, 0, s->gid, s->gx, NULL, s->gcell, s->gorig);
  for (long long g = 0; g < s->gn; ++g) s->rslot[s->gorig[g]] = (int)g;
}

/* Received record r of the last build's exchange (receive_frontier_list's numbering). */
static const double *ghost_record(const cpu_state *s, int r) {
  int lo = 0, hi = s->ghost.n - 1; /* the last connection whose records start at or before r */
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (s->rstart[mid] <= r)
      lo = mid;
    else
      hi = mid - 1;
  }
  return s->ghost.rbuf[lo] + (size_t)(r - s->rstart[lo]) * GHOST_W;
}

/* A build: migration (not at set-up), the cell matrix, the frontier exchange, the lists (found
 * with the copies shifted next to the subdomain, as --neighbor cells holds them, then the
 * copies unshifted and the lists put in order). */
static void list_rebuild(cpu_state *s, int migrate_first) {
  const pt_decomp *d = s->d;
  if (migrate_first) migrate_list(s);
  s->ng = 0;
  sort_by_cell(s, s->n, 0, d->first[2], 0, s->id, s->x, s->v, s->cell, NULL);
  for (int c = d->first[2]; c <= d->ncells; ++c) s->cstart[c] = (int)s->n;
  if (!(s->stale && s->exchanged)) {
    send_frontier_list(s);
    receive_frontier_list(s);
  }
  s->exchanged = 1;
  place_ghosts(s);
  pt_nlist_build(&s->nl, d, s->n, s->n + s->ng, s->x, s->id, s->cstart, s->cell);
  for (long long g = 0; g < s->ng; ++g)
    memcpy(s->x + 3 * (s->n + g), ghost_record(s, s->gorig[g]) + 1, 3 * sizeof(double));
  pt_nlist_positions(&s->nl, s->x);
  s->tr.pair_checks += s->nl.checked;
  s->tr.list_entries = pt_nlist_entries(&s->nl);
  s->tr.list_particles = s->n;
}

/* Between builds: the positions of the particles sent at the build, to the same connections
 * in the same order (x y z each), and into the slots their copies got. */
static void fwd_start(cpu_state *s) {
  px_clear(&s->fwd);
  for (int k = 0; k < s->d->nconn; ++k) {
    const int b = s->sstart[k], m = s->sstart[k + 1] - b;
    const size_t at = px_send_reserve(&s->fwd, k, (size_t)m);
    double *buf = s->fwd.sbuf[k] + at * 3;
    for (int q = 0; q < m; ++q) memcpy(buf + 3 * q, s->x + 3 * s->sidx[b + q], 3 * sizeof(double));
  }
  px_start(&s->fwd);
}

static void fwd_finish(cpu_state *s) {
  px_finish(&s->fwd);
  for (int k = 0; k < s->fwd.n; ++k) {
    const int b = s->rstart[k];
    if (s->fwd.rcount[k] != (size_t)(s->rstart[k + 1] - b))
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "connection %d sent %zu positions, %d copies at the list build", k, s->fwd.rcount[k],
              s->rstart[k + 1] - b);
    for (size_t q = 0; q < s->fwd.rcount[k]; ++q) {
      const int g = s->rslot[b + (int)q];
      if (g >= 0) memcpy(s->x + 3 * (s->n + g), s->fwd.rbuf[k] + 3 * q, 3 * sizeof(double));
    }
  }
}

/* Steps 4-7 with lists: the positions of the copies travel while the particles of internal
 * cells (at the build), whose lists hold no copy, compute; then the others. Each list is put
 * back in order first if one of its particles changed order cells (nlist.c). At a build the
 * copies are in already and the lists in order. */
static void list_forces(cpu_state *s, int built) {
  const pt_params *p = s->p;
  const int exchange = !built && !(s->stale && s->exchanged);
  KIT_RANGE_PUSH("pack");
  if (exchange) fwd_start(s);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("internal");
  if (!built) pt_nlist_cells(&s->nl, 0, s->n, s->x);
  pt_nlist_forces(&s->nl, 0, s->nl.inner, s->x, s->id, p->rc2, p->eshift, s->f, s->pe, s->vir);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("mpi_wait");
  if (exchange) fwd_finish(s);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("unpack");
  if (!built) pt_nlist_cells(&s->nl, s->n, s->n + s->ng, s->x);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("frontier");
  pt_nlist_forces(&s->nl, s->nl.inner, s->n, s->x, s->id, p->rc2, p->eshift, s->f, s->pe, s->vir);
  KIT_RANGE_POP();
  s->tr.pair_checks += pt_nlist_entries(&s->nl);
  if (exchange || built) {
    s->tr.ghosts_sent += s->fwd_sent;
    s->tr.ghosts_all_nbrs += s->fwd_all;
  }
}

static void init_state(cpu_state *s) {
  const pt_particles *in = s->c.init;
  s->n = 0;
  s->ng = 0;
  s->gn = 0;
  s->exchanged = 0;
  reserve(s, in->n + 1);
  for (long long i = 0; i < in->n; ++i) {
    const int c = pt_cell_of(s->p, s->d, in->x + 3 * i);
    if (c < 0 || pt_group(s->d, c) == PT_EXTERNAL)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "initial particle %lld is not in an owned cell",
              (long long)in->id[i]);
    s->id[s->n] = in->id[i];
    memcpy(s->x + 3 * s->n, in->x + 3 * i, 3 * sizeof(double));
    memcpy(s->v + 3 * s->n, in->v + 3 * i, 3 * sizeof(double));
    s->cell[s->n++] = c;
  }
  if (s->list) {
    list_rebuild(s, 0);
    list_forces(s, 1);
  } else {
    compute_forces(s);
  }
  const long long entries = s->tr.list_entries, owned = s->tr.list_particles;
  memset(&s->tr, 0, sizeof s->tr); /* the counters cover time steps only */
  s->tr.list_entries = entries;    /* the lists of the set-up's build, until the next one */
  s->tr.list_particles = owned;
  s->ghost.messages = s->ghost.bytes = s->migr.messages = s->migr.bytes = s->fwd.messages = s->fwd.bytes = 0;
  s->th_rows = 0;
  thermo_row(s);
}

static void *cpu_setup(const void *ctx) {
  const pt_ctx *c = ctx;
  cpu_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  s->c = *c;
  pt_decomp_copy(&s->c.dec, &c->dec); /* its own: the caller may set up the context again */
  s->p = c->p;
  s->d = &s->c.dec;
  s->cstart = xalloc((size_t)(s->d->ncells + 1) * sizeof *s->cstart, "cell matrix");
  s->count = xalloc((size_t)(s->d->ncells + 2) * sizeof *s->count, "cell matrix");
  px_init(&s->ghost, c->comm, s->d, GHOST_W, 0);
  px_init(&s->migr, c->comm, s->d, MIGRANT_W, 64);
  s->list = s->p->list;
  if (s->list) {
    pt_nlist_init(&s->nl, s->p);
    px_init(&s->fwd, c->comm, s->d, 3, 128);
    s->sstart = xalloc((size_t)(s->d->nconn + 1) * sizeof *s->sstart, "list send slots");
    s->rstart = xalloc((size_t)(s->d->nconn + 1) * sizeof *s->rstart, "list receive slots");
  }
  s->stale = c->faults && kit_fault("stale-halo");
  s->has_walls = s->p->geom != NULL;
  if (s->has_walls) s->walls = pt_walls_of(s->p->geom, s->p->box);
  init_state(s);
  return s;
}

static void cpu_reset(void *st) {
  init_state(st);
}

static void cpu_run(void *st, int steps) {
  cpu_state *s = st;
  const double dt = s->p->dt, half = 0.5 * dt;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("kick_drift");
    const long long n = s->n;
    const pt_walls *w = s->has_walls ? &s->walls : NULL;
    long long hits = 0, bad = -1;
#pragma omp parallel for schedule(static) reduction(+ : hits) reduction(max : bad)
    for (long long i = 0; i < n; ++i) {
      double *x = s->x + 3 * i, *v = s->v + 3 * i;
      const double x0[3] = {x[0], x[1], x[2]};
      vv_kick(v, s->f + 3 * i, half);
      vv_drift(x, v, dt);
      if (w) {
        const int r = pt_wall_reflect(w, x0, x, v);
        hits += r > 0;
        if (r < 0 && s->id[i] > bad) bad = s->id[i];
      }
    }
    if (bad >= 0)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "particle %lld moved more than one voxel in one step (--dt too large, or the system blew up)",
              bad);
    s->tr.wall_hits += hits;
    KIT_RANGE_POP();
    if (s->list) {
      KIT_RANGE_PUSH("list_check");
      const int build = list_wrap_check(s);
      KIT_RANGE_POP();
      if (build) {
        KIT_RANGE_PUSH("rebuild");
        list_rebuild(s, 1);
        s->tr.list_builds++;
        KIT_RANGE_POP();
      }
      list_forces(s, build);
    } else {
      KIT_RANGE_PUSH("migrate");
      migrate(s);
      KIT_RANGE_POP();
      compute_forces(s);
    }
    KIT_RANGE_PUSH("kick");
    const long long m = s->n;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < m; ++i) vv_kick(s->v + 3 * i, s->f + 3 * i, half);
    KIT_RANGE_POP();
    thermo_row(s);
    s->tr.steps++;
    KIT_RANGE_POP();
  }
  s->tr.messages = s->ghost.messages + s->migr.messages + s->fwd.messages;
  s->tr.bytes = s->ghost.bytes + s->migr.bytes + s->fwd.bytes;
}

static long long cpu_count(void *st) {
  return ((cpu_state *)st)->n;
}

static void cpu_fetch(void *st, void *out) {
  cpu_state *s = st;
  for (long long i = 0; i < s->n; ++i) {
    double *r = (double *)out + 10 * i;
    r[0] = (double)s->id[i];
    memcpy(r + 1, s->x + 3 * i, 3 * sizeof(double));
    memcpy(r + 4, s->v + 3 * i, 3 * sizeof(double));
    memcpy(r + 7, s->f + 3 * i, 3 * sizeof(double));
  }
}

static const double *cpu_thermo(void *st, int *steps) {
  cpu_state *s = st;
  *steps = s->th_rows - 1;
  return s->th;
}

static const pt_traffic *cpu_traffic(void *st) {
  return &((cpu_state *)st)->tr;
}

static void cpu_teardown(void *st) {
  cpu_state *s = st;
  px_free(&s->ghost);
  px_free(&s->migr);
  if (s->list) {
    px_free(&s->fwd);
    pt_nlist_free(&s->nl);
  }
  free(s->sidx), free(s->sstart), free(s->rslot), free(s->rstart), free(s->gorig), free(s->saux);
  free(s->id), free(s->x), free(s->v), free(s->f), free(s->pe), free(s->vir), free(s->cell);
  free(s->gid), free(s->gx), free(s->gcell), free(s->cstart), free(s->count), free(s->th);
  free(s->sid), free(s->sx), free(s->sv), free(s->scell);
  pt_decomp_free(&s->c.dec);
  free(s);
}

const pt_variant pt_cpu = {
    .base = {.name = "cpu",
             .summary = "MPI ranks x OpenMP threads, no GPU (the reference and CPU baseline)",
             .needs_gpu = 0,
             .setup = cpu_setup,
             .reset = cpu_reset,
             .run = cpu_run,
             .fetch = cpu_fetch,
             .halo = NULL, /* particles reports its messages itself (pt_traffic) */
             .teardown = cpu_teardown},
    .count = cpu_count,
    .thermo = cpu_thermo,
    .traffic = cpu_traffic,
};
