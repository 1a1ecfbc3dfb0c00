// The multi-spin-coded sliced GPU half-sweep (`--layout msc`, miniapps/ising/sliced_bits.h)
// run on the host, thread by thread, so that its indexing and its bit logic are checked on a
// machine without a GPU (label cpu):
//   - packing a slab to bits and back returns it unchanged;
//   - every site of the colour is updated exactly once per half-sweep, over all ranks and
//     both launches of their plans (the staggered ferromagnet must flip everywhere);
//   - sweeps of the emulated kernel, unpacked, give the same spins bit for bit as the host
//     sweep on the byte layout (ising_sweep_host, a draw per site), with ghost planes
//     exchanged as the plans say, for runs of 1 to 16 slices and 1, 2 or 4 threads a word,
//     whatever order the threads run in;
//   - the launch shape follows its stated rule;
//   - the bit-sliced bond count decides as ising_decide does, for every neighbourhood.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ising.h"
#include "slab_fixtures.h"
#include "sliced_bits.h"

namespace {

ising_params params(int lx, int ly, int lz, int samples) {
  return slab_params(lx, ly, lz, samples, "msc", 7654321);
}

// A slab in both storages: bytes (what the host sweep updates) and bits.
struct Slab {
  ising_block b;
  std::vector<int8_t> spin;
  std::vector<uint8_t> coupling;
  std::vector<uint32_t> sbits, jbits;
};

Slab make_slab(const ising_params &p, const ising_block &b) {
  Slab s;
  s.b = b;
  s.spin.resize((size_t)(b.n + 2) * b.plane_stride);
  s.coupling.resize((size_t)b.n * b.plane_stride);
  ising_fill(&p, &b, s.spin.data(), s.coupling.data(), 1);
  const size_t pw = ising_bits_plane_words(&b);
  s.sbits.resize((size_t)(b.n + 2) * pw);
  s.jbits.resize((size_t)6 * b.n * pw);
  ising_bits_pack_host(&b, s.spin.data(), s.coupling.data(), s.sbits.data(), s.jbits.data(), 1);
  return s;
}

std::vector<int8_t> unpack(const Slab &s) {
  std::vector<int8_t> out(s.sbits.size() * 32);
  for (size_t w = 0; w < s.sbits.size(); ++w) ising_bits_unpack_spins(s.sbits[w], out.data() + 32 * w);
  return out;
}

// One launch of the msc kernel with P threads a word and runs of `run` slices: every thread,
// in grid order or reversed.
void bits_half_sweep(const ising_rules &r, Slab &s, ising_planes pl, int colour, uint32_t t, int run, int P,
                     bool reversed) {
  const ising_bits_plan dv = ising_bits_plan_of(&s.b, pl, run);
  const long long units = (long long)ising_bits_plane_words(&s.b) * P;
  const long long n = (long long)ising_bits_runs(pl, run) * units;
  for (long long q = 0; q < n; ++q) {
    const long long i = reversed ? n - 1 - q : q, idx = i % units;
    ising_bits_thread(&r, &s.b, &dv, s.sbits.data(), s.jbits.data(), pl, colour, t, (uint32_t)(idx / P),
                      (int)(idx % P), P, (int)(i / units));
  }
}

// Ghost planes from the neighbours (periodic), in both storages.
void exchange(std::vector<Slab> &w, int c) {
  const int R = (int)w.size();
  for (int i = 0; i < R; ++i) {
    const ising_plan pl = ising_make_plan(&w[i].b, c);
    for (int side = 0; side < 2; ++side) {
      if (pl.send_plane[side] < 0) continue;
      const int o = side == KIT_DOWN ? (i + R - 1) % R : (i + 1) % R;
      const ising_plan opl = ising_make_plan(&w[o].b, c);
      const size_t pw = ising_bits_plane_words(&w[i].b);
      std::memcpy(w[o].spin.data() + ising_part_offset(&w[o].b, opl.recv_plane[1 - side], 0),
                  w[i].spin.data() + ising_part_offset(&w[i].b, pl.send_plane[side], 0), w[i].b.part_stride);
      std::memcpy(w[o].sbits.data() + (size_t)opl.recv_plane[1 - side] * pw,
                  w[i].sbits.data() + (size_t)pl.send_plane[side] * pw, pw * sizeof(uint32_t));
    }
  }
}

// LX a multiple of 32 (the msc condition). m = 32 (cube, one and three ranks), m = 8 with
// Q = 2, m = 16 with Q = 3 (two words a row), m = 6 with Q = 2 (three words a row, a group
// wraps the slices), m = 2 (a group's four slices coincide), m = 4 with Q = 2 on two ranks,
// m = 64 on one rank (bulk launches of 31 slices: several runs), m = 32 with Q = 2 on two
// ranks (at most one z-wrap bit a word).
const std::vector<Shape> kShapes = {{{32, 32, 32}, 1}, {{32, 32, 32}, 3}, {{32, 8, 16}, 1}, {{32, 8, 16}, 2},
                                    {{64, 16, 48}, 1}, {{96, 6, 12}, 1},  {{96, 6, 12}, 3}, {{32, 2, 2}, 1},
                                    {{32, 4, 8}, 2},   {{64, 64, 64}, 1}, {{32, 32, 64}, 2}};

}  // namespace

