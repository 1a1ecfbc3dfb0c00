/* fuzz_msh.c: libFuzzer harness for tetfv's gmsh reader (--mesh FILE.msh, formats 2.2 and
 * 4.1, miniapps/tetfv/msh_io.c) and the set-up that follows it on one process: the geometry
 * checks (tetfv_mesh_connect), the METIS partition of the cell dual graph (tetfv_partition),
 * the assembly of the step with its limiter and growth probe (assemble.c, both fluxes and
 * both boundary conditions, picked by the input's size) and one rank's part of it
 * (tetfv_local_build). The reader must never crash or read out of bounds and must give a
 * reason whenever it refuses; every mesh it accepts must have cells whose four nodes are nodes
 * of the mesh; every mesh the checks accept must give a finite matrix whose columns are cells
 * and a time step in (0, inf), and a partition with every cell in a part.
 * bash ci/fuzz.sh [SECONDS] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_file.h"
#include "tetfv.h"

/* The set-up main.c does on rank 0 after the checks, for one of the four schemes. */
static void setup(const tetfv_mesh *m, size_t size) {
  tetfv_params p = {0};
  p.run.seed = 1;
  p.run.iters = 3;
  p.kappa = 1.0;
  p.fibres = "rotating";
  p.aniso = size % 3 == 0 ? 2.0 : 0.0;
  p.flux = size % 4 < 2 ? "corrected" : "two-point";
  if (p.aniso > 0.0) p.flux = "corrected"; /* main.c refuses two-point with --aniso */
  p.bc = size % 2 ? "dirichlet" : "neumann";
  p.safety = 0.9;
  p.init = "random";
  tetfv_matrix g;
  tetfv_assembly_info info;
  tetfv_assemble(&p, m, &g, &info);
  if (!(p.dt > 0.0) || !isfinite(p.dt)) abort();
  if (info.bad_cell < -1 || info.bad_cell >= m->ncells) abort();
  for (int i = 0; i < g.n; ++i) {
    if (!isfinite(g.D[i])) abort();
    for (int k = 0; k < TETFV_W; ++k) {
      const size_t at = (size_t)TETFV_W * i + k;
      if (!isfinite(g.A[at]) || g.I[at] < 0 || g.I[at] >= m->ncells) abort();
    }
  }
  const int nparts = m->ncells >= 2 ? 2 : 1;
  int *part = malloc((size_t)m->ncells * sizeof(int));
  char err[256] = "";
  if (tetfv_partition(m, nparts, part, err, sizeof err) == 0) {
    for (int c = 0; c < m->ncells; ++c)
      if (part[c] < 0 || part[c] >= nparts) abort();
    tetfv_local l;
    tetfv_local_build(&g, part, 0, "rcm", 512, &l);
    if (l.nown < 0 || l.nown > m->ncells) abort();
    tetfv_local_free(&l);
  } else if (err[0] == '\0') {
    abort(); /* a partition refused without a reason */
  }
  free(part);
  tetfv_matrix_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  if (fuzz_to_file(data, size, "msh", "msh", path, sizeof path) != 0) return 0;
  tetfv_mesh m = {0};
  char err[512] = "";
  int rc = tetfv_read_msh(path, &m, err, sizeof err);
  remove(path);
  if (rc != 0) {
    if (err[0] == '\0') abort(); /* refused without a reason */
    tetfv_mesh_free(&m);
    return 0;
  }
  if (m.ncells <= 0 || m.nnodes <= 0) abort(); /* "no tetrahedra" must be refused */
  for (long i = 0; i < 4L * m.ncells; ++i)
    if (m.tet[i] < 0 || m.tet[i] >= m.nnodes) abort();
  /* The geometry checks run on whatever the reader accepted: degenerate, inverted,
   * duplicated, overlapping and over-shared cells are refused with a reason, never a crash. */
  err[0] = '\0';
  rc = tetfv_mesh_connect(&m, err, sizeof err);
  if (rc != 0 && err[0] == '\0') abort();
  if (rc == 0) {
    for (long i = 0; i < 4L * m.ncells; ++i)
      if (m.nbr[i] < -1 || m.nbr[i] >= m.ncells) abort();
    setup(&m, size);
  }
  tetfv_mesh_free(&m);
  return 0;
}
