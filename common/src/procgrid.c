/* procgrid.c: process grids (kit/procgrid.h): --procs, the rules, coordinates, the split per
 * axis, neighbours in 26 directions and the gather of boxes on rank 0. */
#include "kit/procgrid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/driver.h"

int kit_procs_parse(const char *arg, void *dest, char *err, size_t errlen) {
  int *procs = dest;
  long v[3];
  const char *s = arg;
  for (int d = 0; d < 3; ++d) {
    char *end = NULL;
    errno = 0;
    v[d] = *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : -1;
    if (v[d] < 0 || errno || *end != (d < 2 ? 'x' : '\0')) {
      snprintf(err, errlen, "'%s' is not PxQxR (ranks along x, y and z, e.g. 2x2x1)", arg);
      return -1;
    }
    s = end + (d < 2);
  }
  for (int d = 0; d < 3; ++d)
    if (v[d] < 1 || v[d] > 1000000) {
      snprintf(err, errlen, "'%s': P, Q and R must be in [1, 1000000]", arg);
      return -1;
    }
  for (int d = 0; d < 3; ++d) procs[d] = (int)v[d];
  return 0;
}

int kit_procs_is_slab(const int procs[3]) {
  return procs[0] == 1 && procs[1] == 1;
}

void kit_procs_resolve(int procs[3], int nranks) {
  if (procs[0] > 0) return;
  procs[0] = procs[1] = 1;
  procs[2] = nranks;
}

static const char axis_name[3] = {'x', 'y', 'z'};

int kit_procs_check(const kit_env *env, const char *app, const int procs[3], const int size[3],
                    const char *unit) {
  const int *g = procs;
  const long long n = (long long)g[0] * g[1] * g[2];
  if (n != env->nranks)
    return kit_usage_error(env, "%s: --procs %dx%dx%d makes %lld ranks, but the job has %d", app, g[0], g[1],
                           g[2], n, env->nranks);
  if (!kit_procs_is_slab(g))
    for (int d = 0; d < 3; ++d)
      if (size[d] < g[d])
        return kit_usage_error(env,
                               "%s: --procs %dx%dx%d: %d %s along %c cannot be split over %d ranks "
                               "(each rank needs at least one)",
                               app, g[0], g[1], g[2], size[d], unit, axis_name[d], g[d]);
  return -1;
}

void kit_procs_coords(const int procs[3], int rank, int coords[3]) {
  coords[2] = rank % procs[2];
  coords[1] = rank / procs[2] % procs[1];
  coords[0] = rank / procs[2] / procs[1];
}

int kit_procs_rank(const int procs[3], const int coords[3]) {
  for (int d = 0; d < 3; ++d)
    if (coords[d] < 0 || coords[d] >= procs[d]) return MPI_PROC_NULL;
  return (coords[0] * procs[1] + coords[1]) * procs[2] + coords[2];
}

void kit_procs_split(const int size[3], const int procs[3], int rank, kit_block part[3]) {
  int c[3];
  kit_procs_coords(procs, rank, c);
  for (int d = 0; d < 3; ++d) part[d] = kit_block_split(size[d], procs[d], c[d]);
}

int kit_procs_neighbour(const int procs[3], int rank, const int dir[3]) {
  int c[3];
  kit_procs_coords(procs, rank, c);
  for (int d = 0; d < 3; ++d) c[d] += dir[d];
  return kit_procs_rank(procs, c);
}

void kit_procs_neighbours(const int procs[3], int rank, int nbr[KIT_PROCS_DIRS]) {
  for (int k = 0; k < KIT_PROCS_DIRS; ++k) {
    int dir[3];
    kit_procs_dir_of(k, dir);
    nbr[k] = kit_procs_neighbour(procs, rank, dir);
  }
}