TEST(IsingBits, PackThenUnpackIsTheSlab) {
  const ising_params p = params(96, 6, 12, 2);
  for (const ising_block &b : slabs(p, 3)) {
    const Slab s = make_slab(p, b);
    EXPECT_EQ(unpack(s), s.spin);
    // Coupling bit d of site i is bit d of its coupling byte.
    const size_t pw = ising_bits_plane_words(&b), nw = (size_t)b.n * pw;
    for (size_t i = 0; i < s.coupling.size(); ++i)
      for (int d = 0; d < 6; ++d)
        ASSERT_EQ(s.jbits[d * nw + i / 32] >> (i % 32) & 1u, (uint32_t)(s.coupling[i] >> d & 1u))
            << i << " " << d;
  }
}

// The ferromagnet from the staggered state (dE = -12 everywhere): a half-sweep flips every
// site of its colour exactly once; a site updated twice, or never, keeps its spin. The sites
// are found by the layout's definition (ising_coords), not by the kernel's arithmetic.
TEST(IsingBits, EverySiteOfTheColourExactlyOnce) {
  for (const Shape &sh : kShapes) {
    ising_params p = params(sh.L[0], sh.L[1], sh.L[2], 2);
    p.p = 0;
    const ising_rules r = ising_rules_of(&p);
    for (const auto &rp : std::vector<std::pair<int, int>>{{1, 1}, {16, 1}, {1, 4}, {3, 2}})
      for (int c = 0; c < 2; ++c)
        for (const ising_block &b : slabs(p, sh.ranks)) {
          ASSERT_EQ(b.L[0] % 32, 0);
          Slab st = make_slab(p, b);
          each_site(b, [&](int, size_t at, int x, int y, int z) { st.spin[at] = (x + y + z) % 2 ? -1 : 1; });
          ising_bits_pack_host(&b, st.spin.data(), st.coupling.data(), st.sbits.data(), st.jbits.data(), 1);
          for (ising_planes pl : launches(ising_make_plan(&b, c))) {
            ASSERT_EQ(pl.count == 1 || pl.step == 2, true);
            bits_half_sweep(r, st, pl, c, 0, rp.first, rp.second, false);
          }
          const std::vector<int8_t> after = unpack(st);
          size_t wrong = 0, flipped = 0;
          for (int l = 0; l < b.n + 2; ++l) {
            const bool mine = l >= 1 && l <= b.n && (ising_global_plane(&b, l) % 2) == c;
            for (size_t q = 0; q < b.plane_stride; ++q) {
              const size_t at = ising_part_offset(&b, l, 0) + q;
              wrong += after[at] != (mine ? -st.spin[at] : st.spin[at]);
              flipped += mine;
            }
          }
          ASSERT_EQ(wrong, 0u) << tag(sh) << " colour " << c << " run " << rp.first << " P " << rp.second;
          EXPECT_EQ(flipped, (size_t)b.n / 2 * b.plane_stride) << tag(sh);
        }
  }
}

