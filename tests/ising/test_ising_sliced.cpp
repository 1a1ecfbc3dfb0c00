// The sliced GPU half-sweep (miniapps/ising/sliced_groups.h) run on the host, thread by
// thread, so that its indexing and its bit tricks are checked on a machine without a GPU
// (label cpu):
//   - every site of the colour is updated exactly once per half-sweep, over all ranks and
//     both launches (boundary, bulk) of their plans (at T = infinity every site flips, so a
//     site updated twice or never shows);
//   - sweeps of the emulated kernel give the same spins, bit for bit, as the host sweep
//     (ising_sweep_host, a draw per site), with halos exchanged as the plans say, whatever
//     order the threads run in;
//   - the byte-parallel bond count equals ising_field, and the integer threshold the
//     contract's double comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ising.h"
#include "slab_fixtures.h"
#include "sliced_groups.h"

namespace {

ising_params params(int lx, int ly, int lz, int samples) {
  return slab_params(lx, ly, lz, samples, "sliced", 1234567);
}

// One launch of the octet kernel: every thread, in grid order or reversed (the device runs
// them in any order).
void grouped_half_sweep(const ising_rules &r, const ising_block &b, int8_t *spin, const uint8_t *coupling,
                        ising_planes pl, int colour, uint32_t t, bool reversed) {
  const ising_octet_plan dv = ising_octet_plan_of(&b, pl);
  const uint32_t units = (uint32_t)(b.part_sites / 8);
  const long long groups =
      ((long long)b.samples * ising_octet_bases(pl) + ISING_OCTET_BASES - 1) / ISING_OCTET_BASES;
  const long long n = groups * units;
  for (long long q = 0; q < n; ++q) {
    const long long i = reversed ? n - 1 - q : q;
    ising_octet_thread(&r, &b, &dv, spin, coupling, pl, colour, t, (uint32_t)(i / units * ISING_OCTET_BASES),
                       (uint32_t)(i % units));
  }
}

// LX a multiple of 8 throughout (the grouped kernel's condition). m = 8 (cube, and Q = 3
// rows of q), m = 4, m = 2 (a group's four slices coincide in pairs or all), m = 20 (a part
// of 800 sites: the last segment ends early), m = 4 with Q = 3 on two ranks; m = 40 and 48
// on one rank, whose bulk launches are long enough for runs of bases with every member
// inside (ising_octet_run), also with Q = 3 (40 x 8 x 120).
const std::vector<Shape> kShapes = {
    {{8, 8, 8}, 1},    {{8, 8, 8}, 2},    {{16, 8, 24}, 1},  {{16, 8, 24}, 3},  {{8, 16, 4}, 1},
    {{8, 16, 4}, 2},   {{24, 6, 4}, 1},   {{40, 20, 20}, 1}, {{40, 20, 20}, 4}, {{16, 12, 12}, 2},
    {{32, 32, 32}, 3}, {{40, 40, 40}, 1}, {{48, 48, 48}, 1}, {{40, 8, 120}, 1}};

}  // namespace

TEST(IsingSlicedGroups, ServesTheSlicedPlansOnly) {
  const ising_params p = params(16, 8, 24, 1);
  const ising_block b = ising_block_make(&p, 0, 8);
  for (int c = 0; c < 2; ++c)
    for (ising_planes s : launches(ising_make_plan(&b, c))) EXPECT_TRUE(ising_grouped(&b, s));
  ising_params odd = params(12, 6, 12, 1);  // LX % 8 != 0: groups straddle rows
  const ising_block ob = ising_block_make(&odd, 0, 6);
  EXPECT_FALSE(ising_grouped(&ob, ising_make_plan(&ob, 0).bulk));
  ising_params cb = params(16, 8, 24, 1);
  cb.layout = "checkerboard";
  const ising_block cbb = ising_block_make(&cb, 0, 24);
  EXPECT_FALSE(ising_grouped(&cbb, ising_make_plan(&cbb, 0).bulk));
}

