// lbm host building blocks against closed forms and an independent implementation (label cpu).
// The D3Q19 velocity set is written out again here, not taken from d3q19.h, so a wrong sign
// or a swapped axis in the header cannot agree with itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ak2005.h"
#include "d3q19.h"
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
