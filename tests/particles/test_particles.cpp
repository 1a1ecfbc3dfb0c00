// particles building blocks against closed forms and hand-checked decompositions (label cpu):
// the Lennard-Jones pair function (analytic values, the shift, Newton's third law, F = -dV/dr),
// cell binning at the box faces, the internal/frontier/external classification and the
// connection matrix of Bernaschi Sec. 3.2.1, the binary search of the cell array, the --input
// reader's line numbers, migration across the periodic faces (Sec. 3.2.2), the GPU variants'
// host path (frontier.c) looped back on one rank, and its unpack on 1 to 3 threads; irregular
// domains: the tiling of a hand-made owner map with empty cells, the wall reflection rule
// (walls.h) on hand-computed cases, and the kit's METIS wrapper on a graph with one obvious cut;
// --neighbor list: the images and order cells at the box faces, and a list's forces against
// the cells' bit for bit, before and after a move (neighbor.h).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "exchange.h"
#include "frontier.h"
#include "kit/graph_part.h"
#include "lammps_io.h"
#include "lj.h"
#include "neighbor.h"
#include "particles.h"
#include "walls.h"

namespace {
double V(double r) {
  return 4.0 * (std::pow(r, -12) - std::pow(r, -6));
}  // written out again
}  // namespace

// r = 1: V = 0, F = 24; r = 2^(1/6): the minimum, V = -1, F = 0; r = 1.5 against the formula.
TEST(particles, PairAnalyticValues) {
  double fr;
  EXPECT_DOUBLE_EQ(lj_pair(1.0, 6.25, 0.0, &fr), 0.0);
  EXPECT_DOUBLE_EQ(fr, 24.0);  // F = -dV/dr at r = 1 is 48 - 24; f/r = F
  const double rmin = std::pow(2.0, 1.0 / 6.0);
  EXPECT_NEAR(lj_pair(rmin * rmin, 6.25, 0.0, &fr), -1.0, 1e-15);
  EXPECT_NEAR(fr, 0.0, 1e-14);
  const double e = lj_pair(2.25, 6.25, 0.0, &fr);
  EXPECT_NEAR(e, V(1.5), 1e-15);
  EXPECT_NEAR(fr, (48.0 * std::pow(1.5, -14) - 24.0 * std::pow(1.5, -8)), 1e-15);
  // Beyond and at the cutoff: nothing.
  EXPECT_EQ(lj_pair(6.25, 6.25, 0.0, &fr), 0.0);
  EXPECT_EQ(fr, 0.0);
  EXPECT_EQ(lj_pair(7.0, 6.25, 0.0, &fr), 0.0);
  EXPECT_EQ(fr, 0.0);
}

// F = -dV/dr by central differences over the range that matters.
TEST(particles, PairForceIsMinusGradient) {
  for (double r = 0.9; r < 2.45; r += 0.07) {
    double fr, f1, f2;
    lj_pair(r * r, 6.25, 0.0, &fr);
    const double h = 1e-6;
    const double vp = lj_pair((r + h) * (r + h), 6.25, 0.0, &f1),
                 vm = lj_pair((r - h) * (r - h), 6.25, 0.0, &f2);
    EXPECT_NEAR(fr * r, -(vp - vm) / (2 * h), 1e-6 * (1 + std::fabs(fr * r))) << r;
  }
}

// --shift: V(rc) = 0 and V(r) - V_shifted(r) = V(rc) everywhere inside; the force is unchanged.
TEST(particles, PairShift) {
  const double rc = 2.5, s = lj_shift_at(rc, 1);
  EXPECT_NEAR(s, V(2.5), 1e-17);
  EXPECT_EQ(lj_shift_at(rc, 0), 0.0);
  double f0, f1;
  EXPECT_NEAR(lj_pair(rc * rc * (1 - 1e-15), rc * rc, s, &f1), 0.0, 1e-14);
  for (double r = 0.95; r < 2.5; r += 0.11) {
    const double a = lj_pair(r * r, rc * rc, 0.0, &f0), b = lj_pair(r * r, rc * rc, s, &f1);
    EXPECT_NEAR(a - b, V(2.5), 1e-15);
    EXPECT_EQ(f0, f1);
  }
}

// Newton's third law, exactly: the force on j from i is minus that on i from j, bit for bit,
// because f/r depends on r^2 only and (x_j - x_i) = -(x_i - x_j) exactly.
TEST(particles, PairNewtonThirdLaw) {
  const double xi[3] = {0.3, 1.7, 2.2}, xj[3] = {1.4, 0.9, 2.9};
  double dij[3], dji[3], r2 = 0, r2b = 0;
  for (int a = 0; a < 3; ++a) {
    dij[a] = xi[a] - xj[a];
    dji[a] = xj[a] - xi[a];
    r2 += dij[a] * dij[a];
    r2b += dji[a] * dji[a];
  }
  double fij, fji;
  const double eij = lj_pair(r2, 6.25, 0.0, &fij), eji = lj_pair(r2b, 6.25, 0.0, &fji);
  EXPECT_EQ(eij, eji);
  for (int a = 0; a < 3; ++a) EXPECT_EQ(fij * dij[a], -(fji * dji[a]));
}

// Binning at the faces of a box of 3 cells: rounding can never put x in [0, L) outside
// [0, nc), nor x < 0 or x >= L inside; NaN and far-away points belong to no cell.
TEST(particles, CellCoordAtTheFaces) {
  const double L = 7.7, inv = 3.0 / L;
  EXPECT_EQ(cell_coord(0.0, inv, L, 3), 0);
  EXPECT_EQ(cell_coord(-1e-300, inv, L, 3), -1);
  EXPECT_EQ(cell_coord(std::nextafter(L, 0.0), inv, L, 3), 2);
  EXPECT_EQ(cell_coord(L, inv, L, 3), 3);
  EXPECT_EQ(cell_coord(L / 3 * 1.5, inv, L, 3), 1);
  EXPECT_EQ(cell_coord(-L / 3 * 0.5, inv, L, 3), -1);
  EXPECT_EQ(cell_coord(1e300, inv, L, 3), 5);
  EXPECT_EQ(cell_coord(std::nan(""), inv, L, 3), -2);
}

// One rank owning a 5 x 5 x 5 periodic tiling: internal = the 3^3 core, frontier = the other
// 98, external = the 7^3 - 125 = 218 shell cells, all periodic images of its own cells, so 26
// connections to itself (one per image). A corner frontier cell is seen by 7 images, an edge
// cell by 3, a face cell by 1.
TEST(particles, ClassifyOneRank) {
  const int nc[3] = {5, 5, 5}, dims[3] = {1, 1, 1}, coords[3] = {0, 0, 0};
  pt_decomp d;
  pt_decomp_build(&d, nc, dims, coords);
  EXPECT_EQ(d.first[1] - d.first[0], 27);
  EXPECT_EQ(d.first[2] - d.first[1], 98);
  EXPECT_EQ(d.ncells - d.first[2], 218);
  EXPECT_EQ(d.nconn, 26);
  EXPECT_EQ(d.nbr_ranks, 1);
  for (int k = 0; k < d.nconn; ++k) EXPECT_EQ(d.conn[k].rank, 0);
  auto conns_of = [&](int x, int y, int z) {
    const int c[3] = {x, y, z};
    const int lid = pt_lookup(&d, pt_gid(nc, c));
    EXPECT_EQ(pt_group(&d, lid), PT_FRONTIER);
    const int f = lid - d.first[1];
    return d.conn_start[f + 1] - d.conn_start[f];
  };
  EXPECT_EQ(conns_of(0, 0, 0), 7);
  EXPECT_EQ(conns_of(4, 0, 4), 7);
  EXPECT_EQ(conns_of(2, 0, 0), 3);
  EXPECT_EQ(conns_of(2, 2, 0), 1);
  EXPECT_EQ(conns_of(4, 2, 2), 1);
  const int core[3] = {2, 2, 2};
  EXPECT_EQ(pt_group(&d, pt_lookup(&d, pt_gid(nc, core))), PT_INTERNAL);
  pt_decomp_free(&d);
}

