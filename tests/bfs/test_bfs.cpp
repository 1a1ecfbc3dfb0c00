// bfs host building blocks (label cpu): bitmap pack/unpack, the partition arithmetic, the
// Kronecker generator (determinism over slicings, its initiator probabilities, the
// permutation), the Graph500 validation rules against corrupted parent arrays, and the
// Graph500 statistics against values worked out by hand, and kernel 1 against a CSR built
// here from the edge list, for 1 to 3 threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "bfs.h"
#include "bitmap.h"
#include "direction.h"
#include "exchange.h"
#include "kronecker.h"
#include "partition.h"
#include "validate.h"

namespace {

// Round trip: pack a set, unpack it, get the sorted set back; the bitmap has exactly the
// set bits and nothing beyond nbits.
void round_trip(const std::vector<uint32_t> &set, int64_t nbits) {
  const int64_t words = bfs_bitmap_words(nbits);
  std::vector<uint32_t> bmap(words + 1, 0u), out(set.size() + 1, 0xDEADBEEFu);
  bmap[words] = 0xA5A5A5A5u;  // guard word: must not be touched
  bfs_bitmap_pack(set.data(), (int64_t)set.size(), bmap.data());
  std::set<uint32_t> uniq(set.begin(), set.end());
  ASSERT_EQ(bfs_bitmap_count(bmap.data(), words), (int64_t)uniq.size());
  const int64_t n = bfs_bitmap_unpack(bmap.data(), words, out.data());
  ASSERT_EQ(n, (int64_t)uniq.size());
  std::vector<uint32_t> want(uniq.begin(), uniq.end());
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(out[k], want[k]) << "position " << k;
  EXPECT_EQ(out[n], 0xDEADBEEFu) << "unpack wrote past its count";
  EXPECT_EQ(bmap[words], 0xA5A5A5A5u);
  for (uint32_t v : want) EXPECT_EQ(bfs_bit_get(bmap.data(), v), 1);
}
}  // namespace

TEST(bfsBitmap, Empty) {
  round_trip({}, 0);
  round_trip({}, 1);
  round_trip({}, 95);
}

TEST(bfsBitmap, Full) {
  for (int64_t nbits : {1, 31, 32, 33, 64, 100}) {
    std::vector<uint32_t> all(nbits);
    for (int64_t k = 0; k < nbits; ++k) all[k] = (uint32_t)k;
    round_trip(all, nbits);
  }
}

TEST(bfsBitmap, SingleBitsAtWordEdges) {
  for (uint32_t v : {0u, 1u, 30u, 31u, 32u, 33u, 63u, 64u, 95u, 96u, 127u})
    round_trip({v}, 130);  // 130: not a multiple of 32
  round_trip({31, 32}, 33);
  round_trip({0, 31, 32, 63, 64}, 65);
}

TEST(bfsBitmap, UnpackWordMatchesAlgorithm1Lanes) {
  // Word 3 with bits 0, 5 and 31: vertices 96, 101, 127 in increasing order.
  uint32_t out[32];
  ASSERT_EQ(bfs_bitmap_unpack_word(0x80000021u, 3, out), 3);
  EXPECT_EQ(out[0], 96u);
  EXPECT_EQ(out[1], 101u);
  EXPECT_EQ(out[2], 127u);
}

TEST(bfsBitmap, RandomSetsWithDuplicates) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t nbits = 1 + rng() % 1000;
    const int64_t count = rng() % (2 * nbits);
    std::vector<uint32_t> set(count);
    for (auto &v : set) v = rng() % nbits;
    round_trip(set, nbits);
  }
}

TEST(bfsPartition, BlocksCoverEveryVertexOnce) {
  for (int64_t n : {1, 5, 12, 31, 1000, 1025})
    for (int64_t parts : {1, 2, 3, 4, 7})
      if (parts <= n) {
        int64_t next = 0;
        for (int64_t b = 0; b < parts; ++b) {
          ASSERT_EQ(bfs_block_begin(n, parts, b), next);
          const int64_t c = bfs_block_count(n, parts, b);
          ASSERT_GE(c, n / parts);
          ASSERT_LE(c, n / parts + 1);
          for (int64_t v = next; v < next + c; ++v)
            ASSERT_EQ(bfs_block_of(n, parts, v), b) << n << " " << parts << " " << v;
          next += c;
        }
        ASSERT_EQ(next, n);
      }
}

