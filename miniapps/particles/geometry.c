/* geometry.c: irregular domains for the particles app (geometry.h). Bernaschi et al. Sec. 3.2
 * run their particles inside a coronary tree (Fig. 7) whose cells are split over the ranks by
 * PT-SCOTCH/METIS; here the geometry is a voxel mask (a file, or the built-in branching tube),
 * the particles are the fcc lattice sites inside open voxels, a cutoff-cell is occupied when
 * it holds part of an open voxel, and the occupied cells are split by METIS k-way
 * (kit_graph_part) with the particles of each cell as vertex weights, so the parts carry
 * balanced particle counts and few cell faces between them.
 *   build/bin/particles --domain tube --cells 12,10,6 --rc 2.0 --iters 50
 *   mpiexec -n 4 build/bin/particles --domain mask.txt --iters 50 */
#include "geometry.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/graph_part.h"
#include "reader.h"

#define PT_MAX_VOXELS 1024 /* per axis: a mask row (NX characters) fits the reader's line */

static void checksum(pt_geom *g) {
  uint32_t hsh = 2166136261u;
  const size_t n = (size_t)g->nv[0] * g->nv[1] * g->nv[2];
  unsigned char head[3 * sizeof(int) + sizeof(double)];
  memcpy(head, g->nv, 3 * sizeof(int));
  memcpy(head + 3 * sizeof(int), &g->h, sizeof(double));
  for (size_t i = 0; i < sizeof head; ++i) hsh = (hsh ^ head[i]) * 16777619u;
  for (size_t i = 0; i < n; ++i) hsh = (hsh ^ g->mask[i]) * 16777619u;
  g->checksum = hsh;
}

int pt_geom_read(const char *path, pt_geom *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  pt_reader r;
  if (pt_reader_open(&r, path, err, errlen) != 0) return -1;
  int rc = -1, got = pt_reader_next(&r);
  double v[4];
  const char *why = NULL;
  if (got <= 0) {
    if (got < 0)
      snprintf(err, errlen, "%s", r.err);
    else
      snprintf(err, errlen, "line %ld: expected the header 'NX NY NZ H', found the end of the file",
               r.line + 1);
    goto out;
  }
  if (pt_parse_numbers(r.buf, v, 4, &why) != 0) {
    snprintf(err, errlen, "line %ld: the header must be 'NX NY NZ H': %s", r.line, why);
    goto out;
  }
  for (int a = 0; a < 3; ++a)
    if (v[a] != floor(v[a]) || v[a] < 1 || v[a] > PT_MAX_VOXELS) {
      snprintf(err, errlen, "line %ld: N%c = %g must be an integer in [1, %d]", r.line, "XYZ"[a], v[a],
               PT_MAX_VOXELS);
      goto out;
    }
  if (!(v[3] > 0.0)) {
    snprintf(err, errlen, "line %ld: the voxel edge H = %g must be > 0", r.line, v[3]);
    goto out;
  }
  for (int a = 0; a < 3; ++a) g->nv[a] = (int)v[a];
  g->h = v[3];
  const int nx = g->nv[0], rows = g->nv[1] * g->nv[2];
  /* A row takes NX characters and a newline: a header announcing more than the file can
   * hold is damaged, refused before the mask is sized by it. */
  if ((long long)rows * (nx + 1) > r.bytes) {
    snprintf(err, errlen, "line %ld: %d x %d x %d voxels announced, more than a file of %lld bytes can hold",
             r.line, nx, g->nv[1], g->nv[2], r.bytes);
    goto out;
  }
  g->mask = kit_malloc((size_t)rows * nx, "voxel mask");
  long long open = 0;
  for (int row = 0; row < rows; ++row) {
    const int y = row % g->nv[1], z = row / g->nv[1];
    got = pt_reader_next(&r);
    if (got <= 0) {
      if (got == 0)
        snprintf(err, errlen, "line %ld: expected %d rows of voxels (NY x NZ), the file ends after %d",
                 r.line + 1, rows, row);
      else
        snprintf(err, errlen, "%s", r.err);
      goto out;
    }
    const char *w = r.buf + strspn(r.buf, " \t\r\n");
    const size_t len = strcspn(w, " \t\r\n");
    if (strspn(w + len, " \t\r\n") != strlen(w + len)) {
      snprintf(err, errlen,
               "line %ld: row %d (y %d, z %d): "
               "expected one word of %d characters 0 or 1, found more than one field",
               r.line, row, y, z, nx);
      goto out;
    }
    for (size_t i = 0; i < len && (int)i < nx; ++i)
      if (w[i] != '0' && w[i] != '1') {
        const unsigned char c = (unsigned char)w[i];
        char shown[8];
        if (isprint(c))
          snprintf(shown, sizeof shown, "'%c'", c);
        else
          snprintf(shown, sizeof shown, "0x%02x", c);
        snprintf(err, errlen, "line %ld: row %d (y %d, z %d), column %zu: %s is not 0 or 1", r.line, row, y,
                 z, i + 1, shown);
        goto out;
      }
    if ((int)len != nx) {
      snprintf(err, errlen, "line %ld: row %d (y %d, z %d) has %zu voxels, expected NX = %d", r.line, row, y,
               z, len, nx);
      goto out;
    }
    for (int i = 0; i < nx; ++i) {
      g->mask[(size_t)row * nx + i] = w[i] == '1';
      open += w[i] == '1';
    }
  }
  got = pt_reader_next(&r);
  if (got != 0) {
    if (got < 0)
      snprintf(err, errlen, "%s", r.err);
    else
      snprintf(err, errlen, "line %ld: more rows than NY x NZ", r.line);
    goto out;
  }
  if (open == 0) {
    snprintf(err, errlen, "line %ld: no voxel is open (every flag is 0)", r.line);
    goto out;
  }
  checksum(g);
  rc = 0;
out:
  pt_reader_close(&r);
  if (rc) {
    free(g->mask);
    g->mask = NULL;
  }
  return rc;
}