// Rank 1 of a 2 x 1 x 1 grid over 6 x 4 x 3 cells owns x in [3, 6): its internal cells are
// x = 4, y in {1, 2}, z = 1 (2 cells); 36 owned, so 34 frontier; 5 x 6 x 5 - 36 = 114
// external. Rank 0 is seen through x = 2 (no shift) and x = 6 (image +1 in x), each with the
// 9 y/z images: 18 connections; itself through the 8 y/z images: 26 in all, 2 ranks.
TEST(particles, ClassifyTwoRanksHandChecked) {
  const int nc[3] = {6, 4, 3}, dims[3] = {2, 1, 1}, coords[3] = {1, 0, 0};
  pt_decomp d;
  pt_decomp_build(&d, nc, dims, coords);
  EXPECT_EQ(d.lo[0], 3);
  EXPECT_EQ(d.hi[0], 6);
  EXPECT_EQ(d.first[1], 2);
  EXPECT_EQ(d.first[2] - d.first[1], 34);
  EXPECT_EQ(d.ncells - d.first[2], 114);
  EXPECT_EQ(d.nconn, 26);
  EXPECT_EQ(d.nbr_ranks, 2);
  int to0 = 0, to1 = 0;
  for (int k = 0; k < d.nconn; ++k) {
    if (d.conn[k].rank == 0) {
      ++to0;
      EXPECT_TRUE(d.conn[k].shift[0] == 0 || d.conn[k].shift[0] == 1);
    } else {
      ++to1;
      EXPECT_EQ(d.conn[k].shift[0], 0);
      EXPECT_FALSE(d.conn[k].shift[1] == 0 && d.conn[k].shift[2] == 0);
    }
  }
  EXPECT_EQ(to0, 18);
  EXPECT_EQ(to1, 8);
  const int in1[3] = {4, 1, 1}, in2[3] = {4, 2, 1}, fr[3] = {3, 1, 1}, ex[3] = {2, 1, 1}, ex2[3] = {6, 3, 2};
  EXPECT_EQ(pt_group(&d, pt_lookup(&d, pt_gid(nc, in1))), PT_INTERNAL);
  EXPECT_EQ(pt_group(&d, pt_lookup(&d, pt_gid(nc, in2))), PT_INTERNAL);
  EXPECT_EQ(pt_group(&d, pt_lookup(&d, pt_gid(nc, fr))), PT_FRONTIER);
  EXPECT_EQ(pt_group(&d, pt_lookup(&d, pt_gid(nc, ex))), PT_EXTERNAL);
  EXPECT_EQ(pt_group(&d, pt_lookup(&d, pt_gid(nc, ex2))), PT_EXTERNAL);
  // The external cell (6, 3, 2) is rank 0's cell (0, 3, 2) seen as image +1 in x; the
  // corner (6, 4, 3) is rank 0's (0, 0, 0) as image (+1, +1, +1); (4, -1, 1) is its own
  // (4, 3, 1) as image -1 in y.
  auto conn_at = [&](int x, int y, int z) {
    const int c[3] = {x, y, z};
    const int lid = pt_lookup(&d, pt_gid(nc, c));
    EXPECT_EQ(pt_group(&d, lid), PT_EXTERNAL);
    return d.conn[d.ext_conn[lid - d.first[2]]];
  };
  const pt_conn k6 = conn_at(6, 3, 2), kc = conn_at(6, 4, 3), ky = conn_at(4, -1, 1);
  EXPECT_EQ(k6.rank, 0);
  EXPECT_EQ(k6.shift[0], 1);
  EXPECT_EQ(k6.shift[1], 0);
  EXPECT_EQ(k6.shift[2], 0);
  EXPECT_EQ(kc.rank, 0);
  EXPECT_EQ(kc.shift[0] + kc.shift[1] + kc.shift[2], 3);
  EXPECT_EQ(ky.rank, 1);
  EXPECT_EQ(ky.shift[0], 0);
  EXPECT_EQ(ky.shift[1], -1);
  EXPECT_EQ(ky.shift[2], 0);
  // Frontier cell (3, 1, 1) touches only x = 2 outside: rank 0, no shift, one connection.
  const int f = pt_lookup(&d, pt_gid(nc, fr)) - d.first[1];
  ASSERT_EQ(d.conn_start[f + 1] - d.conn_start[f], 1);
  const pt_conn &kf = d.conn[d.conn_list[d.conn_start[f]]];
  EXPECT_EQ(kf.rank, 0);
  EXPECT_EQ(kf.shift[0] | kf.shift[1] | kf.shift[2], 0);
  pt_decomp_free(&d);
}

// The cell array is sorted by gid; every gid is found with its own lid, each lid once; gids
// that are not this rank's (two cells away, beyond the shell, between entries) are not found.
TEST(particles, CellArrayBinarySearch) {
  const int nc[3] = {7, 5, 4}, dims[3] = {2, 2, 1}, coords[3] = {1, 0, 0};
  pt_decomp d;
  pt_decomp_build(&d, nc, dims, coords);
  std::set<int> lids;
  for (int i = 0; i < d.ncells; ++i) {
    if (i > 0) {
      EXPECT_LT(d.array[i - 1].gid, d.array[i].gid);
    }
    EXPECT_EQ(pt_lookup(&d, d.array[i].gid), d.array[i].lid);
    lids.insert(d.array[i].lid);
    // Its coordinates give back its gid.
    EXPECT_EQ(pt_gid(nc, d.coord + 3 * d.array[i].lid), d.array[i].gid);
  }
  EXPECT_EQ((int)lids.size(), d.ncells);
  EXPECT_EQ(*lids.begin(), 0);
  EXPECT_EQ(*lids.rbegin(), d.ncells - 1);
  // Rank (1, 0, 0) owns x in [4, 7), y in [0, 3): x = 2 is two cells away, y = 4 likewise.
  const int far1[3] = {2, 1, 1}, far2[3] = {5, 4, 1};
  EXPECT_EQ(pt_lookup(&d, pt_gid(nc, far1)), -1);
  EXPECT_EQ(pt_lookup(&d, pt_gid(nc, far2)), -1);
  EXPECT_EQ(pt_lookup(&d, -5), -1);
  EXPECT_EQ(pt_lookup(&d, (int64_t)1 << 40), -1);
  pt_decomp_free(&d);
}

namespace {
pt_params small_box(double lx, double ly, double lz) {
  pt_params p;
  std::memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.rc = 2.5;
  p.dt = 0.005;
  p.box[0] = lx;
  p.box[1] = ly;
  p.box[2] = lz;
  p.n = 2;
  pt_derive_cells(&p);
  return p;
}
}  // namespace

// Migration bookkeeping on one rank (every move across a face is a migration to itself through
// the connection of the external cell): two particles farther apart than rc (no forces) leave
// through the x = L and the y = 0 faces; after one step both are back inside, at exactly
// x + dt v - L and y + dt v + L, counted as migrants, and none is lost or duplicated.
TEST(particles, MigrationAcrossPeriodicFaces) {
  pt_params p = small_box(8.0, 8.5, 9.0);
  pt_particles init = {};
  const double xa[3] = {8.0 - 1e-3, 4.0, 4.5}, va[3] = {1.0, 0.0, 0.0};
  const double xb[3] = {1.0, 2e-3, 0.5}, vb[3] = {0.0, -1.0, 0.0};
  pt_particles_push(&init, 0, xa, va);
  pt_particles_push(&init, 1, xb, vb);
  kit_env env;
  std::memset(&env, 0, sizeof env);
  env.nranks = 1;
  env.threads = 1;
  pt_ctx c;
  std::memset(&c, 0, sizeof c);
  c.p = &p;
  c.env = &env;
  c.comm = MPI_COMM_SELF;
  const int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
  pt_decomp_build(&c.dec, p.nc, one, zero);
  c.init = &init;
  void *st = pt_cpu.base.setup(&c);
  pt_decomp_free(&c.dec);  // setup took its own copy
  pt_cpu.base.run(st, 1);
  ASSERT_EQ(pt_cpu.count(st), 2);
  std::vector<double> r(20);
  pt_cpu.base.fetch(st, r.data());
  const double *a = r[0] == 0.0 ? &r[0] : &r[10], *b = r[0] == 0.0 ? &r[10] : &r[0];
  EXPECT_EQ(a[0], 0.0);
  EXPECT_EQ(b[0], 1.0);
  EXPECT_EQ(a[1], (xa[0] + p.dt * va[0]) - 8.0);
  EXPECT_EQ(a[2], xa[1]);
  EXPECT_EQ(b[2], (xb[1] + p.dt * vb[1]) + 8.5);
  for (int k = 0; k < 3; ++k) {
    EXPECT_GE(a[1 + k], 0.0);
    EXPECT_LT(a[1 + k], p.box[k]);
    EXPECT_GE(b[1 + k], 0.0);
    EXPECT_LT(b[1 + k], p.box[k]);
  }
  EXPECT_EQ(pt_cpu.traffic(st)->migrated, 2);
  EXPECT_EQ(a[4], 1.0);  // no force: velocities unchanged
  pt_cpu.base.teardown(st);
  pt_particles_free(&init);
}

