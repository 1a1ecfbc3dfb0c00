// lbm host building blocks against closed forms and an independent implementation (label cpu).
// The D3Q19 velocity set is written out again here, not taken from d3q19.h, so a wrong sign
// or a swapped axis in the header cannot agree with itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "ak2005.h"
#include "box.h"
#include "d3q19.h"
#include "kit/exchange.h"
#include "kit/procgrid.h"
#include "lbm.h"
#include "verify.h"

namespace {
// e_q and w_q as in Risso eq. 2.6 and the README's table.
const int E[19][3] = {{0, 0, 0},  {1, 0, 0},   {-1, 0, 0},  {0, 1, 0},  {0, -1, 0}, {0, 0, 1},   {0, 0, -1},
                      {1, 1, 0},  {-1, -1, 0}, {1, -1, 0},  {-1, 1, 0}, {1, 0, 1},  {-1, 0, -1}, {1, 0, -1},
                      {-1, 0, 1}, {0, 1, 1},   {0, -1, -1}, {0, 1, -1}, {0, -1, 1}};
double W(int q) {
  return q == 0 ? 1.0 / 3.0 : (q <= 6 ? 1.0 / 18.0 : 1.0 / 36.0);
}
int opposite(int q) {
  for (int o = 0; o < 19; ++o)
    if (E[o][0] == -E[q][0] && E[o][1] == -E[q][1] && E[o][2] == -E[q][2]) return o;
  return -1;
}

lbm_params params(int nx, int ny, int nz, const char *flow, const char *init, double re = 100.0) {
  lbm_params p;
  std::memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.size[0] = nx;
  p.size[1] = ny;
  p.size[2] = nz;
  p.flow = flow;
  p.re = re;
  p.lid_velocity = 0.1;
  p.peak_velocity = 0.05;
  p.init = init;
  p.check_every = 100;
  lbm_derive(&p);
  return p;
}

void moments(const double *f, double *m) {  // rho, jx, jy, jz from the independent table
  m[0] = m[1] = m[2] = m[3] = 0.0;
  for (int q = 0; q < 19; ++q) {
    m[0] += f[q];
    for (int a = 0; a < 3; ++a) m[1 + a] += E[q][a] * f[q];
  }
}
}  // namespace

// The weights sum to 1, sum w e = 0 and sum w e e = I/3: the lattice is isotropic to second
// order, which is what makes the equilibrium's moments come out right.
TEST(Lbm, LatticeIsotropy) {
  double s = 0, se[3] = {0, 0, 0}, see[3][3] = {{0}};
  for (int q = 0; q < 19; ++q) {
    s += W(q);
    for (int a = 0; a < 3; ++a) {
      se[a] += W(q) * E[q][a];
      for (int b = 0; b < 3; ++b) see[a][b] += W(q) * E[q][a] * E[q][b];
    }
  }
  EXPECT_NEAR(s, 1.0, 1e-15);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(se[a], 0.0);
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(see[a][b], a == b ? 1.0 / 3.0 : 0.0, 4e-16);
  }
}

// The header's equilibrium has density rho and momentum rho u (moments with the test's own table),
// and each population equals w rho (1 + 3 e.u + 4.5 (e.u)^2 - 1.5 u.u) written here.
TEST(Lbm, EquilibriumMoments) {
  const double cases[3][4] = {{1.0, 0.0, 0.0, 0.0}, {1.03, 0.05, -0.02, 0.01}, {0.97, -0.1, 0.07, 0.09}};
  for (const auto &c : cases) {
    double f[19], m[4];
    lbm_equilibrium(c[0], c[1], c[2], c[3], f);
    moments(f, m);
    EXPECT_NEAR(m[0], c[0], 4e-16);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(m[1 + a], c[0] * c[1 + a], 4e-16);
    const double usq = c[1] * c[1] + c[2] * c[2] + c[3] * c[3];
    for (int q = 0; q < 19; ++q) {
      const double eu = E[q][0] * c[1] + E[q][1] * c[2] + E[q][2] * c[3];
      EXPECT_NEAR(f[q], W(q) * c[0] * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * usq), 1e-16) << q;
    }
    double rho, u[3];
    lbm_moments(f, 0, 0, 0, &rho, &u[0], &u[1], &u[2]);
    EXPECT_NEAR(rho, c[0], 4e-16);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(u[a], c[1 + a], 4e-16);
  }
}

