/* fuzz_msh.c: libFuzzer harness for tetfv's gmsh reader (--mesh FILE.msh, formats 2.2 and
 * 4.1, miniapps/tetfv/msh_io.c) and the geometry checks that follow it (tetfv_mesh_connect).
 * The input is written to a file and read; the reader must never crash or read out of
 * bounds, must give a reason whenever it refuses, and every mesh it accepts must have cells
 * whose four nodes are nodes of the mesh. bash ci/fuzz.sh [SECONDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_file.h"
#include "tetfv.h"

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
  /* The geometry checks run on whatever the reader accepted: degenerate, inverted and
   * over-shared faces are refused with a reason, never a crash. */
  err[0] = '\0';
  rc = tetfv_mesh_connect(&m, err, sizeof err);
  if (rc != 0 && err[0] == '\0') abort();
  if (rc == 0)
    for (long i = 0; i < 4L * m.ncells; ++i)
      if (m.nbr[i] < -1 || m.nbr[i] >= m.ncells) abort();
  tetfv_mesh_free(&m);
  return 0;
}