namespace {
std::string read_error(const std::string &text) {
  char path[] = "/tmp/pt_input_XXXXXX";
  const int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  pt_params p;
  std::memset(&p, 0, sizeof p);
  p.input = path;
  char err[300] = "";
  long long n;
  double box[3];
  int rc = pt_read_header(path, &n, box, err, sizeof err);
  if (rc == 0) rc = pt_read_particles(&p, nullptr, nullptr, nullptr, err, sizeof err);
  std::remove(path);
  return rc == 0 ? "ok" : err;
}
}  // namespace

// The reader names the line of the first problem (comments and blank lines still count).
// The GPU variants' host path (frontier.c) on one rank, looped back through px_take_local (as
// the multi-thread variant's threads exchange): a leaver just below x = 0 arrives at the
// largest double below L (x + L rounds to L itself), in the last owned cell, velocity intact.
namespace {
int back_connection(const pt_decomp *d, int k) {
  for (int j = 0; j < d->nconn; ++j)
    if (d->conn[j].rank == d->conn[k].rank && d->conn[j].shift[0] == -d->conn[k].shift[0] &&
        d->conn[j].shift[1] == -d->conn[k].shift[1] && d->conn[j].shift[2] == -d->conn[k].shift[2])
      return j;
  return -1;
}
void loop_back(px_plan *x, const pt_decomp *d) {
  for (int k = 0; k < x->n; ++k) {
    const int b = back_connection(d, k);
    ASSERT_GE(b, 0);
    px_take_local(x, k, x, b);
  }
}
}  // namespace

TEST(particles, GpuHostPathMigrantAcrossFace) {
  pt_params p = small_box(8.0, 8.5, 9.0);
  pt_decomp d;
  const int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
  pt_decomp_build(&d, p.nc, one, zero);
  const double x[3] = {-1e-300, 4.0, 4.5};
  const int c = pt_cell_of(&p, &d, x);
  ASSERT_GE(c, d.first[2]);  // an external cell: the particle leaves
  double rec[PT_LEAVER_W] = {7.0, x[0], x[1], x[2], -1.0, 0.25, 0.5, (double)c};
  px_plan migr;
  px_init(&migr, MPI_COMM_SELF, &d, PT_MIGRANT_W, 64);
  pt_traffic tr = {};
  pt_pack_migrants(&p, &d, rec, 1, &migr, &tr);
  EXPECT_EQ(tr.migrated, 1);
  loop_back(&migr, &d);
  pt_set arr = {};
  pt_unpack_migrants(&p, &d, &migr, &arr);
  ASSERT_EQ(arr.n, 1);
  EXPECT_EQ(arr.id[0], 7);
  EXPECT_EQ(arr.x[0], std::nextafter(8.0, 0.0));
  EXPECT_EQ(arr.x[1], 4.0);
  EXPECT_EQ(arr.x[2], 4.5);
  EXPECT_EQ(arr.v[0], -1.0);
  EXPECT_EQ(arr.v[2], 0.5);
  EXPECT_EQ(arr.cell[0], pt_cell_of(&p, &d, arr.x));
  EXPECT_LT(arr.cell[0], d.first[2]);
  pt_set_free(&arr);
  px_free(&migr);
  pt_decomp_free(&d);
}

namespace {
// The fcc lattice of cells[0] x cells[1] x cells[2] unit cells at rc 2.0 on one rank, with its
// cell matrix built by hand: particles sorted by (cell, id) (the lattice is in id order), ids
// and positions in id/x with room behind them for the copies (pt_place_ghosts).
struct LatticeOnOneRank {
  pt_params p;
  pt_particles all = {};
  pt_decomp d;
  std::vector<int> cstart;
  std::vector<int64_t> id;
  std::vector<double> x;
  long long n = 0;
  explicit LatticeOnOneRank(const int cells[3]) {
    std::memset(&p, 0, sizeof p);
    p.run = kit_run_defaults();
    for (int a = 0; a < 3; ++a) p.cells[a] = cells[a];
    p.density = 0.8442;
    p.temp = 1.44;
    p.rc = 2.0;
    p.dt = 0.005;
    pt_derive(&p);
    pt_lattice(&p, nullptr, nullptr, &all);
    const int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    pt_decomp_build(&d, p.nc, one, zero);
    std::vector<std::vector<long long>> rows(d.first[2]);
    for (long long i = 0; i < all.n; ++i) rows[pt_cell_of(&p, &d, all.x + 3 * i)].push_back(i);
    cstart.assign(d.ncells + 1, 0);
    id.resize(4 * all.n);
    x.resize(12 * all.n);
    for (int c = 0; c < d.first[2]; ++c) {
      cstart[c] = (int)n;
      for (long long i : rows[c]) {
        id[n] = all.id[i];
        std::memcpy(&x[3 * n], all.x + 3 * i, 3 * sizeof(double));
        ++n;
      }
    }
    cstart[d.first[2]] = (int)n;
  }
  LatticeOnOneRank(const LatticeOnOneRank &) = delete;
  LatticeOnOneRank &operator=(const LatticeOnOneRank &) = delete;
  ~LatticeOnOneRank() {
    pt_decomp_free(&d);
    pt_particles_free(&all);
  }
};
}  // namespace

// The frontier copies of the lattice on one rank, looped back: every external cell receives
// exactly the particles of the owned cell it is an image of, shifted by a whole box, sorted by
// id, and nothing is discarded.
TEST(particles, GpuHostPathFrontierImages) {
  const int cells[3] = {5, 4, 6};
  LatticeOnOneRank l(cells);
  const pt_params &p = l.p;
  const pt_decomp &d = l.d;
  std::vector<int> &cstart = l.cstart;
  std::vector<int64_t> &id = l.id;
  std::vector<double> &x = l.x;
  const long long n = l.n;
  px_plan ghost;
  px_init(&ghost, MPI_COMM_SELF, &d, PT_GHOST_W, 0);
  pt_traffic tr = {};
  pt_pack_frontier(&p, &d, cstart.data(), id.data(), x.data(), &ghost, &tr);
  loop_back(&ghost, &d);
  pt_ghosts g = {};
  pt_unpack_ghosts(&p, &d, &ghost, &g, &tr);
  EXPECT_EQ(tr.ghosts_discarded, 0);
  EXPECT_EQ(tr.ghosts_sent, g.n);
  pt_place_ghosts(&d, &g, n, id.data(), x.data(), cstart.data());
  EXPECT_EQ(cstart[d.first[2]], n);
  EXPECT_EQ(cstart[d.ncells], n + g.n);
  for (int e = d.first[2]; e < d.ncells; ++e) {
    const int *ce = d.coord + 3 * e;
    int w[3], s[3];
    for (int a = 0; a < 3; ++a) {
      w[a] = ((ce[a] % p.nc[a]) + p.nc[a]) % p.nc[a];
      s[a] = (ce[a] - w[a]) / p.nc[a];
    }
    const int o = pt_lookup(&d, pt_gid(p.nc, w));
    ASSERT_GE(o, 0);
    ASSERT_LT(o, d.first[2]);
    ASSERT_EQ(cstart[e + 1] - cstart[e], cstart[o + 1] - cstart[o]) << "external cell " << e;
    for (int k = 0; k < cstart[e + 1] - cstart[e]; ++k) {
      const int gi = cstart[e] + k, oi = cstart[o] + k;
      EXPECT_EQ(id[gi], id[oi]);  // same particles, both rows by id
      // The image of an owned particle: x + s L, which the sender computes as x - (-s) L.
      for (int a = 0; a < 3; ++a) EXPECT_EQ(x[3 * gi + a], x[3 * oi + a] + s[a] * p.box[a]);
    }
  }
  pt_ghosts_free(&g);
  px_free(&ghost);
}

