// laplace host building blocks against closed forms and an independent loop (label cpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cpu_kernel.h"
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

// --- the tuned host kernel (cpu_kernel.h) ------------------------------------------------

namespace {
// A field on a 64-byte boundary plus `shift` doubles, so that the streaming stores' peel
// meets every alignment of a row's first point.
struct Field {
  double *base, *u;
  Field(size_t n, int shift) {
    base = static_cast<double *>(std::aligned_alloc(64, (n + 8) * sizeof(double) / 64 * 64 + 128));
    u = base + shift;
  }
  ~Field() { std::free(base); }
  Field(const Field &) = delete;
  Field &operator=(const Field &) = delete;
};

std::string name(const laplace_cpu_block &k) {
  char buf[64];
  return laplace_cpu_block_name(&k, buf, sizeof buf);
}
}  // namespace

// Every block shape (dividing the grid or not, thinner than a vector, larger than the grid),
// with and without streaming stores, on 1, 2 and 3 threads (3 splits planes mid-way), at three
// alignments: one sweep of
// all planes, of a single (boundary) plane and of the bulk writes the same bytes, the whole
// array compared (interior, boundary and padding), as the unblocked kernel.
TEST(LaplaceCpuKernel, BlockedSweepBitwiseEqualsUnblocked) {
  const int nx = 37, ny = 23, nz = 7;
  laplace_params p = params(nx, ny, nz, 1, "random");
  p.alpha = 0.3;
  p.beta = 0.11;
  const laplace_block b = laplace_block_make(nx, ny, 1, nz);
  const laplace_cpu_block shapes[] = {{nx, ny, 0}, {5, 3, 0},  {8, 8, 0},    {1, 1, 0},   {37, 4, 0},
                                      {nx, ny, 1}, {5, 3, 1},  {16, 7, 1},   {9, 1, 1},   {37, 8, 1},
                                      {40, 50, 1}, {3, 23, 1}, {1000, 2, 0}, {1000, 2, 1}};
  const int ranges[3][2] = {{1, nz + 1}, {1, 2}, {2, nz}};
  for (int shift = 0; shift < 8; shift += 3) {
    Field u(b.points, shift), want(b.points, shift), got(b.points, shift);
    // Philox values carry 32 random bits, so sums of three are exact and an order change
    // would go unseen: one sweep first gives every value a full mantissa.
    laplace_fill(&p, &b, want.u);
    laplace_fill(&p, &b, u.u);
    laplace_sweep_host(&p, &b, want.u, u.u, 1, nz + 1, 1);
    for (const auto &r : ranges)
      for (const laplace_cpu_block &k : shapes)
        for (int threads = 1; threads <= 3; ++threads) {
          std::memset(want.u, 0, b.points * sizeof(double));
          std::memset(got.u, 0, b.points * sizeof(double));
          laplace_sweep_host(&p, &b, u.u, want.u, r[0], r[1], threads);
          laplace_cpu_sweep(&p, &b, u.u, got.u, r[0], r[1], threads, &k);
          ASSERT_EQ(0, std::memcmp(want.u, got.u, b.points * sizeof(double)))
              << name(k) << " planes [" << r[0] << "," << r[1] << ") threads " << threads << " shift "
              << shift;
        }
  }
}

