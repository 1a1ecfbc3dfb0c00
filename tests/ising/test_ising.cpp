// ising host building blocks (label cpu): the layouts are bijections onto the lattice, a
// sliced slice has one colour and its neighbours in the slices beside it, the half-sweep
// plans send what the neighbours read, and the coupling byte holds each bond at both ends.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

#include "ising.h"
#include "slab_fixtures.h"

// The problem of slab_fixtures.h (T = 1.5) with the default seed.
static ising_params params(int lx, int ly, int lz, const char *layout, int samples = 1) {
  return slab_params(lx, ly, lz, samples, layout, kit_run_defaults().seed);
}

// Every position of every plane maps to a distinct site: the layout is a bijection.
TEST(IsingLayout, CoordsAreABijection) {
  for (const char *layout : {"sliced", "checkerboard"})
    for (auto sz : std::vector<std::vector<int>>{{2, 2, 2}, {6, 4, 8}, {8, 16, 4}, {12, 12, 12}}) {
      const ising_params p = params(sz[0], sz[1], sz[2], layout);
      const ising_block b = ising_block_make(&p, 0, ising_global_planes(&p));
      std::set<long> seen;
      for (int g = 0; g < b.nplanes; ++g)
        for (int part = 0; part < b.parts; ++part)
          for (int row = 0; row < b.rows; ++row)
            for (int i = 0; i < b.width; ++i) {
              int x, y, z;
              ising_coords(&b, g, part, row, i, &x, &y, &z);
              ASSERT_TRUE(x >= 0 && x < sz[0] && y >= 0 && y < sz[1] && z >= 0 && z < sz[2]) << layout;
              // The part (checkerboard) or the slice (sliced) fixes the colour.
              const int colour = b.layout == ISING_SLICED ? g % 2 : part;
              ASSERT_EQ((x + y + z) % 2, colour) << layout << " g=" << g;
              seen.insert(x + (long)sz[0] * (y + (long)sz[1] * z));
            }
      EXPECT_EQ(seen.size(), (size_t)sz[0] * sz[1] * sz[2]) << layout;
    }
}

// Slice w holds (x + y + z) mod m == w, and the cube's slices are L x L (m = L).
TEST(IsingLayout, SlicedGeometry) {
  const ising_params cube = params(8, 8, 8, "sliced");
  EXPECT_EQ(ising_global_planes(&cube), 8);
  const ising_params box = params(12, 8, 4, "sliced");
  EXPECT_EQ(ising_global_planes(&box), 4);  // gcd(12, 8, 4)
  const ising_block b = ising_block_make(&box, 0, 4);
  EXPECT_EQ(b.part_sites, (size_t)12 * 8 * (4 / 4));
  for (int w = 0; w < 4; ++w)
    for (int row = 0; row < b.rows; ++row)
      for (int i = 0; i < b.width; ++i) {
        int x, y, z;
        ising_coords(&b, w, 0, row, i, &x, &y, &z);
        ASSERT_EQ((x + y + z) % 4, w);
      }
}

// Sliced: one message per half-sweep; checkerboard: two, of half a plane each.
TEST(IsingPlan, SlicedSendsOneWay) {
  const ising_params p = params(8, 8, 8, "sliced");
  const ising_block b = ising_block_make(&p, 2, 4);
  const ising_plan c0 = ising_make_plan(&b, 0), c1 = ising_make_plan(&b, 1);
  EXPECT_EQ(c0.send_plane[KIT_DOWN], 1);
  EXPECT_EQ(c0.send_plane[KIT_UP], -1);
  EXPECT_EQ(c0.recv_plane[KIT_UP], 5);
  EXPECT_EQ(c1.send_plane[KIT_UP], 4);
  EXPECT_EQ(c1.recv_plane[KIT_DOWN], 0);
  // Boundary and bulk together are exactly the planes of the colour.
  for (const ising_plan *pl : {&c0, &c1}) {
    std::set<int> planes;
    for (int j = 0; j < pl->boundary.count; ++j) planes.insert(pl->boundary.first + j * pl->boundary.step);
    for (int j = 0; j < pl->bulk.count; ++j) planes.insert(pl->bulk.first + j * pl->bulk.step);
    EXPECT_EQ(planes.size(), 2u);
    for (int l : planes) EXPECT_EQ((b.k0 + l - 1) % 2, pl == &c0 ? 0 : 1);
  }
  const ising_params q = params(8, 8, 8, "checkerboard");
  const ising_block cb = ising_block_make(&q, 2, 3);
  const ising_plan k1 = ising_make_plan(&cb, 1);
  EXPECT_EQ(k1.send_plane[KIT_DOWN], 1);
  EXPECT_EQ(k1.send_plane[KIT_UP], 3);
  EXPECT_EQ(k1.part, 1);
  EXPECT_EQ(cb.part_stride * 2, cb.plane_stride);
}

// The coupling byte: bit d is the +d bond, bit 3 + d the -d neighbour's +d bond.
TEST(IsingPhysics, CouplingByteHoldsEachBondAtBothEnds) {
  ising_params p = params(4, 6, 2, "sliced");
  const ising_rules r = ising_rules_of(&p);
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 4; ++x) {
        const uint8_t j = ising_coupling_byte(&r, 0, x, y, z);
        const int q[3][3] = {{(x + 1) % 4, y, z}, {x, (y + 1) % 6, z}, {x, y, (z + 1) % 2}};
        for (int d = 0; d < 3; ++d) {
          const uint8_t nb = ising_coupling_byte(&r, 0, q[d][0], q[d][1], q[d][2]);
          ASSERT_EQ((j >> d) & 1, (nb >> (3 + d)) & 1);
        }
      }
}

// dE <= 0 always flips; dE > 0 flips with probability w: at w = 0 never, at w = 1 always.
TEST(IsingPhysics, MetropolisRule) {
  ising_params p = params(4, 4, 4, "sliced");
  ising_rules r = ising_rules_of(&p);
  for (int h = -6; h <= 6; h += 2) {
    r.w[0] = r.w[1] = r.w[2] = 0.0;
    const int8_t cold = ising_metropolis(&r, 0, 5, 1, 0, 1, h);
    EXPECT_EQ(cold, 2 * h <= 0 ? -1 : 1) << h;
    r.w[0] = r.w[1] = r.w[2] = 1.0;
    EXPECT_EQ(ising_metropolis(&r, 0, 5, 1, 0, 1, h), -1) << h;
  }
  // The field: all bonds ferromagnetic and all neighbours up gives h = 6.
  EXPECT_EQ(ising_field(0, 1, 1, 1, 1, 1, 1), 6);
  EXPECT_EQ(ising_field(0x3f, 1, 1, 1, 1, 1, 1), -6);
  EXPECT_EQ(ising_field(0x01, 1, -1, 1, 1, 1, 1), 2);
}