// pt_unpack_ghosts takes the buffers of every connection as one sequence, in blocks that are
// binned and compacted in parallel: the result must be the serial filter's, copies kept in
// arrival order then sorted stably by (cell, id), on any thread count. Above the parallel
// threshold (4096 copies), with an empty connection, copies to discard (in an owned cell,
// beyond the shell) between kept ones, and ids repeated within a cell.
TEST(particles, GpuHostPathUnpackIndependentOfThreads) {
  const int cells[3] = {16, 14, 15};
  LatticeOnOneRank l(cells);
  const pt_params &p = l.p;
  const pt_decomp &d = l.d;
  px_plan ghost;
  px_init(&ghost, MPI_COMM_SELF, &d, PT_GHOST_W, 0);
  pt_traffic tr = {};
  pt_pack_frontier(&p, &d, l.cstart.data(), l.id.data(), l.x.data(), &ghost, &tr);
  ASSERT_GT(d.nconn, 2);
  ghost.scount[1] = 0;
  for (int k = 0; k < ghost.n; ++k)
    for (size_t i = 0; i < ghost.scount[k]; ++i) {
      double *r = ghost.sbuf[k] + i * PT_GHOST_W;
      if (i % 7 == 3)
        for (int a = 0; a < 3; ++a) r[1 + a] = 0.5 * p.box[a];
      if (i % 7 == 5) r[1] = -3.0 * p.box[0];
      if (i % 11 == 10) r[0] = r[-PT_GHOST_W];
    }
  loop_back(&ghost, &d);
  struct Copy {
    int cell;
    int64_t id;
    double x[3];
  };
  std::vector<Copy> ref;
  long long total = 0, discarded = 0;
  for (int k = 0; k < ghost.n; ++k)
    for (size_t i = 0; i < ghost.rcount[k]; ++i, ++total) {
      const double *r = ghost.rbuf[k] + i * PT_GHOST_W;
      const int c = pt_cell_of(&p, &d, r + 1);
      if (c < d.first[2]) {
        ++discarded;
        continue;
      }
      ref.push_back({c, (int64_t)r[0], {r[1], r[2], r[3]}});
    }
  ASSERT_GT(total, 4096);
  ASSERT_GT(discarded, 0);
  std::stable_sort(ref.begin(), ref.end(), [](const Copy &a, const Copy &b) {
    return a.cell != b.cell ? a.cell < b.cell : a.id < b.id;
  });
  const int threads = omp_get_max_threads();
  for (int t = 1; t <= 3; ++t) {
    omp_set_num_threads(t);
    pt_ghosts g = {};
    pt_traffic tu = {};
    pt_unpack_ghosts(&p, &d, &ghost, &g, &tu);
    EXPECT_EQ(tu.ghosts_discarded, discarded) << t << " threads";
    ASSERT_EQ(g.n, (long long)ref.size()) << t << " threads";
    for (long long i = 0; i < g.n; ++i) {
      ASSERT_EQ(g.cell[i], ref[i].cell) << t << " threads, copy " << i;
      ASSERT_EQ(g.id[i], ref[i].id) << t << " threads, copy " << i;
      ASSERT_EQ(std::memcmp(g.x + 3 * i, ref[i].x, sizeof ref[i].x), 0) << t << " threads, copy " << i;
    }
    for (int e = 0; e <= d.ncells - d.first[2]; ++e) {  // rows: where cell first[2] + e starts
      const auto row = std::lower_bound(ref.begin(), ref.end(), d.first[2] + e,
                                        [](const Copy &a, int c) { return a.cell < c; });
      EXPECT_EQ(g.count[e], row - ref.begin()) << t << " threads, row " << e;
    }
    pt_ghosts_free(&g);
  }
  omp_set_num_threads(threads);
  px_free(&ghost);
}

// Multi-thread tags: four tiles of a 2 x 2 x 1 grid, two threads per rank. The tag a tile sends
// with over a connection is the one its peer expects over the connection back; connections
// between threads of one rank are local (no MPI), the others not.
TEST(particles, TilePlanTagsMatch) {
  const int nc[3] = {4, 3, 5}, dims[3] = {2, 2, 1}, T = 2;
  pt_decomp d[4];
  px_plan pl[4];
  for (int q = 0; q < 4; ++q) {
    const int coords[3] = {q % 2, q / 2, 0};
    pt_decomp_build(&d[q], nc, dims, coords);
    px_init_tiles(&pl[q], MPI_COMM_SELF, &d[q], PT_GHOST_W, 1, q, T);
  }
  for (int q = 0; q < 4; ++q)
    for (int k = 0; k < d[q].nconn; ++k) {
      const int b = d[q].conn[k].rank;
      int kb = -1;
      for (int j = 0; j < d[b].nconn; ++j)
        if (d[b].conn[j].rank == q && d[b].conn[j].shift[0] == -d[q].conn[k].shift[0] &&
            d[b].conn[j].shift[1] == -d[q].conn[k].shift[1] &&
            d[b].conn[j].shift[2] == -d[q].conn[k].shift[2])
          kb = j;
      ASSERT_GE(kb, 0);
      EXPECT_EQ(pl[q].stag[k], pl[b].rtag[kb]);
      EXPECT_EQ(pl[q].rank[k], b / T);
      EXPECT_EQ(pl[q].local[k], q / T == b / T);
      EXPECT_LE(pl[q].stag[k] + 32, 32767);
    }
  for (int q = 0; q < 4; ++q) {
    px_free(&pl[q]);
    pt_decomp_free(&d[q]);
  }
}

TEST(particles, InputErrorsNameTheLine) {
  EXPECT_EQ(read_error("2\n8 8 8\n0 1 1 1 0 0 0\n1 4 4 4 0 0 0\n"), "ok");
  EXPECT_EQ(read_error("# c\n\n2\n8 8 8\n0 1 1 1 0 0 0\n1 4 4 4 0 0 0  # trailing\n"), "ok");
  EXPECT_EQ(read_error("2\n8 8\n").rfind("line 2:", 0), 0u);
  EXPECT_EQ(read_error("2\n8 8 8\n0 1 1 1 0 0 0\n\n1 4 4 4 0 0\n").rfind("line 5:", 0), 0u);
  EXPECT_EQ(read_error("2\n8 8 8\n0 1 1 1 0 0 0\n0 4 4 4 0 0 0\n"), "line 4: id 0 appears twice");
  EXPECT_EQ(
      read_error("2\n8 8 8\n0 1 1 1 0 0 0\n1 4 4 8 0 0 0\n").rfind("line 4: particle 1: z = 8 is outside", 0),
      0u);
  EXPECT_EQ(read_error("2\n8 8 8\n0 1 1 1 0 0 0\n"), "line 4: expected 2 particles, the file ends after 1");
  EXPECT_EQ(read_error("2\n8 8 8\n0 1 1 1 0 0 0\n1 4 4 4 0 0 nan\n").rfind("line 4:", 0), 0u);
}

// LAMMPS data files (lammps_io.c): read through pt_read_header / pt_read_particles, which
// tell them from the kit's format by an "N atoms" header line after the title line.
namespace {
struct lmp_result {
  std::string err = "ok";
  long long n = 0;
  double box[3] = {0, 0, 0};
  int detected = 0;
  std::vector<long long> id;
  std::vector<double> x, v;
  std::vector<int> types;
};
lmp_result lmp_read(const std::string &text, double rc = 2.5) {
  char path[] = "/tmp/pt_lammps_XXXXXX";
  const int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  lmp_result r;
  r.detected = pt_input_is_lammps(path);
  pt_params p;
  std::memset(&p, 0, sizeof p);
  p.input = path;
  p.rc = rc;
  char err[300] = "";
  pt_particles out = {};
  int rc_ = pt_read_header(path, &r.n, r.box, err, sizeof err);
  if (rc_ == 0) rc_ = pt_read_particles(&p, nullptr, nullptr, &out, err, sizeof err);
  if (rc_ == 0 && r.detected) {
    r.types.assign((size_t)r.n, 0);
    rc_ = pt_lammps_read_particles(&p, nullptr, nullptr, nullptr, r.types.data(), err, sizeof err);
  }
  std::remove(path);
  if (rc_ != 0) r.err = err;
  for (long long i = 0; i < out.n; ++i) {
    r.id.push_back(out.id[i]);
    for (int a = 0; a < 3; ++a) {
      r.x.push_back(out.x[3 * i + a]);
      r.v.push_back(out.v[3 * i + a]);
    }
  }
  pt_particles_free(&out);
  return r;
}
const char *const kLmpHead =
    "title line: 3 atoms here, or anything\n\n3 atoms\n2 atom types\n"
    "-2 6 xlo xhi\n0 8 ylo yhi\n10 18 zlo zhi\n\n";
const char *const kLmpAtoms = "Atoms # atomic\n\n3 2 1 1 11\n1 1 -1.5 4 17.5 1 0 -1\n2 1 6.5 -0.25 9 0 0 0\n";
}  // namespace

