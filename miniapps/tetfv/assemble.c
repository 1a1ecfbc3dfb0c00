/* assemble.c: the finite-volume discretisation, assembled once into Paper III's D, A, I
 * (Sec. 2: "up to 16 nonzero values per row ... four immediate neighbors and 12 second-level
 * neighbors"). README.md "The scheme" has the formulas; in short, with S_f the area vector of
 * face f of cell i (outward), d = x_j - x_i between the centroids and k = K(x_f) S_f:
 *   two-point flux   F = alpha (u_j - u_i),  alpha = (k . d) / (d . d)
 *   corrected flux   F = alpha (u_j - u_i) + t . (g_i + g_j) / 2,  t = k - alpha d,
 * g_i the least-squares gradient of cell i from its face neighbours, which brings in the
 * neighbours of j: the second level. Homogeneous Dirichlet faces take the same flux to the
 * face centroid, where u = 0, with the cell's own gradient only. Then V_i du_i/dt = sum_f F (the row L_i) and the step
 * is u_new = (I + dt V^-1 L) u, dt from the Gershgorin bound of V^-1 L times --safety. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "tetfv.h"

void tetfv_matrix_alloc(tetfv_matrix *z, int n) {
  const size_t rows = (size_t)(n > 0 ? n : 1);
  z->n = n;
  z->D = kit_malloc(rows * sizeof(double), "matrix D");
  z->A = kit_malloc(rows * TETFV_W * sizeof(double), "matrix A");
  z->I = kit_malloc(rows * TETFV_W * sizeof(int), "matrix I");
}

void tetfv_matrix_free(tetfv_matrix *z) {
  free(z->D);
  free(z->A);
  free(z->I);
  memset(z, 0, sizeof *z);
}

/* One row of L while it is assembled: the diagonal in slot 0, then the columns in the order
 * they first appear (face neighbours first: the two-point pass runs before the corrections). */
#define SLOTS (TETFV_W + 1)
typedef struct row_acc {
  int n;
  int col[SLOTS];
  double val[SLOTS];
} row_acc;

static void add(row_acc *r, int col, double v) {
  for (int k = 0; k < r->n; ++k)
    if (r->col[k] == col) {
      r->val[k] += v;
      return;
    }
  if (r->n == SLOTS)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "a row needs more than %d off-diagonal entries", TETFV_W);
  r->col[r->n] = col;
  r->val[r->n++] = v;
}

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Face f of cell c: its centroid, and its area vector pointing out of c. The normal is taken
 * from the face's nodes in ascending order, so both cells of a face compute the same vector
 * and only the sign differs: F_ji = -F_ij exactly, which conservation relies on. */
static void face_geometry(const tetfv_mesh *m, int c, int f, double *xf, double *S) {
  int v[3], q = 0;
  for (int a = 0; a < 4; ++a)
    if (a != f) v[q++] = m->tet[4 * (size_t)c + a];
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2 - a; ++b)
      if (v[b] > v[b + 1]) {
        const int t = v[b];
        v[b] = v[b + 1];
        v[b + 1] = t;
      }
  const double *p0 = m->xyz + 3 * (size_t)v[0], *p1 = m->xyz + 3 * (size_t)v[1], *p2 = m->xyz + 3 * (size_t)v[2];
  tetfv_area_normal(p0, p1, p2, S);
  for (int a = 0; a < 3; ++a) xf[a] = (p0[a] + p1[a] + p2[a]) / 3.0;
  const double *xc = m->centroid + 3 * (size_t)c;
  const double out[3] = {xf[0] - xc[0], xf[1] - xc[1], xf[2] - xc[2]};
  if (dot(out, S) < 0.0)
    for (int a = 0; a < 3; ++a) S[a] = -S[a];
}

/* Least-squares gradient g_c = sum_s G[s] (u_nbr(s) - u_c) over the face neighbours of c, exact
 * for linear fields: G[s] = M^-1 d_s, M = sum_s d_s d_s^T. Returns 0 where M is singular
 * (fewer than three neighbours, or all in a plane): that cell contributes no correction. */
static int lsq_gradient(const tetfv_mesh *m, int c, double G[4][3]) {
  double M[9] = {0}, d[4][3];
  int count = 0;
  for (int s = 0; s < 4; ++s) {
    const int j = m->nbr[4 * (size_t)c + s];
    for (int a = 0; a < 3; ++a) G[s][a] = 0.0;
    if (j < 0) continue;
    for (int a = 0; a < 3; ++a) d[s][a] = m->centroid[3 * (size_t)j + a] - m->centroid[3 * (size_t)c + a];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) M[3 * a + b] += d[s][a] * d[s][b];
    count++;
  }
  if (count < 3) return 0;
  const double adj[9] = {M[4] * M[8] - M[5] * M[7], M[2] * M[7] - M[1] * M[8], M[1] * M[5] - M[2] * M[4],
                         M[5] * M[6] - M[3] * M[8], M[0] * M[8] - M[2] * M[6], M[2] * M[3] - M[0] * M[5],
                         M[3] * M[7] - M[4] * M[6], M[1] * M[6] - M[0] * M[7], M[0] * M[4] - M[1] * M[3]};
  const double det = M[0] * adj[0] + M[1] * adj[3] + M[2] * adj[6];
  const double tr = (M[0] + M[4] + M[8]) / 3.0;
  if (!(det > 1e-9 * tr * tr * tr)) return 0;
  for (int s = 0; s < 4; ++s) {
    if (m->nbr[4 * (size_t)c + s] < 0) continue;
    for (int a = 0; a < 3; ++a)
      G[s][a] = (adj[3 * a] * d[s][0] + adj[3 * a + 1] * d[s][1] + adj[3 * a + 2] * d[s][2]) / det;
  }
  return 1;
}