// Collision conserves mass and momentum of any state, keeps an equilibrium where it is, and
// with a body force adds exactly F to the momentum (Guo's scheme).
TEST(Lbm, CollisionConservesAndForces) {
  double f[19], g[19], m0[4], m1[4];
  for (int q = 0; q < 19; ++q) f[q] = W(q) * (1.0 + 0.1 * std::sin(1.0 + 3.7 * q));
  std::memcpy(g, f, sizeof f);
  lbm_collide(g, 1.0 / 0.7, 0, 0, 0);
  moments(f, m0);
  moments(g, m1);
  for (int a = 0; a < 4; ++a) EXPECT_NEAR(m1[a], m0[a], 1e-15) << a;
  bool changed = false;
  for (int q = 0; q < 19; ++q) changed |= g[q] != f[q];
  EXPECT_TRUE(changed);  // a non-equilibrium state does relax

  double e[19], e2[19];
  lbm_equilibrium(1.02, 0.03, -0.04, 0.02, e);
  std::memcpy(e2, e, sizeof e);
  lbm_collide(e2, 1.0 / 0.6, 0, 0, 0);
  for (int q = 0; q < 19; ++q) EXPECT_NEAR(e2[q], e[q], 1e-16) << q;

  const double F[3] = {1e-4, -2e-4, 3e-5};
  std::memcpy(g, f, sizeof f);
  lbm_collide(g, 1.0 / 0.9, F[0], F[1], F[2]);
  moments(g, m1);
  EXPECT_NEAR(m1[0], m0[0], 1e-15);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(m1[1 + a], m0[1 + a] + F[a], 1e-15) << a;
}

// The five populations that cross a z-face are those with e_z = +1 (up) or -1, and the two
// lists are each other's opposites in the same order.
TEST(Lbm, ZFaceDirections) {
  for (int m = 0; m < LBM_ZQ; ++m) {
    const int up = lbm_zdir(1, m), dn = lbm_zdir(0, m);
    EXPECT_EQ(E[up][2], 1);
    EXPECT_EQ(E[dn][2], -1);
    EXPECT_EQ(opposite(up), dn);
    for (int n = 0; n < m; ++n) EXPECT_NE(lbm_zdir(1, n), up);
  }
}

// The packed face buffer (lbm_pack/lbm_unpack, indexed by lbm_face_offset, the index the GPU
// pack and unpack kernels use): for every plane a variant packs or unpacks and both directions,
// the buffer holds exactly the populations with e_z = +1 (up) or -1 of that plane (the test's
// own table decides which), each as one whole plane; unpacking writes exactly those elements
// of the lattice, bit for bit, and leaves every other element of all 19 populations and all
// planes untouched; packing the result again gives the same buffer.
TEST(Lbm, FacePackRoundTripTouchesOnlyCrossingPopulations) {
  const int shapes[3][3] = {{5, 3, 4}, {1, 1, 1}, {7, 2, 3}};
  for (const auto &sh : shapes) {
    const lbm_block b = lbm_block_make(sh[0], sh[1], 1, sh[2]);
    std::vector<double> f(b.total);
    for (size_t i = 0; i < b.total; ++i) f[i] = 1000.0 + (double)i;  // each value names its slot
    const double untouched = -7.0;
    for (int up = 0; up < 2; ++up) {
      std::vector<int> crossing;  // e_z = +1 going up, -1 going down, from the test's table
      for (int q = 0; q < 19; ++q)
        if (E[q][2] == (up ? 1 : -1)) crossing.push_back(q);
      ASSERT_EQ((int)crossing.size(), LBM_ZQ);
      for (int l : {0, 1, b.nz, b.nz + 1}) {
        SCOPED_TRACE(testing::Message()
                     << sh[0] << "x" << sh[1] << "x" << sh[2] << " up " << up << " plane " << l);
        std::vector<double> buf(LBM_ZQ * b.plane, untouched);
        lbm_pack(&b, f.data(), l, up, buf.data());
        // Each block m of the buffer is one whole plane l of one crossing population.
        std::vector<int> seen;
        for (int m = 0; m < LBM_ZQ; ++m) {
          const size_t first = (size_t)(buf[(size_t)m * b.plane] - 1000.0);
          const int q = (int)(first / b.qs);
          EXPECT_EQ(first % b.qs, (size_t)l * b.plane);
          seen.push_back(q);
          for (size_t c = 0; c < b.plane; ++c)
            ASSERT_EQ(buf[(size_t)m * b.plane + c], f[(size_t)q * b.qs + (size_t)l * b.plane + c]);
        }
        std::sort(seen.begin(), seen.end());
        EXPECT_EQ(seen, crossing);
        // Unpack into a lattice of sentinels: exactly the crossing populations of plane l change.
        std::vector<double> g(b.total, untouched);
        lbm_unpack(&b, g.data(), l, up, buf.data());
        size_t written = 0;
        for (size_t i = 0; i < b.total; ++i) {
          const int q = (int)(i / b.qs);
          const size_t in_q = i % b.qs;
          const bool mine = std::count(crossing.begin(), crossing.end(), q) && in_q / b.plane == (size_t)l;
          if (mine) {
            ASSERT_EQ(std::memcmp(&g[i], &f[i], sizeof(double)), 0) << "slot " << i;
            ++written;
          } else {
            ASSERT_EQ(g[i], untouched) << "slot " << i << " (population " << q << ") was written";
          }
        }
        EXPECT_EQ(written, (size_t)LBM_ZQ * b.plane);
        std::vector<double> again(LBM_ZQ * b.plane, 0.0);
        lbm_pack(&b, g.data(), l, up, again.data());
        EXPECT_EQ(std::memcmp(again.data(), buf.data(), buf.size() * sizeof(double)), 0);
      }
    }
  }
}

