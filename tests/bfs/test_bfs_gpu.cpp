// The bfs GPU kernels against the host code (label gpu; skipped without a device):
// Bernaschi's bitmap unpack (popcount scan + Algorithm 1) and atomicOr pack on empty, full,
// single-bit-at-word-edge and random sets, sizes not a multiple of 32, sections of a larger
// bitmap (the fold's use); the two discovery kernels against the host claim (same keys,
// same bits); the owners' update against a host loop (padding bits masked, the new frontier's
// degrees summed); the bottom-up kernel against the smallest frontier label per vertex.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "bitmap.h"
#include "claim.h"
#include "direction.h"
#include "exchange.h"
#include "gpu_block.h"
#include "kernels.h"
#include "kit/runtime.h"

#define SKIP_WITHOUT_GPU() \
  if (kit_gpu_count() == 0) GTEST_SKIP() << "no CUDA device"

namespace {

template <typename T>
T *to_dev(const std::vector<T> &h) {
  T *d = nullptr;
  EXPECT_EQ(cudaMalloc((void **)&d, (h.size() + 1) * sizeof(T)), cudaSuccess);
  if (!h.empty()) {
    EXPECT_EQ(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  return d;
}

template <typename T>
std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> h(n);
  if (n) {
    EXPECT_EQ(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  }
  return h;
}

// Bitmaps of nwords words: empty, full, single bits at word edges, random densities.
std::vector<std::vector<uint32_t>> bitmaps(int64_t nwords, std::mt19937 &rng) {
  std::vector<std::vector<uint32_t>> out;
  out.push_back(std::vector<uint32_t>(nwords, 0u));
  out.push_back(std::vector<uint32_t>(nwords, 0xffffffffu));
  std::vector<uint32_t> edges(nwords, 0u);
  for (int64_t w = 0; w < nwords; w += 3) edges[w] = (w % 2) ? 0x80000000u : 0x1u;
  out.push_back(edges);
  for (double p : {0.01, 0.3, 0.9}) {
    std::vector<uint32_t> b(nwords, 0u);
    std::bernoulli_distribution bit(p);
    for (int64_t v = 0; v < 32 * nwords; ++v)
      if (bit(rng)) b[v >> 5] |= 1u << (v & 31);
    out.push_back(b);
  }
  return out;
}

}  // namespace

TEST(bfsGpu, UnpackMatchesHost) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(7);
  for (int64_t nwords : {1, 2, 31, 32, 33, 100, 1025, 5000}) {
    bfs_work w;
    bfs_work_init(&w, nwords + 2);
    for (const auto &b : bitmaps(nwords, rng)) {
      std::vector<uint32_t> want(32 * nwords + 1);
      const int64_t n = bfs_bitmap_unpack(b.data(), nwords, want.data());
      uint32_t *db = to_dev(b);
      std::vector<uint32_t> fill(32 * nwords + 1, 0xDEADBEEFu);
      uint32_t *dout = to_dev(fill);
      int64_t *dn = nullptr;
      ASSERT_EQ(cudaMalloc((void **)&dn, sizeof(int64_t)), cudaSuccess);
      const uint32_t first = 1000;
      bfs_gpu_unpack(&w, db, nwords, first, dout, dn, 0);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(to_host(dn, 1)[0], n);
      const auto got = to_host(dout, 32 * nwords + 1);
      for (int64_t k = 0; k < n; ++k)
        ASSERT_EQ(got[k], want[k] + first) << nwords << " words, position " << k;
      EXPECT_EQ(got[n], 0xDEADBEEFu) << "unpack wrote past its count";
      cudaFree(db);
      cudaFree(dout);
      cudaFree(dn);
    }
    bfs_work_free(&w);
  }
}

// The fold's use: one scan over a row, with one section skipped, then each other section
// unpacked on its own with its base, giving section-local indices.
TEST(bfsGpu, SectionUnpackWithSkippedSection) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(11);
  const int64_t sec[] = {0, 3, 4, 40, 41, 77};  // section boundaries in words
  const int nsec = 5, skip = 2;
  const int64_t nwords = sec[nsec];
  bfs_work w;
  bfs_work_init(&w, nwords + 2);
  for (const auto &b : bitmaps(nwords, rng)) {
    uint32_t *db = to_dev(b);
    launch_bfs_popc(db, nwords, sec[skip], sec[skip + 1], w.cnt, 0);
    launch_bfs_scan(w.cub, w.cub_bytes, w.cnt, w.offs, nwords + 1, 0);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto offs = to_host(w.offs, nwords + 1);
    for (int s = 0; s < nsec; ++s) {
      if (s == skip) continue;
      const int64_t n0 = sec[s + 1] - sec[s];
      std::vector<uint32_t> want(32 * n0 + 1);
      const int64_t n = bfs_bitmap_unpack(b.data() + sec[s], n0, want.data());
      ASSERT_EQ(offs[sec[s + 1]] - offs[sec[s]], n);
      std::vector<uint32_t> fill(32 * n0 + 1, 0xDEADBEEFu);
      uint32_t *dout = to_dev(fill);
      launch_bfs_unpack(db + sec[s], w.offs + sec[s], n0, offs[sec[s]], 0, dout, 0);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const auto got = to_host(dout, 32 * n0 + 1);
      for (int64_t k = 0; k < n; ++k) ASSERT_EQ(got[k], want[k]) << "section " << s << " position " << k;
      EXPECT_EQ(got[n], 0xDEADBEEFu);
      cudaFree(dout);
    }
    cudaFree(db);
  }
  bfs_work_free(&w);
}

