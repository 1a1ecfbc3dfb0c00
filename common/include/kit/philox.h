/* kit/philox.h: Philox4x32-10 counter-based random numbers for C and CUDA.
 * Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC'11.
 * A draw is a pure function of (key, counter), so results do not depend on the variant,
 * the data layout, the rank count or the thread count (DESIGN.md Sec. 6).
 * Unit-tested against the published known-answer vectors (tests/unit/test_philox.cpp). */
#ifndef KIT_PHILOX_H
#define KIT_PHILOX_H
#include <stdint.h>

#include "kit/hd.h"

typedef struct kit_philox4x32 {
  uint32_t v[4];
} kit_philox4x32;
typedef struct kit_philox_key {
  uint32_t v[2];
} kit_philox_key;

static inline KIT_HD uint32_t kit_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi) {
  const uint64_t p = (uint64_t)a * (uint64_t)b;
  *hi = (uint32_t)(p >> 32);
  return (uint32_t)p;
}

/* The generator: ten rounds of the Philox S-box with the Weyl key schedule. */
static inline KIT_HD kit_philox4x32 kit_philox4x32_10(kit_philox4x32 ctr, kit_philox_key key) {
  const uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  const uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int r = 0; r < 10; ++r) {
    uint32_t hi0, hi1;
    const uint32_t lo0 = kit_mulhilo32(M0, ctr.v[0], &hi0);
    const uint32_t lo1 = kit_mulhilo32(M1, ctr.v[2], &hi1);
    kit_philox4x32 next;
    next.v[0] = hi1 ^ ctr.v[1] ^ key.v[0];
    next.v[1] = lo1;
    next.v[2] = hi0 ^ ctr.v[3] ^ key.v[1];
    next.v[3] = lo0;
    ctr = next;
    key.v[0] += W0;
    key.v[1] += W1;
  }
  return ctr;
}

/* A 32-bit word as a double in [0, 1): word * 2^-32, exact in double. */
static inline KIT_HD double kit_u01(uint32_t word) {
  return (double)word * 2.3283064365386963e-10;
}

/* Convenience: one uniform double from (key0, key1) and a four-word counter. */
static inline KIT_HD double kit_philox_uniform(uint32_t k0, uint32_t k1, uint32_t c0, uint32_t c1,
                                               uint32_t c2, uint32_t c3, int word) {
  kit_philox4x32 c = {{c0, c1, c2, c3}};
  kit_philox_key k = {{k0, k1}};
  const kit_philox4x32 r = kit_philox4x32_10(c, k);
  /* A select, not r.v[word & 3]: a run-time index would put r in GPU local memory. */
  const int w = word & 3;
  return kit_u01(w == 0 ? r.v[0] : w == 1 ? r.v[1] : w == 2 ? r.v[2] : r.v[3]);
}
#endif
