/* sliced_bits.h: the sliced layout multi-spin coded, one bit per spin (`--layout msc`), the
 * GPU variants' third storage. Lulli, Bernaschi and Parisi (CPC 2015, arXiv 1411.0127) Sec. III:
 * "asynchronous" multi-spin coding, every spin with its own random number, here the
 * contract's (lattice.h), so the spins are the other layouts' bit for bit. Host+device
 * functions (kit/hd.h): the test suite runs the kernel's own code on the host
 * (tests/ising/test_ising_bits.cpp). README.md "Multi-spin coding" has the figures.
 *
 * Storage. The slab is the sliced layout's (ising_block: slices, rows (y, q), x) with each
 * byte replaced by a bit: word w of the spins holds the sites of bytes 32 w .. 32 w + 31 of the
 * byte layout (LX % 32 == 0, so a word is 32 consecutive x of one row), bit b the site
 * x = 32 a + b, set where the spin is -1. A plane (slice, every sample) is pw = plane_stride /
 * 32 words; a message is a plane, an eighth of the byte layout's. Couplings are six bit
 * planes, direction d in ising_coupling_byte's order (+x +y +z -x -y -z), d * n * pw words
 * apart, set where J = -1.
 *
 * One word's update (ising_bits_flip): a bond is unsatisfied where s ^ s_n ^ J is set; the
 * neighbours' words come from the slices above and below (the same word for z, the rows of y
 * +- 1 for y, the word shifted by one bit for x); two full adders and one more count the six
 * bonds of 32 sites at once. dE = 12 - 4 u for u unsatisfied bonds: u >= 3 flips, u = 2, 1, 0
 * flips where the site's Philox word is below thr[0], thr[1], thr[2] (ising_rules.thr, the
 * contract's comparison, test IsingSlicedGroups.ThresholdIsTheDouble).
 *
 * The draws. The contract gives the four same-colour sites x0 + 2e (e = 0..3, x0 = 8 k + p)
 * of an 8-block the four words of one draw; in the sliced layout they are bit 8 (k mod 4) + 2e
 * + p of word a = k div 4 in slices w + 2e (sliced_groups.h says why). So a thread owns word a
 * of a run of the launch's slices i0 .. i1 - 1 (two apart, one colour) and walks the groups'
 * bases j = i0 - 3 .. i1 - 1: base j's eight draws (four 8-blocks, p = 0, 1) give member e to
 * slice j + e, whose three "word below threshold" masks collect it; after base j, slice j has
 * all its 32 numbers and is updated. The draws of bases i0 - 3 .. i0 - 1 are the previous run's
 * too ((B + 3) / B times the minimum for runs of B slices): no thread shares a word with
 * another, so no atomics and no barrier. */
#ifndef ISING_SLICED_BITS_H
#define ISING_SLICED_BITS_H
#include <string.h>

#include "kit/fastdiv.h"
#include "lattice.h"

/* Words of one plane (every sample). */
static inline KIT_HD size_t ising_bits_plane_words(const ising_block *b) {
  return b->plane_stride / 32;
}

/* Word w of the spins (local planes 0..n+1) and the six coupling words at it (planes 1..n)
 * from the byte layout. */
static inline KIT_HD uint32_t ising_bits_pack_spins(const int8_t *spin, size_t w) {
  uint32_t v = 0;
  for (int b = 0; b < 32; ++b) v |= (uint32_t)(spin[32 * w + b] < 0) << b;
  return v;
}
static inline KIT_HD void ising_bits_pack_couplings(const ising_block *b, const uint8_t *coupling,
                                                    uint32_t *jbits, size_t w) {
  const size_t pw = ising_bits_plane_words(b), nw = (size_t)b->n * pw;
  for (int d = 0; d < 6; ++d) {
    uint32_t v = 0;
    for (int i = 0; i < 32; ++i) v |= (uint32_t)(coupling[32 * w + i] >> d & 1u) << i;
    jbits[d * nw + w] = v;
  }
}
/* Word w back to 32 spin bytes. */
static inline KIT_HD void ising_bits_unpack_spins(uint32_t v, int8_t *spin32) {
  for (int b = 0; b < 32; ++b) spin32[b] = (int8_t)(v >> b & 1u ? -1 : 1);
}

/* Bits b of [0, 32) with b = c (mod m), c in [0, m). */
static inline KIT_HD uint32_t ising_bits_every(uint32_t c, uint32_t m) {
  uint32_t v = 0;
  for (uint32_t b = c; b < 32; b += m) v |= 1u << b;
  return v;
}