namespace {
// An independent lattice Boltzmann step: push streaming on a plain [k][j][i][q] array, walls
// by reflection at the source cell, the lid term written from the formula. Collision from the
// header (tested above).
struct Push {
  int nx, ny, nz;
  std::vector<double> f;
  double &at(int i, int j, int k, int q) { return f[(((size_t)k * ny + j) * nx + i) * 19 + q]; }
};
void push_step(const lbm_params &p, Push &s, bool collide = true) {
  std::vector<double> post(s.f.size()), next(s.f.size());
  for (int k = 0; k < s.nz; ++k)
    for (int j = 0; j < s.ny; ++j)
      for (int i = 0; i < s.nx; ++i) {
        double c[19];
        for (int q = 0; q < 19; ++q) c[q] = s.at(i, j, k, q);
        if (collide) lbm_collide(c, p.omega, p.force[0], p.force[1], p.force[2]);
        for (int q = 0; q < 19; ++q) post[(((size_t)k * s.ny + j) * s.nx + i) * 19 + q] = c[q];
      }
  for (int k = 0; k < s.nz; ++k)
    for (int j = 0; j < s.ny; ++j)
      for (int i = 0; i < s.nx; ++i)
        for (int q = 0; q < 19; ++q) {
          const double v = post[(((size_t)k * s.ny + j) * s.nx + i) * 19 + q];
          int ti = i + E[q][0], tj = j + E[q][1];
          const int tk = k + E[q][2];
          if (p.periodic_xy) {
            ti = (ti + s.nx) % s.nx;
            tj = (tj + s.ny) % s.ny;
          }
          const bool out = ti < 0 || ti >= s.nx || tj < 0 || tj >= s.ny || tk < 0 || tk >= s.nz;
          if (!out) {
            next[(((size_t)tk * s.ny + tj) * s.nx + ti) * 19 + q] = v;
          } else {
            const int o = opposite(q);
            // Moving lid above the top plane: f_o = f_q - 6 w rho_w e_q . u_w, rho_w = 1.
            const double lid = tk >= s.nz ? 6.0 * W(q) * (E[q][0] * p.lid) : 0.0;
            next[(((size_t)k * s.ny + j) * s.nx + i) * 19 + o] = v - lid;
          }
        }
  s.f = next;
}
}  // namespace

// The oracle (pull scheme, d3q19.h) agrees with the push implementation above for both cases,
// odd non-cubic sizes, a random start: streaming directions, walls, the lid and the periodic
// wrap are all exercised.
TEST(Lbm, ReferenceMatchesIndependentPushScheme) {
  for (const char *flow : {"cavity", "poiseuille"}) {
    lbm_params p = params(5, 4, 6, flow, "random");
    const int steps = 7;
    Push s{5, 4, 6, std::vector<double>((size_t)5 * 4 * 6 * 19)};
    for (int k = 0; k < 6; ++k)
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 5; ++i) {
          double rho, u[3], feq[19];
          lbm_initial_cell(&p, i, j, k + 1, &rho, u);
          lbm_equilibrium(rho, u[0], u[1], u[2], feq);
          for (int q = 0; q < 19; ++q) s.at(i, j, k, q) = feq[q];
        }
    // The oracle stores post-collision populations (the equilibrium at t = 0) and reports the
    // moments of the streamed ones; the push scheme stores pre-collision populations. So the
    // push run starts with one streaming of the equilibrium, then does `steps` full steps.
    push_step(p, s, false);
    for (int t = 0; t < steps; ++t) push_step(p, s);
    std::vector<double> ref(4 * 5 * 4 * 6);
    lbm_reference(&p, steps, ref.data());
    size_t c = 0;
    for (int k = 0; k < 6; ++k)
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 5; ++i, ++c) {
          double m[4];
          moments(&s.at(i, j, k, 0), m);
          const double rho = m[0];
          ASSERT_NEAR(ref[4 * c], rho, 1e-14) << flow << " " << i << "," << j << "," << k;
          for (int a = 0; a < 3; ++a)
            ASSERT_NEAR(ref[4 * c + 1 + a], (m[1 + a] + 0.5 * p.force[a]) / rho, 1e-14) << flow << " " << a;
        }
  }
}

// Closed box, lid at rest: bounce-back conserves mass; nothing drives the flow, so a random
// start decays. With the lid moving the mass is still conserved (the lid terms cancel).
TEST(Lbm, BounceBackConservesMass) {
  for (double lid : {0.0, 0.1}) {
    lbm_params p = params(6, 5, 7, "cavity", "random");
    p.lid = lid;
    const size_t n = 6 * 5 * 7;
    std::vector<double> a(4 * n), b(4 * n);
    lbm_reference(&p, 0, a.data());
    lbm_reference(&p, 40, b.data());
    double m0 = 0, m1 = 0, k0 = 0, k1 = 0;
    for (size_t c = 0; c < n; ++c) {
      m0 += a[4 * c];
      m1 += b[4 * c];
      for (int d = 1; d < 4; ++d) {
        k0 += a[4 * c + d] * a[4 * c + d];
        k1 += b[4 * c + d] * b[4 * c + d];
      }
    }
    EXPECT_NEAR(m1, m0, 1e-12 * m0) << lid;
    if (lid == 0.0) {
      EXPECT_LT(k1, k0);
    } else {
      EXPECT_GT(k1, 0.0);
    }
  }
}