// --partition cyclic: the relabelling puts input vertex v in block v mod P (the slides'
// "Ui mod #P == k"), as the (v / P)-th vertex of that block; it is a bijection of [0, n)
// whether or not P divides n, bfs_input_label is its inverse, and P = 1 is the identity.
TEST(bfsPartition, CyclicRelabelIsTheCyclicLayout) {
  for (int64_t n : {1, 5, 11, 12, 31, 40, 1000, 1025})
    for (int64_t parts : {1, 2, 3, 4, 7})
      if (parts <= n) {
        std::vector<int> hit(n, 0);
        for (int64_t v = 0; v < n; ++v) {
          const int64_t w = bfs_cyclic_label(n, parts, v);
          ASSERT_GE(w, 0);
          ASSERT_LT(w, n);
          hit[w]++;
          ASSERT_EQ(bfs_block_of(n, parts, w), v % parts) << n << " " << parts << " " << v;
          ASSERT_EQ(w - bfs_block_begin(n, parts, v % parts), v / parts);
          ASSERT_EQ(bfs_input_label(n, parts, w), v) << n << " " << parts << " " << v;
          if (parts == 1) {
            ASSERT_EQ(w, v);
          }
          if (n % parts == 0) {
            ASSERT_EQ(w, (v % parts) * (n / parts) + v / parts);
          }
        }
        for (int64_t w = 0; w < n; ++w) {
          ASSERT_EQ(hit[w], 1) << "label " << w << " of " << n << ", " << parts << " parts";
          ASSERT_EQ(bfs_cyclic_label(n, parts, bfs_input_label(n, parts, w)), w);
        }
      }
  // By hand: 11 vertices over 4 blocks of 3, 3, 3, 2; block 1 holds 1, 5, 9 as 3, 4, 5.
  EXPECT_EQ(bfs_cyclic_label(11, 4, 1), 3);
  EXPECT_EQ(bfs_cyclic_label(11, 4, 5), 4);
  EXPECT_EQ(bfs_cyclic_label(11, 4, 9), 5);
  EXPECT_EQ(bfs_cyclic_label(11, 4, 3), 9);
  EXPECT_EQ(bfs_cyclic_label(11, 4, 7), 10);
  EXPECT_EQ(bfs_input_label(11, 4, 10), 7);
}

// The edge list is relabelled endpoint by endpoint, in place.
TEST(bfsPartition, CyclicRelabelOfAnEdgeList) {
  bfs_edges e;
  bfs_generate_slice(6, 4, 3, 0, 1, &e);
  const std::vector<int64_t> before(e.uv, e.uv + 2 * e.m);
  bfs_edges_relabel_cyclic(&e, 3);
  for (int64_t k = 0; k < 2 * e.m; ++k) ASSERT_EQ(e.uv[k], bfs_cyclic_label(e.n, 3, before[k])) << k;
  bfs_edges_free(&e);
}

TEST(bfsGrid, DefaultAndParser) {
  int g[2];
  // The default is one grid column, P x 1 (README.md, "Default grid").
  for (int p : {1, 2, 4, 6, 7}) {
    bfs_default_grid(p, g);
    EXPECT_EQ(g[0], p) << p;
    EXPECT_EQ(g[1], 1) << p;
  }
  char err[200];
  EXPECT_EQ(bfs_parse_grid("2x3", g, err, sizeof err), 0);
  EXPECT_EQ(g[0] * 10 + g[1], 23);
  for (const char *bad : {"2", "x3", "2x", "2x3x", "0x4", "-1x4", "2x-2", "axb", "2 x3"})
    EXPECT_NE(bfs_parse_grid(bad, g, err, sizeof err), 0) << bad;
}

// The edge list is a function of (scale, edgefactor, seed) only: the slices of 1, 2, 3 and
// 4 ranks concatenate to the same list (compared edge by edge, and by the hash).
TEST(bfsGenerator, SameListForAnySlicing) {
  const int scale = 9, ef = 8;
  bfs_edges whole;
  bfs_generate(scale, ef, 42, 0, (int64_t)ef << scale, &whole);
  const uint64_t h = bfs_edges_hash(&whole);
  for (int P : {1, 2, 3, 4}) {
    uint64_t hs = 0;
    int64_t at = 0;
    for (int r = 0; r < P; ++r) {
      bfs_edges s;
      bfs_generate_slice(scale, ef, 42, r, P, &s);
      ASSERT_EQ(s.first, at);
      for (int64_t k = 0; k < 2 * s.m; ++k)
        ASSERT_EQ(s.uv[k], whole.uv[2 * at + k]) << "P=" << P << " rank " << r;
      at += s.m;
      hs += bfs_edges_hash(&s);
      bfs_edges_free(&s);
    }
    EXPECT_EQ(at, whole.m);
    EXPECT_EQ(hs, h) << "P=" << P;
  }
  // Another seed gives another graph.
  bfs_edges other;
  bfs_generate(scale, ef, 43, 0, (int64_t)ef << scale, &other);
  EXPECT_NE(bfs_edges_hash(&other), h);
  bfs_edges_free(&other);
  bfs_edges_free(&whole);
}