double *kit_procs_gather(MPI_Comm comm, const kit_block part[3], const int size[3], int comps, int per,
                         const double *mine) {
  enum { TAG_BOX_PLANE = 311 };
  int rank = 0, nranks = 1;
  KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  KIT_MPI_CHECK(MPI_Comm_size(comm, &nranks));
  const int box[6] = {part[0].begin, part[0].count, part[1].begin,
                      part[1].count, part[2].begin, part[2].count};
  int *boxes = rank == 0 ? kit_malloc(6 * (size_t)nranks * sizeof(int), "gather boxes") : NULL;
  KIT_MPI_CHECK(MPI_Gather(box, 6, MPI_INT, boxes, 6, MPI_INT, 0, comm));
  /* One plane of a box: comps x ny rows of nx cells of per doubles. */
  const size_t row = (size_t)part[0].count * (size_t)per, plane = row * (size_t)part[1].count * (size_t)comps;
  if (plane > 2147483647u)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gather: a plane of a box is more than 2^31-1 doubles");
  if (rank != 0) {
    for (int l = 0; l < part[2].count; ++l)
      KIT_MPI_CHECK(MPI_Send(mine + (size_t)l * plane, (int)plane, MPI_DOUBLE, 0, TAG_BOX_PLANE, comm));
    return NULL;
  }
  unsigned long long cells = 0;
  for (int r = 0; r < nranks; ++r) {
    const int *q = boxes + 6 * r;
    for (int d = 0; d < 3; ++d)
      if (q[2 * d] < 0 || q[2 * d + 1] < 1 || q[2 * d] + q[2 * d + 1] > size[d])
        kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gather: rank %d's box leaves the domain", r);
    cells += (unsigned long long)q[1] * (unsigned long long)q[3] * (unsigned long long)q[5];
  }
  const unsigned long long total = (unsigned long long)size[0] * size[1] * size[2];
  if (cells != total)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "gather: the boxes hold %llu cells, the domain %llu", cells,
            total);
  const size_t NX = (size_t)size[0], NY = (size_t)size[1], C = (size_t)comps, P = (size_t)per;
  double *all = kit_malloc((size_t)total * C * P * sizeof(double), "gathered field");
  double *buf = kit_malloc(NX * NY * C * P * sizeof(double), "gather plane");
  for (int r = 0; r < nranks; ++r) {
    const int *q = boxes + 6 * r;
    const size_t nx = (size_t)q[1], ny = (size_t)q[3], n = nx * ny * C * P;
    for (int l = 0; l < q[5]; ++l) {
      const double *src = mine + (size_t)l * n;
      if (r != 0) {
        KIT_MPI_CHECK(MPI_Recv(buf, (int)n, MPI_DOUBLE, r, TAG_BOX_PLANE, comm, MPI_STATUS_IGNORE));
        src = buf;
      }
      const size_t k = (size_t)(q[4] + l);
      for (size_t c = 0; c < C; ++c)
        for (size_t j = 0; j < ny; ++j)
          memcpy(all + (((k * C + c) * NY + (size_t)q[2] + j) * NX + (size_t)q[0]) * P,
                 src + (c * ny + j) * nx * P, nx * P * sizeof(double));
    }
  }
  free(buf);
  free(boxes);
  return all;
}

kit_box_split kit_box_split_make(const int n[3], const int side[6], const int order[3]) {
  kit_box_split r;
  for (int a = 0; a < 3; ++a) {
    r.in_lo[a] = 1 + (side[2 * a] != 0);
    r.in_hi[a] = n[a] + 1 - (side[2 * a + 1] != 0);
    if (r.in_hi[a] < r.in_lo[a]) r.in_hi[a] = r.in_lo[a]; /* one cell, neighbours on both sides */
  }
  for (int k = 0; k < 3; ++k) {
    const int a = order[k];
    for (int s = 0; s < 2; ++s) {
      const int f = 2 * a + s;
      for (int m = 0; m < 3; ++m) { /* axes before a in the order: their inner range; after: whole */
        const int d = order[m];
        r.lo[f][d] = m < k ? r.in_lo[d] : 1;
        r.hi[f][d] = m < k ? r.in_hi[d] : n[d] + 1;
      }
      r.lo[f][a] = s ? r.in_hi[a] : 1;
      r.hi[f][a] = s ? n[a] + 1 : r.in_lo[a];
    }
  }
  return r;
}