/* Squared distance from point q to the segment a-b. */
static double seg_dist2(const double q[3], const double a[3], const double b[3]) {
  double ab[3], aq[3], l2 = 0.0, t = 0.0, d2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    ab[k] = b[k] - a[k];
    aq[k] = q[k] - a[k];
    l2 += ab[k] * ab[k];
    t += ab[k] * aq[k];
  }
  t = l2 > 0.0 ? fmin(1.0, fmax(0.0, t / l2)) : 0.0;
  for (int k = 0; k < 3; ++k) {
    const double e = aq[k] - t * ab[k];
    d2 += e * e;
  }
  return d2;
}

void pt_geom_tube(pt_geom *g, const int vox[3], double h) {
  memset(g, 0, sizeof *g);
  for (int a = 0; a < 3; ++a) g->nv[a] = vox[a];
  g->h = h;
  const int nx = vox[0], ny = vox[1], nz = vox[2];
  g->mask = kit_malloc((size_t)nx * ny * nz, "voxel mask");
  /* In voxel units: a trunk of radius r0 along x from the face x = 0 to x = 0.4 NX, then two
   * branches of radius 0.8 r0 (about Murray's law, 2^(-1/3)) to the face x = NX at
   * y = NY/2 -+ 0.3 NY. The faces of the grid close the ends (nothing is periodic). */
  const double yc = 0.5 * ny, zc = 0.5 * nz, xb = 0.4 * nx;
  double r0 = 0.22 * ny;
  if (r0 > 0.45 * nz) r0 = 0.45 * nz;
  if (r0 < 1.0) r0 = 1.0;
  const double r1 = 0.8 * r0;
  const double seg[3][2][3] = {{{0.0, yc, zc}, {xb, yc, zc}},
                               {{xb, yc, zc}, {(double)nx, yc - 0.3 * ny, zc}},
                               {{xb, yc, zc}, {(double)nx, yc + 0.3 * ny, zc}}};
  const double rad[3] = {r0, r1, r1};
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const double q[3] = {i + 0.5, j + 0.5, k + 0.5};
        int in = 0;
        for (int s = 0; s < 3; ++s) in |= seg_dist2(q, seg[s][0], seg[s][1]) <= rad[s] * rad[s];
        g->mask[((size_t)k * ny + j) * nx + i] = (unsigned char)in;
      }
  checksum(g);
}

pt_walls pt_walls_of(const pt_geom *g, const double box[3]) {
  pt_walls w;
  for (int a = 0; a < 3; ++a) {
    w.nv[a] = g->nv[a];
    w.box[a] = box[a];
  }
  w.h = g->h;
  w.inv_h = 1.0 / g->h;
  w.mask = g->mask;
  return w;
}

static long long cell_index(const int nc[3], const int c[3]) {
  return ((long long)c[2] * nc[1] + c[1]) * nc[0] + c[0];
}