void tetfv_assemble(tetfv_params *p, const tetfv_mesh *m, tetfv_matrix *z, tetfv_assembly_info *info) {
  const int n = m->ncells;
  const int corrected = strcmp(p->flux, "corrected") == 0, dirichlet = strcmp(p->bc, "dirichlet") == 0;
  memset(info, 0, sizeof *info);
  double(*G)[4][3] = kit_malloc((size_t)(n > 0 ? n : 1) * sizeof *G, "gradient weights");
  int *has_grad = kit_malloc((size_t)(n > 0 ? n : 1) * sizeof(int), "gradient flags");
  if (corrected)
    for (int c = 0; c < n; ++c) {
      has_grad[c] = lsq_gradient(m, c, G[c]);
      info->rows_no_gradient += !has_grad[c];
    }
  row_acc *L = kit_malloc((size_t)(n > 0 ? n : 1) * sizeof *L, "rows of L");
  double rate = 0.0; /* max_i Gershgorin extent of row i of V^-1 L */
  for (int c = 0; c < n; ++c) {
    row_acc *r = L + c;
    r->n = 0;
    add(r, c, 0.0);
    double t[4][3], xf[3], S[3], K[9], k[3];
    for (int f = 0; f < 4; ++f) {
      const int j = m->nbr[4 * (size_t)c + f];
      face_geometry(m, c, f, xf, S);
      tetfv_tensor(p, xf, K);
      for (int a = 0; a < 3; ++a) k[a] = K[3 * a] * S[0] + K[3 * a + 1] * S[1] + K[3 * a + 2] * S[2];
      const double *xc = m->centroid + 3 * (size_t)c;
      double d[3];
      if (j >= 0) {
        for (int a = 0; a < 3; ++a) d[a] = m->centroid[3 * (size_t)j + a] - xc[a];
        const double alpha = dot(k, d) / dot(d, d);
        add(r, c, -alpha);
        add(r, j, alpha);
        for (int a = 0; a < 3; ++a) t[f][a] = k[a] - alpha * d[a];
      } else if (dirichlet) {
        for (int a = 0; a < 3; ++a) d[a] = xf[a] - xc[a];
        const double alpha = dot(k, d) / dot(d, d);
        add(r, c, -alpha); /* u = 0 on the face */
        for (int a = 0; a < 3; ++a) t[f][a] = k[a] - alpha * d[a];
      }
    }
    if (corrected)
      for (int f = 0; f < 4; ++f) {
        const int j = m->nbr[4 * (size_t)c + f];
        if (j < 0 && !dirichlet) continue;
        /* Interior face: the mean of both cells' gradients; Dirichlet face: the cell's own. */
        const int cells[2] = {c, j}, ncells = j >= 0 ? 2 : 1;
        const double half = j >= 0 ? 0.5 : 1.0;
        for (int e = 0; e < ncells; ++e) {
          const int q = cells[e];
          if (!has_grad[q]) continue;
          for (int s = 0; s < 4; ++s) {
            const int nb = m->nbr[4 * (size_t)q + s];
            if (nb < 0) continue;
            const double w = half * dot(t[f], G[q][s]);
            add(r, nb, w);
            add(r, q, -w);
          }
        }
      }
    double off = 0.0;
    for (int s = 1; s < r->n; ++s) off += fabs(r->val[s]);
    if (off > fabs(r->val[0]) * (1.0 + 1e-12)) info->rows_not_dominant++;
    const double g = (fabs(r->val[0]) + off) / m->volume[c];
    if (g > rate) rate = g;
    if (r->n - 1 > info->max_width) info->max_width = r->n - 1;
  }
  /* Explicit Euler is stable when every eigenvalue lambda of V^-1 L has |1 + dt lambda| <= 1;
   * for a diagonally dominant row Gershgorin's disc of that row lies inside when
   * dt <= 2 / (|L_ii| + sum_j |L_ij|) V_i. For two-point fluxes this also keeps every weight
   * of the step non-negative (D_i >= 1 - safety), so the step obeys the maximum principle. */
  info->dt_stable = rate > 0.0 ? 2.0 / rate : 1.0;
  double dt = p->safety * info->dt_stable;
  if (p->t_end > 0.0) {
    const double steps = ceil(p->t_end / dt);
    p->run.iters = steps < 1.0 ? 1 : (int)steps;
    dt = p->t_end / p->run.iters;
  }
  p->dt = dt;
  tetfv_matrix_alloc(z, n);
  for (int c = 0; c < n; ++c) {
    const row_acc *r = L + c;
    const double s = dt / m->volume[c];
    z->D[c] = 1.0 + s * r->val[0];
    double *a = z->A + (size_t)TETFV_W * c;
    int *col = z->I + (size_t)TETFV_W * c;
    for (int k = 0; k < TETFV_W; ++k) {
      /* Padding: weight 0 and the row's own index, valid and already in cache. */
      a[k] = k + 1 < r->n ? s * r->val[k + 1] : 0.0;
      col[k] = k + 1 < r->n ? r->col[k + 1] : c;
    }
  }
  free(L);
  free(G);
  free(has_grad);
}