// The lid is the top face (z = NZ) and drags the fluid in +x: right under it ux > 0, at the
// bottom the return flow has ux < 0 once it has had time to form. A swapped axis fails this.
TEST(Lbm, LidOnTopMovesInPlusX) {
  lbm_params p = params(8, 6, 10, "cavity", "rest");
  std::vector<double> out(4 * 8 * 6 * 10);
  lbm_reference(&p, 400, out.data());
  auto ux = [&](int i, int j, int k) { return out[4 * (((size_t)k * 6 + j) * 8 + i) + 1]; };
  auto uy = [&](int i, int j, int k) { return out[4 * (((size_t)k * 6 + j) * 8 + i) + 2]; };
  EXPECT_GT(ux(4, 3, 9), 0.02);
  EXPECT_LT(ux(4, 3, 1), 0.0);
  EXPECT_LT(std::fabs(uy(4, 2, 5) + uy(4, 3, 5)), 1e-13);  // mirror symmetry in y
}

// Three uneven slabs whose ghost planes are filled by lbm_pack/lbm_unpack reproduce the oracle
// bit for bit: the halo semantics (which 5 populations, which plane) every variant relies on.
TEST(Lbm, DecomposedUpdateMatchesOracle) {
  const int nx = 5, ny = 3, nz = 9, steps = 6;
  for (const char *flow : {"cavity", "poiseuille"}) {
    lbm_params p = params(nx, ny, nz, flow, "random");
    std::vector<double> ref(4 * nx * ny * nz);
    lbm_reference(&p, steps, ref.data());
    const int k0[3] = {1, 4, 5}, n[3] = {3, 1, 5};
    std::vector<lbm_block> b;
    std::vector<std::vector<double>> f(3), fn(3);
    for (int r = 0; r < 3; ++r) {
      b.push_back(lbm_block_make(nx, ny, k0[r], n[r]));
      f[r].resize(b[r].total);
      lbm_fill(&p, &b[r], f[r].data());
      fn[r] = f[r];
    }
    std::vector<double> buf(LBM_ZQ * nx * ny);
    for (int t = 0; t < steps; ++t) {
      for (int r = 0; r < 3; ++r) lbm_update_host(&p, &b[r], f[r].data(), fn[r].data(), 1, n[r] + 1, 1);
      for (int r = 0; r < 2; ++r) {  // r's top plane goes up into r+1's ghost 0, and back down
        lbm_pack(&b[r], fn[r].data(), n[r], 1, buf.data());
        lbm_unpack(&b[r + 1], fn[r + 1].data(), 0, 1, buf.data());
        lbm_pack(&b[r + 1], fn[r + 1].data(), 1, 0, buf.data());
        lbm_unpack(&b[r], fn[r].data(), n[r] + 1, 0, buf.data());
      }
      std::swap(f, fn);
    }
    std::vector<double> got;
    for (int r = 0; r < 3; ++r) {
      std::vector<double> part(4 * nx * ny * n[r]);
      lbm_macroscopic(&p, &b[r], f[r].data(), 1, n[r] + 1, part.data());
      got.insert(got.end(), part.begin(), part.end());
    }
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(got[i], ref[i]) << flow << " " << i;
  }
}

// The profile interpolation reproduces a linear field exactly, wall values included, and the
// Albensoeder-Kuhlmann mapping puts the lid (v = 1) at our z = 1.
TEST(Lbm, ProfileInterpolationAndReferenceFrame) {
  const int n = 8;
  double s[n], v[n];
  for (int m = 0; m < n; ++m) {
    s[m] = (m + 0.5) / n;
    v[m] = 2.0 * s[m] - 0.5;
  }
  for (double x : {0.0, 0.01, 0.3, 0.77, 0.99, 1.0})
    EXPECT_NEAR(lbm_profile_at(s, v, n, -0.5, 1.5, x), 2 * x - 0.5, 1e-15);
  double s0, v0;
  ak2005_map(0, AK2005_N - 1, &s0, &v0);  // Table 5's lid point
  EXPECT_EQ(s0, 1.0);
  EXPECT_EQ(v0, 1.0);
  ak2005_map(1, 11, &s0, &v0);  // Table 6's maximum u = 0.43423 at y = 0.4063: downflow near x = 1
  EXPECT_NEAR(s0, 0.9063, 1e-12);
  EXPECT_EQ(v0, -0.43423);
  // A centre-line of a field whose ux is the plane index and uz the column index.
  const lbm_params p = params(4, 3, 5, "cavity", "rest", 1000.0);
  std::vector<double> all(4 * 4 * 3 * 5);
  for (int k = 0; k < 5; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 4; ++i) {
        double *a = &all[4 * (((size_t)k * 3 + j) * 4 + i)];
        a[1] = k * p.u_ref;
        a[3] = i * p.u_ref;
      }
  double ss[5], vv[5];
  ASSERT_EQ(lbm_centreline(&p, all.data(), 0, ss, vv), 5);
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(vv[k], k, 1e-15);
  ASSERT_EQ(lbm_centreline(&p, all.data(), 1, ss, vv), 4);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(vv[i], i, 1e-15);
  EXPECT_NEAR(ss[1], 0.375, 1e-15);
}

