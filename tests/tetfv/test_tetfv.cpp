// tetfv host building blocks against hand-computed values and invariants (label cpu): the
// tetrahedron geometry, the box generator's face matching, the padding of the D/A/I rows, the
// gmsh reader on good and malformed snippets, the send/ghost lists of a partition, and the
// flux limiter's energy contraction on the coarse torus.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "params.h"
#include "tetfv.h"

namespace {

tetfv_params params(const char *flux, const char *bc = "neumann", double aniso = 0.0) {
  return tetfv_test_params(flux, bc, aniso, "mode");
}

std::string write_file(const std::string &name, const std::string &text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

const char *kV22 =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 "
    "1\n$EndNodes\n"
    "$Elements\n3\n1 2 2 0 1 1 2 3\n2 4 2 0 1 1 2 3 4\n3 4 2 0 1 2 3 4 5\n$EndElements\n";
const char *kV41 =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 5 1 5\n3 1 0 5\n1\n2\n3\n4\n5\n0 0 0\n1 0 0\n0 1 0\n0 0 "
    "1\n"
    "1 1 1\n$EndNodes\n$Elements\n2 3 1 3\n2 1 2 1\n1 1 2 3\n3 1 4 2\n2 1 2 3 4\n3 2 3 4 5\n$EndElements\n";

}  // namespace

TEST(tetfvGeometry, SignedVolumeOfTheUnitTetrahedron) {
  const double o[3] = {0, 0, 0}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
  EXPECT_DOUBLE_EQ(tetfv_det6(o, x, y, z), 1.0);   // volume 1/6
  EXPECT_DOUBLE_EQ(tetfv_det6(o, y, x, z), -1.0);  // two nodes swapped: inverted
  const double s[3] = {0, 0, 2};
  EXPECT_DOUBLE_EQ(tetfv_det6(o, x, y, s), 2.0);
}

TEST(tetfvGeometry, AreaNormalHasTheAreaAsLengthAndTheRightHandDirection) {
  const double a[3] = {0, 0, 0}, b[3] = {2, 0, 0}, c[3] = {0, 3, 0};
  double n[3];
  tetfv_area_normal(a, b, c, n);
  EXPECT_DOUBLE_EQ(n[0], 0.0);
  EXPECT_DOUBLE_EQ(n[1], 0.0);
  EXPECT_DOUBLE_EQ(n[2], 3.0);  // area 2 x 3 / 2, along +z
  // The slanted face of the unit tetrahedron: normal (1,1,1)/2, area sqrt(3)/2.
  const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
  tetfv_area_normal(x, y, z, n);
  for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(n[k], 0.5);
}

TEST(tetfvBoxMesh, FacesMatchAcrossCubesAndVolumesFillTheBox) {
  for (double jitter : {0.0, 0.4}) {
    tetfv_mesh m;
    const int n = 3;
    tetfv_mesh_box(&m, n, jitter, 0, 42);
    char err[256] = "";
    ASSERT_EQ(tetfv_mesh_connect(&m, err, sizeof err), 0) << err;
    EXPECT_EQ(m.ncells, 6 * n * n * n);
    // Each of the 6 n^2 boundary squares is two triangles; every other face is shared.
    EXPECT_EQ(m.nfaces_boundary, 12 * n * n);
    EXPECT_EQ(m.nfaces_interior, (4 * m.ncells - 12 * n * n) / 2);
    double vol = 0.0;
    for (int c = 0; c < m.ncells; ++c) {
      vol += m.volume[c];
      if (jitter == 0.0) {
        EXPECT_NEAR(m.volume[c], 1.0 / (6.0 * n * n * n), 1e-15);
      }
      for (int f = 0; f < 4; ++f) {
        const int j = m.nbr[4 * c + f];
        if (j < 0) continue;
        int back = 0;
        for (int g = 0; g < 4; ++g) back += m.nbr[4 * j + g] == c;
        EXPECT_EQ(back, 1) << "cell " << c << " face " << f;
      }
    }
    EXPECT_NEAR(vol, 1.0, 1e-13);
    tetfv_mesh_free(&m);
  }
}

TEST(tetfvBoxMesh, ShuffleRenumbersButKeepsTheCells) {
  tetfv_mesh a, b;
  tetfv_mesh_box(&a, 2, 0.0, 0, 7);
  tetfv_mesh_box(&b, 2, 0.0, 1, 7);
  int moved = 0;
  std::vector<int> seen(a.ncells, 0);
  for (int c = 0; c < b.ncells; ++c) {
    int found = -1;
    for (int d = 0; d < a.ncells && found < 0; ++d)
      if (std::memcmp(a.tet + 4 * d, b.tet + 4 * c, 4 * sizeof(int)) == 0) found = d;
    ASSERT_GE(found, 0);
    seen[found]++;
    moved += found != c;
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_GT(moved, a.ncells / 2);
  tetfv_mesh_free(&a);
  tetfv_mesh_free(&b);
}

// Padding: used slots first, then weight 0 and the row's own index; every index in range; the
// row sum is 1 with zero-flux boundaries; V_i A_ij = V_j A_ji for two-point fluxes (the flux
// through a face leaves one cell and enters the other).
TEST(tetfvAssembly, PaddingInvariantsOfTheRows) {
  struct Case {
    const char *flux, *bc;
    double aniso;
    int max_width_at_most, max_width_at_least;
  };
  for (const Case &k : {Case{"two-point", "neumann", 0.0, 4, 4}, Case{"corrected", "neumann", 0.0, 16, 5},
                        Case{"corrected", "dirichlet", 3.0, 16, 5}}) {
    tetfv_mesh m;
    tetfv_mesh_box(&m, 3, 0.3, 1, 9);
    char err[256];
    ASSERT_EQ(tetfv_mesh_connect(&m, err, sizeof err), 0);
    tetfv_params p = params(k.flux, k.bc, k.aniso);
    tetfv_matrix z;
    tetfv_assembly_info info;
    tetfv_assemble(&p, &m, &z, &info);
    EXPECT_LE(info.max_width, k.max_width_at_most);
    EXPECT_GE(info.max_width, k.max_width_at_least);
    EXPECT_GT(p.dt, 0.0);
    EXPECT_LE(p.dt, info.dt_stable);
    for (int i = 0; i < z.n; ++i) {
      const double *a = z.A + TETFV_W * i;
      const int *c = z.I + TETFV_W * i;
      int used = 0;
      while (used < TETFV_W && !(a[used] == 0.0 && c[used] == i)) ++used;
      for (int s = 0; s < TETFV_W; ++s) {
        ASSERT_GE(c[s], 0);
        ASSERT_LT(c[s], z.n);
        if (s >= used) {
          EXPECT_EQ(a[s], 0.0) << "row " << i << " slot " << s;
          EXPECT_EQ(c[s], i) << "row " << i << " slot " << s;
        } else {
          EXPECT_NE(c[s], i) << "the diagonal lives in D, not in A";
        }
      }
      if (std::strcmp(k.bc, "neumann") == 0) {
        double sum = z.D[i];
        for (int s = 0; s < TETFV_W; ++s) sum += a[s];
        EXPECT_NEAR(sum, 1.0, 1e-14);
      }
      if (std::strcmp(k.flux, "two-point") == 0)
        for (int s = 0; s < used; ++s) {
          const int j = c[s];
          double back = 0.0;
          for (int t = 0; t < TETFV_W; ++t)
            if (z.I[TETFV_W * j + t] == i) back = z.A[TETFV_W * j + t];
          EXPECT_NEAR(m.volume[i] * a[s], m.volume[j] * back, 1e-15);
          EXPECT_GT(a[s], 0.0);  // two-point weights are positive: the maximum principle
        }
    }
    tetfv_matrix_free(&z);
    tetfv_mesh_free(&m);
  }
}

// The energy of one step of z from x: sum V (u - mean)^2 (Neumann) or sum V u^2 (Dirichlet).
double energy(const tetfv_mesh &m, const std::vector<double> &u, bool neumann) {
  double vm = 0.0, vol = 0.0, e = 0.0;
  for (int c = 0; c < m.ncells; ++c) vm += m.volume[c] * u[c], vol += m.volume[c];
  for (int c = 0; c < m.ncells; ++c) {
    const double v = neumann ? u[c] - vm / vol : u[c];
    e += m.volume[c] * v * v;
  }
  return e;
}

// README.md "Stability": on the coarse torus the full correction grows (KIT_FAULT=no-limiter:
// power iteration of the step finds a factor above 1), the default scheme is limited (theta
// < 1) and then no field's energy grows in a step, at the largest step allowed (--safety 1).
TEST(tetfvStability, TheLimitedStepContractsTheEnergyOnTheCoarseTorus) {
  for (const char *bc : {"neumann", "dirichlet"}) {
    const bool neumann = std::strcmp(bc, "neumann") == 0;
    tetfv_mesh m;
    char err[256] = "";
    ASSERT_EQ(tetfv_read_msh(TETFV_TEST_DATA "/torus_coarse_v22.msh", &m, err, sizeof err), 0) << err;
    ASSERT_EQ(tetfv_mesh_connect(&m, err, sizeof err), 0) << err;
    const int n = m.ncells;
    std::vector<double> x(n), y(n);
    for (int mode = 0; mode < 2; ++mode) {
      const bool unlimited = mode == 1;
      if (unlimited) setenv("KIT_FAULT", "no-limiter", 1);
      tetfv_params p = params("corrected", bc);
      p.safety = 1.0;
      tetfv_matrix z;
      tetfv_assembly_info info;
      tetfv_assemble(&p, &m, &z, &info);
      if (unlimited) unsetenv("KIT_FAULT");
      EXPECT_EQ(info.bad_cell, -1);
      double worst = 0.0;  // the largest one-step energy ratio over the fields tried
      for (int trial = 0; trial < 16; ++trial) {
        unsigned s = 12345u + 977u * trial;
        for (int c = 0; c < n; ++c) x[c] = ((s = s * 1103515245u + 12345u) >> 8) / 16777216.0 - 0.5;
        tetfv_reference(&z, x.data(), 1, y.data(), nullptr);
        worst = std::fmax(worst, energy(m, y, neumann) / energy(m, x, neumann));
      }
      // Power iteration: 60 steps from the last field, then the growth of one more.
      for (int k = 0; k < 60; ++k) {
        tetfv_reference(&z, x.data(), 1, y.data(), nullptr);
        const double e = std::sqrt(energy(m, y, neumann));
        for (int c = 0; c < n; ++c) x[c] = y[c] / e;
      }
      tetfv_reference(&z, x.data(), 1, y.data(), nullptr);
      worst = std::fmax(worst, energy(m, y, neumann) / energy(m, x, neumann));
      if (unlimited) {
        EXPECT_EQ(info.theta, 1.0) << bc;
        EXPECT_GT(worst, 1.5) << bc << ": the full correction should grow on this mesh";
      } else {
        EXPECT_EQ(info.limited, 1) << bc;
        EXPECT_GT(info.theta, 0.0) << bc;
        EXPECT_LT(info.theta, 1.0) << bc;
        EXPECT_LE(p.dt, info.dt_energy) << bc;
        EXPECT_LE(worst, 1.0 + 1e-12) << bc << ": a step of the limited scheme grew the energy";
      }
      tetfv_matrix_free(&z);
    }
    tetfv_mesh_free(&m);
  }
}

TEST(tetfvReader, ReadsVersion22And41) {
  for (const char *text : {kV22, kV41}) {
    tetfv_mesh m;
    char err[256] = "";
    const std::string path = write_file("good.msh", text);
    ASSERT_EQ(tetfv_read_msh(path.c_str(), &m, err, sizeof err), 0) << err;
    EXPECT_EQ(m.nnodes, 5);
    EXPECT_EQ(m.ncells, 2);
    EXPECT_EQ(m.skipped, 1);  // the triangle
    ASSERT_EQ(tetfv_mesh_connect(&m, err, sizeof err), 0) << err;
    EXPECT_NEAR(m.volume[0], 1.0 / 6.0, 1e-15);
    EXPECT_NEAR(m.volume[1], 1.0 / 3.0, 1e-15);  // det of (-1,1,0), (-1,0,1), (0,1,1) is 2
    EXPECT_EQ(m.nfaces_interior, 1);
    EXPECT_EQ(m.nfaces_boundary, 6);
    tetfv_mesh_free(&m);
  }
}

TEST(tetfvReader, RefusesMalformedSnippetsWithTheLineNumber) {
  struct Bad {
    std::string text, expect;
  };
  std::string v22 = kV22;
  auto replace = [](std::string s, const std::string &a, const std::string &b) {
    const size_t at = s.find(a);
    EXPECT_NE(at, std::string::npos) << a;
    return s.replace(at, a.size(), b);
  };
  const Bad bad[] = {
      {replace(v22, "\n5\n1 0 0 0", "\n4\n1 0 0 0"),
       "line 10: expected $EndNodes after the 4 nodes announced"},
      {replace(v22, "2 3 4 5\n", "2 3 4 6\n"), "line 16: node 6 is not defined"},
      {replace(v22, "2 4 2 0 1 1 2 3 4", "2 4 2 0 1 1 2 3"),
       "line 15: element type 4 with 2 tags needs 9 fields"},
      {replace(v22, "1 0 0 0\n2", "1 0 0 zero\n2"), "line 6: coordinate 'zero' is not a finite number"},
      {replace(v22, "\n3\n1 2 2", "\nthree\n1 2 2"), "line 13: expected the number of elements"},
      {replace(v22, "2.2 0 8", "2.2 1 8"), "line 2: binary .msh files are not read"},
      {replace(v22, "$Nodes\n", "$PhysicalNames\n1\n3 1 \"v\"\n$Nodes\n"),
       "line 4: $PhysicalNames has no $EndPhysicalNames"},
      {"", "end of file where $MeshFormat was expected"},
  };
  for (const Bad &b : bad) {
    tetfv_mesh m;
    char err[256] = "";
    const std::string path = write_file("bad.msh", b.text);
    EXPECT_EQ(tetfv_read_msh(path.c_str(), &m, err, sizeof err), -1) << b.expect;
    EXPECT_NE(std::string(err).find(b.expect), std::string::npos) << "got: " << err;
  }
  // Inverted: read fine, refused by the geometry check with the element's line.
  tetfv_mesh m;
  char err[256] = "";
  const std::string path = write_file("inv.msh", replace(v22, "2 4 2 0 1 1 2 3 4", "2 4 2 0 1 1 3 2 4"));
  ASSERT_EQ(tetfv_read_msh(path.c_str(), &m, err, sizeof err), 0) << err;
  EXPECT_EQ(tetfv_mesh_connect(&m, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("line 15: tetrahedron is inverted"), std::string::npos) << err;
  tetfv_mesh_free(&m);
}

// Two parts: what part 0 sends to part 1 is, in the same order, what part 1 receives from part
// 0; separator rows come first and ghosts after the owned rows; each local row is its global
// row with the columns renamed.
TEST(tetfvPartition, SendListsMatchGhostRangesAndRowsAreCopied) {
  tetfv_mesh m;
  tetfv_mesh_box(&m, 3, 0.2, 1, 3);
  char err[256];
  ASSERT_EQ(tetfv_mesh_connect(&m, err, sizeof err), 0);
  tetfv_params p = params("corrected");
  tetfv_matrix g;
  tetfv_assembly_info info;
  tetfv_assemble(&p, &m, &g, &info);
  std::vector<int> part(m.ncells);
  ASSERT_EQ(tetfv_partition(&m, 2, part.data(), err, sizeof err), 0) << err;
  for (const char *order : {"none", "rcm", "metis"}) {
    tetfv_local l[2];
    for (int r = 0; r < 2; ++r) tetfv_local_build(&g, part.data(), r, order, 16, &l[r]);
    EXPECT_EQ(l[0].nown + l[1].nown, m.ncells);
    for (int r = 0; r < 2; ++r) {
      const int q = 1 - r;
      ASSERT_EQ(l[r].nsend, 1);
      ASSERT_EQ(l[q].nrecv, 1);
      EXPECT_EQ(l[r].send_peer[0], q);
      const int count = l[r].send_off[1];
      ASSERT_EQ(count, l[q].nghost);
      for (int k = 0; k < count; ++k) {
        const int local = l[r].send_idx[k];
        EXPECT_LT(local, l[r].nsep) << "a sent cell must be a separator row";
        EXPECT_EQ(l[r].gid[local], l[q].gid[l[q].nown + k]) << order;
      }
      for (int a = 0; a < l[r].nown; ++a) {
        const int i = l[r].gid[a];
        EXPECT_EQ(part[i], r);
        EXPECT_EQ(l[r].m.D[a], g.D[i]);
        for (int s = 0; s < TETFV_W; ++s) {
          EXPECT_EQ(l[r].m.A[TETFV_W * a + s], g.A[TETFV_W * i + s]);
          EXPECT_EQ(l[r].gid[l[r].m.I[TETFV_W * a + s]], g.I[TETFV_W * i + s]);
        }
      }
    }
    for (auto &x : l) tetfv_local_free(&x);
  }
  tetfv_matrix_free(&g);
  tetfv_mesh_free(&m);
}

// --- the second tier (split.c) and the GPU storage, checked on the host ---------------------
namespace {

// The box, assembled with corrected fluxes (rows up to 16 wide), and a random field.
struct Problem {
  tetfv_mesh m;
  tetfv_matrix g;
  std::vector<double> u0;
  explicit Problem(int n) {
    tetfv_mesh_box(&m, n, 0.3, 1, 5);
    char err[256];
    EXPECT_EQ(tetfv_mesh_connect(&m, err, sizeof err), 0) << err;
    tetfv_params p = params("corrected", "neumann", 2.0);
    p.init = "random";
    tetfv_assembly_info info;
    tetfv_assemble(&p, &m, &g, &info);
    u0.resize(m.ncells);
    for (int c = 0; c < m.ncells; ++c) u0[c] = tetfv_initial(&p, c, m.centroid + 3 * c);
  }
  ~Problem() {
    tetfv_matrix_free(&g);
    tetfv_mesh_free(&m);
  }
};

// Row i of a launch range [r0, r1) stored by tetfv_block_rows, computed as the kernels do:
// the blocked rows with their slots TETFV_GPU_B apart, the remainder row-major.
double blocked_row(const std::vector<double> &D, const std::vector<double> &A, const std::vector<int> &I,
                   int r0, const double *u, int i) {
  const int r = i - r0, nblk_rows = (int)D.size() / TETFV_GPU_B * TETFV_GPU_B;
  if (r < nblk_rows) {
    const size_t slot0 = (size_t)(r / TETFV_GPU_B) * TETFV_W * TETFV_GPU_B + r % TETFV_GPU_B;
    return tetfv_row_at(D[r], A.data() + slot0, I.data() + slot0, TETFV_GPU_B, u, i);
  }
  return tetfv_row_at(D[r], A.data() + (size_t)TETFV_W * r, I.data() + (size_t)TETFV_W * r, 1, u, i);
}

struct Range {
  int r0, r1;
  std::vector<double> D, A;
  std::vector<int> I;
  Range(const tetfv_matrix *z, int a, int b)
      : r0(a), r1(b), D(b - a), A((size_t)(b - a) * TETFV_W), I(A.size()) {
    tetfv_block_rows(z, a, b, D.data(), A.data(), I.data());
  }
};

}  // namespace

// Entry j of row r of block b sits at [b][j][r]; the remainder rows follow row-major; and the
// strided row gives the row-major row's bits.
TEST(tetfvBlocked, ColumnMajorBlocksThenRowMajorRemainder) {
  Problem pb(4);  // 384 rows
  const tetfv_matrix &z = pb.g;
  for (int r0 : {0, 5}) {
    const int r1 = z.n - 3, n = r1 - r0, nblk = n / TETFV_GPU_B;
    Range s(&z, r0, r1);
    for (int b = 0; b < nblk; ++b)
      for (int j = 0; j < TETFV_W; ++j)
        for (int r = 0; r < TETFV_GPU_B; ++r) {
          const size_t at = ((size_t)b * TETFV_W + j) * TETFV_GPU_B + r,
                       row = (size_t)r0 + b * TETFV_GPU_B + r;
          ASSERT_EQ(s.A[at], z.A[TETFV_W * row + j]);
          ASSERT_EQ(s.I[at], z.I[TETFV_W * row + j]);
        }
    for (int r = nblk * TETFV_GPU_B; r < n; ++r)
      for (int j = 0; j < TETFV_W; ++j) {
        ASSERT_EQ(s.A[(size_t)TETFV_W * r + j], z.A[(size_t)TETFV_W * (r0 + r) + j]);
        ASSERT_EQ(s.I[(size_t)TETFV_W * r + j], z.I[(size_t)TETFV_W * (r0 + r) + j]);
      }
    for (int i = r0; i < r1; ++i) {
      const double a = blocked_row(s.D, s.A, s.I, r0, pb.u0.data(), i);
      const double b = tetfv_row(z.D, z.A, z.I, pb.u0.data(), i);
      ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "row " << i;
    }
  }
}

// The categories of a split say the truth: bulk rows read only rows of their own device;
// rows another device reads lie in [BOTH, IMPORT), rows other ranks read in [MPI, DEV); the
// renumbering is a bijection that moves rows whole.
TEST(tetfvSplit, CategoriesAndRenumbering) {
  Problem pb(3);
  std::vector<int> part(pb.m.ncells);
  char err[256];
  ASSERT_EQ(tetfv_partition(&pb.m, 3, part.data(), err, sizeof err), 0) << err;
  tetfv_local l;
  tetfv_local_build(&pb.g, part.data(), 1, "rcm", 16, &l);
  // Hybrid CPU shares below and above the MPI separator's size.
  const int below = l.nsep / 2, above = (l.nsep + l.nown) / 2;
  ASSERT_GT(below, 0);
  ASSERT_LT(above, l.nown);
  for (int ndev : {1, 2, 3}) {
    for (int hybrid : {0, below, above}) {
      if (hybrid && ndev < 2) continue;
      std::vector<int> dev(l.nown);
      if (hybrid)  // ndev - 1 GPUs and the CPU (device ndev - 1)
        tetfv_assign_hybrid_rows(&l, ndev - 1, hybrid, dev.data());
      else
        tetfv_partition_rows(&l, ndev, nullptr, dev.data());
      tetfv_split s;
      tetfv_split_build(&l, ndev, dev.data(), &s);
      const int nown = l.nown;
      std::vector<int> seen(nown, 0), owner(nown);
      for (int r = 0; r < nown; ++r) {
        ASSERT_GE(s.newpos[r], 0);
        ASSERT_LT(s.newpos[r], nown);
        seen[s.newpos[r]]++;
        owner[s.newpos[r]] = dev[r];
        EXPECT_EQ(s.l.m.D[s.newpos[r]], l.m.D[r]);
        for (int j = 0; j < TETFV_W; ++j) {
          EXPECT_EQ(s.l.m.A[TETFV_W * s.newpos[r] + j], l.m.A[TETFV_W * r + j]);
          EXPECT_EQ(s.l.gid[s.l.m.I[TETFV_W * s.newpos[r] + j]], l.gid[l.m.I[TETFV_W * r + j]]);
        }
      }
      for (int v : seen) ASSERT_EQ(v, 1);
      for (int d = 0; d < ndev; ++d)
        for (int r = tetfv_split_at(&s, d, 0); r < tetfv_split_at(&s, d, TETFV_NCAT); ++r)
          ASSERT_EQ(owner[r], d);
      EXPECT_EQ(tetfv_split_at(&s, ndev - 1, TETFV_NCAT), nown);
      auto in = [&](int r, int d, int k0, int k1) {
        return r >= tetfv_split_at(&s, d, k0) && r < tetfv_split_at(&s, d, k1);
      };
      for (int r = 0; r < nown; ++r) {
        const int d = owner[r];
        for (int j = 0; j < TETFV_W; ++j) {
          const int c = s.l.m.I[TETFV_W * r + j];
          const bool foreign = c >= nown || owner[c] != d;
          if (foreign) {
            EXPECT_TRUE(in(r, d, TETFV_CAT_MPI, TETFV_CAT_BULK)) << "a bulk row reads outside its device";
          }
          if (c < nown && owner[c] != d) {
            EXPECT_TRUE(in(c, owner[c], TETFV_CAT_BOTH, TETFV_CAT_IMPORT))
                << "an exported row outside [BOTH, IMPORT)";
            EXPECT_TRUE(s.reads[d * ndev + owner[c]]);
          }
          if (c >= nown) {
            EXPECT_TRUE(s.reads_ghosts[d]);
          }
        }
      }
      for (int k = 0; k < s.l.send_off[s.l.nsend]; ++k) {
        const int r = s.l.send_idx[k];
        EXPECT_TRUE(in(r, owner[r], TETFV_CAT_MPI, TETFV_CAT_DEV)) << "a sent row outside [MPI, DEV)";
        EXPECT_EQ(s.l.gid[r], l.gid[l.send_idx[k]]);
      }
      if (hybrid) {  // the CPU takes the MPI separator first: all of it, or only separator rows
        int ncpu = 0, sep_on_cpu = 0;
        std::vector<int> per_gpu(ndev - 1, 0);
        for (int v : dev) {
          ncpu += v == ndev - 1;
          if (v < ndev - 1) per_gpu[v]++;
        }
        EXPECT_EQ(ncpu, hybrid);
        for (int c : per_gpu) EXPECT_GT(c, 0) << "a GPU without rows";
        std::vector<char> sent(nown, 0);
        for (int k = 0; k < l.send_off[l.nsend]; ++k) sent[l.send_idx[k]] = 1;
        for (int r = 0; r < nown; ++r) sep_on_cpu += sent[r] && dev[r] == ndev - 1;
        EXPECT_EQ(sep_on_cpu, hybrid == above ? l.nsep : hybrid);
      }
      tetfv_split_free(&s);
    }
  }
  tetfv_local_free(&l);
}

// The GPU variants' data flow, emulated on the host: ranks x devices, each device holding
// whole-length fields of its rank's part and computing its launch ranges from the blocked
// storage; after each step the rows other devices read are copied, as one range, into the
// readers' fields (multi-thread's peer copies, hybrid's CPU<->GPU copies), and the send lists
// of the owning devices go into the ghost ranges of the receiving rank's devices (MPI). The
// gathered field must equal the serial oracle bit for bit, for every split the variants use.
TEST(tetfvSplit, EmulatedDevicesMatchTheOracleBitForBit) {
  Problem pb(3);
  const int steps = 7, N = pb.m.ncells;
  std::vector<double> ref(N);
  tetfv_reference(&pb.g, pb.u0.data(), steps, ref.data(), nullptr);
  struct Case {
    int ranks, ndev;
    int cpu_share_pct;
  };  // cpu_share_pct >= 0: hybrid, ndev - 1 GPUs and the CPU
  for (const Case &k : {Case{1, 1, -1}, Case{2, 1, -1}, Case{3, 1, -1}, Case{1, 3, -1}, Case{2, 2, -1},
                        Case{3, 4, -1}, Case{1, 2, 0}, Case{1, 2, 30}, Case{2, 2, 2}, Case{2, 2, 50},
                        Case{3, 2, 95}, Case{1, 3, 0}, Case{1, 3, 30}, Case{2, 3, 2}, Case{2, 4, 40}}) {
    std::vector<int> part(N);
    char err[256];
    ASSERT_EQ(tetfv_partition(&pb.m, k.ranks, part.data(), err, sizeof err), 0) << err;
    std::vector<tetfv_local> l(k.ranks);
    std::vector<tetfv_split> s(k.ranks);
    // fields[rank][device][parity]
    std::vector<std::vector<std::vector<std::vector<double>>>> f(k.ranks);
    std::vector<std::vector<int>> owner(k.ranks);
    for (int r = 0; r < k.ranks; ++r) {
      tetfv_local_build(&pb.g, part.data(), r, "metis", 16, &l[r]);
      std::vector<int> dev(l[r].nown);
      if (k.cpu_share_pct >= 0)
        tetfv_assign_hybrid_rows(&l[r], k.ndev - 1, l[r].nown * k.cpu_share_pct / 100, dev.data());
      else
        tetfv_partition_rows(&l[r], k.ndev, nullptr, dev.data());
      tetfv_split_build(&l[r], k.ndev, dev.data(), &s[r]);
      const int n = l[r].nown + l[r].nghost;
      std::vector<double> start(n), perm(n);
      for (int a = 0; a < n; ++a) start[a] = pb.u0[l[r].gid[a]];
      tetfv_split_permute(&s[r], start.data(), perm.data());
      f[r].assign(k.ndev, {perm, perm});
      owner[r].resize(l[r].nown);
      for (int d = 0; d < k.ndev; ++d)
        for (int i = tetfv_split_at(&s[r], d, 0); i < tetfv_split_at(&s[r], d, TETFV_NCAT); ++i)
          owner[r][i] = d;
    }
    for (int t = 0; t < steps; ++t) {
      const int p = t % 2, q = 1 - p;
      for (int r = 0; r < k.ranks; ++r)
        for (int d = 0; d < k.ndev; ++d) {  // boundary range, then bulk range
          const int cut[3] = {tetfv_split_at(&s[r], d, TETFV_CAT_MPI),
                              tetfv_split_at(&s[r], d, TETFV_CAT_BULK), tetfv_split_at(&s[r], d, TETFV_NCAT)};
          for (int g = 0; g < 2; ++g) {
            Range rg(&s[r].l.m, cut[g], cut[g + 1]);
            for (int i = cut[g]; i < cut[g + 1]; ++i)
              f[r][d][q][i] = blocked_row(rg.D, rg.A, rg.I, cut[g], f[r][d][p].data(), i);
          }
        }
      for (int r = 0; r < k.ranks; ++r)  // rows other devices read, one range per reader
        for (int d = 0; d < k.ndev; ++d)
          for (int e = 0; e < k.ndev; ++e)
            if (e != d && s[r].reads[e * k.ndev + d])
              for (int i = tetfv_split_at(&s[r], d, TETFV_CAT_BOTH);
                   i < tetfv_split_at(&s[r], d, TETFV_CAT_IMPORT); ++i)
                f[r][e][q][i] = f[r][d][q][i];
      for (int r = 0; r < k.ranks; ++r)  // MPI: send lists from the owning devices into the ghost ranges
        for (int m = 0; m < s[r].l.nsend; ++m) {
          const int peer = s[r].l.send_peer[m];
          int slot = -1;
          for (int a = 0; a < s[peer].l.nrecv; ++a)
            if (s[peer].l.recv_peer[a] == r) slot = a;
          ASSERT_GE(slot, 0);
          const int base = s[peer].l.nown + s[peer].l.recv_off[slot];
          for (int j = s[r].l.send_off[m]; j < s[r].l.send_off[m + 1]; ++j) {
            const int row = s[r].l.send_idx[j];
            const double v = f[r][owner[r][row]][q][row];
            for (int e = 0; e < k.ndev; ++e)
              if (s[peer].reads_ghosts[e]) f[peer][e][q][base + j - s[r].l.send_off[m]] = v;
          }
        }
    }
    std::vector<double> got(N, -1.0);
    for (int r = 0; r < k.ranks; ++r)
      for (int i = 0; i < s[r].l.nown; ++i) got[s[r].l.gid[i]] = f[r][owner[r][i]][steps % 2][i];
    for (int c = 0; c < N; ++c)
      ASSERT_EQ(std::memcmp(&got[c], &ref[c], sizeof(double)), 0)
          << "cell " << c << " ranks " << k.ranks << " devices " << k.ndev << " cpu% " << k.cpu_share_pct;
    for (int r = 0; r < k.ranks; ++r) {
      tetfv_split_free(&s[r]);
      tetfv_local_free(&l[r]);
    }
  }
}
