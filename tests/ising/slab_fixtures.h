// slab_fixtures.h: what the tests that run a GPU kernel's code on the host share
// (test_ising_sliced.cpp, test_ising_bits.cpp): a problem, its sliced slabs on `ranks` ranks,
// and the launches of a half-sweep plan.
#ifndef ISING_TEST_SLAB_FIXTURES_H
#define ISING_TEST_SLAB_FIXTURES_H
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ising.h"

// A sliced-geometry problem (layout "sliced" or "msc") at T = 1.5, p = 0.5, random start.
inline ising_params slab_params(int lx, int ly, int lz, int samples, const char *layout, uint64_t seed) {
  ising_params p;
  std::memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.run.seed = seed;
  p.size[0] = lx;
  p.size[1] = ly;
  p.size[2] = lz;
  p.layout = layout;
  p.init = "random";
  p.samples = samples;
  p.p = 0.5;
  p.temp = 1.5;
  for (int i = 0; i < 3; ++i) p.w[i] = std::exp(-4.0 * (i + 1) / p.temp);
  return p;
}

// The slabs of `ranks` ranks: whole pairs of slices, split as evenly as possible.
inline std::vector<ising_block> slabs(const ising_params &p, int ranks) {
  const int pairs = ising_global_planes(&p) / 2;
  std::vector<ising_block> out;
  for (int r = 0; r < ranks; ++r) {
    const int a = pairs * r / ranks, e = pairs * (r + 1) / ranks;
    out.push_back(ising_block_make(&p, 2 * a, 2 * (e - a)));
  }
  return out;
}

// The plan's non-empty launches: boundary, then bulk.
inline std::vector<ising_planes> launches(const ising_plan &pl) {
  std::vector<ising_planes> out;
  for (ising_planes s : {pl.boundary, pl.bulk})
    if (s.count > 0) out.push_back(s);
  return out;
}

// A lattice and the ranks it is cut over.
struct Shape {
  int L[3], ranks;
};

inline std::string tag(const Shape &s) {
  return std::to_string(s.L[0]) + "x" + std::to_string(s.L[1]) + "x" + std::to_string(s.L[2]) + " on " +
         std::to_string(s.ranks) + " ranks";
}

// f(local plane, index in the spin array, x, y, z) for every site of the slab, ghost planes
// included, every sample; the site by the layout's definition (ising_coords).
template <class F>
inline void each_site(const ising_block &b, F f) {
  for (int l = 0; l < b.n + 2; ++l)
    for (int k = 0; k < b.samples; ++k)
      for (int row = 0; row < b.rows; ++row)
        for (int i = 0; i < b.width; ++i) {
          int x, y, z;
          ising_coords(&b, ising_global_plane(&b, l), 0, row, i, &x, &y, &z);
          f(l, ising_part_offset(&b, l, 0) + (size_t)k * b.part_sites + (size_t)row * b.width + i, x, y, z);
        }
}

#endif
