/* init.c: the initial state of a particles run: the fcc lattice of the standard LJ benchmark
 * with Philox velocities keyed by particle id, or particles read from a text file (--input).
 * Bernaschi et al. Sec. 3.2 leaves the model open; the lattice, density 0.8442 and T 1.44
 * are those of the LAMMPS/HOOMD LJ benchmark. Every rank walks all N particles in id order,
 * so the sums used for the momentum and the temperature are identical on every rank and for
 * every rank count (DESIGN.md Sec. 6); a rank keeps only the particles in its own cells.
 *
 * --input format (text, '#' starts a comment to the end of the line, blank lines ignored):
 *   N                      particle count, >= 2
 *   LX LY LZ               box edges, > 0
 *   id x y z vx vy vz      N lines; ids 0..N-1, each once, in any order; 0 <= x < LX ...
 * or a LAMMPS data file (atom_style atomic, orthogonal box): pt_read_header and
 * pt_read_particles hand such a file to lammps_io.c (pt_input_is_lammps: README.md's rule). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "kit/check.h"
#include "kit/philox.h"
#include "lammps_io.h"
#include "particles.h"
#include "reader.h"

/* Cells of side >= cut along each axis: as many as fit. */
static void tile(const double box[3], double cut, int nc[3], double side[3], double inv_side[3]) {
  for (int a = 0; a < 3; ++a) {
    const double f = floor(box[a] / cut);
    nc[a] = f > 1e6 ? 1000000 : (int)f;
    side[a] = nc[a] > 0 ? box[a] / nc[a] : box[a];
    inv_side[a] = nc[a] > 0 ? nc[a] / box[a] : 0.0;
  }
}

void pt_derive_cells(pt_params *p) {
  /* Cells of side >= rc: as many as fit (Sec. 3.2.1, "cubic cells of side equal to the
   * interaction cutoff"; a box edge is rarely a multiple of rc, so the side grows a little).
   * A Verlet list (--neighbor list) finds its neighbours within rc + skin in the 27 cells
   * around a particle, and its copies in the one-cell shell: cells of side >= rc + skin. The
   * order cells (knc) stay those of side >= rc either way. */
  double kside[3];
  tile(p->box, p->rc, p->knc, kside, p->kinv_side);
  tile(p->box, p->list ? p->rc + p->skin : p->rc, p->nc, p->side, p->inv_side);
  p->rl2 = p->list ? (p->rc + p->skin) * (p->rc + p->skin) : p->rc * p->rc;
  p->rc2 = p->rc * p->rc;
  p->eshift = 0.0;
  if (p->shift) {
    const double inv2 = 1.0 / p->rc2, inv6 = inv2 * inv2 * inv2;
    p->eshift = 4.0 * inv6 * (inv6 - 1.0);
  }
}

void pt_cells_params(const pt_params *p, pt_params *q) {
  *q = *p;
  q->neighbor = "cells";
  q->list = 0;
  pt_derive_cells(q);
}

void pt_derive(pt_params *p) {
  const double a = cbrt(4.0 / p->density); /* fcc: 4 particles per cubic unit cell */
  p->n = 4LL * p->cells[0] * p->cells[1] * p->cells[2];
  for (int d = 0; d < 3; ++d) p->box[d] = p->cells[d] * a;
  pt_derive_cells(p);
}

/* Three standard normal deviates for particle `id`: Box-Muller on one Philox draw. */
static void gaussian3(uint64_t seed, int64_t id, double g[3]) {
  kit_philox4x32 c = {{(uint32_t)id, (uint32_t)((uint64_t)id >> 32), 0x50544C4Au /* "PTLJ" */, 0u}};
  kit_philox_key k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
  const kit_philox4x32 r = kit_philox4x32_10(c, k);
  const double two_pi = 6.283185307179586;
  const double r1 = sqrt(-2.0 * log(1.0 - kit_u01(r.v[0]))), r2 = sqrt(-2.0 * log(1.0 - kit_u01(r.v[2])));
  g[0] = r1 * cos(two_pi * kit_u01(r.v[1]));
  g[1] = r1 * sin(two_pi * kit_u01(r.v[1]));
  g[2] = r2 * cos(two_pi * kit_u01(r.v[3]));
}

/* Position of lattice site id: unit cell (i, j, k), basis b, shifted by a/4 so no
 * particle sits on the box faces (or, voxels being unit cells, on a tube's walls). */