// Many sweeps with the blocked kernel (planes swept as the cpu variant does: the two boundary
// planes, then the bulk) end on the oracle's field bit for bit.
TEST(LaplaceCpuKernel, BlockedIterationMatchesOracle) {
  const int nx = 29, ny = 13, nz = 10, iters = 9;
  laplace_params p = params(nx, ny, nz, iters, "random");
  std::vector<double> ref((size_t)nx * ny * nz);
  laplace_reference(&p, ref.data(), nullptr);
  const laplace_block b = laplace_block_make(nx, ny, 1, nz);
  const laplace_cpu_block shapes[] = {{0, 0, 0}, {29, 4, 1}, {6, 5, 0}, {11, 13, 1}};
  for (const laplace_cpu_block &k : shapes)
    for (int threads = 1; threads <= 2; ++threads) {
      Field f0(b.points, 0), f1(b.points, 0);
      double *u = f0.u, *un = f1.u;
      laplace_fill(&p, &b, u);
      laplace_fill(&p, &b, un);
      for (int t = 0; t < iters; ++t) {
        laplace_cpu_sweep(&p, &b, u, un, 1, 2, threads, &k);
        laplace_cpu_sweep(&p, &b, u, un, nz, nz + 1, threads, &k);
        laplace_cpu_sweep(&p, &b, u, un, 2, nz, threads, &k);
        std::swap(u, un);
      }
      std::vector<double> got(ref.size());
      laplace_copy_interior(&b, u, 1, nz + 1, got.data());
      for (size_t i = 0; i < ref.size(); ++i)
        ASSERT_EQ(got[i], ref[i]) << name(k) << " threads " << threads << " at " << i;
    }
}

// The orphaned form inside a caller's team (the hybrid's groups) gives the same bytes.
TEST(LaplaceCpuKernel, OrphanedRowsInATeam) {
  const int nx = 21, ny = 9, nz = 5;
  laplace_params p = params(nx, ny, nz, 1, "random");
  const laplace_block b = laplace_block_make(nx, ny, 1, nz);
  Field u(b.points, 0), want(b.points, 0), got(b.points, 0);
  laplace_fill(&p, &b, want.u);
  laplace_fill(&p, &b, u.u);
  laplace_sweep_host(&p, &b, want.u, u.u, 1, nz + 1, 1);  // full mantissas (see above)
  std::memset(want.u, 0, b.points * sizeof(double));
  std::memset(got.u, 0, b.points * sizeof(double));
  laplace_sweep_host(&p, &b, u.u, want.u, 1, nz + 1, 1);
  const laplace_cpu_block k = {16, 2, 1};
#pragma omp parallel num_threads(2)
  {
    laplace_cpu_sweep_rows(&p, &b, u.u, got.u, 1, 2, &k);
    laplace_cpu_sweep_rows(&p, &b, u.u, got.u, 2, nz + 1, &k);
  }
  ASSERT_EQ(0, std::memcmp(want.u, got.u, b.points * sizeof(double)));
}

namespace {
// Cut points of [1, n+1) for a partition scheme: whole, halves, the outer layer's
// {1, 2, n, n+1}, thirds (duplicates dropped, so thin axes get fewer pieces).
std::vector<int> cuts(int n, int scheme) {
  std::vector<int> c = {1};
  if (scheme == 1) c.push_back(1 + n / 2);
  if (scheme == 2) {
    c.push_back(2);
    c.push_back(n);
  }
  if (scheme == 3) {
    c.push_back(1 + n / 3);
    c.push_back(1 + 2 * n / 3);
  }
  c.push_back(n + 1);
  std::vector<int> out;
  for (int v : c)
    if (v >= 1 && v <= n + 1 && (out.empty() || v > out.back())) out.push_back(v);
  return out;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}
}  // namespace