/* The six bonds of 32 sites: which flip. own: the spins; xp..zm: the neighbours' spins in
 * ising_field's order; j[d]: the couplings; c[0..2]: the sites whose Philox word is below
 * thr[0..2]. Full adders: (u0 u1 u2) and (u3 u4 u5) to sum and carry bits, those to the
 * count's bits ones, twos, fours. */
static inline KIT_HD uint32_t ising_bits_flip(uint32_t own, const uint32_t j[6], uint32_t xp, uint32_t yp,
                                              uint32_t zp, uint32_t xm, uint32_t ym, uint32_t zm,
                                              const uint32_t c[3]) {
  const uint32_t u0 = own ^ xp ^ j[0], u1 = own ^ yp ^ j[1], u2 = own ^ zp ^ j[2];
  const uint32_t u3 = own ^ xm ^ j[3], u4 = own ^ ym ^ j[4], u5 = own ^ zm ^ j[5];
  const uint32_t s1 = u0 ^ u1 ^ u2, c1 = (u0 & u1) | (u2 & (u0 ^ u1));
  const uint32_t s2 = u3 ^ u4 ^ u5, c2 = (u3 & u4) | (u5 & (u3 ^ u4));
  const uint32_t ones = s1 ^ s2, t = s1 & s2;
  const uint32_t twos = c1 ^ c2 ^ t, fours = (c1 & c2) | (t & (c1 ^ c2));
  /* u >= 4; u = 3; u = 2 (dE 4); u = 1 (dE 8); u = 0 (dE 12). */
  return fours | (twos & (ones | c[0])) | (~twos & ((ones & c[1]) | (~ones & c[2])));
}

/* m with `bit` set if word < thr: the contract's u < exp(-dE/T) (ising_rules.thr). On the
 * GPU a compare and a predicated OR, two instructions; a select would take a third, and these
 * are a third of the kernel's instructions. */
static inline KIT_HD uint32_t ising_bits_mark(uint32_t m, uint32_t word, uint32_t thr, uint32_t bit) {
#ifdef __CUDA_ARCH__
  asm("{\n\t.reg .pred p;\n\tsetp.lt.u32 p, %1, %2;\n\t@p or.b32 %0, %0, %3;\n\t}"
      : "+r"(m)
      : "r"(word), "r"(thr), "r"(bit));
  return m;
#else
  return word < thr ? m | bit : m;
#endif
}

/* Index arithmetic made once on the host: divisors as multiply-highs (kit/fastdiv.h), the
 * run length B, the launch's first global slice g0 and Q = LZ / m. */
typedef struct ising_bits_plan {
  kit_fastdiv W, rows, LY, m;
  uint32_t g0, Q;
  int run;
} ising_bits_plan;

/* A launch's shape: threads per word (1, 2 or 4) and slices per run. */
typedef struct ising_bits_shape {
  int parts, run;
} ising_bits_shape;

/* The shape of a launch of N slices of `words` words (a plane, every sample), when slots[i]
 * blocks of `tpb` threads fit on the GPU at once with 1, 2, 4 threads a word (i = 0, 1, 2):
 * as many runs as fill the GPU once, with the fewest threads a word that make those runs 8
 * slices or longer (a run repeats 3 bases of draws: 11/8 of the minimum at 8); where none
 * does, 4 threads a word and runs of at least min(N, 4) slices. README.md "Multi-spin
 * coding" has the measurements. */
static inline ising_bits_shape ising_bits_shape_of(long long words, int N, const int slots[3], int tpb) {
  ising_bits_shape sh = {4, 1};
  for (int i = 0; i < 3; ++i) {
    const int P = 1 << i;
    const long long gx = (words * P + tpb - 1) / tpb, fit = slots[i] / gx;
    const long long runs = fit > 0 ? fit : 1, run = (N + runs - 1) / runs;
    sh.parts = P;
    sh.run = (int)run;
    if (run >= 8) return sh;
  }
  if (sh.run < (N < 4 ? N : 4)) sh.run = N < 4 ? N : 4;
  return sh;
}