// Before the permutation, each bit level of an edge picks the quadrant with the initiator's
// probabilities: row bit set with 1-(A+B) = 0.24; column bit set with B/(A+B) = 0.25 after a
// clear row bit and D/(C+D) = 0.05/0.24 after a set one. Checked within 5 standard errors.
TEST(bfsGenerator, InitiatorProbabilities) {
  const int scale = 12;
  const bfs_kron k = bfs_kron_make(scale, 2024);
  const int64_t m = 20000;
  double row1 = 0, col1_row0 = 0, row0 = 0, col1_row1 = 0;
  for (int64_t e = 0; e < m; ++e) {
    uint64_t u, v;
    bfs_kron_edge_raw(&k, (uint64_t)e, &u, &v);
    for (int b = 0; b < scale; ++b) {
      const int ib = (u >> b) & 1, jb = (v >> b) & 1;
      row1 += ib;
      if (ib) {
        col1_row1 += jb;
      } else {
        row0 += 1;
        col1_row0 += jb;
      }
    }
  }
  const double trials = (double)m * scale;
  auto within = [](double hits, double n, double p) {
    return std::fabs(hits / n - p) < 5.0 * std::sqrt(p * (1 - p) / n);
  };
  EXPECT_TRUE(within(row1, trials, 0.24)) << row1 / trials;
  EXPECT_TRUE(within(col1_row0, row0, 0.25)) << col1_row0 / row0;
  EXPECT_TRUE(within(col1_row1, row1, 0.05 / 0.24)) << col1_row1 / row1;
}

TEST(bfsGenerator, PermutationIsABijection) {
  for (int scale : {1, 2, 5, 10, 13}) {
    const bfs_kron k = bfs_kron_make(scale, 99);
    const uint64_t n = (uint64_t)1 << scale;
    std::vector<char> seen(n, 0);
    uint64_t fixed = 0;
    for (uint64_t x = 0; x < n; ++x) {
      const uint64_t y = bfs_kron_permute(&k, x);
      ASSERT_LT(y, n);
      ASSERT_FALSE(seen[y]) << "scale " << scale << ": " << y << " hit twice";
      seen[y] = 1;
      fixed += y == x;
    }
    if (scale >= 10) {
      EXPECT_LT(fixed, n / 50) << "hardly a permutation";
    }
  }
}

namespace {
// The small graph of tests/bfs/data/small.el: component {0..7}, component {8, 9, 10}.
const int64_t kEdges[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {2, 3}, {3, 4}, {4, 5},
                             {5, 5}, {5, 6}, {6, 7}, {0, 7}, {8, 9}, {9, 10}};
const int64_t kM = sizeof kEdges / sizeof *kEdges, kN = 11;
// Levels from root 0, worked out by hand, and one valid parent array.
const int32_t kLevel[kN] = {0, 1, 1, 2, 3, 3, 2, 1, -1, -1, -1};
const int64_t kParent[kN] = {0, 0, 0, 1, 3, 6, 7, 0, -1, -1, -1};

struct Fixture {
  std::vector<int64_t> uv;
  bfs_csr csr;
  Fixture() : uv(2 * kM) {
    for (int64_t k = 0; k < kM; ++k) {
      uv[2 * k] = kEdges[k][0];
      uv[2 * k + 1] = kEdges[k][1];
    }
    bfs_csr_build(uv.data(), kM, kN, &csr);
  }
  ~Fixture() { bfs_csr_free(&csr); }
  bfs_validation check(const std::vector<int64_t> &parent, const std::vector<int32_t> &level) {
    bfs_validation v;
    bfs_validate(&csr, uv.data(), kM, 0, parent.data(), level.data(), &v);
    return v;
  }
};
std::vector<int64_t> parents() {
  return std::vector<int64_t>(kParent, kParent + kN);
}
std::vector<int32_t> levels() {
  return std::vector<int32_t>(kLevel, kLevel + kN);
}
}  // namespace

TEST(bfsOracle, LevelsByHand) {
  Fixture f;
  std::vector<int32_t> level(kN);
  bfs_reference(&f.csr, 0, level.data());
  for (int64_t v = 0; v < kN; ++v) EXPECT_EQ(level[v], kLevel[v]) << v;
  bfs_reference(&f.csr, 9, level.data());
  EXPECT_EQ(level[8], 1);
  EXPECT_EQ(level[10], 1);
  EXPECT_EQ(level[0], -1);
}

