/* kronecker.h: the Graph500 Kronecker (R-MAT) edge generator and vertex permutation, written
 * once for the host and CUDA code (KIT_HD). Graph500 specification, "Generating the Edge
 * List" and its octave/kronecker_generator.m: for each of SCALE bit levels an edge picks one
 * quadrant of the adjacency matrix with probabilities A = 0.57, B = C = 0.19, D = 0.05
 * (row bit set with probability 1 - (A+B); column bit set with probability C/(C+D) after a
 * set row bit and B/(A+B) after a clear one), then vertex labels are permuted.
 * Counter-based (DESIGN.md Sec. 6): edge e is a pure function of (seed, e), drawn from
 * Philox4x32-10 with counter (e_lo, e_hi, call, BFS_STREAM_EDGE), so the edge list is the
 * same for any rank count and any slicing of the edge range.
 * The permutation is a keyed bijection of [0, 2^SCALE) (four rounds of multiply by an odd
 * key, xor-shift, add a key, all modulo 2^SCALE): computed per vertex, no communication.
 * It is pseudo-random, not a uniform draw among all N! permutations; the Graph500 v3 draft
 * notes accept such index-arithmetic permutations. The specification's final shuffle of the
 * edge tuples is not needed: the edges are independent draws, so their order carries no
 * locality. */
#ifndef BFS_KRONECKER_H
#define BFS_KRONECKER_H
#include <stdint.h>

#include "kit/hd.h"
#include "kit/philox.h"

#define BFS_KRON_A 0.57
#define BFS_KRON_B 0.19
#define BFS_KRON_C 0.19
/* Philox counter word 3 separates the random streams of one seed. */
#define BFS_STREAM_EDGE 0x45444745u /* "EDGE" */
#define BFS_STREAM_PERM 0x5045524Du /* "PERM" */
#define BFS_STREAM_ROOT 0x524F4F54u /* "ROOT" */

typedef struct bfs_kron {
  int scale;       /* N = 2^scale */
  uint32_t key[2]; /* Philox key: the seed */
  uint64_t mul[4]; /* permutation: odd multipliers */
  uint64_t add[4]; /* permutation: addends */
} bfs_kron;

static inline KIT_HD uint64_t bfs_kron_mask(int scale) {
  return scale >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << scale) - 1);
}

/* The generator for a scale and seed (the permutation keys come from the seed too). */
static inline KIT_HD bfs_kron bfs_kron_make(int scale, uint64_t seed) {
  bfs_kron k;
  k.scale = scale;
  k.key[0] = (uint32_t)seed;
  k.key[1] = (uint32_t)(seed >> 32);
  for (uint32_t r = 0; r < 4; ++r) {
    kit_philox4x32 c = {{r, 0u, 0u, BFS_STREAM_PERM}};
    kit_philox_key key = {{k.key[0], k.key[1]}};
    const kit_philox4x32 w = kit_philox4x32_10(c, key);
    k.mul[r] = (((uint64_t)w.v[0] << 32) | w.v[1]) | 1u; /* odd: invertible modulo 2^scale */
    k.add[r] = ((uint64_t)w.v[2] << 32) | w.v[3];
  }
  return k;
}

/* Label of generated vertex x in the permuted graph: a bijection of [0, 2^scale). Each step
 * is invertible modulo 2^scale (odd multiply, x ^= x >> s with s >= 1, add). */
static inline KIT_HD uint64_t bfs_kron_permute(const bfs_kron *k, uint64_t x) {
  const uint64_t mask = bfs_kron_mask(k->scale);
  const int s = k->scale / 2 + 1;
  for (int r = 0; r < 4; ++r) {
    x = (x * k->mul[r]) & mask;
    x ^= x >> s;
    x = (x + k->add[r]) & mask;
  }
  return x;
}

/* Edge e before the permutation: SCALE rounds of the quadrant choice (row bit, column bit),
 * bit ib of each endpoint from round ib, as in kronecker_generator.m. */
static inline KIT_HD void bfs_kron_edge_raw(const bfs_kron *k, uint64_t e, uint64_t *u, uint64_t *v) {
  const double ab = BFS_KRON_A + BFS_KRON_B;
  const double c_norm = BFS_KRON_C / (1.0 - (BFS_KRON_A + BFS_KRON_B));
  const double a_norm = BFS_KRON_A / (BFS_KRON_A + BFS_KRON_B);
  uint64_t i = 0, j = 0;
  kit_philox_key key = {{k->key[0], k->key[1]}};
  kit_philox4x32 w = {{0, 0, 0, 0}};
  for (int ib = 0; ib < k->scale; ++ib) {
    if ((ib & 1) == 0) { /* one Philox call gives the four uniforms of two rounds */
      kit_philox4x32 c = {{(uint32_t)e, (uint32_t)(e >> 32), (uint32_t)(ib >> 1), BFS_STREAM_EDGE}};
      w = kit_philox4x32_10(c, key);
    }
    const int o = (ib & 1) * 2;
    const int ii_bit = kit_u01(w.v[o]) > ab;
    const int jj_bit = kit_u01(w.v[o + 1]) > (ii_bit ? c_norm : a_norm);
    i |= (uint64_t)ii_bit << ib;
    j |= (uint64_t)jj_bit << ib;
  }
  *u = i;
  *v = j;
}

/* Edge e of the benchmark graph: both endpoints permuted. */
static inline KIT_HD void bfs_kron_edge(const bfs_kron *k, uint64_t e, int64_t *u, int64_t *v) {
  uint64_t i, j;
  bfs_kron_edge_raw(k, e, &i, &j);
  *u = (int64_t)bfs_kron_permute(k, i);
  *v = (int64_t)bfs_kron_permute(k, j);
}

/* A 64-bit mix of one edge and its position, summed (mod 2^64) over the list: the edge-list
 * hash, independent of which rank generated which edge (splitmix64 finaliser). */
static inline KIT_HD uint64_t bfs_mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}
static inline KIT_HD uint64_t bfs_edge_hash(uint64_t e, int64_t u, int64_t v) {
  return bfs_mix64(bfs_mix64(e + 0x9E3779B97F4A7C15ull) ^ bfs_mix64((uint64_t)u) ^
                   (bfs_mix64((uint64_t)v) << 1));
}
#endif