TEST(bfsGpu, PackMatchesHostAndIgnoresOutOfRange) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(3);
  for (int64_t nbits : {1, 31, 32, 33, 1000, 4099}) {
    std::uniform_int_distribution<uint32_t> v(0, (uint32_t)nbits - 1);
    std::vector<uint32_t> list;
    for (int k = 0; k < 3 * nbits; ++k) list.push_back(v(rng));  // with duplicates
    list.push_back(0);
    list.push_back((uint32_t)nbits - 1);
    const int64_t words = bfs_bitmap_words(nbits);
    std::vector<uint32_t> want(words + 1, 0u);
    bfs_bitmap_pack(list.data(), (int64_t)list.size(), want.data());
    list.push_back((uint32_t)nbits);  // out of range: ignored (guard word stays 0)
    uint32_t *dl = to_dev(list);
    uint32_t *db = to_dev(std::vector<uint32_t>(words + 1, 0u));
    launch_bfs_pack(dl, (int64_t)list.size(), nbits, db, 0);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto got = to_host(db, words + 1);
    if (nbits % 32 != 0) {
      EXPECT_EQ(got[words - 1] >> (nbits % 32), 0u);
    }
    for (int64_t w = 0; w <= words; ++w) ASSERT_EQ(got[w], want[w]) << nbits << " bits, word " << w;
    cudaFree(dl);
    cudaFree(db);
  }
}

// Both discovery kernels claim exactly what the host claim does: the same smallest keys and
// the same "new here" bits, including destinations another source already claimed at an
// earlier level (no bit) and repeated edges.
// A random block of ncol sources and nrow destinations: up to maxdeg destinations per source,
// none for every seventh source, and every repeat_every-th (0: none) repeats its last entry.
static void random_block(std::mt19937 &rng, int64_t ncol, int64_t nrow, int maxdeg, int repeat_every,
                         bfs_graph &g, std::vector<int64_t> &xoff, std::vector<uint32_t> &adj) {
  std::memset(&g, 0, sizeof g);
  g.ncol = ncol;
  g.nrow = nrow;
  xoff.assign(ncol + 1, 0);
  adj.clear();
  std::uniform_int_distribution<int> deg(0, maxdeg);
  std::uniform_int_distribution<uint32_t> dst(0, nrow - 1);
  for (int64_t x = 0; x < ncol; ++x) {
    const int d = (x % 7 == 0) ? 0 : deg(rng);
    for (int k = 0; k < d; ++k) adj.push_back(dst(rng));
    if (d > 0 && repeat_every > 0 && x % repeat_every == 0) adj.push_back(adj.back());
    xoff[x + 1] = (int64_t)adj.size();
  }
}