// laplace_cpu_sweep_box over the pieces of a partition of the box (every combination of four
// cut schemes along x, y and z) writes the whole sweep's bytes: the whole array compared
// (interior, ghosts, padding), for boxes thick and one point thin, off, pencils and streaming
// stores (two alignments), 1 and 2 threads.
TEST(LaplaceCpuKernel, SubBoxPartitionBitwiseEqualsWholeSweep) {
  const int shapes[][3] = {{37, 23, 7}, {1, 1, 1}, {2, 5, 3}, {17, 1, 4}, {9, 6, 1}};
  const laplace_cpu_block kernels[] = {{0, 0, 0}, {5, 3, 0}, {16, 7, 1}, {1, 1, 1}, {1000, 2, 1}};
  for (const auto &n : shapes) {
    laplace_params p = params(n[0], n[1], n[2], 1, "random");
    p.alpha = 0.3;
    p.beta = 0.11;
    const laplace_block b = laplace_block_make(n[0], n[1], 1, n[2]);
    for (int shift = 0; shift < 4; shift += 3) {
      Field u(b.points, shift), want(b.points, shift), got(b.points, shift);
      laplace_fill(&p, &b, want.u);
      laplace_fill(&p, &b, u.u);
      laplace_sweep_host(&p, &b, want.u, u.u, 1, n[2] + 1, 1);  // full mantissas (see above)
      std::memset(want.u, 0, b.points * sizeof(double));
      laplace_sweep_host(&p, &b, u.u, want.u, 1, n[2] + 1, 1);
      for (int sx = 0; sx < 4; ++sx)
        for (int sy = 0; sy < 4; ++sy)
          for (int sz = 0; sz < 4; ++sz) {
            const std::vector<int> cx = cuts(n[0], sx), cy = cuts(n[1], sy), cz = cuts(n[2], sz);
            for (const laplace_cpu_block &k : kernels)
              for (int threads = 1; threads <= 2; ++threads) {
                std::memset(got.u, 0, b.points * sizeof(double));
                for (size_t a = 0; a + 1 < cx.size(); ++a)
                  for (size_t c = 0; c + 1 < cy.size(); ++c)
                    for (size_t d = 0; d + 1 < cz.size(); ++d)
                      laplace_cpu_sweep_box(&p, &b, u.u, got.u, cx[a], cx[a + 1], cy[c], cy[c + 1], cz[d],
                                            cz[d + 1], threads, &k);
                ASSERT_EQ(0, std::memcmp(want.u, got.u, b.points * sizeof(double)))
                    << n[0] << "x" << n[1] << "x" << n[2] << " schemes " << sx << sy << sz << " " << name(k)
                    << " threads " << threads << " shift " << shift;
              }
          }
    }
  }
}

// The cpu variant's overlap on a process grid: for every set of sides with a neighbour (all
// 64) the outer layer writes exactly the points one step inside those faces, with the whole
// sweep's bits, and nothing else (ghosts and padding untouched); the inner box then completes
// the whole sweep's bytes. Thick and one-point-thin boxes, 1 and 2 threads.
TEST(LaplaceCpuKernel, OuterLayerAndInnerBoxPartitionTheBox) {
  const int shapes[][3] = {{11, 7, 6}, {1, 1, 1}, {2, 2, 2}, {1, 5, 3}, {6, 1, 2}, {3, 4, 1}};
  const laplace_cpu_block kernels[] = {{0, 0, 0}, {5, 3, 1}, {4, 2, 0}};
  const double sentinel = -12345.0;
  for (const auto &n : shapes) {
    laplace_params p = params(n[0], n[1], n[2], 1, "random");
    p.alpha = 0.3;
    p.beta = 0.11;
    const laplace_block b = laplace_block_make(n[0], n[1], 1, n[2]);
    Field u(b.points, 0), want(b.points, 0), got(b.points, 0);
    laplace_fill(&p, &b, want.u);
    laplace_fill(&p, &b, u.u);
    laplace_sweep_host(&p, &b, want.u, u.u, 1, n[2] + 1, 1);  // full mantissas (see above)
    std::fill(want.u, want.u + b.points, sentinel);
    laplace_sweep_host(&p, &b, u.u, want.u, 1, n[2] + 1, 1);
    for (int mask = 0; mask < 64; ++mask) {
      int side[LAPLACE_FACES];
      for (int f = 0; f < LAPLACE_FACES; ++f) side[f] = mask >> f & 1;
      for (const laplace_cpu_block &k : kernels)
        for (int threads = 1; threads <= 2; ++threads) {
          std::fill(got.u, got.u + b.points, sentinel);
          laplace_cpu_sweep_layer(&p, &b, u.u, got.u, side, threads, &k);
          for (int l = 0; l <= n[2] + 1; ++l)
            for (int j = 0; j <= n[1] + 1; ++j)
              for (int i = 0; i <= n[0] + 1; ++i) {
                const bool interior = i >= 1 && i <= n[0] && j >= 1 && j <= n[1] && l >= 1 && l <= n[2];
                const bool layer =
                    interior && ((side[LAPLACE_XM] && i == 1) || (side[LAPLACE_XP] && i == n[0]) ||
                                 (side[LAPLACE_YM] && j == 1) || (side[LAPLACE_YP] && j == n[1]) ||
                                 (side[LAPLACE_ZM] && l == 1) || (side[LAPLACE_ZP] && l == n[2]));
                const size_t c = (size_t)l * b.sz + (size_t)j * b.sy + (size_t)i;
                ASSERT_TRUE(same_bits(got.u[c], layer ? want.u[c] : sentinel))
                    << n[0] << "x" << n[1] << "x" << n[2] << " sides " << mask << " " << name(k)
                    << " threads " << threads << " at (" << i << "," << j << "," << l << ")";
              }
          int lo[3], hi[3];
          laplace_inner_box(&b, side, lo, hi);
          laplace_cpu_sweep_box(&p, &b, u.u, got.u, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], threads, &k);
          ASSERT_EQ(0, std::memcmp(want.u, got.u, b.points * sizeof(double)))
              << n[0] << "x" << n[1] << "x" << n[2] << " sides " << mask << " " << name(k) << " threads "
              << threads;
        }
    }
  }
}

