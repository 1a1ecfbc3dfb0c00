// laplace host building blocks against closed forms and an independent loop (label cpu).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "laplace.h"
#include "stencil.h"

namespace {
laplace_params params(int nx, int ny, int nz, int iters, const char *init = "zero") {
  laplace_params p;
  std::memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.run.iters = iters;
  p.size[0] = nx;
  p.size[1] = ny;
  p.size[2] = nz;
  p.alpha = 0.0;
  p.beta = 1.0 / 6.0;
  p.init = init;
  p.p2p = 1;
  return p;
}
}  // namespace

// One interior point: after one sweep it is the mean of its six boundary neighbours, which
// for the linear g is g at the centre (up to rounding).
TEST(Laplace, SinglePointClosedForm) {
  laplace_params p = params(1, 1, 1, 1);
  double out = -1, err[2];
  laplace_reference(&p, &out, err);
  EXPECT_NEAR(out, laplace_g(1, 1, 1, 1, 1, 1), 4e-16 * 3.0);
  EXPECT_NEAR(out, 0.5 + 2 * 0.5 + 3 * 0.5, 1e-15);
  EXPECT_EQ(err[0], 3.0);  // zero start: |0 - g(centre)|
}

// g is the fixed point: a field equal to g stays at g within a few ulps.
TEST(Laplace, LinearFieldIsFixedPoint) {
  const int nx = 9, ny = 6, nz = 7;
  laplace_params p = params(nx, ny, nz, 1);
  const laplace_block b = laplace_block_make(nx, ny, 1, nz);
  std::vector<double> u(b.points), un(b.points, 0.0);
  for (int k = 0; k <= nz + 1; ++k)
    for (int j = 0; j <= ny + 1; ++j)
      for (int i = 0; i <= nx + 1; ++i) u[k * b.sz + j * b.sy + i] = laplace_g(i, j, k, nx, ny, nz);
  laplace_sweep_host(&p, &b, u.data(), un.data(), 1, nz + 1, 2);
  for (int k = 1; k <= nz; ++k)
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i)
        ASSERT_NEAR(un[k * b.sz + j * b.sy + i], laplace_g(i, j, k, nx, ny, nz), 8 * 6 * 2.3e-16);
}

// The oracle equals a loop written here from the README's formula, bit for bit.
TEST(Laplace, ReferenceMatchesIndependentLoop) {
  const int nx = 7, ny = 5, nz = 6, iters = 9;
  laplace_params p = params(nx, ny, nz, iters, "random");
  p.alpha = 0.25;
  p.beta = 0.125;
  std::vector<double> ref((size_t)nx * ny * nz);
  laplace_reference(&p, ref.data(), nullptr);
  const laplace_block b = laplace_block_make(nx, ny, 1, nz);
  std::vector<double> u(b.points), un(b.points);
  laplace_fill(&p, &b, u.data());
  un = u;
  auto at = [&](std::vector<double> &f, int i, int j, int k) -> double & {
    return f[k * b.sz + j * b.sy + i];
  };
  for (int t = 0; t < iters; ++t) {
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) {
          double s = at(u, i + 1, j, k);
          s += at(u, i, j + 1, k);
          s += at(u, i, j, k + 1);
          s += at(u, i - 1, j, k);
          s += at(u, i, j - 1, k);
          s += at(u, i, j, k - 1);
          const double a = 0.25 * at(u, i, j, k);
          const double bb = 0.125 * s;
          at(un, i, j, k) = a + bb;
        }
    std::swap(u, un);
  }
  size_t n = 0;
  for (int k = 1; k <= nz; ++k)
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) ASSERT_EQ(ref[n++], at(u, i, j, k)) << i << "," << j << "," << k;
}

// Random initial values depend on the global point only, not on the block they sit in.
TEST(Laplace, RandomInitIndependentOfDecomposition) {
  const int nx = 5, ny = 4, nz = 9;
  laplace_params p = params(nx, ny, nz, 1, "random");
  const laplace_block whole = laplace_block_make(nx, ny, 1, nz);
  std::vector<double> w(whole.points);
  laplace_fill(&p, &whole, w.data());
  const laplace_block part = laplace_block_make(nx, ny, 4, 3);  // planes 4..6 with ghosts 3 and 7
  std::vector<double> q(part.points);
  laplace_fill(&p, &part, q.data());
  for (size_t l = 0; l < 5; ++l)
    for (size_t c = 0; c < part.sz; ++c) ASSERT_EQ(q[l * part.sz + c], w[(3 + l) * whole.sz + c]);
  double lo = 1, hi = 0;
  for (int i = 1; i <= nx; ++i) {
    const double v = w[5 * whole.sz + 2 * whole.sy + i];
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, hi);  // genuinely random, not constant
}

// Three uneven blocks with ghost planes copied by hand reproduce the oracle bit for bit:
// the decomposition logic every variant relies on.
TEST(Laplace, DecomposedSweepMatchesOracle) {
  const int nx = 6, ny = 7, nz = 11, iters = 8;
  laplace_params p = params(nx, ny, nz, iters, "random");
  std::vector<double> ref((size_t)nx * ny * nz);
  laplace_reference(&p, ref.data(), nullptr);
  const int k0[3] = {1, 5, 6}, n[3] = {4, 1, 6};
  std::vector<laplace_block> b;
  std::vector<std::vector<double>> u(3), un(3);
  for (int r = 0; r < 3; ++r) {
    b.push_back(laplace_block_make(nx, ny, k0[r], n[r]));
    u[r].resize(b[r].points);
    laplace_fill(&p, &b[r], u[r].data());
    un[r] = u[r];
  }
  for (int t = 0; t < iters; ++t) {
    for (int r = 0; r < 3; ++r) laplace_sweep_host(&p, &b[r], u[r].data(), un[r].data(), 1, n[r] + 1, 1);
    for (int r = 0; r < 2; ++r) {  // top plane of r -> ghost below r+1 and back
      const size_t sz = b[r].sz;
      std::memcpy(&un[r + 1][0], &un[r][(size_t)n[r] * sz], sz * sizeof(double));
      std::memcpy(&un[r][(size_t)(n[r] + 1) * sz], &un[r + 1][sz], sz * sizeof(double));
    }
    std::swap(u, un);
  }
  std::vector<double> got;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> part((size_t)nx * ny * n[r]);
    laplace_copy_interior(&b[r], u[r].data(), 1, n[r] + 1, part.data());
    got.insert(got.end(), part.begin(), part.end());
  }
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(got[i], ref[i]) << i;
}