// The oracle on the rank's threads against a serial queue BFS written here, from the raw
// edge list (its own adjacency, no CSR): a Kronecker graph with loops, repeats and isolated
// vertices, several roots, 1, 2 and 4 threads.
TEST(bfsOracle, ThreadedLevelsAreTheSerialBfs) {
  bfs_edges e;
  bfs_generate_slice(12, 16, 3, 0, 1, &e);
  std::vector<std::vector<int64_t>> nbr(e.n);
  for (int64_t k = 0; k < e.m; ++k) {
    nbr[e.uv[2 * k]].push_back(e.uv[2 * k + 1]);
    nbr[e.uv[2 * k + 1]].push_back(e.uv[2 * k]);
  }
  bfs_csr csr;
  bfs_csr_build(e.uv, e.m, e.n, &csr);
  const int saved = omp_get_max_threads();
  for (int64_t root : {0, 17, 1234, 4095}) {
    std::vector<int32_t> want(e.n, -1);
    std::vector<int64_t> queue{root};
    want[root] = 0;
    for (size_t h = 0; h < queue.size(); ++h)
      for (int64_t v : nbr[queue[h]])
        if (want[v] < 0) {
          want[v] = want[queue[h]] + 1;
          queue.push_back(v);
        }
    for (int threads : {1, 2, 4}) {
      omp_set_num_threads(threads);
      std::vector<int32_t> got(e.n, 7);
      bfs_reference(&csr, root, got.data());
      ASSERT_EQ(got, want) << "root " << root << ", " << threads << " threads";
    }
  }
  omp_set_num_threads(saved);
  bfs_csr_free(&csr);
  bfs_edges_free(&e);
}

TEST(bfsValidate, AcceptsAValidTree) {
  Fixture f;
  const bfs_validation v = f.check(parents(), levels());
  EXPECT_TRUE(bfs_validation_ok(&v));
  // m of TEPS: the 11 input edges of component {0..7}, the repeat and the self-loop included.
  EXPECT_EQ(v.nedge, 11);
  // Another valid choice: 3's parent 2 instead of 1 (both at level 1).
  auto p = parents();
  p[3] = 2;
  const bfs_validation w = f.check(p, levels());
  EXPECT_TRUE(bfs_validation_ok(&w));
}

TEST(bfsValidate, Rule1CatchesACycle) {
  Fixture f;
  auto p = parents();
  p[3] = 4;  // 3 -> 4 -> 3
  const bfs_validation v = f.check(p, levels());
  EXPECT_GT(v.tree, 0);
  EXPECT_FALSE(bfs_validation_ok(&v));
}

TEST(bfsValidate, Rule1CatchesAParentOutOfRange) {
  Fixture f;
  auto p = parents();
  p[6] = 11;
  EXPECT_GT(f.check(p, levels()).tree, 0);
}

TEST(bfsValidate, Rule2CatchesWrongLevels) {
  Fixture f;
  auto l = levels();
  l[4] = 4;  // the tree says 3
  const bfs_validation v = f.check(parents(), l);
  EXPECT_GT(v.tree_levels, 0);
  EXPECT_FALSE(bfs_validation_ok(&v));
}

TEST(bfsValidate, Rule2CatchesASameLevelParent) {
  Fixture f;
  auto p = parents();
  p[2] = 1;  // 1 and 2 are both at level 1
  const bfs_validation v = f.check(p, levels());
  EXPECT_GT(v.tree_levels, 0);
}

TEST(bfsValidate, Rule3CatchesADeepTree) {
  Fixture f;
  // A valid tree of a DFS, not a BFS: 0-1-3-2 then 2's level 3 though it neighbours the root.
  std::vector<int64_t> p = {0, 0, 3, 1, 3, 4, 5, 6, -1, -1, -1};
  std::vector<int32_t> l = {0, 1, 3, 2, 3, 4, 5, 6, -1, -1, -1};
  const bfs_validation v = f.check(p, l);
  EXPECT_EQ(v.tree, 0);
  EXPECT_EQ(v.tree_levels, 0);
  EXPECT_GT(v.edge_levels, 0);
  EXPECT_FALSE(bfs_validation_ok(&v));
}

TEST(bfsValidate, Rule4CatchesAMissedVertex) {
  Fixture f;
  auto p = parents();
  auto l = levels();
  p[4] = -1;  // 4 and 5 left out, though they are in the root's component
  l[4] = -1;
  p[5] = -1;
  l[5] = -1;
  const bfs_validation v = f.check(p, l);
  EXPECT_GT(v.spans, 0);
  EXPECT_FALSE(bfs_validation_ok(&v));
}

TEST(bfsValidate, Rule5CatchesAParentThatIsNoEdge) {
  Fixture f;
  // 4 hung under 1 (no edge 1-4) at level 2, 5 under 4 at level 3: a tree whose levels are
  // consistent and every input edge stays within one level, so only rule 5 can object.
  auto p = parents();
  auto l = levels();
  p[4] = 1;
  l[4] = 2;
  p[5] = 4;
  l[5] = 3;
  const bfs_validation v = f.check(p, l);
  EXPECT_EQ(v.tree, 0);
  EXPECT_GT(v.parent_edges, 0);
  EXPECT_FALSE(bfs_validation_ok(&v));
}