TEST(LaplaceCpuKernel, ParseFlag) {
  laplace_cpu_block k = {9, 9, 9};
  char err[200];
  ASSERT_EQ(0, laplace_parse_cpu_block("auto", &k, err, sizeof err));
  EXPECT_EQ(LAPLACE_CPU_BLOCK_AUTO, k.by);
  ASSERT_EQ(0, laplace_parse_cpu_block("off", &k, err, sizeof err));
  EXPECT_EQ(0, k.by);
  EXPECT_EQ("off", name(k));
  ASSERT_EQ(0, laplace_parse_cpu_block("512x8", &k, err, sizeof err));
  EXPECT_EQ(512, k.bx);
  EXPECT_EQ(8, k.by);
  EXPECT_EQ(0, k.nt);
  ASSERT_EQ(0, laplace_parse_cpu_block("3x1+nt", &k, err, sizeof err));
  EXPECT_EQ("3x1+nt", name(k));
  for (const char *bad : {"", "8", "8x", "x8", "8x8+", "8x8nt", "8x8+nt+nt", "-8x8", "8x-8", "+8x8", " 8x8",
                          "8 x8", "8X8", "autox", "99999999999999999999x8"}) {
    EXPECT_NE(0, laplace_parse_cpu_block(bad, &k, err, sizeof err)) << "'" << bad << "'";
    EXPECT_NE(nullptr, std::strstr(err, "is not BXxBY[+nt], auto or off")) << err;
  }
  for (const char *bad : {"0x8", "8x0", "1000001x8"}) {
    EXPECT_NE(0, laplace_parse_cpu_block(bad, &k, err, sizeof err)) << bad;
    EXPECT_NE(nullptr, std::strstr(err, "must be in [1, 1000000]")) << err;
  }
}

