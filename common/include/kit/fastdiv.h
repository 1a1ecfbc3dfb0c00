/* kit/fastdiv.h: division by a run-time constant with a multiply-high and a shift, for GPU
 * index arithmetic (a 32-bit division by a variable is a sequence of about 20 instructions on
 * a GPU; a kernel that splits a thread index into coordinates pays it per coordinate).
 * Granlund and Montgomery, "Division by invariant integers using multiplication" (PLDI
 * 1994), the round-up variant: with s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1,
 * n / d = (mulhi(n, m) + n) >> s for every n < 2^31 (the sum then fits 32 bits). Exact for
 * all such n and all d >= 1 (tests/unit/test_common.cpp checks divisors 1..4096 and powers
 * of two up to 2^30 against the / operator). */
#ifndef KIT_FASTDIV_H
#define KIT_FASTDIV_H
#include <stdint.h>

#include "kit/hd.h"

typedef struct kit_fastdiv {
  uint32_t d, m, s;
} kit_fastdiv;

static inline kit_fastdiv kit_fastdiv_make(uint32_t d) {
  kit_fastdiv f;
  f.d = d;
  f.s = 0;
  while ((1ull << f.s) < d) ++f.s;
  f.m = (uint32_t)((((1ull << f.s) - d) << 32) / d + 1);
  return f;
}

/* n / d for n < 2^31. */
static inline KIT_HD uint32_t kit_fastdiv_q(kit_fastdiv f, uint32_t n) {
#ifdef __CUDA_ARCH__
  const uint32_t hi = __umulhi(n, f.m);
#else
  const uint32_t hi = (uint32_t)(((uint64_t)n * f.m) >> 32);
#endif
  return (hi + n) >> f.s;
}

/* n / d and n % d for n < 2^31. */
static inline KIT_HD uint32_t kit_fastdiv_qr(kit_fastdiv f, uint32_t n, uint32_t *rem) {
  const uint32_t q = kit_fastdiv_q(f, n);
  *rem = n - q * f.d;
  return q;
}
#endif