TEST(bfsValidate, RootMustBeItsOwnParent) {
  Fixture f;
  auto p = parents();
  p[0] = 1;
  EXPECT_GT(f.check(p, levels()).root, 0);
}

// Times {1, 2, 3, 4} s and 10 edges each: TEPS {10, 5, 3.33, 2.5}; seconds per edge
// {0.1, 0.2, 0.3, 0.4} with mean 0.25 (harmonic mean 4 TEPS), sample stddev sqrt(0.05/3);
// harmonic stddev = that / (0.25^2 sqrt(3)). Quartiles: means of the two middle order
// statistics, as the reference code takes them.
TEST(bfsGraph500, StatisticsByHand) {
  const double t[4] = {3, 1, 4, 2}, m[4] = {10, 10, 10, 10};
  bfs_g500_stats s;
  bfs_g500_statistics(t, 4, &s);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.firstquartile, 1.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.thirdquartile, 3.5);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.stddev, std::sqrt(5.0 / 3.0), 1e-15);
  bfs_g500_teps(m, t, 4, &s);
  EXPECT_NEAR(s.min, 2.5, 1e-12);
  EXPECT_NEAR(s.firstquartile, 1 / 0.35, 1e-12);
  EXPECT_NEAR(s.median, 4, 1e-12);
  EXPECT_NEAR(s.thirdquartile, 1 / 0.15, 1e-12);
  EXPECT_NEAR(s.max, 10, 1e-12);
  EXPECT_NEAR(s.mean, 4, 1e-12);
  EXPECT_NEAR(s.stddev, std::sqrt(0.05 / 3) / (0.0625 * std::sqrt(3.0)), 1e-12);
  // One search: no spread.
  bfs_g500_teps(m, t, 1, &s);
  EXPECT_DOUBLE_EQ(s.mean, 10.0 / 3.0);
  EXPECT_EQ(s.stddev, 0.0);
}

TEST(bfsGraphIO, ReadsBothFormatsAlike) {
  const std::string dir = BFS_TEST_DATA;
  bfs_edges a, b;
  char err[400];
  ASSERT_EQ(bfs_read_graph((dir + "/small.mtx").c_str(), &a, err, sizeof err), 0) << err;
  ASSERT_EQ(bfs_read_graph((dir + "/small.el").c_str(), &b, err, sizeof err), 0) << err;
  EXPECT_EQ(a.n, 12);  // the .mtx says 12 x 12
  EXPECT_EQ(b.n, 11);  // the edge list's largest label is 10
  ASSERT_EQ(a.m, kM);
  ASSERT_EQ(b.m, kM);
  std::multiset<std::pair<int64_t, int64_t>> ea, eb, ek;
  for (int64_t k = 0; k < kM; ++k) {
    ea.insert(std::minmax(a.uv[2 * k], a.uv[2 * k + 1]));
    eb.insert(std::minmax(b.uv[2 * k], b.uv[2 * k + 1]));
    ek.insert(std::minmax(kEdges[k][0], kEdges[k][1]));
  }
  EXPECT_EQ(ea, ek);
  EXPECT_EQ(eb, ek);
  bfs_edges_free(&a);
  bfs_edges_free(&b);
  ASSERT_NE(bfs_read_graph((dir + "/bad_token.el").c_str(), &a, err, sizeof err), 0);
  EXPECT_NE(std::strstr(err, "line 3"), nullptr) << err;
}

// bfs_csr_select (the GPU variants' splits of a block): inside and outside a destination
// range partition every source's entries, keep their order, and shift the kept ones.
// A random block of ncol sources and nrow destinations for the CSR helpers: each source gets
// rng() % maxdeg random destinations and, every repeat_every-th one (0: none), a repeat of its
// last; g (zeroed otherwise) points at xoff and adj.
static void random_block(std::mt19937 &rng, int64_t ncol, int64_t nrow, int maxdeg, int repeat_every,
                         bfs_graph &g, std::vector<int64_t> &xoff, std::vector<uint32_t> &adj) {
  std::memset(&g, 0, sizeof g);
  g.ncol = ncol;
  g.nrow = nrow;
  xoff.assign(ncol + 1, 0);
  adj.clear();
  for (int64_t x = 0; x < ncol; ++x) {
    const int d = (int)(rng() % maxdeg);
    for (int k = 0; k < d; ++k) adj.push_back(rng() % nrow);
    if (d > 0 && repeat_every > 0 && x % repeat_every == 0) adj.push_back(adj.back());
    xoff[x + 1] = (int64_t)adj.size();
  }
  g.xoff = xoff.data();
  g.adj = adj.data();
}

