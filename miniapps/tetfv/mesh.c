/* mesh.c: the built-in box mesh, cell renumbering, and the geometry and face matching every
 * mesh goes through (Paper III Sec. 4 meshes a heart with tetgen; the box is the mesh whose
 * exact solution we know). See README.md "Meshes".
 *   build/bin/tetfv --mesh box:8 --jitter 0.3 --shuffle */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/philox.h"
#include "tetfv.h"

void tetfv_mesh_free(tetfv_mesh *m) {
  free(m->xyz);
  free(m->tet);
  free(m->centroid);
  free(m->volume);
  free(m->nbr);
  free(m->line);
  memset(m, 0, sizeof *m);
}

/* A uniform double in [0, 1) for (seed, stream, index): Philox, so the mesh does not depend on
 * the rank count or on the order in which it is built. */
static double uniform(uint64_t seed, uint32_t stream, uint32_t index, int word) {
  return kit_philox_uniform((uint32_t)seed, (uint32_t)(seed >> 32), index, stream, 0x7e7f, 0, word);
}

void tetfv_mesh_box(tetfv_mesh *m, int n, double jitter, int shuffle, uint64_t seed) {
  memset(m, 0, sizeof *m);
  const int np = n + 1;
  m->nnodes = np * np * np;
  m->ncells = 6 * n * n * n;
  m->xyz = kit_malloc((size_t)m->nnodes * 3 * sizeof(double), "box nodes");
  m->tet = kit_malloc((size_t)m->ncells * 4 * sizeof(int), "box cells");
  const double h = 1.0 / n;
  for (int k = 0; k < np; ++k)
    for (int j = 0; j < np; ++j)
      for (int i = 0; i < np; ++i) {
        const int v = (k * np + j) * np + i;
        const int idx[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) {
          double x = idx[a] * h;
          /* Boundary vertices stay put so the domain stays the unit cube. */
          const int interior = i > 0 && i < n && j > 0 && j < n && k > 0 && k < n;
          if (interior && jitter > 0.0) x += jitter * h * (uniform(seed, 1, (uint32_t)v, a) - 0.5);
          m->xyz[3 * v + a] = x;
        }
      }
  /* Kuhn split: the tetrahedron of permutation s walks from the cube's corner (i,j,k) one unit
   * along axis s[0], then s[1], then s[2]. Every cube is split the same way, so a cube face
   * is cut along the same diagonal from both sides and the faces match. */
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  int c = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (int s = 0; s < 6; ++s, ++c) {
          int at[3] = {i, j, k};
          int *t = m->tet + 4 * (size_t)c;
          t[0] = (at[2] * np + at[1]) * np + at[0];
          for (int step = 0; step < 3; ++step) {
            at[perm[s][step]]++;
            t[step + 1] = (at[2] * np + at[1]) * np + at[0];
          }
          /* Odd permutations come out negatively oriented: swap two vertices. The undisturbed
           * orientation decides, so jitter cannot flip the choice. */
          const int odd = s == 1 || s == 2 || s == 5;
          if (odd) {
            const int tmp = t[2];
            t[2] = t[3];
            t[3] = tmp;
          }
        }
  if (shuffle) tetfv_mesh_shuffle(m, seed);
}

void tetfv_mesh_shuffle(tetfv_mesh *m, uint64_t seed) {
  /* Fisher-Yates with Philox draws keyed by position. */
  for (int i = m->ncells - 1; i > 0; --i) {
    int j = (int)(uniform(seed, 2, (uint32_t)i, 0) * (i + 1));
    if (j > i) j = i;
    for (int a = 0; a < 4; ++a) {
      const int t = m->tet[4 * (size_t)i + a];
      m->tet[4 * (size_t)i + a] = m->tet[4 * (size_t)j + a];
      m->tet[4 * (size_t)j + a] = t;
    }
    if (m->line) {
      const long t = m->line[i];
      m->line[i] = m->line[j];
      m->line[j] = t;
    }
  }
}

/* A face as its three node indices sorted, with the cell and local face it belongs to. */
typedef struct face_key {
  int v[3];
  int cell, f;
} face_key;

static int cmp_face(const void *a, const void *b) {
  const face_key *x = a, *y = b;
  for (int k = 0; k < 3; ++k)
    if (x->v[k] != y->v[k]) return x->v[k] < y->v[k] ? -1 : 1;
  return x->cell < y->cell ? -1 : x->cell > y->cell;
}

static void sort3(int *v) {
  int t;
  if (v[0] > v[1]) {
    t = v[0];
    v[0] = v[1];
    v[1] = t;
  }
  if (v[1] > v[2]) {
    t = v[1];
    v[1] = v[2];
    v[2] = t;
  }
  if (v[0] > v[1]) {
    t = v[0];
    v[0] = v[1];
    v[1] = t;
  }
}

/* "line L: " for a cell read from a file, "cell C: " for a generated one. */
static void where(const tetfv_mesh *m, int c, char *buf, size_t len) {
  if (m->line)
    snprintf(buf, len, "line %ld: tetrahedron", m->line[c]);
  else
    snprintf(buf, len, "cell %d:", c);
}