TEST(bfsGpu, DiscoverKernelsMatchHostClaim) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(5);
  const int64_t ncol = 96, nrow = 160;  // R = 2 column sections of 48 padded slots
  std::vector<int64_t> col_off = {0, 48, 96}, col_begin = {1000, 5000};
  bfs_graph g;
  std::vector<int64_t> xoff;
  std::vector<uint32_t> adj;
  random_block(rng, ncol, nrow, 40, 0, g, xoff, adj);
  std::vector<uint32_t> list;
  for (uint32_t x = 0; x < ncol; x += 2) list.push_back(x);
  const int level = 3;
  // Host: some vertices already claimed at level 1 (key smaller than this level's).
  std::vector<int64_t> hbest(nrow, BFS_KEY_NONE);
  for (int64_t v = 0; v < nrow; v += 9) hbest[v] = bfs_key(1, 7);
  std::vector<int64_t> start = hbest;
  std::vector<uint32_t> hbits(nrow / 32, 0u);
  for (uint32_t u : list) {
    const int64_t ii = u >= 48 ? 1 : 0;
    const int64_t key = bfs_key(level, col_begin[ii] + (u - col_off[ii]));
    for (int64_t e = xoff[u]; e < xoff[u + 1]; ++e) bfs_claim_host(hbest.data(), hbits.data(), adj[e], key);
  }
  bfs_dev_csr csr;
  bfs_dev_csr_upload(&csr, &g, xoff.data(), adj.data());
  int64_t *dgeom = to_dev(std::vector<int64_t>{0, 48, 96, 1000, 5000});
  bfs_dev_geom geom = {2, dgeom, dgeom + 3};
  uint32_t *dlist = to_dev(list);
  int64_t *dn = to_dev(std::vector<int64_t>{(int64_t)list.size()});
  bfs_work w;
  bfs_work_init(&w, ncol + 2);
  for (int kind : {BFS_DISCOVER_THREAD, BFS_DISCOVER_EDGES}) {
    unsigned long long *dbest = (unsigned long long *)to_dev(start);
    uint32_t *dbits = to_dev(std::vector<uint32_t>(nrow / 32, 0u));
    // The host's upper bound is larger than the device count: the kernels stop at the latter.
    bfs_gpu_discover(kind, &w, &csr, geom, dlist, (int64_t)list.size() + 5, dn, 0, level, dbits, dbest, 0);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto gb = to_host((int64_t *)dbest, nrow);
    const auto gbits = to_host(dbits, nrow / 32);
    for (int64_t v = 0; v < nrow; ++v) ASSERT_EQ(gb[v], hbest[v]) << "kind " << kind << " vertex " << v;
    for (int64_t k = 0; k < nrow / 32; ++k) ASSERT_EQ(gbits[k], hbits[k]) << "kind " << kind << " word " << k;
    cudaFree(dbest);
    cudaFree(dbits);
  }
  bfs_work_free(&w);
  bfs_dev_csr_free(&csr);
  cudaFree(dgeom);
  cudaFree(dlist);
  cudaFree(dn);
}

TEST(bfsGpu, UpdateMatchesHost) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(9);
  const int64_t own_count = 70, nwords = 3;  // 26 padding bits in the last word
  std::vector<uint32_t> recv(nwords), visited(nwords);
  for (int64_t w = 0; w < nwords; ++w) {
    recv[w] = rng();
    visited[w] = rng();
  }
  std::vector<int32_t> level(own_count, -1);
  for (int64_t k = 0; k < own_count; ++k)
    if (visited[k >> 5] >> (k & 31) & 1) level[k] = 1;
  uint32_t *dr = to_dev(recv), *dv = to_dev(visited),
           *df = to_dev(std::vector<uint32_t>(nwords, 0xffffffffu));
  int32_t *dl = to_dev(level);
  std::vector<int64_t> deg(32 * nwords);
  for (int64_t k = 0; k < 32 * nwords; ++k)
    deg[k] = k < own_count ? 1 + 3 * k : 1000000;  // padding: never summed
  int64_t *dd = to_dev(deg);
  unsigned long long *dc = (unsigned long long *)to_dev(std::vector<int64_t>{5, 7});
  launch_bfs_update(dr, dv, df, dl, nwords, own_count, 4, dd, dc, 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int64_t fresh = 0, mf = 0;
  for (int64_t k = 0; k < own_count; ++k) {
    const bool f = (recv[k >> 5] >> (k & 31) & 1) && !(visited[k >> 5] >> (k & 31) & 1);
    fresh += f;
    mf += f ? deg[k] : 0;
    if (f) level[k] = 4;
  }
  EXPECT_EQ(to_host((int64_t *)dc, 2), (std::vector<int64_t>{5 + fresh, 7 + mf}));
  EXPECT_EQ(to_host(dl, own_count), level);
  const auto front = to_host(df, nwords), vis = to_host(dv, nwords), rec = to_host(dr, nwords);
  for (int64_t k = 0; k < 32 * nwords; ++k) {
    const bool f = k < own_count && (recv[k >> 5] >> (k & 31) & 1) && !(visited[k >> 5] >> (k & 31) & 1);
    ASSERT_EQ((front[k >> 5] >> (k & 31)) & 1, f ? 1u : 0u) << "bit " << k;
    ASSERT_EQ((vis[k >> 5] >> (k & 31)) & 1, ((visited[k >> 5] >> (k & 31)) & 1) | (f ? 1u : 0u))
        << "bit " << k;
  }
  for (auto r : rec) EXPECT_EQ(r, 0u);
  cudaFree(dr);
  cudaFree(dv);
  cudaFree(df);
  cudaFree(dl);
  cudaFree(dc);
  cudaFree(dd);
}