TEST(bfsGraph, CsrSelectPartitionsTheBlock) {
  std::mt19937 rng(13);
  bfs_graph g;
  std::vector<int64_t> xoff;
  std::vector<uint32_t> adj;
  random_block(rng, 64, 128, 12, 0, g, xoff, adj);
  const int64_t lo = 32, hi = 96;
  int64_t *in_off, *out_off;
  uint32_t *in_adj, *out_adj;
  bfs_csr_select(&g, lo, hi, 1, lo, &in_off, &in_adj);
  bfs_csr_select(&g, lo, hi, 0, 0, &out_off, &out_adj);
  ASSERT_EQ(in_off[g.ncol] + out_off[g.ncol], xoff[g.ncol]);
  for (int64_t x = 0; x < g.ncol; ++x) {
    std::vector<uint32_t> want_in, want_out, got_in(in_adj + in_off[x], in_adj + in_off[x + 1]),
        got_out(out_adj + out_off[x], out_adj + out_off[x + 1]);
    for (int64_t e = xoff[x]; e < xoff[x + 1]; ++e) {
      if (adj[e] >= lo && adj[e] < hi)
        want_in.push_back(adj[e] - (uint32_t)lo);
      else
        want_out.push_back(adj[e]);
    }
    EXPECT_EQ(got_in, want_in) << "source " << x;
    EXPECT_EQ(got_out, want_out) << "source " << x;
  }
  free(in_off);
  free(in_adj);
  free(out_off);
  free(out_adj);
}

// Kernel 1 on one rank (a 1 x 1 grid) against a construction written here from the edge
// list alone: entry u -> v joins u's list in the order of the input, v -> u right after it,
// and a self-loop is counted at its vertex and not stored. bfs_build runs on OpenMP threads
// (each thread places the sources it owns, reading every entry in order); the CSR must be
// this one for 1, 2 and 3 threads.
TEST(bfsGraph, BuildIsTheSerialCsrForAnyThreadCount) {
  bfs_edges e;
  bfs_generate_slice(10, 8, 7, 0, 1, &e);  // 1024 vertices, 8192 edges, loops and repeats
  std::vector<std::vector<uint32_t>> want(e.n);
  std::vector<int32_t> loops(e.n, 0);
  for (int64_t k = 0; k < e.m; ++k) {
    const int64_t u = e.uv[2 * k], v = e.uv[2 * k + 1];
    if (u == v) {
      loops[u]++;
      continue;
    }
    want[u].push_back((uint32_t)v);
    want[v].push_back((uint32_t)u);
  }
  kit_env env;
  std::memset(&env, 0, sizeof env);
  env.nranks = 1;
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    bfs_graph g;
    bfs_build(&e, 1, 1, &env, &g);
    ASSERT_EQ(g.ncol, bfs_pad32(e.n)) << threads << " threads";
    for (int64_t x = 0; x < e.n; ++x) {
      const std::vector<uint32_t> got(g.adj + g.xoff[x], g.adj + g.xoff[x + 1]);
      ASSERT_EQ(got, want[x]) << "source " << x << ", " << threads << " threads";
      ASSERT_EQ(g.loops[x], loops[x]) << "self-loops of " << x << ", " << threads << " threads";
    }
    for (int64_t x = e.n; x < g.ncol; ++x) EXPECT_EQ(g.xoff[x + 1], g.xoff[x]) << "padding source " << x;
    bfs_graph_free(&g);
  }
  omp_set_num_threads(saved);
  bfs_edges_free(&e);
}

// The block's transpose (bottom-up levels, direction.h) against one written here: for each
// destination v, the sources u of every stored entry u -> v, repeats kept, in increasing u,
// for 1, 2 and 3 threads (each thread owns a destination range); and bfs_first_in_frontier
// takes the first of them in a frontier, the smallest.
TEST(bfsGraph, TransposeListsSourcesInOrderForAnyThreadCount) {
  std::mt19937 rng(21);
  bfs_graph g;
  std::vector<int64_t> xoff;
  std::vector<uint32_t> adj;
  random_block(rng, 96, 64, 9, 4, g, xoff, adj);  // repeated entries too
  std::vector<std::vector<uint32_t>> want(g.nrow);
  for (int64_t u = 0; u < g.ncol; ++u)
    for (int64_t e = xoff[u]; e < xoff[u + 1]; ++e) want[adj[e]].push_back((uint32_t)u);
  std::vector<uint32_t> colbits(g.ncol / 32);
  for (auto &w : colbits) w = rng() & rng();
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    int64_t *toff;
    uint32_t *tadj;
    bfs_block_transpose(&g, 0, g.nrow, &toff, &tadj);
    ASSERT_EQ(toff[g.nrow], xoff[g.ncol]);
    for (int64_t v = 0; v < g.nrow; ++v) {
      ASSERT_EQ(std::vector<uint32_t>(tadj + toff[v], tadj + toff[v + 1]), want[v]) << "vertex " << v;
      int64_t first = -1;
      for (uint32_t u : want[v])
        if (bfs_bit_get(colbits.data(), u) && (first < 0 || u < first)) first = u;
      ASSERT_EQ(bfs_first_in_frontier(toff, tadj, colbits.data(), v), first) << "vertex " << v;
    }
    free(toff);
    free(tadj);
    // A range of destinations (multi-thread's slice of the row): its lists, indexed from 0.
    bfs_block_transpose(&g, 16, 48, &toff, &tadj);
    for (int64_t v = 16; v < 48; ++v)
      ASSERT_EQ(std::vector<uint32_t>(tadj + toff[v - 16], tadj + toff[v - 15]), want[v]) << "vertex " << v;
    free(toff);
    free(tadj);
  }
  omp_set_num_threads(saved);
}