TEST(particles, LammpsDataFileRead) {
  // The kit's format is not taken for LAMMPS, and a LAMMPS file is; ids 1..N become 0..N-1,
  // positions x - xlo wrapped into [0, L), types kept, velocities from their own section.
  EXPECT_EQ(lmp_read("2\n8 8 8\n0 1 1 1 0 0 0\n1 4 4 4 0 0 0\n").detected, 0);
  const lmp_result r = lmp_read(std::string(kLmpHead) +
                                "Masses\n\n1 1\n2 1.0 # t2\n\nPair Coeffs # lj/cut\n\n1 1 1\n2 1 1\n\n" +
                                kLmpAtoms + "\nVelocities\n\n2 0.5 0 0\n3 0 0.25 0\n1 0 0 -1\n");
  ASSERT_EQ(r.err, "ok");
  EXPECT_EQ(r.detected, 1);
  EXPECT_EQ(r.n, 3);
  EXPECT_EQ(r.box[0], 8.0);
  EXPECT_EQ(r.box[1], 8.0);
  EXPECT_EQ(r.box[2], 8.0);
  ASSERT_EQ(r.id.size(), 3u);
  EXPECT_EQ(r.id[0], 2);  // file order
  EXPECT_EQ(r.id[1], 0);
  EXPECT_EQ(r.id[2], 1);
  const double want_x[9] = {3, 1, 1, 0.5, 4, 7.5, 0.5, 7.75, 7};  // x - lo, wrapped
  for (int k = 0; k < 9; ++k) EXPECT_EQ(r.x[k], want_x[k]) << k;
  const double want_v[9] = {0, 0.25, 0, 0, 0, -1, 0.5, 0, 0};
  for (int k = 0; k < 9; ++k) EXPECT_EQ(r.v[k], want_v[k]) << k;
  EXPECT_EQ(r.types, (std::vector<int>{1, 1, 2}));
  // No Velocities section: at rest. A coordinate that rounds to L when wrapped lands below it.
  const lmp_result z = lmp_read(std::string(kLmpHead) +
                                "Atoms\n\n1 1 -2.0000000000000004 0 10\n2 1 0 4 14\n3 1 4 4 "
                                "4\n");
  ASSERT_EQ(z.err, "ok");
  EXPECT_EQ(z.v, std::vector<double>(9, 0.0));
  EXPECT_LT(z.x[0], 8.0);
  EXPECT_EQ(z.x[0], std::nextafter(8.0, 0.0));
  EXPECT_EQ(z.x[8], 2.0);  // 4 - 10 + 8
}

TEST(particles, LammpsDataFileErrorsNameTheLine) {
  const std::string h = kLmpHead, a = kLmpAtoms;
  auto err = [](const std::string &t, double rc = 2.5) { return lmp_read(t, rc).err; };
  EXPECT_EQ(err(h + "Masses\n\n1 1\n2 1\n"), "line 13: no Atoms section");
  EXPECT_EQ(err(h + "Masses\n\n1 1\n2 2.5\n\n" + a),
            "line 12: type 2 has mass 2.5; the kit's model has m = 1 for every atom");
  EXPECT_EQ(err(h + "Masses\n\n1 1\n1 1\n\n" + a), "line 12: type 1 appears twice in Masses");
  EXPECT_EQ(err(h + "Pair Coeffs # lj/cut\n\n1 1 1\n2 1 1.1\n\n" + a),
            "line 12: epsilon 1, sigma 1.1000000000000001; the kit's model has epsilon = sigma = 1");
  EXPECT_EQ(err(h + "Pair Coeffs # lj/cut/coul/long\n\n1 1 1\n2 1 1\n\n" + a),
            "line 9: Pair Coeffs of pair style 'lj/cut/coul/long': the kit's model is lj/cut");
  EXPECT_EQ(err(h + "PairIJ Coeffs # lj/cut\n\n1 1 1 1 2.5\n1 2 1 1 2.5\n2 2 1 1 2.5\n\n" + a), "ok");
  EXPECT_EQ(err(h + "PairIJ Coeffs # lj/cut\n\n1 1 1 1 2.5\n1 2 1 1 3\n2 2 1 1\n\n" + a),
            "line 12: pair 1 2 has cutoff 3, the run's --rc is 2.5");
  EXPECT_EQ(err(h + "Atoms # full\n\n1 1 1 0 1 1 1\n"),
            "line 9: the Atoms section is atom_style 'full': only atomic is read");
  EXPECT_EQ(err(h + "Velocities\n\n1 0 0 0\n2 0 0 0\n3 0 0 0\n\n" + a),
            "line 9: the Velocities section comes before the Atoms section");
  EXPECT_EQ(err(h + a + "\nVelocities\n\n1 0 0 0\n3 0 0 0\n1 0 0 0\n"),
            "line 19: the velocity of atom 1 appears twice");
  EXPECT_EQ(err(h + a + "\nVelocities\n\n1 0 0 0\n3 0 0\n"),
            "line 18: expected 'id vx vy vz': too few fields");
  EXPECT_EQ(err(h + a + "4 1 1 1 1\n"), "line 14: more lines in the Atoms section than the header gives");
  EXPECT_EQ(
      err(h + a + "\nBonds\n\n1 1 1 2\n"),
      "line 15: section 'Bonds' is not read: an atom_style atomic file has Atoms, Velocities, Masses, Pair "
      "Coeffs, PairIJ Coeffs");
  EXPECT_EQ(err(h + a + "\nAtoms\n\n"), "line 15: a second Atoms section");
  EXPECT_EQ(err(h + "Atoms\n\n1 1 1 1 11\n2 1 4 4 14\n"),
            "line 13: the file ends after 2 of the 3 lines of the Atoms section (the header's 3 atoms)");
  EXPECT_EQ(
      err(h + "Atoms\n\n1 1 1 1 11 0 0\n"),
      "line 11: expected 'id type x y z' or 'id type x y z ix iy iz' (atom_style atomic), found 7 fields");
  EXPECT_EQ(err(h + "Atoms\n\n1 3 1 1 11\n"),
            "line 11: atom 1: type 3 is not an integer in [1, 2] (the header's atom types)");
  EXPECT_EQ(err(h + "Atoms\n\n1 1 1 1 11 0 0.5 0\n"),
            "line 11: atom 1: the image flags ix iy iz must be integers");
  EXPECT_EQ(err(h + "Atoms\n\n1 1 1 1 inf\n"),
            "line 11: expected 'id type x y z [ix iy iz]': a number is out of range or not finite");
  // The header.
  EXPECT_EQ(err("t\n3 atoms\n1 atom types\n0 8 xlo xhi\n0 8 ylo yhi\n\nAtoms\n\n"),
            "line 7: the header has no 'zlo zhi' line");
  EXPECT_EQ(err("t\n3 atoms\n0 8 xlo xhi\n0 8 ylo yhi\n0 8 zlo zhi\nAtoms\n"),
            "line 6: the header has no 'N atom types' line");
  EXPECT_EQ(err("t\n3 atoms\n1 atom types\n8 0 xlo xhi\n"), "line 4: 'xlo xhi' needs two numbers xlo < xhi");
  EXPECT_EQ(err("t\n3 atoms\n3 atoms\n"), "line 3: a second 'atoms' line");
  EXPECT_EQ(err("t\n3 atoms\n2 bonds\n"),
            "line 3: 'bonds' must be one number, 0: only atom_style atomic is read");
  EXPECT_EQ(err("t\n3 atoms\n0 bonds\n1 atom types\n0 8 xlo xhi\n0 8 ylo yhi\n0 8 zlo zhi\n1 0 0 avec\n"),
            "line 8: 'avec': a triclinic box is not supported (orthogonal boxes only)");
  EXPECT_EQ(err("t\n3 atoms\n7 widgets\n"), "line 3: unknown header keyword 'widgets'");
  EXPECT_EQ(err("t\n3 atoms\n4 5\n"),
            "line 3: a header line without a keyword (expected 'N atoms', 'xlo xhi', ...)");
  EXPECT_EQ(err("t\n2.5 atoms\n"), "line 2: the atom count must be one integer >= 2 ('N atoms')");
  EXPECT_EQ(err("t\n900000000 atoms\n"),
            "line 2: 900000000 atoms announced, more than a file of 18 bytes can hold");
}