static inline ising_bits_plan ising_bits_plan_of(const ising_block *b, ising_planes pl, int run) {
  const ising_bits_plan d = {kit_fastdiv_make((uint32_t)b->L[0] / 32),
                             kit_fastdiv_make((uint32_t)b->rows),
                             kit_fastdiv_make((uint32_t)b->L[1]),
                             kit_fastdiv_make((uint32_t)b->m),
                             (uint32_t)ising_global_plane(b, pl.first),
                             (uint32_t)(b->L[2] / b->m),
                             run};
  return d;
}

/* Runs of a launch of N slices. */
static inline KIT_HD int ising_bits_runs(ising_planes pl, int run) {
  return (pl.count + run - 1) / run;
}

/* A word as the neighbours read it: not changed during the half-sweep. */
static inline KIT_HD uint32_t ising_bits_ro(const uint32_t *p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}

/* A thread's part of a word: with P threads per word (1, 2 or 4), part h holds bytes
 * 4h/P .. 4(h+1)/P - 1, the 8-blocks it draws for; it loads and stores only those bytes (the
 * other parts change meanwhile), as the word with the other bits 0. Little-endian, as the
 * device. */
static inline KIT_HD uint32_t ising_bits_load_part(const uint32_t *w, int part, int P) {
#ifdef __CUDA_ARCH__
  if (P == 1) return *w;
  if (P == 2) return (uint32_t)((const uint16_t *)w)[part] << 16 * part;
  return (uint32_t)((const uint8_t *)w)[part] << 8 * part;
#else
  uint32_t v = 0;
  memcpy((char *)&v + 4 / P * part, (const char *)w + 4 / P * part, (size_t)(4 / P));
  return v;
#endif
}
static inline KIT_HD void ising_bits_store_part(uint32_t *w, int part, int P, uint32_t v) {
#ifdef __CUDA_ARCH__
  if (P == 1)
    *w = v;
  else if (P == 2)
    ((uint16_t *)w)[part] = (uint16_t)(v >> 16 * part);
  else
    ((uint8_t *)w)[part] = (uint8_t)(v >> 8 * part);
#else
  memcpy((char *)w + 4 / P * part, (const char *)&v + 4 / P * part, (size_t)(4 / P));
#endif
}

/* What one thread does: part `part` of P (1, 2 or 4; a constant where the kernel calls it, so
 * the loops unroll) of word `unit` (sample, row, a: the word's offset in a plane) of the
 * launch's slices run * B .. run * B + B - 1 (cut at N). The part's 8-blocks are kk0 .. kk0 +
 * K - 1, K = 4 / P: its 2K groups a base. More threads a word serve launches with too few
 * words to fill the GPU (a one-slice boundary launch, small lattices); each repeats the
 * word's update for its own bits. */