// --prune's host sort-unique (Rossetti's recipe 3): the sorted set, each value once, and a
// list that is already sorted and unique (what this kit's bitmap unpack produces) unchanged.
TEST(bfsPrune, SortUniqueIsTheSortedSet) {
  std::mt19937 rng(11);
  for (int n : {0, 1, 2, 7, 100, 5000}) {
    std::vector<uint32_t> list(n + 1);
    std::uniform_int_distribution<uint32_t> v(0, (uint32_t)(n / 3 + 1));  // many repeats
    for (int k = 0; k < n; ++k) list[k] = v(rng);
    const std::set<uint32_t> want(list.begin(), list.begin() + n);
    const int64_t m = bfs_sort_unique(list.data(), n);
    ASSERT_EQ(m, (int64_t)want.size()) << n;
    EXPECT_TRUE(std::equal(want.begin(), want.end(), list.begin())) << n;
    const int64_t again = bfs_sort_unique(list.data(), m);
    EXPECT_EQ(again, m) << "a sorted, unique list must come back whole";
  }
}

// Beamer's switch rule (direction.h) on recorded frontier sizes. The counters come from a
// real search: `bfs --variant cpu --scale 14 --roots 1 --warmup 0 --direction auto` (default
// seed, root 9807) with BFS_DIRECTION_DEBUG=1, which prints, after each level, the next
// frontier's n_f, m_f (edges out of it) and m_u (edges out of the unvisited vertices), summed
// over ranks. n = 2^14. Level 0 (the root alone) runs top-down.
TEST(bfsDirection, BeamerRuleOnRecordedScale14Search) {
  struct row {
    int64_t n_f, m_f, m_u;
    int want;  // the published rule's decision for the next level
  };
  const int64_t n = 16384;
  const row rec[] = {
      {2, 3633, 519971, BFS_TOP_DOWN},        // 3633 <= 519971/14 = 37141: stay top-down
      {1814, 356656, 163315, BFS_BOTTOM_UP},  // 356656 > 163315/14: go bottom-up
      {10059, 162430, 885, BFS_BOTTOM_UP},    // n_f >= n/24 = 682.7: stay bottom-up
      {686, 878, 7, BFS_BOTTOM_UP},           // 686 >= 682.7: still bottom-up
      {1, 1, 6, BFS_TOP_DOWN},                // 1 < 682.7: back to top-down
      {0, 0, 6, BFS_TOP_DOWN},                // 0 <= 6/14: top-down (the search ends)
  };
  int dir = BFS_TOP_DOWN;
  for (size_t k = 0; k < sizeof rec / sizeof *rec; ++k) {
    dir = bfs_direction_next(dir, rec[k].m_f, rec[k].m_u, rec[k].n_f, n, BFS_ALPHA, BFS_BETA);
    EXPECT_EQ(dir, rec[k].want) << "after level " << k + 1;
  }
}