// The tiling limits, counted in 64 bits: 65534 x 65534 x 3 cells (whose int count once
// wrapped) and the 1e6-per-axis cap of a 1e15 box are refused; 2^26 cells with their shell
// pass; a sparse box is refused only above 2^20 cells and 4096 cells a particle.
TEST(particles, TilingLimits) {
  char err[400] = "";
  pt_params p = small_box(65534.5, 65534.5, 3.5);
  p.rc = 1.0;
  pt_derive_cells(&p);
  EXPECT_EQ(pt_check_tiling(&p, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find(
                "into 65534 x 65534 x 3 cells, 2.15e+10 with their one-cell shell, more than 67108864"),
            std::string::npos)
      << err;
  p = small_box(1e15, 1e15, 1e15);
  EXPECT_EQ(pt_check_tiling(&p, err, sizeof err), -1);
  p = small_box(8190.0 * 2.5, 8190.0 * 2.5 + 1.0,
                2.5 * 3.0); /* (8192)(8192)(5) cells with the shell > 2^26 */
  p.n = 1LL << 20;
  EXPECT_EQ(pt_check_tiling(&p, err, sizeof err), -1);
  p = small_box(4094.0 * 2.5, 4094.0 * 2.5, 2.5 * 2.0 + 0.1); /* 4096 x 4096 x 4 = 2^26 exactly */
  p.n = 1LL << 20;
  EXPECT_EQ(p.nc[2], 2);
  EXPECT_EQ(pt_check_tiling(&p, err, sizeof err), 0) << err;
  p = small_box(2.5 * 200, 2.5 * 200, 2.5 * 200); /* 8e6 cells */
  p.n = 2000;                                     /* 4000 a particle: passes */
  EXPECT_EQ(pt_check_tiling(&p, err, sizeof err), 0) << err;
  p.n = 1900; /* 4211 a particle */
  EXPECT_EQ(pt_check_tiling(&p, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("cells for 1900 particles, more than 4096 cells a particle"),
            std::string::npos)
      << err;
  const int nc[3] = {10, 7, 5}, dims[3] = {3, 2, 1};
  EXPECT_EQ(pt_tile_cells_max(nc, dims), (4.0 + 2) * (4 + 2) * (5 + 2));
}

// The spacing check: the first pair by ids under rmin, across the periodic faces too (minimum
// image), none when every pair is farther; particles of `near` pair only with `mine`'s.
TEST(particles, ClosePairFirstByIds) {
  pt_params p = small_box(10.0, 10.0, 10.0); /* 4 cells per axis */
  pt_particles mine = {}, near = {};
  const double v[3] = {0, 0, 0};
  const double a[3] = {0.1, 5, 5}, b[3] = {9.95, 5, 5}, c[3] = {5, 5, 5}, d[3] = {5.3, 5, 5},
               e[3] = {2, 2, 2};
  pt_particles_push(&mine, 7, a, v);
  pt_particles_push(&mine, 2, b, v); /* 0.15 from 7 across x = 0 */
  pt_particles_push(&mine, 5, c, v);
  pt_particles_push(&mine, 1, e, v);
  int64_t pair[2] = {0, 0};
  double dist = 0.0;
  EXPECT_EQ(pt_close_pair(&p, &mine, NULL, 0.5, pair, &dist), 1);
  EXPECT_EQ(pair[0], 2);
  EXPECT_EQ(pair[1], 7);
  EXPECT_NEAR(dist, 0.15, 1e-12);
  pt_particles_push(&near, 0, d, v); /* 0.3 from 5: (0, 5) comes first */
  EXPECT_EQ(pt_close_pair(&p, &mine, &near, 0.5, pair, &dist), 1);
  EXPECT_EQ(pair[0], 0);
  EXPECT_EQ(pair[1], 5);
  EXPECT_EQ(pt_close_pair(&p, &mine, &near, 0.1, pair, &dist), 0);
  pt_particles one = {};
  pt_particles_push(&one, 5, c, v); /* near alone pairs with nothing */
  EXPECT_EQ(pt_close_pair(&p, &one, &mine, 0.2, pair, &dist), 0);
  pt_particles_free(&mine);
  pt_particles_free(&near);
  pt_particles_free(&one);
}

// An irregular domain of 5 x 3 x 1 cells (z: one layer, so z +- 1 is beyond the grid), owner
// map by rows y = 0, 1, 2 (x fastest; -1 empty):
//    0  0  1  1 -1
//    0  0  1  1 -1
//   -1 -1 -1  1 -1
// Rank 0 owns the 2 x 2 block: (1, 0) and (1, 1) touch rank 1's cells, frontier; (0, 0) and
// (0, 1) touch only its own cells and empty ones, internal (an empty neighbour needs no data).
// Its shell is the 4 x 4 x 3 box around the block, 44 cells: 2 of rank 1's, 42 empty ones
// (walls: ext_conn -1). One connection, rank 1, no shift. Rank 1: (2, 0) and (2, 1) frontier,
// (3, 0), (3, 1), (3, 2) internal.
TEST(particles, ClassifyIrregularOwnerMap) {
  const int nc[3] = {5, 3, 1};
  const int owner[15] = {0, 0, 1, 1, -1, 0, 0, 1, 1, -1, -1, -1, -1, 1, -1};
  pt_decomp d;
  pt_decomp_build_owned(&d, nc, owner, 0);
  EXPECT_EQ(d.first[1] - d.first[0], 2);
  EXPECT_EQ(d.first[2] - d.first[1], 2);
  EXPECT_EQ(d.ncells - d.first[2], 44);
  EXPECT_EQ(d.nwall, 42);
  ASSERT_EQ(d.nconn, 1);
  EXPECT_EQ(d.conn[0].rank, 1);
  EXPECT_EQ(d.conn[0].shift[0] | d.conn[0].shift[1] | d.conn[0].shift[2], 0);
  EXPECT_EQ(d.nbr_ranks, 1);
  auto lid_of = [&](int x, int y, int z) {
    const int c[3] = {x, y, z};
    return pt_lookup(&d, pt_gid(nc, c));
  };
  EXPECT_EQ(pt_group(&d, lid_of(0, 0, 0)), PT_INTERNAL);
  EXPECT_EQ(pt_group(&d, lid_of(0, 1, 0)), PT_INTERNAL);
  EXPECT_EQ(pt_group(&d, lid_of(1, 0, 0)), PT_FRONTIER);
  EXPECT_EQ(pt_group(&d, lid_of(1, 1, 0)), PT_FRONTIER);
  for (int f = 0; f < 2; ++f) {
    ASSERT_EQ(d.conn_start[f + 1] - d.conn_start[f], 1);
    EXPECT_EQ(d.conn_list[d.conn_start[f]], 0);
  }
  EXPECT_EQ(d.ext_conn[lid_of(2, 0, 0) - d.first[2]], 0);
  EXPECT_EQ(d.ext_conn[lid_of(2, 1, 0) - d.first[2]], 0);
  EXPECT_EQ(d.ext_conn[lid_of(2, 2, 0) - d.first[2]], -1);  /* empty */
  EXPECT_EQ(d.ext_conn[lid_of(-1, 0, 0) - d.first[2]], -1); /* beyond the grid */
  EXPECT_EQ(d.ext_conn[lid_of(0, 0, 1) - d.first[2]], -1);
  // Every owned cell has its 27 neighbours, walls included.
  for (int l = 0; l < d.first[2]; ++l)
    for (int m = 0; m < 27; ++m) EXPECT_GE(d.nbr[27 * l + m], 0);
  pt_decomp_free(&d);
  pt_decomp_build_owned(&d, nc, owner, 1);
  EXPECT_EQ(d.first[1] - d.first[0], 3);
  EXPECT_EQ(d.first[2] - d.first[1], 2);
  ASSERT_EQ(d.nconn, 1);
  EXPECT_EQ(d.conn[0].rank, 0);
  EXPECT_EQ(d.ncells - d.first[2] - d.nwall, 2);
  EXPECT_EQ(pt_group(&d, lid_of(3, 2, 0)), PT_INTERNAL);
  EXPECT_EQ(pt_group(&d, lid_of(2, 1, 0)), PT_FRONTIER);
  EXPECT_LT(lid_of(1, 3, 0), 0); /* touches no cell of rank 1: not in its tiling */
  pt_decomp_free(&d);
}

// walls.h on a 3 x 2 x 1 grid of unit voxels, (2, 0) and (2, 1) closed, (1, 1) closed:
//   y = 1:  1 0 0
//   y = 0:  1 1 0
TEST(particles, WallReflectionRule) {
  const unsigned char mask[6] = {1, 1, 0, 1, 0, 0};
  const pt_walls w = {{3, 2, 1}, 1.0, 1.0, {3.0, 2.0, 1.0}, mask};
  {  // into closed (2, 0): mirrored across x = 2, vx flips
    double x0[3] = {1.9, 0.5, 0.5}, x[3] = {2.1, 0.5, 0.5}, v[3] = {2.0, 1.0, -1.0};
    EXPECT_EQ(pt_wall_reflect(&w, x0, x, v), 1);
    EXPECT_DOUBLE_EQ(x[0], 4.0 - 2.1);
    EXPECT_EQ(x[1], 0.5);
    EXPECT_EQ(v[0], -2.0);
    EXPECT_EQ(v[1], 1.0);
    EXPECT_EQ(v[2], -1.0);
  }
  {  // within open voxels: untouched
    double x0[3] = {0.9, 0.5, 0.5}, x[3] = {1.1, 0.5, 0.5}, v[3] = {2.0, 0.0, 0.0};
    EXPECT_EQ(pt_wall_reflect(&w, x0, x, v), 0);
    EXPECT_EQ(x[0], 1.1);
    EXPECT_EQ(v[0], 2.0);
  }
  {  // out of the grid through z = 0 (below) and y = 2 (above): the grid's faces are walls
    double x0[3] = {0.5, 1.9, 0.05}, x[3] = {0.5, 2.1, -0.05}, v[3] = {0.0, 2.0, -1.0};
    EXPECT_EQ(pt_wall_reflect(&w, x0, x, v), 1);
    EXPECT_DOUBLE_EQ(x[1], 1.9);
    EXPECT_DOUBLE_EQ(x[2], 0.05);
    EXPECT_EQ(v[1], -2.0);
    EXPECT_EQ(v[2], 1.0);
  }
  {  // diagonally into closed (1, 1): both crossed faces mirror (a corner reflection)
    double x0[3] = {0.9, 0.9, 0.5}, x[3] = {1.1, 1.1, 0.5}, v[3] = {1.0, 1.0, 0.0};
    EXPECT_EQ(pt_wall_reflect(&w, x0, x, v), 1);
    EXPECT_DOUBLE_EQ(x[0], 0.9);
    EXPECT_DOUBLE_EQ(x[1], 0.9);
    EXPECT_EQ(v[0], -1.0);
    EXPECT_EQ(v[1], -1.0);
  }
  {  // landing exactly on the face x = 2: the mirror image is the face, stepped back inside
    double x0[3] = {1.5, 0.5, 0.5}, x[3] = {2.0, 0.5, 0.5}, v[3] = {1.0, 0.0, 0.0};
    EXPECT_EQ(pt_wall_reflect(&w, x0, x, v), 1);
    EXPECT_LT(x[0], 2.0);
    EXPECT_GT(x[0], 1.999999);
    EXPECT_EQ(v[0], -1.0);
  }
  {  // more than one voxel in a step: refused
    double x0[3] = {0.5, 0.5, 0.5}, x[3] = {2.5, 0.5, 0.5}, v[3] = {9.0, 0.0, 0.0};
    EXPECT_EQ(pt_wall_reflect(&w, x0, x, v), -1);
  }
  const double in[3] = {0.5, 1.5, 0.5}, out[3] = {1.5, 1.5, 0.5};
  EXPECT_EQ(pt_in_open_voxel(&w, in), 1);
  EXPECT_EQ(pt_in_open_voxel(&w, out), 0);
}

// Two 4-cliques joined by one edge: two parts put each clique in its own part, cut 1; the
// same call gives the same parts; one part needs no METIS; zero parts is refused.
TEST(particles, GraphPartTwoCliques) {
  std::vector<int> xadj{0}, adj;
  for (int v = 0; v < 8; ++v) {
    for (int u = 0; u < 8; ++u)
      if (u != v && u / 4 == v / 4) adj.push_back(u);
    if (v == 3) adj.push_back(4);
    if (v == 4) adj.push_back(3);
    xadj.push_back((int)adj.size());
  }
  const kit_graph g = {8, xadj.data(), adj.data(), nullptr};
  std::vector<int> part(8, -1), again(8, -1);
  long long cut = -1;
  char err[200] = "";
  ASSERT_EQ(kit_graph_part(&g, 2, 1, part.data(), &cut, err, sizeof err), 0) << err;
  EXPECT_EQ(cut, 1);
  for (int v = 0; v < 8; ++v) EXPECT_EQ(part[v], part[v / 4 * 4]);
  EXPECT_NE(part[0], part[4]);
  ASSERT_EQ(kit_graph_part(&g, 2, 1, again.data(), nullptr, err, sizeof err), 0);
  EXPECT_EQ(part, again);
  ASSERT_EQ(kit_graph_part(&g, 1, 1, part.data(), &cut, err, sizeof err), 0);
  for (int v = 0; v < 8; ++v) EXPECT_EQ(part[v], 0);
  EXPECT_EQ(kit_graph_part(&g, 0, 1, part.data(), &cut, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("0 parts"), std::string::npos);
}

// neighbor.h at the periodic faces of a box of 10 with order cells of 2.5: the image a pair
// sums (the copy x_j - s L nearest x_i), and the order cells of a particle's copies, binned as
// the cells path bins the shifted doubles (x + L that rounds to L is in cell nc).
TEST(particles, NeighborImagesAndOrderCells) {
  EXPECT_EQ(pt_image(0.1, 9.9, 5.0, 1), 1);   // the copy 9.9 - 10 = -0.1
  EXPECT_EQ(pt_image(9.9, 0.1, 5.0, 1), -1);  // the copy 0.1 + 10
  EXPECT_EQ(pt_image(3.0, 4.0, 5.0, 1), 0);
  EXPECT_EQ(pt_image(0.1, 9.9, 5.0, 0), 0);  // walls: no image
  pt_order o{};
  for (int a = 0; a < 3; ++a) {
    o.inv_side[a] = 0.4;
    o.box[a] = 10.0;
    o.half[a] = 5.0;
    o.nc[a] = 4;
  }
  o.periodic = 1;
  const double x[3] = {1e-300, std::nextafter(10.0, 0.0), 5.0};
  int kc[9];
  pt_order_cells(&o, x, kc);
  EXPECT_EQ(kc[0 + 1], 0);  // x: its own cell 0, the copy x + 10 (= 10) in cell 4
  EXPECT_EQ(kc[0 + 0], 4);
  EXPECT_EQ(kc[3 + 1], 3);  // y: cell 3, the copy y - 10 in cell -1
  EXPECT_EQ(kc[3 + 2], -1);
  EXPECT_EQ(kc[6 + 1], 2);
  // Codes: offsets (z, y, x) from the particle's cell, lexicographic; ties by id.
  const double xi[3] = {0.1, 9.9, 5.0}, xj[3] = {9.9, 0.2, 5.0};
  int ki[9], kj[9];
  pt_order_cells(&o, xi, ki);
  pt_order_cells(&o, xj, kj);
  const int w = 2 * PT_ORDER_REACH + 1;
  // j is seen at x - 10 (cell -1: offset -1) and y + 10 (cell 4: offset +1), same z.
  EXPECT_EQ(pt_order_code(&o, xi, ki, xj, kj),
            (PT_ORDER_REACH * w + PT_ORDER_REACH + 1) * w + PT_ORDER_REACH - 1);
  int list[4] = {7, 3, 5, 1}, code[4] = {2, 1, 2, 1};
  const int64_t id[8] = {0, 30, 0, 10, 0, 20, 0, 5};
  pt_list_sort(list, code, 1, id, 0, 4);
  // code 1: slots 3 (id 10) then 1 (id 30); code 2: slots 7 (id 5) then 5 (id 20).
  const int want[4] = {3, 1, 7, 5};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(list[k], want[k]) << k;
}

namespace {
struct Lcg {  // the test's own random numbers
  uint64_t s;
  double next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(s >> 11) * (1.0 / 9007199254740992.0);
  }
};

// The cells path's forces (lj_force_on over the cell matrix of q's tiling, one rank) of the
// particles at x, id = index, all away from the faces (no image needed): 3 doubles per id.
std::vector<double> cell_forces(const pt_params &q, const std::vector<double> &x) {
  const int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
  pt_decomp d;
  pt_decomp_build(&d, q.nc, one, zero);
  const int n = (int)x.size() / 3;
  std::vector<int> cell(n), perm(n);
  for (int i = 0; i < n; ++i) {
    cell[i] = pt_cell_of(&q, &d, &x[3 * i]);
    EXPECT_EQ(pt_group(&d, cell[i]), PT_INTERNAL);
    perm[i] = i;
  }
  std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) { return cell[a] < cell[b]; });
  std::vector<int> cstart(d.ncells + 1, 0);
  std::vector<double> xs(3 * n), f(3 * n);
  for (int k = 0; k < n; ++k) {
    cstart[cell[perm[k]] + 1]++;
    std::memcpy(&xs[3 * k], &x[3 * perm[k]], 3 * sizeof(double));
  }
  for (int c = 0; c < d.ncells; ++c) cstart[c + 1] += cstart[c];
  for (int k = 0; k < n; ++k) {
    double pe, vir;
    lj_force_on(k, cell[perm[k]], xs.data(), d.nbr, cstart.data(), q.rc2, 0.0, &f[3 * perm[k]], &pe, &vir);
  }
  pt_decomp_free(&d);
  return f;
}
}  // namespace