// --- process grids (--procs, box.h): the 18 links, their pack and unpack, the plan ----------
namespace {
// Rank r's box of grid g over size s, as lbm_context builds it.
lbm_block grid_block(const int s[3], const int g[3], int r) {
  kit_block part[3];
  kit_procs_split(s, g, r, part);
  lbm_block b = lbm_block_make(part[0].count, part[1].count, 1 + part[2].begin, part[2].count);
  b.i0 = part[0].begin;
  b.j0 = part[1].begin;
  return b;
}
// Offsets with one (face) or two (edge) non-zero components: the directions D3Q19 moves along.
int nonzero(const int d[3]) {
  return (d[0] != 0) + (d[1] != 0) + (d[2] != 0);
}
// Population q crosses offset d outwards: its velocity equals d on every axis d moves along.
bool crosses(int q, const int d[3]) {
  for (int a = 0; a < 3; ++a)
    if (d[a] != 0 && E[q][a] != d[a]) return false;
  return true;
}
}  // namespace

// The link table: 18 distinct offsets, exactly the face and edge ones, opposite = n ^ 1, and
// lbm_e agrees with the independent table above.
TEST(LbmGrid, LinkDirections) {
  for (int q = 0; q < 19; ++q)
    for (int a = 0; a < 3; ++a) EXPECT_EQ(lbm_e(q, a), E[q][a]) << q << " " << a;
  std::vector<std::array<int, 3>> seen;
  for (int n = 0; n < LBM_LINKS; ++n) {
    const int d[3] = {lbm_link_dir(n, 0), lbm_link_dir(n, 1), lbm_link_dir(n, 2)};
    EXPECT_EQ(nonzero(d), n < LBM_FACE_LINKS ? 1 : 2) << n;
    for (int a = 0; a < 3; ++a) EXPECT_EQ(lbm_link_dir(n ^ 1, a), -d[a]) << n;
    seen.push_back({d[0], d[1], d[2]});
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());
  int want = 0;  // every offset of {-1,0,1}^3 with one or two non-zero components: 6 + 12
  for (int k = 0; k < 27; ++k) {
    int d[3];
    kit_procs_dir_of(k, d);
    want += nonzero(d) == 1 || nonzero(d) == 2;
  }
  EXPECT_EQ(want, LBM_LINKS);
}

// Through a face go the 5 populations whose velocity points through it, through an edge the one
// along its diagonal (Risso Sec. 4.2); what leaves through n arrives through n ^ 1 in the same
// order, so sender and receiver agree on the message's layout.
TEST(LbmGrid, LinkPopulations) {
  for (int n = 0; n < LBM_LINKS; ++n) {
    const int d[3] = {lbm_link_dir(n, 0), lbm_link_dir(n, 1), lbm_link_dir(n, 2)};
    const int md[3] = {-d[0], -d[1], -d[2]};
    std::vector<int> out, in;
    for (int q = 0; q < 19; ++q) {
      if (crosses(q, d)) out.push_back(q);
      if (crosses(q, md)) in.push_back(q);
    }
    ASSERT_EQ((int)out.size(), lbm_link_pops(n)) << n;
    ASSERT_EQ((int)out.size(), n < LBM_FACE_LINKS ? 5 : 1) << n;
    for (int m = 0; m < lbm_link_pops(n); ++m) {
      EXPECT_EQ(lbm_link_q(n, 0, m), out[m]) << n << " " << m;
      EXPECT_EQ(lbm_link_q(n, 1, m), in[m]) << n << " " << m;
      EXPECT_EQ(lbm_link_q(n ^ 1, 1, m), lbm_link_q(n, 0, m)) << n << " " << m;
    }
  }
}