void pt_lattice_site(const pt_params *p, int64_t id, double x[3]) {
  static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  const double a = cbrt(4.0 / p->density);
  const int b = (int)(id % 4);
  const int64_t u = id / 4;
  const int i = (int)(u % p->cells[0]), j = (int)((u / p->cells[0]) % p->cells[1]),
            k = (int)(u / ((int64_t)p->cells[0] * p->cells[1]));
  const int ijk[3] = {i, j, k};
  for (int d = 0; d < 3; ++d) x[d] = (ijk[d] + 0.25 + basis[b][d]) * a;
}

void pt_lattice(const pt_params *p, pt_keep_fn keep, const void *arg, pt_particles *out) {
  const long long n = p->n;
  /* Pass 1: the mean velocity of the raw draws; pass 2: the temperature after removing it
   * (3N - 3 degrees of freedom: the total momentum is fixed at zero). Same order everywhere. */
  double sum[3] = {0, 0, 0}, g[3];
  for (long long id = 0; id < n; ++id) {
    gaussian3(p->run.seed, id, g);
    for (int d = 0; d < 3; ++d) sum[d] += g[d];
  }
  const double mean[3] = {sum[0] / n, sum[1] / n, sum[2] / n};
  double twice_ke = 0.0;
  for (long long id = 0; id < n; ++id) {
    gaussian3(p->run.seed, id, g);
    for (int d = 0; d < 3; ++d) twice_ke += (g[d] - mean[d]) * (g[d] - mean[d]);
  }
  const double t_raw = twice_ke / (3.0 * n - 3.0);
  const double scale = t_raw > 0.0 ? sqrt(p->temp / t_raw) : 0.0;
  for (long long id = 0; id < n; ++id) {
    double x[3], v[3];
    /* An irregular domain keeps the sites in open voxels, renumbered 0..N-1 in site order. */
    pt_lattice_site(p, p->geom ? p->geom->site[id] : id, x);
    if (keep && !keep(arg, x)) continue;
    gaussian3(p->run.seed, id, g);
    for (int d = 0; d < 3; ++d) v[d] = (g[d] - mean[d]) * scale;
    pt_particles_push(out, id, x, v);
  }
}

/* ---- --input -------------------------------------------------------------------------- */

/* The shared line reader (reader.h). */
int pt_reader_next(pt_reader *r) {
  int got;
  while ((got = kit_lines_next(&r->in)) > 0) {
    r->line = (long)r->in.lineno;
    r->buf = r->in.buf;
    char *hash = strchr(r->buf, '#');
    if (hash) *hash = '\0';
    if (strspn(r->buf, " \t\r\n") < strlen(r->buf)) return 1;
  }
  if (got < 0) snprintf(r->err, sizeof r->err, "%s", r->in.err);
  return got;
}

void pt_reader_close(pt_reader *r) {
  kit_lines_close(&r->in);
}

int pt_parse_numbers(const char *s, double *v, int n, const char **why) {
  const char *q = s;
  for (int i = 0; i < n; ++i) {
    char *end = NULL;
    errno = 0;
    v[i] = strtod(q, &end);
    if (end == q) {
      *why = strspn(q, " \t\r\n") == strlen(q) ? "too few fields" : "a field is not a number";
      return -1;
    }
    if (errno == ERANGE || !isfinite(v[i])) {
      *why = "a number is out of range or not finite";
      return -1;
    }
    if (*end && !strchr(" \t\r\n", *end)) {
      *why = "a field is not a number";
      return -1;
    }
    q = end;
  }
  if (strspn(q, " \t\r\n") != strlen(q)) {
    *why = "too many fields";
    return -1;
  }
  return 0;
}

int pt_reader_open(pt_reader *r, const char *path, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  if (kit_lines_open(&r->in, path, PT_LINE_MAX, err, errlen) != 0) return -1;
  r->buf = r->in.buf;
  r->bytes = LLONG_MAX;
  if (fseek(r->in.f, 0, SEEK_END) == 0) {
    r->bytes = ftell(r->in.f);
    rewind(r->in.f);
  }
  return 0;
}