// auto times the candidates once, picks one of them, prints it once; the same grid and team
// again (hybrid's calibration set-up, then its run) reuses it silently. A fixed request is
// clamped to the grid and never timed.
TEST(LaplaceCpuKernel, TunerChoosesACandidateOnce) {
  const int nx = 40, ny = 33, nz = 6;
  laplace_params p = params(nx, ny, nz, 1, "random");
  const laplace_block b = laplace_block_make(nx, ny, 1, nz);
  Field u(b.points, 0), un(b.points, 0);
  laplace_fill(&p, &b, u.u);
  laplace_fill(&p, &b, un.u);
  kit_env env;
  std::memset(&env, 0, sizeof env);
  const laplace_cpu_block autoreq = {0, LAPLACE_CPU_BLOCK_AUTO, 0};
  testing::internal::CaptureStderr();
  const laplace_cpu_block k = laplace_cpu_block_resolve(&autoreq, &env, &p, &b, u.u, un.u, 1, nz + 1, 2);
  const std::string first = testing::internal::GetCapturedStderr();
  EXPECT_NE(std::string::npos, first.find("laplace: cpu block auto: " + name(k) + ",")) << first;
  if (k.by != 0) {
    EXPECT_EQ(nx, k.bx);
    EXPECT_TRUE(k.by == 8 || k.by == 16 || k.by == 32 || k.by == ny) << name(k);
  }
  if (!laplace_cpu_nt_available()) {
    EXPECT_EQ(0, k.nt);
  }
  laplace_cpu_block used;
  ASSERT_TRUE(laplace_cpu_block_used(&used));
  EXPECT_EQ(name(k), name(used));
  testing::internal::CaptureStderr();
  const laplace_cpu_block again = laplace_cpu_block_resolve(&autoreq, &env, &p, &b, u.u, un.u, 1, nz + 1, 2);
  EXPECT_EQ("", testing::internal::GetCapturedStderr());
  EXPECT_EQ(name(k), name(again));
  const laplace_cpu_block fixed = {100, 7, 1};
  testing::internal::CaptureStderr();
  const laplace_cpu_block f = laplace_cpu_block_resolve(&fixed, &env, &p, &b, u.u, un.u, 1, nz + 1, 2);
  EXPECT_EQ("", testing::internal::GetCapturedStderr());
  EXPECT_EQ(nx, f.bx);
  EXPECT_EQ(7, f.by);
  EXPECT_EQ(laplace_cpu_nt_available(), f.nt);
  ASSERT_TRUE(laplace_cpu_block_used(&used));
  EXPECT_EQ(name(f), name(used));
}

// --- process grids (--procs PxQxR) ---------------------------------------------------------

// The parser takes PxQxR with positive integers and nothing else.
TEST(LaplaceGrid, ParseProcs) {
  int g[3] = {0, 0, 0};
  char err[160];
  ASSERT_EQ(laplace_parse_procs("2x3x4", g, err, sizeof err), 0);
  EXPECT_EQ(g[0], 2);
  EXPECT_EQ(g[1], 3);
  EXPECT_EQ(g[2], 4);
  for (const char *bad :
       {"2x2", "2x2x2x2", "2x2x", "x2x2", "2,2,2", "2x-1x2", "0x1x1", "2x2x2 ", "", "axbxc"})
    EXPECT_EQ(laplace_parse_procs(bad, g, err, sizeof err), -1) << bad;
  EXPECT_EQ(g[0], 2);  // a refused value leaves the destination alone
}