// The grid bookkeeping of kit/procgrid.h: coordinates and ranks are inverse, z fastest (1x1xN is
// the slab order), the 26 neighbours are the ranks at the offsets, each axis split tiles it.
TEST(LbmGrid, ProcsCoordinatesNeighboursSplit) {
  const int g[3] = {3, 2, 4}, s[3] = {7, 5, 10};
  int sum[3] = {0, 0, 0};
  for (int r = 0; r < 24; ++r) {
    int c[3];
    kit_procs_coords(g, r, c);
    EXPECT_EQ(r, (c[0] * 2 + c[1]) * 4 + c[2]);
    EXPECT_EQ(kit_procs_rank(g, c), r);
    int nbr[KIT_PROCS_DIRS];
    kit_procs_neighbours(g, r, nbr);
    for (int k = 0; k < KIT_PROCS_DIRS; ++k) {
      int d[3];
      kit_procs_dir_of(k, d);
      EXPECT_EQ(kit_procs_dir_index(d[0], d[1], d[2]), k);
      const int n[3] = {c[0] + d[0], c[1] + d[1], c[2] + d[2]};
      const bool inside = n[0] >= 0 && n[0] < 3 && n[1] >= 0 && n[1] < 2 && n[2] >= 0 && n[2] < 4;
      EXPECT_EQ(nbr[k], inside ? (n[0] * 2 + n[1]) * 4 + n[2] : MPI_PROC_NULL) << r << " " << k;
    }
    EXPECT_EQ(nbr[KIT_PROCS_SELF], r);
    kit_block part[3];
    kit_procs_split(s, g, r, part);
    for (int a = 0; a < 3; ++a) {
      if ((a == 0 && c[1] == 0 && c[2] == 0) || (a == 1 && c[0] == 0 && c[2] == 0) ||
          (a == 2 && c[0] == 0 && c[1] == 0))
        sum[a] += part[a].count;  // one line of ranks along each axis
      EXPECT_GE(part[a].count, s[a] / g[a]);
      EXPECT_LE(part[a].count, s[a] / g[a] + 1);
    }
  }
  for (int a = 0; a < 3; ++a) EXPECT_EQ(sum[a], s[a]);
  int slab[3] = {0, 0, 0};
  kit_procs_resolve(slab, 5);
  EXPECT_EQ(slab[0], 1);
  EXPECT_EQ(slab[1], 1);
  EXPECT_EQ(slab[2], 5);
  EXPECT_TRUE(kit_procs_is_slab(slab));
  int q[3];
  char err[128];
  ASSERT_EQ(kit_procs_parse("2x3x4", q, err, sizeof err), 0);
  EXPECT_EQ(q[0] * 100 + q[1] * 10 + q[2], 234);
  for (const char *bad : {"2x3", "2x3x4x", "x2x3", "2,3,4", "0x1x1", "-1x1x1", "2x3x4 "})
    EXPECT_EQ(kit_procs_parse(bad, q, err, sizeof err), -1) << bad;
}

// The message layout through the index a GPU kernel will share (lbm_box_link_offset): element
// m * cells + c is population lbm_link_q(n, ghost, m) of the layer's c-th cell, x fastest, the
// layer being the interior cells next to the link (ghost 0) or the ghost cells beyond it (1).
// The expected offsets are computed here from the box's extents, not from box.h.
TEST(LbmGrid, PackLayoutAndRoundTrip) {
  const lbm_params p = params(9, 7, 8, "cavity", "random");
  lbm_block blk = lbm_block_make(4, 3, 3, 5);
  blk.i0 = 2;
  blk.j0 = 1;
  const lbm_box b = lbm_box_make(&p, &blk);
  // A row: 4 + 2 cells, padded to a whole number of LBM_BOX_ALIGN doubles (box.h).
  const size_t sy = (6 + LBM_BOX_ALIGN - 1) / LBM_BOX_ALIGN * LBM_BOX_ALIGN, sz = 5 * sy, qs = 7 * sz;
  ASSERT_EQ(b.sy, sy);
  ASSERT_EQ(b.sz, sz);
  ASSERT_EQ(b.qs, qs);
  std::vector<double> f(b.total);
  for (size_t k = 0; k < f.size(); ++k) f[k] = (double)k;
  const int len[3] = {4, 3, 5};
  for (int n = 0; n < LBM_LINKS; ++n)
    for (int ghost = 0; ghost < 2; ++ghost) {
      int lo[3], cnt[3];
      for (int a = 0; a < 3; ++a) {
        const int d = lbm_link_dir(n, a);
        cnt[a] = d ? 1 : len[a];
        lo[a] = d == 0 ? 1 : (d > 0 ? len[a] + ghost : 1 - ghost);
      }
      const size_t cells = (size_t)cnt[0] * cnt[1] * cnt[2];
      ASSERT_EQ(lbm_box_link_count(&b, n), (size_t)lbm_link_pops(n) * cells) << n;
      std::vector<double> buf(lbm_box_link_count(&b, n), -1.0);
      lbm_box_pack(&b, f.data(), n, ghost, buf.data());
      size_t e = 0;
      for (int m = 0; m < lbm_link_pops(n); ++m)
        for (int l = lo[2]; l < lo[2] + cnt[2]; ++l)
          for (int j = lo[1]; j < lo[1] + cnt[1]; ++j)
            for (int i = lo[0]; i < lo[0] + cnt[0]; ++i, ++e)
              ASSERT_EQ(buf[e], (double)((size_t)lbm_link_q(n, ghost, m) * qs + (size_t)l * sz +
                                         (size_t)j * sy + (size_t)i))
                  << n << " " << ghost << " " << e;
      // Unpack writes the same elements back and nothing else.
      std::vector<double> g(b.total, 0.0);
      lbm_box_unpack(&b, g.data(), n, ghost, buf.data());
      size_t written = 0;
      for (size_t k = 0; k < g.size(); ++k)
        if (g[k] != 0.0) {
          ASSERT_EQ(g[k], f[k]) << n << " " << k;
          written++;
        }
      EXPECT_EQ(written, buf.size()) << n << " " << ghost;  // no offset is 0: q >= 1
    }
}

