/* fuzz_particles_mask.c: libFuzzer harness for particles' voxel-mask reader (--domain FILE:
 * a header 'NX NY NZ H', then NY x NZ rows of NX flags 0 or 1, miniapps/particles/geometry.c)
 * and the setup that follows it (pt_geom_setup at the default density and cutoff: the fcc
 * sites in open voxels, the occupied cells). The input is written to a file and read; the
 * reader must never crash, read out of bounds or hang, must give a reason whenever it
 * refuses, and whatever it accepts must be a mask of 0/1 flags with an open voxel and sizes
 * in range; the setup must then refuse with a reason (a lattice above PT_GEOM_MAX_SITES
 * before scanning it) or give at least 2 sites, in increasing order, each in an open voxel
 * and counted in an occupied cell; and the one-rank tiling of the occupied cells must hold
 * them all with their neighbours and bin every site into one of them.
 * bash ci/fuzz.sh [SECONDS] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "geometry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  if (fuzz_to_file(data, size, "mask", "txt", path, sizeof path) != 0) return 0;
  pt_geom g;
  char err[512] = "";
  const int rc = pt_geom_read(path, &g, err, sizeof err);
  remove(path);
  if (rc != 0) {
    if (err[0] == '\0') abort(); /* refused without a reason */
    if (g.mask) abort();         /* nothing left allocated */
    return 0;
  }
  long long open = 0;
  for (int a = 0; a < 3; ++a)
    if (g.nv[a] < 1 || g.nv[a] > 1024) abort();
  if (!(g.h > 0.0)) abort();
  const long long nvox = (long long)g.nv[0] * g.nv[1] * g.nv[2];
  if (nvox > (long long)size) abort(); /* a voxel takes at least one byte of the file */
  for (long long i = 0; i < nvox; ++i) {
    if (g.mask[i] > 1) abort();
    open += g.mask[i];
  }
  if (open == 0) abort(); /* "no voxel is open" must be refused */
  /* The setup at the app's defaults (main.c): --density 0.8442, --rc 2.5. It scans the whole
   * lattice over the box (pt_geom_setup): a lattice between 2^16 sites and the limit is
   * legitimate but takes seconds under the sanitizers, so it is left out; above the limit
   * the setup must refuse it before the scan. */
  pt_params p;
  memset(&p, 0, sizeof p);
  p.density = 0.8442;
  p.rc = 2.5;
  double lattice = 4.0;
  for (int a = 0; a < 3; ++a) lattice *= floor(g.nv[a] * g.h / cbrt(4.0 / p.density) * (1.0 + 1e-12));
  if (lattice > (1 << 16) && lattice <= (double)PT_GEOM_MAX_SITES) {
    pt_geom_free(&g);
    return 0;
  }
  err[0] = '\0';
  if (pt_geom_setup(&p, &g, err, sizeof err) != 0) {
    if (err[0] == '\0') abort();
    pt_geom_free(&g);
    return 0;
  }
  if (p.n < 2 || g.nsites != p.n || g.nocc < 1 || g.nocc > g.ncells) abort();
  const pt_walls w = pt_walls_of(&g, p.box);
  const long long total = 4LL * p.cells[0] * p.cells[1] * p.cells[2];
  long long counted = 0;
  for (long long id = 0; id < p.n; ++id) {
    if (g.site[id] < 0 || g.site[id] >= total || (id > 0 && g.site[id] <= g.site[id - 1])) abort();
    double x[3];
    pt_lattice_site(&p, g.site[id], x);
    if (!pt_in_open_voxel(&w, x)) abort();
  }
  for (int c = 0; c < g.ncells; ++c) {
    if (g.one_owner[c] != 0 && (g.one_owner[c] != -1 || g.sites_in_cell[c] != 0)) abort();
    counted += g.sites_in_cell[c];
  }
  if (counted != p.n) abort();
  /* The one-rank tiling of the occupied cells (main.c's, with the single-rank owner map):
   * the owned cells are the occupied ones, each with 27 neighbours in the tiling, nothing
   * periodic (no connection), and every lattice site bins into an owned cell. */
  if (g.ncells <= (1 << 16)) {
    pt_decomp d;
    pt_decomp_build_owned(&d, p.nc, g.one_owner, 0);
    if (d.first[2] != g.nocc || d.nconn != 0 || d.nwall != d.ncells - d.first[2]) abort();
    for (int lid = 0; lid < d.first[2]; ++lid)
      for (int m = 0; m < 27; ++m)
        if (d.nbr[27 * lid + m] < 0 || d.nbr[27 * lid + m] >= d.ncells) abort();
    for (long long id = 0; id < p.n; ++id) {
      double x[3];
      pt_lattice_site(&p, g.site[id], x);
      const int c = pt_cell_of(&p, &d, x);
      if (c < 0 || c >= d.first[2]) abort();
    }
    pt_decomp_free(&d);
  }
  pt_geom_free(&g);
  return 0;
}
