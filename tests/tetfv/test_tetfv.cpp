// tetfv host building blocks against hand-computed values and invariants (label cpu): the
// tetrahedron geometry, the box generator's face matching, the padding of the D/A/I rows, the
// gmsh reader on good and malformed snippets, and the send/ghost lists of a partition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tetfv.h"

namespace {

tetfv_params params(const char *flux, const char *bc = "neumann", double aniso = 0.0) {
  tetfv_params p;
  std::memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.run.iters = 10;
  p.kappa = 1.0;
  p.aniso = aniso;
  p.fibres = "rotating";
  p.flux = flux;
  p.bc = bc;
  p.safety = 0.9;
  p.init = "mode";
  return p;
}

std::string write_file(const std::string &name, const std::string &text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

const char *kV22 =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n"
    "$Elements\n3\n1 2 2 0 1 1 2 3\n2 4 2 0 1 1 2 3 4\n3 4 2 0 1 2 3 4 5\n$EndElements\n";
const char *kV41 =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 5 1 5\n3 1 0 5\n1\n2\n3\n4\n5\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
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
  struct Case { const char *flux, *bc; double aniso; int max_width_at_most, max_width_at_least; };
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
  struct Bad { std::string text, expect; };
  std::string v22 = kV22;
  auto replace = [](std::string s, const std::string &a, const std::string &b) {
    const size_t at = s.find(a);
    EXPECT_NE(at, std::string::npos) << a;
    return s.replace(at, a.size(), b);
  };
  const Bad bad[] = {
      {replace(v22, "\n5\n1 0 0 0", "\n4\n1 0 0 0"), "line 10: expected $EndNodes after the 4 nodes announced"},
      {replace(v22, "2 3 4 5\n", "2 3 4 6\n"), "line 16: node 6 is not defined"},
      {replace(v22, "2 4 2 0 1 1 2 3 4", "2 4 2 0 1 1 2 3"), "line 15: element type 4 with 2 tags needs 9 fields"},
      {replace(v22, "1 0 0 0\n2", "1 0 0 zero\n2"), "line 6: coordinate 'zero' is not a finite number"},
      {replace(v22, "\n3\n1 2 2", "\nthree\n1 2 2"), "line 13: expected the number of elements"},
      {replace(v22, "2.2 0 8", "2.2 1 8"), "line 2: binary .msh files are not read"},
      {replace(v22, "$Nodes\n", "$PhysicalNames\n1\n3 1 \"v\"\n$Nodes\n"), "line 4: $PhysicalNames has no $EndPhysicalNames"},
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