// Ranks are numbered z fastest (1x1xN is the slab order), coordinates and ranks are inverse,
// and neighbours across a face are one step along its axis or MPI_PROC_NULL at the edge.
TEST(LaplaceGrid, CoordsRanksNeighbours) {
  const int procs[3] = {3, 2, 4};
  for (int r = 0; r < 24; ++r) {
    int c[3];
    laplace_grid_coords(procs, r, c);
    EXPECT_EQ(r, (c[0] * 2 + c[1]) * 4 + c[2]);
    EXPECT_EQ(laplace_grid_rank(procs, c), r);
    int nbr[LAPLACE_FACES];
    laplace_grid_neighbours(procs, r, nbr);
    for (int f = 0; f < LAPLACE_FACES; ++f) {
      int n[3] = {c[0], c[1], c[2]};
      n[f / 2] += f % 2 ? 1 : -1;
      const bool edge = n[f / 2] < 0 || n[f / 2] >= procs[f / 2];
      if (edge) {
        EXPECT_EQ(nbr[f], MPI_PROC_NULL) << r << " face " << f;
      } else {
        int back[LAPLACE_FACES];  // the neighbour's opposite face leads back here
        laplace_grid_neighbours(procs, nbr[f], back);
        EXPECT_EQ(back[f ^ 1], r) << r << " face " << f;
      }
    }
  }
  const int slab[3] = {1, 1, 5};
  for (int r = 0; r < 5; ++r) {
    int nbr[LAPLACE_FACES];
    laplace_grid_neighbours(slab, r, nbr);
    EXPECT_EQ(nbr[LAPLACE_ZM], r > 0 ? r - 1 : MPI_PROC_NULL);
    EXPECT_EQ(nbr[LAPLACE_ZP], r < 4 ? r + 1 : MPI_PROC_NULL);
    for (int f = 0; f < LAPLACE_ZM; ++f) EXPECT_EQ(nbr[f], MPI_PROC_NULL);
  }
}

// The boxes of a grid tile the domain exactly once, split along each axis like z-slabs (the
// first N % P ranks one point more), and 1x1xN gives today's slabs.
TEST(LaplaceGrid, BoxesTileTheDomain) {
  const int size[3] = {13, 10, 23}, procs[3] = {3, 4, 2};
  std::vector<int> hits((size_t)13 * 10 * 23, 0);
  for (int r = 0; r < 24; ++r) {
    const laplace_block b = laplace_grid_block(size, procs, r);
    int c[3];
    laplace_grid_coords(procs, r, c);
    EXPECT_EQ(b.nx, 13 / 3 + (c[0] < 13 % 3 ? 1 : 0));
    EXPECT_EQ(b.ny, 10 / 4 + (c[1] < 10 % 4 ? 1 : 0));
    EXPECT_EQ(b.nz, 23 / 2 + (c[2] < 23 % 2 ? 1 : 0));
    for (int k = b.k0; k < b.k0 + b.nz; ++k)
      for (int j = b.j0; j < b.j0 + b.ny; ++j)
        for (int i = b.i0; i < b.i0 + b.nx; ++i) ++hits[((size_t)(k - 1) * 10 + (j - 1)) * 13 + (i - 1)];
  }
  for (size_t n = 0; n < hits.size(); ++n) ASSERT_EQ(hits[n], 1) << n;
  const int slab[3] = {1, 1, 4};
  for (int r = 0; r < 4; ++r) {
    const laplace_block g = laplace_grid_block(size, slab, r);
    const laplace_block s = laplace_block_make(13, 10, 1 + r * 5 + (r < 3 ? r : 3), 23 / 4 + (r < 3 ? 1 : 0));
    EXPECT_EQ(std::memcmp(&g, &s, sizeof g), 0) << r;
  }
}

// Pack reads the face's interior layer, unpack writes its ghost layer, and nothing else moves.
TEST(LaplaceGrid, PackUnpackFaces) {
  const laplace_block b = laplace_block_make_box(3, 5, 2, 4, 7, 3);
  std::vector<double> u(b.points);
  for (size_t n = 0; n < u.size(); ++n) u[n] = (double)n;
  for (int f = 0; f < LAPLACE_ZM; ++f) {
    const bool x = f < LAPLACE_YM;
    const size_t count = laplace_face_count(&b, f);
    ASSERT_EQ(count, (size_t)(x ? b.ny : b.nx) * b.nz);
    for (int ghost = 0; ghost < 2; ++ghost) {
      const int n = x ? b.nx : b.ny, at = f % 2 ? n + ghost : 1 - ghost;
      std::vector<double> buf(count, -1.0);
      laplace_face_pack(&b, u.data(), f, ghost, buf.data());
      size_t q = 0;
      for (int l = 1; l <= b.nz; ++l)
        for (int a = 1; a <= (x ? b.ny : b.nx); ++a) {
          const size_t c = (size_t)l * b.sz + (x ? (size_t)a * b.sy + at : (size_t)at * b.sy + a);
          ASSERT_EQ(buf[q++], u[c]) << f << " " << ghost;
        }
      std::vector<double> v(u);
      for (size_t n2 = 0; n2 < count; ++n2) buf[n2] = -2.0 - (double)n2;
      laplace_face_unpack(&b, v.data(), f, ghost, buf.data());
      size_t changed = 0;
      for (size_t n2 = 0; n2 < v.size(); ++n2) changed += v[n2] != u[n2];
      EXPECT_EQ(changed, count);
      std::vector<double> back(count);
      laplace_face_pack(&b, v.data(), f, ghost, back.data());
      EXPECT_EQ(back, buf);
    }
  }
}