// A Verlet list (neighbor.h: cells of side >= rc + skin, 11 per axis of a box of 31) sums each
// force over the same pairs in the same order as the cells of side >= rc (12 per axis):
// lj_force_list equals lj_force_on bit for bit. Then every particle moves by up to 0.12 (under
// skin/2): some change order cells, the lists keep their slots and are put back in order by
// pt_list_reorder, and the forces are again bitwise the cells'. Without the reorder they are
// not: the order is what the test checks.
TEST(particles, ListForceEqualsCellForce) {
  pt_params p{};
  p.rc = 2.5;
  p.skin = 0.3;
  p.list = 1;
  p.box[0] = p.box[1] = p.box[2] = 31.0;
  pt_derive_cells(&p);
  pt_params q;
  pt_cells_params(&p, &q);
  ASSERT_EQ(p.nc[0], 11);
  ASSERT_EQ(q.nc[0], 12);
  ASSERT_EQ(q.knc[0], 12);
  // A jittered cubic lattice of spacing 1.1 in [9, 22)^3 (1728 particles), far from the faces.
  Lcg rng{12345};
  std::vector<double> x;
  for (int k = 0; k < 12; ++k)
    for (int j = 0; j < 12; ++j)
      for (int i = 0; i < 12; ++i) {
        const int ijk[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) x.push_back(9.0 + 1.1 * ijk[a] + 0.3 * (rng.next() - 0.5));
      }
  const int n = (int)x.size() / 3;
  // The list side: slots sorted by list cell (ids = x's index), the cell matrix, the lists.
  const int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
  pt_decomp d;
  pt_decomp_build(&d, p.nc, one, zero);
  std::vector<int> cell(n), slot(n);
  for (int i = 0; i < n; ++i) cell[i] = pt_cell_of(&p, &d, &x[3 * i]), slot[i] = i;
  std::stable_sort(slot.begin(), slot.end(), [&](int a, int b) { return cell[a] < cell[b]; });
  std::vector<int> cstart(d.ncells + 1, 0), scell(n);
  std::vector<double> xs(3 * n);
  std::vector<int64_t> id(n);
  for (int k = 0; k < n; ++k) {
    cstart[cell[slot[k]] + 1]++;
    scell[k] = cell[slot[k]];
    id[k] = slot[k];
    std::memcpy(&xs[3 * k], &x[3 * slot[k]], 3 * sizeof(double));
  }
  for (int c = 0; c < d.ncells; ++c) cstart[c + 1] += cstart[c];
  const pt_order o = {{q.inv_side[0], q.inv_side[1], q.inv_side[2]},
                      {31.0, 31.0, 31.0},
                      {15.5, 15.5, 15.5},
                      {q.nc[0], q.nc[1], q.nc[2]},
                      1};
  std::vector<int> kc(9 * n), kx(3 * n), start(n + 1, 0), nbr, code;
  for (int k = 0; k < n; ++k) {
    pt_order_cells(&o, &xs[3 * k], &kc[9 * k]);
    for (int a = 0; a < 3; ++a) kx[3 * k + a] = kc[9 * k + 3 * a + 1];  // no copies: as held
  }
  std::vector<int> scr(1024), cd(1024), tl(1024), tc(1024), count(PT_ORDER_CODES + 1);
  long long checked = 0;
  for (int k = 0; k < n; ++k) {
    const int m =
        pt_list_build_one(k, scell[k], xs.data(), kx.data(), id.data(), d.nbr, cstart.data(), p.rl2,
                          scr.data(), cd.data(), 1, 1024, tl.data(), tc.data(), count.data(), &checked);
    ASSERT_LE(m, 1024);
    nbr.insert(nbr.end(), scr.begin(), scr.begin() + m);
    code.insert(code.end(), cd.begin(), cd.begin() + m);
    start[k + 1] = start[k] + m;
  }
  EXPECT_GT(checked, 0);
  // The GPU's layout, the lists transposed (entry e of particle k at e n + k, stride n): the
  // same entries and codes, built with room for exactly what the count said.
  int most = 0;
  for (int k = 0; k < n; ++k) most = std::max(most, start[k + 1] - start[k]);
  const size_t tsize = (size_t)most * n;
  std::vector<int> tnbr(tsize, -1), tcode(tsize, -1), ttl(tsize), ttc(tsize);
  for (int k = 0; k < n; ++k) {
    const int len = start[k + 1] - start[k];
    ASSERT_EQ(pt_list_build_one(k, scell[k], xs.data(), kx.data(), id.data(), d.nbr, cstart.data(), p.rl2,
                                tnbr.data() + k, tcode.data() + k, n, len, ttl.data() + k, ttc.data() + k,
                                count.data(), &checked),
              len);
    for (int e = 0; e < len; ++e) {
      ASSERT_EQ(tnbr[(size_t)e * n + k], nbr[start[k] + e]) << "particle " << k << " entry " << e;
      ASSERT_EQ(tcode[(size_t)e * n + k], code[start[k] + e]) << "particle " << k << " entry " << e;
    }
  }
  pt_decomp_free(&d);
  // Forces of the list, by id, against the cells'; count the particles that differ.
  auto list_forces = [&](const std::vector<int> &lists) {
    std::vector<double> f(3 * n);
    for (int k = 0; k < n; ++k) {
      double pe, vir;
      lj_force_list(k, xs.data(), lists.data(), 1, start[k], start[k + 1], &o, q.rc2, 0.0, &f[3 * id[k]], &pe,
                    &vir);
    }
    return f;
  };
  auto differ = [&](const std::vector<double> &a, const std::vector<double> &b) {
    int d = 0;
    for (int i = 0; i < n; ++i) d += std::memcmp(&a[3 * i], &b[3 * i], 3 * sizeof(double)) != 0;
    return d;
  };
  std::vector<double> fc = cell_forces(q, x);
  EXPECT_EQ(differ(list_forces(nbr), fc), 0);
  // The move: slots stay, the lists are put back in order.
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) x[3 * i + a] += 0.24 * (rng.next() - 0.5) / std::sqrt(3.0);
  for (int k = 0; k < n; ++k) std::memcpy(&xs[3 * k], &x[3 * id[k]], 3 * sizeof(double));
  std::vector<unsigned char> moved(n);
  int nmoved = 0;
  for (int k = 0; k < n; ++k) {
    int now[9];
    pt_order_cells(&o, &xs[3 * k], now);
    moved[k] = std::memcmp(now, &kc[9 * k], sizeof now) != 0;
    nmoved += moved[k];
    std::memcpy(&kc[9 * k], now, sizeof now);
  }
  EXPECT_GT(nmoved, 0) << "no particle changed order cells: the reorder is not tested";
  const std::vector<int> stale = nbr;
  for (int k = 0; k < n; ++k) {
    pt_list_reorder(&o, k, xs.data(), kc.data(), moved.data(), id.data(), nbr.data(), code.data(), 1,
                    start[k], start[k + 1]);
    pt_list_reorder(&o, k, xs.data(), kc.data(), moved.data(), id.data(), tnbr.data() + k, tcode.data() + k,
                    n, 0, start[k + 1] - start[k]);
  }
  fc = cell_forces(q, x);
  EXPECT_EQ(differ(list_forces(nbr), fc), 0);
  // The transposed lists, put back in order in their layout, give the same forces bit for bit.
  std::vector<double> ft(3 * n);
  for (int k = 0; k < n; ++k) {
    double pe, vir;
    lj_force_list(k, xs.data(), tnbr.data() + k, n, 0, start[k + 1] - start[k], &o, q.rc2, 0.0,
                  &ft[3 * id[k]], &pe, &vir);
  }
  EXPECT_EQ(differ(ft, fc), 0);
  EXPECT_GT(differ(list_forces(stale), fc), 0) << "the order did not matter: the test cannot fail";
}