// The ferromagnet from the staggered state (every neighbour opposite: dE = -12 everywhere):
// a half-sweep flips every site of its colour exactly once, a site updated twice, or never,
// keeps its spin. The sites are found by the layout's definition (ising_coords), not by the
// kernel's arithmetic.
TEST(IsingSlicedGroups, EverySiteOfTheColourExactlyOnce) {
  for (const Shape &sh : kShapes) {
    ising_params p = params(sh.L[0], sh.L[1], sh.L[2], 2);
    p.p = 0;
    const ising_rules r = ising_rules_of(&p);
    for (int c = 0; c < 2; ++c)
      for (const ising_block &b : slabs(p, sh.ranks)) {
        std::vector<int8_t> spin((size_t)(b.n + 2) * b.plane_stride);
        std::vector<uint8_t> coupling((size_t)b.n * b.plane_stride);
        ising_fill(&p, &b, spin.data(), coupling.data(), 1);
        each_site(b, [&](int, size_t at, int x, int y, int z) { spin[at] = (x + y + z) % 2 ? -1 : 1; });
        const std::vector<int8_t> start = spin;
        const ising_plan plan = ising_make_plan(&b, c);
        for (ising_planes pl : launches(plan)) {
          ASSERT_TRUE(ising_grouped(&b, pl)) << tag(sh);
          grouped_half_sweep(r, b, spin.data(), coupling.data(), pl, c, 0, false);
        }
        size_t flipped = 0, wrong = 0;
        std::string first;
        each_site(b, [&](int l, size_t at, int x, int y, int z) {
          const bool mine = l >= 1 && l <= b.n && (x + y + z) % 2 == c;
          if (spin[at] != (mine ? -start[at] : start[at]) && !wrong++)
            first = "plane " + std::to_string(l) + " (" + std::to_string(x) + "," + std::to_string(y) + "," +
                    std::to_string(z) + ")";
          flipped += mine;
        });
        ASSERT_EQ(wrong, 0u) << tag(sh) << " colour " << c << ", first at " << first;
        EXPECT_EQ(flipped, (size_t)b.n / 2 * b.plane_stride) << tag(sh);
      }
  }
}

// Sweeps of the emulated kernel against the host sweep on the same slabs, halos exchanged
// as the plans say: the same bits after every sweep, and the spins do change.
TEST(IsingSlicedGroups, SameBitsAsTheHostSweep) {
  for (const Shape &sh : kShapes) {
    const ising_params p = params(sh.L[0], sh.L[1], sh.L[2], 2);
    const ising_rules r = ising_rules_of(&p);
    const std::vector<ising_block> bs = slabs(p, sh.ranks);
    const int R = (int)bs.size();
    std::vector<std::vector<int8_t>> host(R), grouped(R), reversed(R);
    std::vector<std::vector<uint8_t>> coupling(R);
    for (int i = 0; i < R; ++i) {
      host[i].resize((size_t)(bs[i].n + 2) * bs[i].plane_stride);
      coupling[i].resize((size_t)bs[i].n * bs[i].plane_stride);
      ising_fill(&p, &bs[i], host[i].data(), coupling[i].data(), 1);
      grouped[i] = host[i];
      reversed[i] = host[i];
    }
    const std::vector<std::vector<int8_t>> start = host;
    // Ghost parts from the neighbours (periodic), as every variant's exchange delivers them.
    auto exchange = [&](std::vector<std::vector<int8_t>> &w, int c) {
      for (int i = 0; i < R; ++i) {
        const ising_plan pl = ising_make_plan(&bs[i], c);
        for (int side = 0; side < 2; ++side) {
          if (pl.send_plane[side] < 0) continue;
          const int o = side == KIT_DOWN ? (i + R - 1) % R : (i + 1) % R;
          const ising_plan opl = ising_make_plan(&bs[o], c);
          std::memcpy(w[o].data() + ising_part_offset(&bs[o], opl.recv_plane[1 - side], opl.part),
                      w[i].data() + ising_part_offset(&bs[i], pl.send_plane[side], pl.part),
                      bs[i].part_stride);
        }
      }
    };
    for (uint32_t t = 0; t < 4; ++t) {
      for (int c = 0; c < 2; ++c) {
        for (int i = 0; i < R; ++i)
          for (ising_planes pl : launches(ising_make_plan(&bs[i], c))) {
            ising_sweep_host(&p, &bs[i], host[i].data(), coupling[i].data(), c, t, pl, 1);
            grouped_half_sweep(r, bs[i], grouped[i].data(), coupling[i].data(), pl, c, t, false);
            grouped_half_sweep(r, bs[i], reversed[i].data(), coupling[i].data(), pl, c, t, true);
          }
        exchange(host, c);
        exchange(grouped, c);
        exchange(reversed, c);
      }
      for (int i = 0; i < R; ++i) {
        ASSERT_EQ(host[i], grouped[i]) << tag(sh) << " rank " << i << " sweep " << t;
        ASSERT_EQ(host[i], reversed[i])
            << tag(sh) << " rank " << i << " sweep " << t << " (threads reversed)";
      }
    }
    size_t changed = 0;
    for (int i = 0; i < R; ++i)
      for (size_t q = 0; q < host[i].size(); ++q) changed += host[i][q] != start[i][q];
    EXPECT_GT(changed, 0u) << tag(sh);
  }
}