// A 2x3x2 grid of boxes over an uneven domain, faces moved by pack/unpack and z-planes by
// copy after every sweep, reproduces the oracle bit for bit: what the cpu variant does with MPI.
TEST(LaplaceGrid, DecomposedBoxesMatchOracle) {
  const int size[3] = {7, 8, 5}, procs[3] = {2, 3, 2}, iters = 7, nr = 12;
  laplace_params p = params(size[0], size[1], size[2], iters, "random");
  p.alpha = 0.25;
  p.beta = 0.125;
  std::vector<double> ref((size_t)size[0] * size[1] * size[2]);
  laplace_reference(&p, ref.data(), nullptr);
  std::vector<laplace_block> b;
  std::vector<std::vector<double>> u(nr), un(nr);
  std::vector<std::array<int, LAPLACE_FACES>> nbr(nr);
  for (int r = 0; r < nr; ++r) {
    b.push_back(laplace_grid_block(size, procs, r));
    laplace_grid_neighbours(procs, r, nbr[r].data());
    u[r].resize(b[r].points);
    laplace_fill(&p, &b[r], u[r].data());
    un[r] = u[r];
  }
  for (int t = 0; t < iters; ++t) {
    for (int r = 0; r < nr; ++r) laplace_sweep_host(&p, &b[r], u[r].data(), un[r].data(), 1, b[r].nz + 1, 2);
    for (int r = 0; r < nr; ++r)
      for (int f = 0; f < LAPLACE_FACES; ++f) {
        const int o = nbr[r][f];
        if (o == MPI_PROC_NULL) continue;
        if (f < LAPLACE_ZM) {  // my interior layer into the neighbour's ghost layer opposite
          std::vector<double> buf(laplace_face_count(&b[r], f));
          laplace_face_pack(&b[r], un[r].data(), f, 0, buf.data());
          laplace_face_unpack(&b[o], un[o].data(), f ^ 1, 1, buf.data());
        } else {
          const size_t sz = b[r].sz, from = f == LAPLACE_ZM ? 1 : (size_t)b[r].nz;
          const size_t to = f == LAPLACE_ZM ? (size_t)b[o].nz + 1 : 0;
          std::memcpy(&un[o][to * sz], &un[r][from * sz], sz * sizeof(double));
        }
      }
    std::swap(u, un);
  }
  for (int r = 0; r < nr; ++r) {
    std::vector<double> part((size_t)b[r].nx * b[r].ny * b[r].nz);
    laplace_copy_interior(&b[r], u[r].data(), 1, b[r].nz + 1, part.data());
    size_t q = 0;
    for (int k = b[r].k0; k < b[r].k0 + b[r].nz; ++k)
      for (int j = b[r].j0; j < b[r].j0 + b[r].ny; ++j)
        for (int i = b[r].i0; i < b[r].i0 + b[r].nx; ++i)
          ASSERT_EQ(part[q++], ref[((size_t)(k - 1) * size[1] + (j - 1)) * size[0] + (i - 1)])
              << "rank " << r << " at " << i << "," << j << "," << k;
  }
}