// Every box of a 3x3x3 grid (all 27 kinds of position: corners, edges, faces of the domain,
// middle): its unpacks write every ghost element its streaming step reads (upstream cell inside
// the lattice, population moving in from there), each by one link only; the only other
// elements written are a face's rim cells' populations that stream on into another ghost cell
// (the edge link brings those), never into the box. Links lead to the neighbour at their
// offset, and a link's message counts agree with the neighbour's link back (send tag n arrives
// on its n ^ 1).
TEST(LbmGrid, LinksCoverExactlyTheGhostsTheStepReads) {
  const int g[3] = {3, 3, 3}, s[3] = {7, 8, 9};
  const lbm_params p = params(s[0], s[1], s[2], "cavity", "random");
  std::vector<std::vector<kit_link>> plan(27, std::vector<kit_link>(LBM_LINKS));
  std::vector<lbm_box> boxes;
  for (int r = 0; r < 27; ++r) {
    const lbm_block blk = grid_block(s, g, r);
    boxes.push_back(lbm_box_make(&p, &blk));
    lbm_box_links(&boxes[r], g, r, plan[r].data());
  }
  size_t rim = 0;
  for (int r = 0; r < 27; ++r) {
    const lbm_box &b = boxes[r];
    const int len[3] = {b.nx, b.ny, b.nz};
    // What the step reads from ghost cells, from the independent velocity table.
    std::vector<int> need(b.total, 0), got(b.total, 0);
    for (int l = 1; l <= b.nz; ++l)
      for (int j = 1; j <= b.ny; ++j)
        for (int i = 1; i <= b.nx; ++i)
          for (int q = 1; q < 19; ++q) {
            const int u[3] = {i - E[q][0], j - E[q][1], l - E[q][2]};
            const int gu[3] = {b.i0 - 1 + u[0], b.j0 - 1 + u[1], b.k0 - 1 + u[2]};
            bool ghost = false, inside = gu[2] >= 1 && gu[2] <= s[2];
            for (int a = 0; a < 3; ++a) ghost = ghost || u[a] == 0 || u[a] == len[a] + 1;
            for (int a = 0; a < 2; ++a) inside = inside && gu[a] >= 0 && gu[a] < s[a];
            if (ghost && inside)
              need[(size_t)q * b.qs + (size_t)u[2] * b.sz + (size_t)u[1] * b.sy + u[0]] = 1;
          }
    for (int n = 0; n < LBM_LINKS; ++n) {
      const kit_link &k = plan[r][n];
      const int d[3] = {lbm_link_dir(n, 0), lbm_link_dir(n, 1), lbm_link_dir(n, 2)};
      EXPECT_EQ(k.rank, kit_procs_neighbour(g, r, d)) << r << " " << n;
      EXPECT_EQ(k.send_tag, n);
      EXPECT_EQ(k.recv_tag, n ^ 1);
      if (k.rank == MPI_PROC_NULL) {
        EXPECT_EQ(k.send_count, 0u);
        continue;
      }
      const kit_link &back = plan[k.rank][n ^ 1];
      EXPECT_EQ(back.rank, r);
      EXPECT_EQ(back.recv_count, k.send_count);
      EXPECT_EQ(back.send_count, k.recv_count);
      std::vector<double> ones(k.recv_count, 1.0), lat(b.total, 0.0);
      lbm_box_unpack(&b, lat.data(), n, 1, ones.data());
      for (size_t e = 0; e < b.total; ++e) got[e] += lat[e] != 0.0;
    }
    for (size_t e = 0; e < b.total; ++e) {
      ASSERT_LE(got[e], 1) << "rank " << r << " element " << e;  // one link per element
      ASSERT_GE(got[e], need[e]) << "rank " << r << " element " << e;
      if (got[e] > need[e]) {  // a face's rim cell: its population streams on out of the box
        const int q = (int)(e / b.qs), c = (int)(e % b.qs);
        const int t[3] = {c % (int)b.sy + E[q][0], c % (int)b.sz / (int)b.sy + E[q][1],
                          c / (int)b.sz + E[q][2]};
        bool interior = true;
        for (int a = 0; a < 3; ++a) interior = interior && t[a] >= 1 && t[a] <= len[a];
        ASSERT_FALSE(interior) << "rank " << r << " element " << e;
        rim++;
      }
    }
  }
  EXPECT_GT(rim, 0u);  // faces carry all five populations of every face cell, rims included
}