int pt_geom_setup(pt_params *p, pt_geom *g, char *err, size_t errlen) {
  const double a = cbrt(4.0 / p->density);
  double lattice = 4.0; /* sites of the lattice over the box */
  for (int k = 0; k < 3; ++k) {
    p->box[k] = g->nv[k] * g->h;
    /* Whole fcc unit cells that fit (the tube's voxels are unit cells: nv of them). */
    const double f = floor(p->box[k] / a * (1.0 + 1e-12));
    if (f < 1.0) {
      snprintf(err, errlen,
               "the domain's edge L%c = %.6g is shorter than one fcc unit cell (%.6g at density %g)",
               (char)('x' + k), p->box[k], a, p->density);
      return -1;
    }
    p->cells[k] = f > 1e6 ? 1000000 : (int)f;
    lattice *= f;
  }
  /* The lattice is scanned site by site: a voxel edge far above the lattice constant would
   * make a few bytes of mask a scan of billions of sites (and int cell counts overflow). */
  if (lattice > (double)PT_GEOM_MAX_SITES) {
    snprintf(err, errlen,
             "the domain of %.6g x %.6g x %.6g (voxel edge H = %g) "
             "holds a lattice of %.3g fcc sites at density %g, more than %.3g",
             p->box[0], p->box[1], p->box[2], g->h, lattice, p->density, (double)PT_GEOM_MAX_SITES);
    return -1;
  }
  pt_derive_cells(p);
  for (int k = 0; k < 3; ++k)
    if (p->nc[k] < 1) {
      snprintf(err, errlen,
               "--rc%s: %g is too large for the domain: L%c = %.6g holds no cell of side >= rc%s",
               p->list ? " + --skin" : "", p->list ? p->rc + p->skin : p->rc, (char)('x' + k), p->box[k],
               p->list ? " + skin" : "");
      return -1;
    }
  const double tiling = (double)p->nc[0] * p->nc[1] * p->nc[2];
  if (tiling > PT_GEOM_MAX_CELLS) {
    snprintf(err, errlen, "--rc: %g tiles the domain into %d x %d x %d cells, more than %d", p->rc, p->nc[0],
             p->nc[1], p->nc[2], PT_GEOM_MAX_CELLS);
    return -1;
  }
  const pt_walls w = pt_walls_of(g, p->box);
  const long long total = 4LL * p->cells[0] * p->cells[1] * p->cells[2];
  long long n = 0;
  for (int pass = 0; pass < 2; ++pass) {
    n = 0;
    for (long long s = 0; s < total; ++s) {
      double x[3];
      pt_lattice_site(p, s, x);
      if (!pt_in_open_voxel(&w, x)) continue;
      if (pass) g->site[n] = s;
      n++;
    }
    if (!pass) {
      if (n < 2) {
        snprintf(err, errlen, "the open voxels hold %lld fcc lattice site%s at density %g, 2 are needed", n,
                 n == 1 ? "" : "s", p->density);
        return -1;
      }
      g->site = kit_malloc((size_t)n * sizeof *g->site, "lattice sites");
    }
  }
  g->nsites = p->n = n;
  /* Occupied cells: every cell that holds part of an open voxel. A voxel's interval is widened
   * by 1e-9 h so rounding at a face can only mark one cell too many (empty, harmless), never
   * miss one a particle can bin into. */
  g->ncells = p->nc[0] * p->nc[1] * p->nc[2];
  g->one_owner = kit_malloc((size_t)g->ncells * sizeof *g->one_owner, "cell owners");
  g->sites_in_cell = calloc((size_t)g->ncells, sizeof *g->sites_in_cell);
  if (!g->sites_in_cell)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory for the cell weights");
  pt_geom_occupied(g, p->nc, p->inv_side, p->box, g->one_owner);
  g->nocc = 0;
  for (int c = 0; c < g->ncells; ++c) g->nocc += g->one_owner[c] == 0;
  for (long long id = 0; id < n; ++id) {
    double x[3];
    int c[3];
    pt_lattice_site(p, g->site[id], x);
    for (int ax = 0; ax < 3; ++ax) c[ax] = cell_coord(x[ax], p->inv_side[ax], p->box[ax], p->nc[ax]);
    const long long ci = cell_index(p->nc, c);
    if (g->one_owner[ci] != 0)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "lattice site of particle %lld is in an unoccupied cell",
              id);
    g->sites_in_cell[ci]++;
  }
  p->geom = g;
  return 0;
}