static inline KIT_HD void ising_bits_thread(const ising_rules *r, const ising_block *b,
                                            const ising_bits_plan *dv, uint32_t *sbits, const uint32_t *jbits,
                                            ising_planes pl, int colour, uint32_t t, uint32_t unit, int part,
                                            int P, int run) {
  const uint32_t LX = (uint32_t)b->L[0], LY = (uint32_t)b->L[1], m = (uint32_t)b->m, Q = dv->Q;
  const uint32_t W = LX / 32;
  const int K = 4 / P, G = 2 * K;
  const uint32_t kk0 = (uint32_t)(K * part), shift = 8 * kk0;
  uint32_t a, y, row;
  const uint32_t kr = kit_fastdiv_qr(dv->W, unit, &a);
  const uint32_t k = kit_fastdiv_qr(dv->rows, kr, &row);
  const uint32_t q = kit_fastdiv_qr(dv->LY, row, &y);
  /* A plane's words fit an int (a plane part stays below 2^31 bytes: the driver's message
   * rule), a slab's coupling plane offsets need not. */
  const int pw = (int)ising_bits_plane_words(b);
  const size_t nw = (size_t)b->n * (size_t)pw;
  /* Word offsets, from the thread's word, of x +- 1's words and of the rows of y +- 1 and of
   * the next and previous q (the z-neighbours across a multiple of m). */
  const int dxp = a + 1 == W ? 1 - (int)W : 1, dxm = a == 0 ? (int)W - 1 : -1;
  const uint32_t yp = y + 1 == LY ? 0 : y + 1, ym = y == 0 ? LY - 1 : y - 1;
  const uint32_t qp = q + 1 == Q ? 0 : q + 1, qm = q == 0 ? Q - 1 : q - 1;
  const int dyp = (int)(W * (yp + LY * q)) - (int)(W * row), dym = (int)(W * (ym + LY * q)) - (int)(W * row);
  const int dqp = (int)(W * (y + LY * qp)) - (int)(W * row), dqm = (int)(W * (y + LY * qm)) - (int)(W * row);
  const int i0 = run * dv->run, i1 = i0 + dv->run < pl.count ? i0 + dv->run : pl.count;
  const int j0 = i0 - 3;
  /* Group g of a base: 8-block kk = kk0 + g / 2 of the word, parity p = g % 2, word-0 site at
   * x0 = 32 a + 8 kk + p. Its z mod m for base j0 (m divides LX and LY, 2 j0 >= -6: the sum
   * is not negative), kept up to date base by base. */
  uint32_t z0[8];
  for (int g = 0; g < G; ++g) {
    uint32_t z;
    const uint32_t x0 = 32 * a + 8 * (kk0 + (uint32_t)(g >> 1)) + (uint32_t)(g & 1);
    kit_fastdiv_qr(dv->m, dv->g0 + (uint32_t)(2 * j0) + 8 * m + LX + LY - x0 - y, &z);
    z0[g] = z;
  }
  /* For the slice of base j0: the bits whose z mod m is 0 are b = rz (mod m); m - 1: rz + 1. */
  uint32_t rz;
  kit_fastdiv_qr(dv->m, dv->g0 + (uint32_t)(2 * j0) + 8 * m + LX + LY - 32 * a - y, &rz);
  /* cm[s][c]: the part's sites of slice j + s whose word is below thr[c], as far as drawn, at
   * bit 8 g/2 + 2e + p of the part (shifted into place for the update). */
  uint32_t cm[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  const uint32_t base_s =
      32 * a + 8 * kk0 + LX * (y + LY * m * q); /* the part's first site, without its z mod m */
  for (int j = j0; j < i1; ++j) {
    for (int g = 0; g < G; ++g) {
      const uint32_t s0 = base_s + 8 * (uint32_t)(g >> 1) + (uint32_t)(g & 1) + LX * LY * z0[g];
      const kit_philox4x32 d = ising_draw(r, (int)k, s0, colour, t);
      for (int e = 0; e < 4; ++e) {
        const uint32_t bit = 1u << (8 * (g >> 1) + 2 * e + (g & 1));
        for (int c = 0; c < 3; ++c) cm[e][c] = ising_bits_mark(cm[e][c], d.v[e], r->thr[c], bit);
      }
      z0[g] = z0[g] + 2 >= m ? z0[g] + 2 - m : z0[g] + 2;
    }
    if (j >= i0) {
      const int l = pl.first + pl.step * j;
      uint32_t *own = sbits + (size_t)l * pw + unit;
      const uint32_t *up = own + pw, *dn = own - pw, *jb = jbits + (size_t)(l - 1) * pw + unit;
      const uint32_t u0 = ising_bits_ro(up), d0 = ising_bits_ro(dn);
      uint32_t zp = u0, zm = d0;
      if (Q > 1) {
        const uint32_t top = ising_bits_every(rz + 1 == m ? 0 : rz + 1, m), bot = ising_bits_every(rz, m);
        zp = (u0 & ~top) | (ising_bits_ro(up + dqp) & top);
        zm = (d0 & ~bot) | (ising_bits_ro(dn + dqm) & bot);
      }
      const uint32_t xp = u0 >> 1 | ising_bits_ro(up + dxp) << 31,
                     xm = d0 << 1 | ising_bits_ro(dn + dxm) >> 31;
      uint32_t jw[6];
      for (int dd = 0; dd < 6; ++dd) jw[dd] = ising_bits_ro(jb + dd * nw);
      const uint32_t c[3] = {cm[0][0] << shift, cm[0][1] << shift, cm[0][2] << shift};
      const uint32_t s = ising_bits_load_part(own, part, P);
      const uint32_t f =
          ising_bits_flip(s, jw, xp, ising_bits_ro(up + dyp), zp, xm, ising_bits_ro(dn + dym), zm, c);
      ising_bits_store_part(own, part, P, s ^ f); /* the part's bytes only */
    }
    for (int s = 0; s < 3; ++s)
      for (int c = 0; c < 3; ++c) cm[s][c] = cm[s + 1][c];
    cm[3][0] = cm[3][1] = cm[3][2] = 0;
    rz = rz + 2 >= m ? rz + 2 - m : rz + 2;
  }
}
#endif