// 2x2x1 at 8,6,5, by hand: every rank has a 4x3x5 box, one x neighbour (5 populations of 3x5
// cells: 75 doubles), one y neighbour (5 of 4x5: 100) and one xy-edge neighbour (1 of 5 cells:
// 5), no z neighbour: 3 messages of 180 doubles (1440 bytes) per rank and step, 12 messages
// and 5760 bytes per step in all (the mpi test lbm_cpu_procs_messages sees the same).
TEST(LbmGrid, MessagesPerStepByHand) {
  const int g[3] = {2, 2, 1}, s[3] = {8, 6, 5};
  const lbm_params p = params(s[0], s[1], s[2], "cavity", "rest");
  // Rank 0 is (0,0,0): +x is rank 2, +y rank 1, +x+y rank 3.
  const int want_rank[4][LBM_LINKS] = {// -x +x -y +y -z +z | -x-y +x+y -x+y +x-y | xz 4 | yz 4
                                       {-1, 2, -1, 1, -1, -1, -1, 3, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
                                       {-1, 3, 0, -1, -1, -1, -1, -1, -1, 2, -1, -1, -1, -1, -1, -1, -1, -1},
                                       {0, -1, -1, 3, -1, -1, -1, -1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
                                       {1, -1, 2, -1, -1, -1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}};
  size_t messages = 0, doubles = 0;
  for (int r = 0; r < 4; ++r) {
    const lbm_block blk = grid_block(s, g, r);
    ASSERT_EQ(blk.nx * 100 + blk.ny * 10 + blk.nz, 435);
    const lbm_box b = lbm_box_make(&p, &blk);
    kit_link links[LBM_LINKS];
    lbm_box_links(&b, g, r, links);
    for (int n = 0; n < LBM_LINKS; ++n) {
      EXPECT_EQ(links[n].rank, want_rank[r][n] < 0 ? MPI_PROC_NULL : want_rank[r][n]) << r << " " << n;
      if (links[n].rank == MPI_PROC_NULL) continue;
      messages++;
      doubles += links[n].send_count;
      EXPECT_EQ(links[n].send_count, n < 2 ? 75u : (n < 4 ? 100u : 5u)) << r << " " << n;
    }
  }
  EXPECT_EQ(messages, 12u);
  EXPECT_EQ(doubles * 8, 5760u);
}

// Grids run in one process: every box updated whole (lbm_box_update), every link packed,
// handed to the neighbour's link back and unpacked, the swap; the gathered rho and u equal the
// oracle bit for bit, with uneven splits, one cell per rank along an axis, and 2x2x2 (whose
// corner neighbours exchange nothing). 1x1x1 is the box code on the whole lattice.
TEST(LbmGrid, InProcessGridsMatchOracle) {
  const int s[3] = {7, 5, 6}, steps = 7;
  const int grids[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1},
                          {2, 2, 2}, {3, 1, 2}, {7, 1, 1}, {1, 5, 1}};
  for (const char *init : {"random", "rest"}) {
    lbm_params p = params(s[0], s[1], s[2], "cavity", init);
    std::vector<double> ref(4 * s[0] * s[1] * s[2]);
    lbm_reference(&p, steps, ref.data());
    for (const auto &gr : grids) {
      const int nr = gr[0] * gr[1] * gr[2];
      std::vector<lbm_box> b;
      std::vector<std::vector<kit_link>> plan(nr, std::vector<kit_link>(LBM_LINKS));
      std::vector<std::vector<double>> f(nr), fn(nr);
      for (int r = 0; r < nr; ++r) {
        const lbm_block blk = grid_block(s, gr, r);
        b.push_back(lbm_box_make(&p, &blk));
        lbm_box_links(&b[r], gr, r, plan[r].data());
        f[r].resize(b[r].total);
        lbm_box_fill(&p, &b[r], f[r].data());
        fn[r] = f[r];
      }
      for (int t = 0; t < steps; ++t) {
        for (int r = 0; r < nr; ++r) {
          const int lo[3] = {1, 1, 1}, hi[3] = {b[r].nx + 1, b[r].ny + 1, b[r].nz + 1};
          lbm_box_update(&p, &b[r], f[r].data(), fn[r].data(), lo, hi, 1);
        }
        for (int r = 0; r < nr; ++r)
          for (int n = 0; n < LBM_LINKS; ++n) {
            const int to = plan[r][n].rank;
            if (to == MPI_PROC_NULL) continue;
            std::vector<double> msg(plan[r][n].send_count);
            lbm_box_pack(&b[r], fn[r].data(), n, 0, msg.data());
            lbm_box_unpack(&b[to], fn[to].data(), n ^ 1, 1, msg.data());
          }
        std::swap(f, fn);
      }
      std::vector<double> all(ref.size(), -1.0);
      for (int r = 0; r < nr; ++r) {
        std::vector<double> part(4 * (size_t)b[r].nx * b[r].ny * b[r].nz);
        lbm_box_macroscopic(&p, &b[r], f[r].data(), part.data());
        for (int l = 0; l < b[r].nz; ++l)
          for (int j = 0; j < b[r].ny; ++j)
            for (int i = 0; i < b[r].nx; ++i)
              for (int v = 0; v < 4; ++v)
                all[4 * (((size_t)(b[r].k0 - 1 + l) * s[1] + b[r].j0 + j) * s[0] + b[r].i0 + i) + v] =
                    part[4 * (((size_t)l * b[r].ny + j) * b[r].nx + i) + v];
      }
      for (size_t e = 0; e < ref.size(); ++e)
        ASSERT_EQ(all[e], ref[e]) << init << " grid " << gr[0] << "x" << gr[1] << "x" << gr[2] << " " << e;
    }
  }
}