void pt_geom_occupied(const pt_geom *g, const int nc[3], const double inv_side[3], const double box[3],
                      int *one_owner) {
  const pt_walls w = pt_walls_of(g, box);
  const long long ncells = (long long)nc[0] * nc[1] * nc[2];
  for (long long c = 0; c < ncells; ++c) one_owner[c] = -1;
  for (int k = 0; k < g->nv[2]; ++k)
    for (int j = 0; j < g->nv[1]; ++j)
      for (int i = 0; i < g->nv[0]; ++i) {
        const int v[3] = {i, j, k};
        if (!pt_voxel_open(&w, v)) continue;
        int lo[3], hi[3];
        for (int ax = 0; ax < 3; ++ax) {
          lo[ax] = cell_coord((v[ax] - 1e-9) * g->h, inv_side[ax], box[ax], nc[ax]);
          hi[ax] = cell_coord((v[ax] + 1 + 1e-9) * g->h, inv_side[ax], box[ax], nc[ax]);
          if (lo[ax] < 0) lo[ax] = 0;
          if (hi[ax] > nc[ax] - 1) hi[ax] = nc[ax] - 1;
        }
        for (int cz = lo[2]; cz <= hi[2]; ++cz)
          for (int cy = lo[1]; cy <= hi[1]; ++cy)
            for (int cx = lo[0]; cx <= hi[0]; ++cx) {
              const int c[3] = {cx, cy, cz};
              one_owner[cell_index(nc, c)] = 0;
            }
      }
}

int pt_geom_partition(const pt_geom *g, const int nc[3], int nparts, int *owner, long long *edge_cut,
                      char *err, size_t errlen) {
  const int ncell = g->ncells, nv = g->nocc;
  int *vid = kit_malloc((size_t)ncell * sizeof *vid, "cell graph");
  int *cell_of = kit_malloc((size_t)(nv > 0 ? nv : 1) * sizeof *cell_of, "cell graph");
  int *vw = kit_malloc((size_t)(nv > 0 ? nv : 1) * sizeof *vw, "cell graph");
  int *xadj = kit_malloc(((size_t)nv + 1) * sizeof *xadj, "cell graph");
  int *adj = kit_malloc(((size_t)nv * 26 + 1) * sizeof *adj, "cell graph");
  int *part = kit_malloc((size_t)(nv > 0 ? nv : 1) * sizeof *part, "cell graph");
  int m = 0;
  for (int c = 0; c < ncell; ++c) {
    vid[c] = g->one_owner[c] == 0 ? m : -1;
    if (vid[c] >= 0) {
      cell_of[m] = c;
      vw[m++] = g->sites_in_cell[c];
    }
  }
  /* The graph of occupied cells, 26 neighbours each (those that interact), not periodic. */
  xadj[0] = 0;
  for (int u = 0; u < nv; ++u) {
    const int c = cell_of[u];
    const int cx = c % nc[0], cy = (c / nc[0]) % nc[1], cz = c / (nc[0] * nc[1]);
    int e = xadj[u];
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int q[3] = {cx + dx, cy + dy, cz + dz};
          if ((!dx && !dy && !dz) || q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= nc[0] || q[1] >= nc[1] ||
              q[2] >= nc[2])
            continue;
          const int w = vid[cell_index(nc, q)];
          if (w >= 0) adj[e++] = w;
        }
    xadj[u + 1] = e;
  }
  const kit_graph gr = {nv, xadj, adj, vw};
  int rc = kit_graph_part(&gr, nparts, 1, part, edge_cut, err, errlen);
  if (rc == 0) {
    int *cells_of_part = calloc((size_t)nparts, sizeof *cells_of_part);
    if (!cells_of_part) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
    for (int c = 0; c < ncell; ++c) owner[c] = vid[c] >= 0 ? part[vid[c]] : -1;
    for (int u = 0; u < nv; ++u) cells_of_part[part[u]]++;
    for (int q = 0; q < nparts && rc == 0; ++q)
      if (cells_of_part[q] == 0) {
        snprintf(err, errlen, "METIS left rank %d without a cell (%d occupied cells for %d ranks)", q, nv,
                 nparts);
        rc = -1;
      }
    free(cells_of_part);
  }
  free(vid), free(cell_of), free(vw), free(xadj), free(adj), free(part);
  return rc;
}

void pt_geom_free(pt_geom *g) {
  free(g->mask);
  free(g->site);
  free(g->one_owner);
  free(g->sites_in_cell);
  memset(g, 0, sizeof *g);
}