// A bottom-up level (direction.h) on a random block with repeated entries: every vertex of
// the word range that the row has not visited gets the key of the smallest frontier label
// among its sources, found here from the CSR itself (not from the transpose the kernel
// walks), unless its key is already smaller; words outside the range are left alone.
TEST(bfsGpu, BottomUpTakesSmallestFrontierLabel) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(17);
  const int64_t ncol = 96, nrow = 160;  // R = 2 column sections of 48 padded slots
  const int64_t col_off[] = {0, 48, 96}, col_begin[] = {1000, 5000};
  bfs_graph g;
  std::vector<int64_t> xoff;
  std::vector<uint32_t> adj;
  random_block(rng, ncol, nrow, 12, 5, g, xoff, adj);  // repeated edges too
  g.xoff = xoff.data();
  g.adj = adj.data();
  int64_t *toff;
  uint32_t *tadj;
  bfs_block_transpose(&g, 0, nrow, &toff, &tadj);
  std::vector<uint32_t> colbits(ncol / 32), rowvis(nrow / 32);
  for (auto &w : colbits) w = rng() & rng();  // about a quarter of the sources in the frontier
  for (auto &w : rowvis) w = rng();
  const int level = 2;
  std::vector<int64_t> best(nrow, BFS_KEY_NONE);
  for (int64_t v = 0; v < nrow; v += 7) best[v] = bfs_key(0, 3);          // smaller: kept
  for (int64_t v = 3; v < nrow; v += 11) best[v] = bfs_key(level, 9999);  // larger label: replaced
  const int64_t w_lo = 1, w_hi = 4;
  std::vector<int64_t> want = best;
  std::vector<uint32_t> bits(nrow / 32, 0u);
  for (int64_t v = 32 * w_lo; v < 32 * w_hi; ++v) {
    if (rowvis[v >> 5] >> (v & 31) & 1) continue;
    int64_t label = -1;
    for (int64_t u = 0; u < ncol; ++u)
      for (int64_t e = xoff[u]; e < xoff[u + 1]; ++e)
        if (adj[e] == v && (colbits[u >> 5] >> (u & 31) & 1)) {
          const int ii = u >= 48;
          const int64_t l = col_begin[ii] + (u - col_off[ii]);
          if (label < 0 || l < label) label = l;
        }
    if (label < 0 || bfs_key(level, label) >= want[v]) continue;
    if (want[v] == BFS_KEY_NONE) bits[v >> 5] |= 1u << (v & 31);
    want[v] = bfs_key(level, label);
  }
  int64_t *dtoff = to_dev(std::vector<int64_t>(toff, toff + nrow + 1));
  uint32_t *dtadj = to_dev(std::vector<uint32_t>(tadj, tadj + toff[nrow]));
  uint32_t *dcol = to_dev(colbits), *dvis = to_dev(rowvis),
           *dbits = to_dev(std::vector<uint32_t>(nrow / 32, 0u));
  unsigned long long *dbest = (unsigned long long *)to_dev(best);
  int64_t *dgeom = to_dev(std::vector<int64_t>{0, 48, 96, 1000, 5000});
  bfs_dev_geom geom = {2, dgeom, dgeom + 3};
  launch_bfs_bottom_up(dtoff, dtadj, dcol, dvis, w_lo, w_hi, geom, level, dbits, dbest, 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host((int64_t *)dbest, nrow), want);
  EXPECT_EQ(to_host(dbits, nrow / 32), bits);
  free(toff);
  free(tadj);
  for (void *p : {(void *)dtoff, (void *)dtadj, (void *)dcol, (void *)dvis, (void *)dbits, (void *)dbest,
                  (void *)dgeom})
    cudaFree(p);
}

// --prune on the GPU (CUB radix sort + DeviceSelect::Unique) against the host's qsort/unique,
// on one scratch through growing and shrinking sizes (the storage is grown, never shrunk).
TEST(bfsGpu, SortUniqueMatchesHost) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(13);
  bfs_work w;
  bfs_work_init(&w, 4);
  for (int64_t n : {0, 1, 2, 33, 1000, 70000, 500, 200000}) {
    std::vector<uint32_t> list(n + 1);
    std::uniform_int_distribution<uint32_t> v(0, (uint32_t)(n / 4 + 1));
    for (int64_t k = 0; k < n; ++k) list[k] = v(rng);
    std::vector<uint32_t> want(list);
    const int64_t m = bfs_sort_unique(want.data(), n);
    list[n] = 0xDEADBEEFu;  // guard
    uint32_t *d = to_dev(list);
    const int64_t got_m = bfs_gpu_sort_unique(&w, d, n, 0);
    ASSERT_EQ(got_m, m) << n << " items";
    const auto got = to_host(d, (size_t)n + 1);
    for (int64_t k = 0; k < m; ++k) ASSERT_EQ(got[k], want[k]) << n << " items, position " << k;
    EXPECT_EQ(got[n], 0xDEADBEEFu) << "sort-unique wrote past its input";
    cudaFree(d);
  }
  bfs_work_free(&w);
}
