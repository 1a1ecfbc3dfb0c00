/* fuzz_particles_input.c: libFuzzer harness for particles' --input reader (a count, the box,
 * then 'id x y z vx vy vz' per line: miniapps/particles/init.c) and the one-rank set-up that
 * follows it in main.c and the variants: the tiling of the periodic box (cells.c), the
 * binning, the spacing check, and the frontier copies of the GPU variants' host side
 * (frontier.c) looped back over the rank's own periodic images. The input is written to a
 * file and read; the reader must never crash or read out of bounds, must give a reason
 * whenever it refuses, and whatever it accepts must be the promised count of particles with
 * ids 0..N-1 once each, inside the box. The set-up runs at the smallest cutoff --rc allows
 * (1: the most cells) and must then refuse with a reason (pt_check_tiling) or give a tiling
 * of every cell and its shell, every particle in an owned cell, the first close pair an
 * all-pairs search finds, and in every external cell exactly the copies of the owned cell it
 * is an image of. The reader alone missed a header of 65534.5 x 65534.5 x 3.5 whose int cell
 * count wrapped in the tiling (regressions/particles_input-cell-overflow).
 * bash ci/fuzz.sh [SECONDS] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontier.h"
#include "fuzz_file.h"
#include "particles.h"

/* The first pair by ids closer than rmin (minimum image), by all pairs: pt_close_pair's oracle. */
static int allpairs_close(const pt_params *p, const pt_particles *s, double rmin, int64_t pair[2]) {
  int found = 0;
  for (long long i = 0; i < s->n; ++i)
    for (long long j = 0; j < s->n; ++j) {
      if (i == j) continue;
      double r2 = 0.0;
      for (int a = 0; a < 3; ++a) {
        double t = s->x[3 * j + a] - s->x[3 * i + a];
        if (t > 0.5 * p->box[a]) t -= p->box[a];
        if (t < -0.5 * p->box[a]) t += p->box[a];
        r2 += t * t;
      }
      const int64_t lo = s->id[i] < s->id[j] ? s->id[i] : s->id[j],
                    hi = s->id[i] < s->id[j] ? s->id[j] : s->id[i];
      if (r2 < rmin * rmin && (!found || lo < pair[0] || (lo == pair[0] && hi < pair[1]))) {
        pair[0] = lo;
        pair[1] = hi;
        found = 1;
      }
    }
  return found;
}