// The byte-parallel count against 2 s h with ising_field, the host sweep's: all 2 x 64 x 64
// spins, coupling bytes and neighbourhoods in every byte of the word, the other bytes random.
TEST(IsingSlicedGroups, UnsatIsTheField) {
  std::mt19937_64 rng(7);
  auto spin = [&](int neg) -> uint32_t { return neg ? 0xffu : 0x01u; };
  for (int lane = 0; lane < 4; ++lane)
    for (int s = 0; s < 2; ++s)
      for (int j = 0; j < 64; ++j)
        for (int n = 0; n < 64; ++n) {
          uint32_t w[8];  // own, j, xp, yp, zp, xm, ym, zm: random +-1 / 6-bit bytes elsewhere
          for (int q = 0; q < 8; ++q) {
            uint32_t v = 0;
            for (int byte = 0; byte < 4; ++byte)
              v |= (uint32_t)(q == 1 ? rng() & 63 : spin((int)(rng() & 1))) << 8 * byte;
            w[q] = v & ~(0xffu << 8 * lane);
          }
          w[0] |= spin(s) << 8 * lane;
          w[1] |= (uint32_t)j << 8 * lane;
          int8_t v[6];
          for (int q = 0; q < 6; ++q) {
            v[q] = (n >> q & 1) ? -1 : 1;
            w[2 + q] |= spin(n >> q & 1) << 8 * lane;
          }
          const int u2 =
              (int)(ising_unsat2(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]) >> 8 * lane & 0xff);
          const int sv = s ? -1 : 1;
          ASSERT_EQ(12 - 2 * u2, 2 * sv * ising_field((uint8_t)j, v[0], v[1], v[2], v[3], v[4], v[5]))
              << "lane " << lane << " s=" << sv << " j=" << j << " n=" << n;
        }
}

// word < thr decides as the contract's u = word 2^-32 < exp(-dE/T) does: the words around
// the threshold, the ends, and random words, for temperatures from 0.05 to 1e6 (the
// option's range ends at 1e-3 and 1e6), w = 0 and w just below 1.
TEST(IsingSlicedGroups, ThresholdIsTheDouble) {
  std::mt19937 rng(11);
  std::vector<double> temps = {1e-3, 0.05, 0.3, 1.0, 1.15, 1.5, 2.0, 4.51, 10.0, 1e3, 1e6};
  std::vector<std::vector<double>> ws;
  for (double T : temps) ws.push_back({std::exp(-4.0 / T), std::exp(-8.0 / T), std::exp(-12.0 / T)});
  ws.push_back({0.9999999, 0.5, 0.0});
  ws.push_back({0.0, 0.9999999, 0.5});
  ws.push_back({0.9999999, 0.9999999, 0.9999999});
  for (const auto &w3 : ws) {
    ising_params p = params(8, 8, 8, 1);
    for (int i = 0; i < 3; ++i) p.w[i] = w3[i];
    const ising_rules r = ising_rules_of(&p);
    for (int i = 0; i < 3; ++i) {
      const uint32_t u2 = (uint32_t)(4 - 2 * i);  // dE = 4, 8, 12
      std::vector<uint32_t> words = {0u, 1u, 0xffffffffu, 0xfffffffeu};
      const double W = std::ldexp(w3[i], 32);
      for (long long d = -3; d <= 3; ++d) {
        const long long x = (long long)std::ceil(W) + d;
        if (x >= 0 && x <= 0xffffffffLL) words.push_back((uint32_t)x);
      }
      for (int q = 0; q < 2000; ++q) words.push_back(rng());
      for (uint32_t word : words)
        ASSERT_EQ(ising_accept_word(&r, u2, word) != 0, kit_u01(word) < ising_accept(&r, 4 * (i + 1)))
            << "w=" << w3[i] << " word=" << word;
    }
  }
}