// The rule's edges: strict inequalities, each test used only from its own direction.
TEST(bfsDirection, ThresholdsAndHysteresis) {
  // top-down: bottom-up only when m_f > m_u / alpha (equal stays top-down).
  EXPECT_EQ(bfs_direction_next(BFS_TOP_DOWN, 100, 1400, 5, 1000, 14.0, 24.0), BFS_TOP_DOWN);
  EXPECT_EQ(bfs_direction_next(BFS_TOP_DOWN, 101, 1400, 5, 1000, 14.0, 24.0), BFS_BOTTOM_UP);
  // A small frontier with many edges still goes bottom-up: the n_f test is bottom-up's only.
  EXPECT_EQ(bfs_direction_next(BFS_TOP_DOWN, 1000000, 10, 1, 1000000, 14.0, 24.0), BFS_BOTTOM_UP);
  // bottom-up: back only when n_f < n / beta (24 * 100 = 2400: 100 stays, 99 goes back).
  EXPECT_EQ(bfs_direction_next(BFS_BOTTOM_UP, 0, 1000000, 100, 2400, 14.0, 24.0), BFS_BOTTOM_UP);
  EXPECT_EQ(bfs_direction_next(BFS_BOTTOM_UP, 1000000, 0, 99, 2400, 14.0, 24.0), BFS_TOP_DOWN);
  // Other constants are honoured.
  EXPECT_EQ(bfs_direction_next(BFS_TOP_DOWN, 11, 100, 1, 1000, 10.0, 24.0), BFS_BOTTOM_UP);
  EXPECT_EQ(bfs_direction_next(BFS_BOTTOM_UP, 0, 0, 99, 1000, 14.0, 10.0), BFS_TOP_DOWN);
}

TEST(bfsDirection, Words) {
  EXPECT_EQ(bfs_direction_mode("top-down"), BFS_TOP_DOWN);
  EXPECT_EQ(bfs_direction_mode("bottom-up"), BFS_BOTTOM_UP);
  EXPECT_EQ(bfs_direction_mode("auto"), BFS_DIRECTION_AUTO);
  EXPECT_EQ(bfs_direction_mode("sideways"), -1);
  EXPECT_STREQ(bfs_direction_name(BFS_BOTTOM_UP), "bottom-up");
}

// --frontier-table's count (frontier.c) on a block written here: two row sections, [0, 64)
// and [64, 154) (padded to 160), this rank being member 0 and then member 1; random entries
// with repeats, random levels with unreached and padding columns. Against a direct count:
// level L's array is every entry of every column vertex at level L, n its distinct targets,
// remote the targets outside this rank's own section.
TEST(bfsNlfs, CountsTheSlidesArrays) {
  std::mt19937 rng(5);
  bfs_graph g;
  std::memset(&g, 0, sizeof g);
  g.ncol = 96;
  g.nrow = 160;
  g.C = 2;
  int64_t row_off[3] = {0, 64, 160}, row_count[2] = {64, 90};
  g.row_off = row_off;
  g.row_count = row_count;
  std::vector<int64_t> xoff(g.ncol + 1, 0);
  std::vector<uint32_t> adj;
  std::vector<int32_t> level(g.ncol);
  const int nlevels = 5;
  for (int64_t x = 0; x < g.ncol; ++x) {
    const int d = (int)(rng() % 9);
    for (int k = 0; k < d; ++k) adj.push_back(k > 0 && rng() % 4 == 0 ? adj.back() : rng() % 154);
    xoff[x + 1] = (int64_t)adj.size();
    level[x] = x >= 90 ? -1 : (int32_t)(rng() % (nlevels + 1)) - 1;  // -1: unreached
  }
  g.xoff = xoff.data();
  g.adj = adj.data();
  for (int j : {0, 1}) {
    g.j = j;
    const uint32_t lo = (uint32_t)row_off[j], hi = (uint32_t)(row_off[j] + row_count[j]);
    std::vector<int32_t> stamp(g.nrow);
    std::vector<int64_t> got(BFS_NLFS_NCOUNT * nlevels, -7);
    bfs_nlfs_local(&g, level.data(), nlevels, stamp.data(), got.data());
    int64_t total = 0, total_remote = 0;
    for (int L = 0; L < nlevels; ++L) {
      int64_t m = 0, mr = 0;
      std::set<uint32_t> n, nr;
      for (int64_t x = 0; x < g.ncol; ++x) {
        if (level[x] != L) continue;
        for (int64_t e = xoff[x]; e < xoff[x + 1]; ++e) {
          const bool remote = adj[e] < lo || adj[e] >= hi;
          m++;
          mr += remote;
          n.insert(adj[e]);
          if (remote) nr.insert(adj[e]);
        }
      }
      const int64_t *c = &got[BFS_NLFS_NCOUNT * L];
      EXPECT_EQ(c[BFS_NLFS_M], m) << "member " << j << ", level " << L;
      EXPECT_EQ(c[BFS_NLFS_N], (int64_t)n.size()) << "member " << j << ", level " << L;
      EXPECT_EQ(c[BFS_NLFS_M_REMOTE], mr) << "member " << j << ", level " << L;
      EXPECT_EQ(c[BFS_NLFS_N_REMOTE], (int64_t)nr.size()) << "member " << j << ", level " << L;
      EXPECT_GT(m, (int64_t)n.size()) << "level " << L << ": the test needs repeats";
      total += m;
      total_remote += mr;
    }
    EXPECT_GT(total_remote, 0);
    EXPECT_LT(total_remote, total);
  }
}
