// The sliced GPU half-sweep (miniapps/ising/sliced_groups.h) run on the host, thread by
// thread and phase by phase between the kernel's barriers, so that its indexing is checked
// on a machine without a GPU (label cpu):
//   - every site of the colour is looked at and updated exactly once per half-sweep, over
//     all ranks and both launches (boundary, bulk) of their plans;
//   - a site reads the word (s >> 1) & 3 of the draw made for the group whose word-0 site has
//     the same s >> 3, and the sites reading one draw are exactly the contract's four sites of
//     that counter that lie in the launch's slices;
//   - sweeps of the emulated kernel give the same spins, bit for bit, as the host sweep
//     (ising_sweep_host, a draw per site), with halos exchanged as the plans say.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "ising.h"
#include "sliced_groups.h"

namespace {

ising_params params(int lx, int ly, int lz, int samples) {
  ising_params p;
  std::memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.run.seed = 1234567;
  p.size[0] = lx;
  p.size[1] = ly;
  p.size[2] = lz;
  p.layout = "sliced";
  p.init = "random";
  p.samples = samples;
  p.p = 0.5;
  p.temp = 1.5;
  for (int i = 0; i < 3; ++i) p.w[i] = std::exp(-4.0 * (i + 1) / p.temp);
  return p;
}

// The slabs of `ranks` ranks: whole pairs of slices, split as evenly as possible.
std::vector<ising_block> slabs(const ising_params &p, int ranks) {
  const int pairs = ising_global_planes(&p) / 2;
  std::vector<ising_block> out;
  for (int r = 0; r < ranks; ++r) {
    const int a = pairs * r / ranks, e = pairs * (r + 1) / ranks;
    out.push_back(ising_block_make(&p, 2 * a, 2 * (e - a)));
  }
  return out;
}

std::vector<ising_planes> launches(const ising_plan &pl) {
  std::vector<ising_planes> out;
  for (ising_planes s : {pl.boundary, pl.bulk})
    if (s.count > 0) out.push_back(s);
  return out;
}

// One launch of the grouped kernel, every block and thread in turn, with the kernel's one
// barrier at the end of each iteration. Within an iteration the kernel's threads run in any
// interleaving, so two are emulated: phase by phase (every look, every draw, every update)
// and thread by thread in reverse order (a thread's look, draw and update, from the last thread
// to the first); a phase that read what another thread writes in the same iteration would
// make the two differ. Shared memory starts as garbage, as on the device.
void grouped_half_sweep(const ising_rules &r, const ising_block &b, int8_t *spin, const uint8_t *coupling,
                        ising_planes pl, int colour, uint32_t t, bool by_thread) {
  const ising_stream st = ising_stream_of(&b, pl, colour, t);
  std::vector<ising_stream_thread> th(ISING_SEG);
  ising_stream_shared sh;
  for (int k = 0; k < b.samples; ++k)
    for (uint32_t seg0 = 0; seg0 < b.part_sites; seg0 += ISING_SEG) {
      std::memset(&sh, 0xa5, sizeof sh);
      for (int tid = 0; tid < ISING_SEG; ++tid) ising_stream_begin(&b, &st, &sh, &th[tid], seg0, tid, k);
      for (int it = 0; it < ising_stream_iterations(&st); ++it) {
        if (by_thread) {
          for (int tid = ISING_SEG - 1; tid >= 0; --tid) {
            ising_stream_look(&b, &st, &sh, &th[tid], it, spin, coupling, k);
            ising_stream_draw(&r, &b, &st, &sh, &th[tid], it, k);
            ising_stream_update(&r, &b, &st, &sh, &th[tid], it, spin, k);
          }
          continue;
        }
        for (auto &x : th) ising_stream_look(&b, &st, &sh, &x, it, spin, coupling, k);
        for (auto &x : th) ising_stream_draw(&r, &b, &st, &sh, &x, it, k);
        for (auto &x : th) ising_stream_update(&r, &b, &st, &sh, &x, it, spin, k);
      }
    }
}

struct Shape {
  int L[3], ranks;
};

// LX a multiple of 8 throughout (the grouped kernel's condition). m = 8 (cube, and Q = 3
// rows of q), m = 4, m = 2 (a group's four slices coincide in pairs or all), m = 20 (a part
// of 800 sites: the last segment ends early), m = 4 with Q = 3 on two ranks.
const std::vector<Shape> kShapes = {{{8, 8, 8}, 1},   {{8, 8, 8}, 2},    {{16, 8, 24}, 1}, {{16, 8, 24}, 3},
                                    {{8, 16, 4}, 1},  {{8, 16, 4}, 2},   {{24, 6, 4}, 1},  {{40, 20, 20}, 1},
                                    {{40, 20, 20}, 4}, {{16, 12, 12}, 2}, {{32, 32, 32}, 3}};

std::string tag(const Shape &s) {
  return std::to_string(s.L[0]) + "x" + std::to_string(s.L[1]) + "x" + std::to_string(s.L[2]) + " on " +
         std::to_string(s.ranks) + " ranks";
}

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

// Sites against the contract: visited once, and grouped as the contract groups the words.
TEST(IsingSlicedGroups, EverySiteOnceAndTheContractsGroups) {
  for (const Shape &sh : kShapes) {
    const ising_params p = params(sh.L[0], sh.L[1], sh.L[2], 1);
    const ising_rules r = ising_rules_of(&p);
    const int LX = sh.L[0], LY = sh.L[1], m = ising_global_planes(&p);
    const size_t N = (size_t)LX * LY * sh.L[2];
    for (int c = 0; c < 2; ++c) {
      std::vector<int> visits(N, 0);
      for (const ising_block &b : slabs(p, sh.ranks))
        for (ising_planes pl : launches(ising_make_plan(&b, c))) {
          ASSERT_TRUE(ising_grouped(&b, pl)) << tag(sh);
          const ising_stream st = ising_stream_of(&b, pl, c, 0);
          std::set<int> slices;  // global slices of the launch
          for (int j = 0; j < st.count; ++j) slices.insert((st.g0 + 2 * j) % m);
          for (uint32_t seg0 = 0; seg0 < b.part_sites; seg0 += ISING_SEG) {
            ising_stream_shared shm;
            std::memset(&shm, 0, sizeof shm);
            std::vector<ising_stream_thread> th(ISING_SEG);
            for (int tid = 0; tid < ISING_SEG; ++tid) ising_stream_begin(&b, &st, &shm, &th[tid], seg0, tid, 0);
            std::map<std::pair<int, int>, uint32_t> drawn;              // (base, group) -> its word-0 site
            std::map<std::pair<int, int>, std::set<uint32_t>> readers;  // (base, group) -> sites reading it
            for (int it = 0; it < ising_stream_iterations(&st); ++it) {
              for (int tid = 0; tid < ISING_SEG; ++tid) {
                const ising_stream_thread &t = th[tid];
                const uint32_t pos = seg0 + tid;
                ASSERT_EQ(t.site, pos < b.part_sites);
                if (it >= st.count || !t.site) continue;
                // The site of this thread in the launch's slice `it`, by the layout's
                // definition (ising_coords), not by the kernel's arithmetic.
                int x, y, z;
                ising_coords(&b, (st.g0 + 2 * it) % m, 0, (int)(pos / LX), (int)(pos % LX), &x, &y, &z);
                const uint32_t s = ising_site(&r, x, y, z);
                ASSERT_EQ((x + y + z) % 2, c);
                ++visits[s];
                ASSERT_EQ(ising_stream_e(t.tid), (int)((s >> 1) & 3)) << tag(sh) << " s=" << s;
                readers[{it - ising_stream_e(t.tid), ising_stream_gl(t.tid)}].insert(s);
              }
              for (int tid = 0; tid < ISING_SEG_GROUPS; ++tid)
                if (th[tid].group) drawn[{it - ISING_DRAW_LAG, tid}] = ising_stream_group_site(&r, &b, &th[tid]);
              // The draw phase as the kernel runs it (no marks set, so it only moves on).
              for (auto &t : th) ising_stream_draw(&r, &b, &st, &shm, &t, it, 0);
            }
            // Where the launch's bases wrap around the torus (few slices: m < 2 (N + 3)) one
            // group is drawn at two bases and its readers split between them; by counter
            // they are the contract's group.
            std::map<uint32_t, std::set<uint32_t>> got, want;
            for (const auto &kv : readers) {
              ASSERT_TRUE(drawn.count(kv.first)) << tag(sh) << ": a site reads a draw nobody made";
              const uint32_t s0 = drawn[kv.first];
              ASSERT_EQ((s0 >> 1) & 3, 0u);
              for (uint32_t s : kv.second) {
                ASSERT_EQ(s >> 3, s0 >> 3) << tag(sh) << " colour " << c << " base " << kv.first.first;
                got[s0 >> 3].insert(s);
              }
              // The contract's four sites of counter s0 >> 3 of this colour: s0 + 2e; those
              // in the launch's slices must read it.
              for (uint32_t e = 0; e < 4; ++e) {
                const uint32_t s = s0 + 2 * e;
                const int x = (int)(s % LX), y = (int)(s / LX % LY), z = (int)(s / LX / LY);
                ASSERT_EQ((x + y + z) % 2, c);
                ASSERT_EQ(s >> 3, s0 >> 3);
                if (slices.count((x + y + z) % m)) want[s0 >> 3].insert(s);
              }
            }
            ASSERT_EQ(got, want) << tag(sh) << " colour " << c;
          }
        }
      for (size_t s = 0; s < N; ++s) {
        const int x = (int)(s % LX), y = (int)(s / LX % LY), z = (int)(s / LX / LY);
        ASSERT_EQ(visits[s], (x + y + z) % 2 == c ? 1 : 0) << tag(sh) << " site " << s << " colour " << c;
      }
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
    std::vector<std::vector<int8_t>> host(R), grouped(R), by_thread(R);
    std::vector<std::vector<uint8_t>> coupling(R);
    for (int i = 0; i < R; ++i) {
      host[i].resize((size_t)(bs[i].n + 2) * bs[i].plane_stride);
      coupling[i].resize((size_t)bs[i].n * bs[i].plane_stride);
      ising_fill(&p, &bs[i], host[i].data(), coupling[i].data(), 1);
      grouped[i] = host[i];
      by_thread[i] = host[i];
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
                      w[i].data() + ising_part_offset(&bs[i], pl.send_plane[side], pl.part), bs[i].part_stride);
        }
      }
    };
    for (uint32_t t = 0; t < 4; ++t) {
      for (int c = 0; c < 2; ++c) {
        for (int i = 0; i < R; ++i)
          for (ising_planes pl : launches(ising_make_plan(&bs[i], c))) {
            ising_sweep_host(&p, &bs[i], host[i].data(), coupling[i].data(), c, t, pl, 1);
            grouped_half_sweep(r, bs[i], grouped[i].data(), coupling[i].data(), pl, c, t, false);
            grouped_half_sweep(r, bs[i], by_thread[i].data(), coupling[i].data(), pl, c, t, true);
          }
        exchange(host, c);
        exchange(grouped, c);
        exchange(by_thread, c);
      }
      for (int i = 0; i < R; ++i) {
        ASSERT_EQ(host[i], grouped[i]) << tag(sh) << " rank " << i << " sweep " << t;
        ASSERT_EQ(host[i], by_thread[i]) << tag(sh) << " rank " << i << " sweep " << t << " (thread by thread)";
      }
    }
    size_t changed = 0;
    for (int i = 0; i < R; ++i)
      for (size_t q = 0; q < host[i].size(); ++q) changed += host[i][q] != start[i][q];
    EXPECT_GT(changed, 0u) << tag(sh);
  }
}

// The kernel's dE from sign bits and a popcount against 2 s h with ising_field, the host
// sweep's: all 2 x 64 x 64 spins, coupling bytes and neighbourhoods.
TEST(IsingSlicedGroups, DeltaEFromSignBitsIsTheFields) {
  for (int s = -1; s <= 1; s += 2)
    for (int j = 0; j < 64; ++j)
      for (int n = 0; n < 64; ++n) {
        int8_t v[6];
        for (int q = 0; q < 6; ++q) v[q] = (n >> q & 1) ? -1 : 1;
        const int want = 2 * s * ising_field((uint8_t)j, v[0], v[1], v[2], v[3], v[4], v[5]);
        ASSERT_EQ(ising_dE_bits((int8_t)s, (uint8_t)j, v[0], v[1], v[2], v[3], v[4], v[5]), want)
            << "s=" << s << " j=" << j << " n=" << n;
        const uint32_t code = ising_stream_code((int8_t)s, want);
        ASSERT_EQ(code & 4u ? -1 : 1, s);
        ASSERT_EQ(4 * (int)(code & 3u), want > 0 ? want : 0);
      }
}