int tetfv_mesh_connect(tetfv_mesh *m, char *err, size_t errlen) {
  const int n = m->ncells;
  m->centroid = kit_malloc((size_t)n * 3 * sizeof(double), "centroids");
  m->volume = kit_malloc((size_t)n * sizeof(double), "volumes");
  m->nbr = kit_malloc((size_t)n * 4 * sizeof(int), "face neighbours");
  char at[64];
  for (int c = 0; c < n; ++c) {
    const int *t = m->tet + 4 * (size_t)c;
    const double *p[4];
    double emax = 0.0;
    for (int a = 0; a < 4; ++a) p[a] = m->xyz + 3 * (size_t)t[a];
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        const double dx = p[a][0] - p[b][0], dy = p[a][1] - p[b][1], dz = p[a][2] - p[b][2];
        const double e = sqrt(dx * dx + dy * dy + dz * dz);
        if (e > emax) emax = e;
      }
    const double det = tetfv_det6(p[0], p[1], p[2], p[3]);
    /* Degenerate: volume below 1e-12 of the cube on its longest edge (a flat or repeated-node
     * cell: its faces have no well-defined normal and 1/V blows up the step). */
    if (!(fabs(det) > 1e-12 * emax * emax * emax)) {
      where(m, c, at, sizeof at);
      snprintf(err, errlen, "%s is degenerate (volume %.3g, longest edge %.3g)", at, det / 6.0, emax);
      return -1;
    }
    if (det < 0.0) {
      where(m, c, at, sizeof at);
      snprintf(err, errlen, "%s is inverted (negative signed volume %.3g: nodes in the wrong order)", at,
               det / 6.0);
      return -1;
    }
    m->volume[c] = det / 6.0;
    for (int a = 0; a < 3; ++a) m->centroid[3 * c + a] = 0.25 * (p[0][a] + p[1][a] + p[2][a] + p[3][a]);
  }
  face_key *keys = kit_malloc((size_t)n * 4 * sizeof *keys, "faces");
  for (int c = 0; c < n; ++c)
    for (int f = 0; f < 4; ++f) {
      face_key *k = keys + 4 * (size_t)c + f;
      int q = 0;
      for (int a = 0; a < 4; ++a)
        if (a != f) k->v[q++] = m->tet[4 * (size_t)c + a];
      sort3(k->v);
      k->cell = c;
      k->f = f;
      m->nbr[4 * (size_t)c + f] = -1;
    }
  qsort(keys, (size_t)n * 4, sizeof *keys, cmp_face);
  m->nfaces_interior = m->nfaces_boundary = 0;
  for (size_t s = 0; s < (size_t)n * 4;) {
    size_t e = s + 1;
    while (e < (size_t)n * 4 && memcmp(keys[e].v, keys[s].v, sizeof keys[s].v) == 0) ++e;
    if (e - s > 2) {
      where(m, keys[s + 2].cell, at, sizeof at);
      snprintf(err, errlen,
               "%s shares face (%d %d %d) with two other cells (a mesh face belongs to at most two)", at,
               keys[s].v[0], keys[s].v[1], keys[s].v[2]);
      free(keys);
      return -1;
    }
    if (e - s == 2) {
      const face_key *a = keys + s, *b = keys + s + 1;
      if (a->cell == b->cell) {
        where(m, a->cell, at, sizeof at);
        snprintf(err, errlen, "%s repeats a node", at);
        free(keys);
        return -1;
      }
      /* Both cells are positively oriented, so a conforming pair has its far vertices on
       * opposite sides of the face; on the same side they overlap (the same vertex: the
       * same element twice). The sign of an exact-input determinant, no tolerance needed
       * beyond the degeneracy test above (each apex is far from the face plane). */
      const int pa = m->tet[4 * (size_t)a->cell + a->f], pb = m->tet[4 * (size_t)b->cell + b->f];
      const double *f0 = m->xyz + 3 * (size_t)a->v[0], *f1 = m->xyz + 3 * (size_t)a->v[1],
                   *f2 = m->xyz + 3 * (size_t)a->v[2];
      const double sa = tetfv_det6(f0, f1, f2, m->xyz + 3 * (size_t)pa),
                   sb = tetfv_det6(f0, f1, f2, m->xyz + 3 * (size_t)pb);
      if (pa == pb || (sa > 0.0) == (sb > 0.0)) {
        if (m->line)
          snprintf(at, sizeof at, "the tetrahedra of lines %ld and %ld", m->line[a->cell], m->line[b->cell]);
        else
          snprintf(at, sizeof at, "cells %d and %d", a->cell, b->cell);
        if (pa == pb)
          snprintf(err, errlen, "%s are the same element (the same four nodes)", at);
        else
          snprintf(err, errlen, "%s overlap (both lie on the same side of their shared face)", at);
        free(keys);
        return -1;
      }
      m->nbr[4 * (size_t)a->cell + a->f] = b->cell;
      m->nbr[4 * (size_t)b->cell + b->f] = a->cell;
      m->nfaces_interior++;
    } else {
      m->nfaces_boundary++;
    }
    s = e;
  }
  free(keys);
  return 0;
}

void tetfv_tensor(const tetfv_params *p, const double *x, double *K) {
  double f[3] = {1.0, 0.0, 0.0};
  if (strcmp(p->fibres, "rotating") == 0) {
    /* Fibres turning through 120 degrees from z = 0 to z = 1, as muscle fibres turn through
     * the heart wall (the application of Paper III's mesh). */
    const double th = (2.0 * TETFV_PI / 3.0) * (x[2] - 0.5);
    f[0] = cos(th);
    f[1] = sin(th);
  }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) K[3 * a + b] = p->kappa * ((a == b ? 1.0 : 0.0) + p->aniso * f[a] * f[b]);
}

double tetfv_initial(const tetfv_params *p, int c, const double *x) {
  if (strcmp(p->init, "constant") == 0) return 1.0;
  if (strcmp(p->init, "random") == 0) return uniform(p->run.seed, 3, (uint32_t)c, 0);
  if (strcmp(p->bc, "dirichlet") == 0)
    return sin(TETFV_PI * x[0]) * sin(TETFV_PI * x[1]) * sin(TETFV_PI * x[2]);
  return cos(TETFV_PI * x[0]) * cos(TETFV_PI * x[1]) * cos(TETFV_PI * x[2]);
}