static int read_header(pt_reader *r, long long *n, double box[3], char *err, size_t errlen) {
  const char *why = NULL;
  double v[3];
  int rc = pt_reader_next(r);
  if (rc <= 0) {
    if (rc < 0)
      snprintf(err, errlen, "%s", r->err);
    else
      snprintf(err, errlen, "line %ld: expected the particle count, found the end of the file", r->line + 1);
    return -1;
  }
  if (pt_parse_numbers(r->buf, v, 1, &why) != 0 || v[0] != floor(v[0]) || v[0] < 2 || v[0] > 1e12) {
    snprintf(err, errlen, "line %ld: the particle count must be one integer >= 2%s%s", r->line,
             why ? ": " : "", why ? why : "");
    return -1;
  }
  *n = (long long)v[0];
  /* A particle line takes at least 14 bytes, so a count above the file's size in bytes is a
   * damaged header: refused before the id bitmap is sized by it (a short file that merely
   * lacks some lines still gets "the file ends after K"). */
  if (*n > r->bytes) {
    snprintf(err, errlen, "line %ld: %lld particles announced, more than a file of %lld bytes can hold",
             r->line, *n, r->bytes);
    return -1;
  }
  rc = pt_reader_next(r);
  if (rc <= 0) {
    if (rc < 0)
      snprintf(err, errlen, "%s", r->err);
    else
      snprintf(err, errlen, "line %ld: expected the box edges LX LY LZ, found the end of the file",
               r->line + 1);
    return -1;
  }
  if (pt_parse_numbers(r->buf, box, 3, &why) != 0) {
    snprintf(err, errlen, "line %ld: the box must be three numbers LX LY LZ: %s", r->line, why);
    return -1;
  }
  for (int a = 0; a < 3; ++a)
    if (!(box[a] > 0.0)) {
      snprintf(err, errlen, "line %ld: box edge %d is %g, must be > 0", r->line, a + 1, box[a]);
      return -1;
    }
  return 0;
}

int pt_read_header(const char *path, long long *n, double box[3], char *err, size_t errlen) {
  if (pt_input_is_lammps(path)) {
    pt_lammps_header h;
    if (pt_lammps_read_header(path, &h, err, errlen) != 0) return -1;
    *n = h.n;
    for (int a = 0; a < 3; ++a) box[a] = h.hi[a] - h.lo[a];
    return 0;
  }
  pt_reader r;
  if (pt_reader_open(&r, path, err, errlen) != 0) return -1;
  const int rc = read_header(&r, n, box, err, errlen);
  pt_reader_close(&r);
  return rc;
}

int pt_read_particles(const pt_params *p, pt_keep_fn keep, const void *arg, pt_particles *out, char *err,
                      size_t errlen) {
  if (pt_input_is_lammps(p->input)) return pt_lammps_read_particles(p, keep, arg, out, NULL, err, errlen);
  pt_reader r;
  if (pt_reader_open(&r, p->input, err, errlen) != 0) return -1;
  long long n;
  double box[3];
  int rc = read_header(&r, &n, box, err, errlen);
  /* Ids seen so far: one bit each, so a duplicate is named with its line. */
  unsigned char *seen = rc == 0 ? calloc((size_t)(n + 7) / 8, 1) : NULL;
  if (rc == 0 && !seen)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of memory for %lld particle ids", n);
  for (long long k = 0; rc == 0 && k < n; ++k) {
    const int got = pt_reader_next(&r);
    if (got <= 0) {
      if (got < 0)
        snprintf(err, errlen, "%s", r.err);
      else
        snprintf(err, errlen, "line %ld: expected %lld particles, the file ends after %lld", r.line + 1, n,
                 k);
      rc = -1;
      break;
    }
    double v[7];
    const char *why = NULL;
    if (pt_parse_numbers(r.buf, v, 7, &why) != 0) {
      snprintf(err, errlen, "line %ld: expected 'id x y z vx vy vz': %s", r.line, why);
      rc = -1;
      break;
    }
    if (v[0] != floor(v[0]) || v[0] < 0 || v[0] >= (double)n) {
      snprintf(err, errlen, "line %ld: id %g is not an integer in [0, %lld)", r.line, v[0], n);
      rc = -1;
      break;
    }
    const long long id = (long long)v[0];
    if (seen[id / 8] & (1u << (id % 8))) {
      snprintf(err, errlen, "line %ld: id %lld appears twice", r.line, id);
      rc = -1;
      break;
    }
    seen[id / 8] |= (unsigned char)(1u << (id % 8));
    for (int a = 0; a < 3; ++a)
      if (!(v[1 + a] >= 0.0 && v[1 + a] < box[a])) {
        snprintf(err, errlen, "line %ld: particle %lld: %c = %g is outside the box [0, %g)", r.line, id,
                 (char)('x' + a), v[1 + a], box[a]);
        rc = -1;
        break;
      }
    if (rc) break;
    if (out && (!keep || keep(arg, v + 1))) pt_particles_push(out, id, v + 1, v + 4);
  }
  if (rc == 0) {
    const int got = pt_reader_next(&r);
    if (got != 0) {
      if (got < 0)
        snprintf(err, errlen, "%s", r.err);
      else
        snprintf(err, errlen, "line %ld: more particle lines than the count says", r.line);
      rc = -1;
    }
  }
  free(seen);
  pt_reader_close(&r);
  return rc;
}