/* main.c's set-up of a periodic box on one rank at cutoff rc, with the frontier copies. */
static void setup(const pt_particles *s, long long n, const double box[3], double rc) {
  pt_params p;
  memset(&p, 0, sizeof p);
  p.n = n;
  memcpy(p.box, box, sizeof p.box);
  p.rc = rc;
  pt_derive_cells(&p);
  for (int a = 0; a < 3; ++a)
    if (p.nc[a] < 3) return; /* main.c refuses it */
  char err[512] = "";
  if (pt_check_tiling(&p, err, sizeof err) != 0) {
    if (err[0] == '\0') abort();
    return;
  }
  /* A tiling between 2^16 cells and the limit is legitimate but slow under the sanitizers:
   * left out. One beyond the limit that pt_check_tiling let through goes on, into build(). */
  const double shell = (double)(p.nc[0] + 2) * (p.nc[1] + 2) * (p.nc[2] + 2);
  if (shell > 65536.0 && shell <= (double)PT_MAX_CELLS) return;
  pt_decomp d;
  const int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
  pt_decomp_build(&d, p.nc, one, zero);
  const int own = p.nc[0] * p.nc[1] * p.nc[2];
  if (d.ncells != (int)shell || d.first[2] != own || d.nconn < 1 || d.nconn > 26 || d.nwall != 0) abort();
  for (int lid = 0; lid < own; ++lid)
    for (int m = 0; m < 27; ++m)
      if (d.nbr[27 * lid + m] < 0 || d.nbr[27 * lid + m] >= d.ncells) abort();
  /* Binning: every particle in an owned cell; the cell matrix as cpu.c sorts it. */
  int *cell = malloc((size_t)n * sizeof *cell), *cstart = calloc((size_t)d.ncells + 2, sizeof *cstart);
  if (!cell || !cstart) abort();
  for (long long i = 0; i < n; ++i) {
    cell[i] = pt_cell_of(&p, &d, s->x + 3 * i);
    if (cell[i] < 0 || cell[i] >= own) abort();
    cstart[cell[i] + 1]++;
  }
  for (int c = 0; c < d.ncells; ++c) cstart[c + 1] += cstart[c];
  /* Room for the owned particles and each one's copies (at most 26 images each). */
  const size_t room = (size_t)n * 27;
  int64_t *id = malloc(room * sizeof *id);
  double *x = malloc(room * 3 * sizeof *x);
  int *at = malloc((size_t)d.ncells * sizeof *at);
  if (!id || !x || !at) abort();
  memcpy(at, cstart, (size_t)d.ncells * sizeof *at);
  for (long long i = 0; i < n; ++i) {
    const int to = at[cell[i]]++;
    id[to] = s->id[i];
    memcpy(x + 3 * (size_t)to, s->x + 3 * i, 3 * sizeof *x);
  }
  /* The spacing check against all pairs (small systems). */
  int64_t pair[2] = {-1, -1}, want[2] = {-1, -1};
  double dist = -1.0;
  const int found = pt_close_pair(&p, s, NULL, PT_MIN_SPACING, pair, &dist);
  if (found && !(pair[0] < pair[1] && dist >= 0.0 && dist < PT_MIN_SPACING)) abort();
  if (n <= 300 && (allpairs_close(&p, s, PT_MIN_SPACING, want) != found ||
                   (found && (want[0] != pair[0] || want[1] != pair[1]))))
    abort();
  /* Frontier copies: one rank's connections are its own images, and what it sends over
   * image s arrives over image -s. */
  px_plan plan;
  px_init(&plan, MPI_COMM_NULL, &d, PT_GHOST_W, 0);
  pt_traffic tr;
  memset(&tr, 0, sizeof tr);
  pt_pack_frontier(&p, &d, cstart, id, x, &plan, &tr);
  for (int k = 0; k < d.nconn; ++k) {
    int back = -1;
    for (int q = 0; q < d.nconn; ++q)
      if (d.conn[q].shift[0] == -d.conn[k].shift[0] && d.conn[q].shift[1] == -d.conn[k].shift[1] &&
          d.conn[q].shift[2] == -d.conn[k].shift[2])
        back = q;
    if (back < 0 || d.conn[k].rank != 0) abort();
    px_take_local(&plan, k, &plan, back);
  }
  pt_ghosts g;
  memset(&g, 0, sizeof g);
  pt_unpack_ghosts(&p, &d, &plan, &g, &tr);
  const int e0 = d.first[2];
  for (int e = 0; e < d.ncells - e0; ++e) {
    int w[3];
    for (int a = 0; a < 3; ++a) w[a] = (d.coord[3 * (e0 + e) + a] + p.nc[a]) % p.nc[a];
    const int src = pt_lookup(&d, pt_gid(p.nc, w));
    if (src < 0 || src >= e0) abort();
    if (g.count[e + 1] - g.count[e] != cstart[src + 1] - cstart[src]) abort(); /* a copy lost or extra */
  }
  if (n + g.n > (long long)room) abort();
  pt_place_ghosts(&d, &g, n, id, x, cstart);
  if (cstart[d.ncells] != n + g.n) abort();
  pt_ghosts_free(&g);
  px_free(&plan);
  free(cell), free(cstart), free(id), free(x), free(at);
  pt_decomp_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  if (fuzz_to_file(data, size, "particles", "txt", path, sizeof path) != 0) return 0;
  long long n = 0;
  double box[3];
  char err[512] = "";
  if (pt_read_header(path, &n, box, err, sizeof err) != 0) {
    remove(path);
    if (err[0] == '\0') abort();
    return 0;
  }
  pt_params p;
  memset(&p, 0, sizeof p);
  p.input = path;
  pt_particles out = {0};
  const int rc = pt_read_particles(&p, NULL, NULL, &out, err, sizeof err);
  remove(path);
  if (rc != 0) {
    if (err[0] == '\0') abort();
  } else {
    if (out.n != n) abort();
    unsigned char *seen = calloc((size_t)n + 1, 1);
    if (!seen) abort();
    for (long long i = 0; i < out.n; ++i) {
      if (out.id[i] < 0 || out.id[i] >= n || seen[out.id[i]]++) abort();
      for (int a = 0; a < 3; ++a)
        if (!(out.x[3 * i + a] >= 0.0 && out.x[3 * i + a] < box[a])) abort();
    }
    free(seen);
    setup(&out, n, box, 1.0);
  }
  pt_particles_free(&out);
  return 0;
}