// Sweeps of the emulated kernel against the host sweep on the same slabs, ghost planes
// exchanged as the plans say: the same spins after every sweep, and the spins do change.
TEST(IsingBits, SameBitsAsTheHostSweep) {
  for (const Shape &sh : kShapes)
    for (const auto &rp :
         std::vector<std::pair<int, int>>{{1, 1}, {2, 2}, {5, 4}, {16, 1}, {16, 2}, {3, 4}}) {
      const int run = rp.first, P = rp.second;
      const ising_params p = params(sh.L[0], sh.L[1], sh.L[2], 2);
      const ising_rules r = ising_rules_of(&p);
      std::vector<Slab> host, bits, reversed;
      for (const ising_block &b : slabs(p, sh.ranks)) host.push_back(make_slab(p, b));
      bits = host;
      reversed = host;
      const int R = (int)host.size();
      for (uint32_t t = 0; t < 3; ++t) {
        for (int c = 0; c < 2; ++c) {
          for (int i = 0; i < R; ++i)
            for (ising_planes pl : launches(ising_make_plan(&host[i].b, c))) {
              ising_sweep_host(&p, &host[i].b, host[i].spin.data(), host[i].coupling.data(), c, t, pl, 1);
              bits_half_sweep(r, bits[i], pl, c, t, run, P, false);
              bits_half_sweep(r, reversed[i], pl, c, t, run, P, true);
            }
          exchange(host, c);
          exchange(bits, c);
          exchange(reversed, c);
        }
        for (int i = 0; i < R; ++i) {
          ASSERT_EQ(host[i].spin, unpack(bits[i]))
              << tag(sh) << " rank " << i << " sweep " << t << " run " << run << " P " << P;
          ASSERT_EQ(host[i].spin, unpack(reversed[i]))
              << tag(sh) << " rank " << i << " sweep " << t << " run " << run << " P " << P
              << " (threads reversed)";
        }
      }
      size_t changed = 0;
      for (int i = 0; i < R; ++i) {
        const Slab start = make_slab(p, host[i].b);
        for (size_t q = 0; q < host[i].spin.size(); ++q) changed += host[i].spin[q] != start.spin[q];
      }
      EXPECT_GT(changed, 0u) << tag(sh);
    }
}

// The bit-sliced decision against the contract's: every spin, coupling byte and
// neighbourhood (2 x 64 x 64), each below-threshold pattern (8), in every bit position, the
// other bits random; ising_decide with a word just below or at the threshold of the site's
// dE decides the same.
TEST(IsingBits, FlipIsTheMetropolisDecision) {
  std::mt19937 rng(5);
  ising_params p = params(32, 2, 2, 1);
  const ising_rules r = ising_rules_of(&p);
  for (int s = 0; s < 2; ++s)
    for (int jb = 0; jb < 64; ++jb)
      for (int n = 0; n < 64; ++n)
        for (int below = 0; below < 8; ++below) {
          const int bit = (int)(rng() % 32);
          const uint32_t mask = 1u << bit;
          uint32_t own = rng(), nb[6], j[6], c[3];
          own = (own & ~mask) | (s ? mask : 0u);
          int8_t v[6];
          for (int d = 0; d < 6; ++d) {
            nb[d] = (rng() & ~mask) | ((n >> d & 1) ? mask : 0u);
            j[d] = (rng() & ~mask) | ((jb >> d & 1) ? mask : 0u);
            v[d] = (n >> d & 1) ? -1 : 1;
          }
          for (int q = 0; q < 3; ++q) c[q] = (rng() & ~mask) | ((below >> q & 1) ? mask : 0u);
          const uint32_t f = ising_bits_flip(own, j, nb[0], nb[1], nb[2], nb[3], nb[4], nb[5], c) >> bit & 1u;
          const int8_t spin = s ? -1 : 1;
          const int dE = 2 * spin * ising_field((uint8_t)jb, v[0], v[1], v[2], v[3], v[4], v[5]);
          // The word of a site whose class dE selects threshold q: below it or at it.
          const int q = dE == 4 ? 0 : dE == 8 ? 1 : 2;
          const uint32_t word = (below >> q & 1) ? r.thr[q] - 1 : r.thr[q];
          ASSERT_EQ(f, (uint32_t)(ising_decide(&r, spin, dE, word) != spin))
              << "s=" << spin << " j=" << jb << " n=" << n << " below=" << below << " bit " << bit;
        }
}

// The shape rule (ising_bits_shape_of): one wave of runs; the fewest threads a word whose runs
// are 8 slices or more; else 4 threads a word and runs of at least min(N, 4). Slots as on an
// H200 (132 SMs x 4 blocks of 256 threads).
TEST(IsingBits, LaunchShapeRule) {
  const int slots[3] = {528, 528, 528};
  struct Case {
    long long words;
    int N, parts, run;
  } cases[] = {
      {8192, 255, 1, 16},    // L = 512 bulk: 16 runs x 32 blocks
      {8192, 1, 4, 1},       // L = 512 boundary slice
      {2048, 127, 4, 8},     // L = 256 bulk: 1 and 2 threads a word leave runs of 2 and 4
      {512, 63, 4, 4},       // L = 128: no shape reaches 8; runs of 4
      {8192, 10, 4, 4},      // a thin slab
      {65536, 255, 1, 128},  // 8 samples at L = 512: 256 blocks a run, two runs fill the GPU
  };
  for (const Case &c : cases) {
    const ising_bits_shape sh = ising_bits_shape_of(c.words, c.N, slots, 256);
    EXPECT_EQ(sh.parts, c.parts) << c.words << " words, N " << c.N;
    EXPECT_EQ(sh.run, c.run) << c.words << " words, N " << c.N;
  }
}
