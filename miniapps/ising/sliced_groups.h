/* sliced_groups.h: the sliced layout's GPU half-sweep with one Philox draw per group of four
 * sites, as host+device functions (kit/hd.h) so that the test suite runs the very code of the
 * kernel on the host (tests/ising/test_ising_sliced.cpp). Bernaschi et al. Sec. 3.1; the
 * sliced layout of Lulli, Bernaschi and Parisi (CPC 2015); README.md "Performance on one GPU".
 *
 * Why: the random-number contract (lattice.h) gives the four same-colour sites x0, x0+2,
 * x0+4, x0+6 of an 8-block of a row (x0 = 8a + b, b = 0 or 1) the four words of ONE draw,
 * counter (s >> 3, t, c, 3). In the sliced layout they lie at the same in-slice row, at
 * x0 + 2e (e = 0..3), of four slices w, w+2, w+4, w+6. So a thread takes an "octet": the two
 * groups (b = 0, 1) of one 8-block whose word-0 sites lie in slice w (the groups' "base").
 * Member e of both groups is the pair of bytes 2e, 2e+1 of the 8-block in slice w + 2e; the
 * thread gathers the eight sites, in x order, into two 32-bit words from four 4-byte loads
 * (one per slice) and two byte permutations, the same for their coupling bytes and for each
 * of the six neighbour directions, and then
 *   - counts each site's unsatisfied bonds four sites at a time, byte by byte
 *     (ising_unsat2: sign bits and XORs, no multiplies);
 *   - makes each group's one draw if one of its members has dE > 0 (the contract draws only
 *     then; a pure function, so skipping it changes nothing), two draws per eight sites, no
 *     shared memory and no barrier;
 *   - decides each site with an integer threshold on its word (ising_rules.thr: the same
 *     decision as the contract's u < exp(-dE/T), test IsingSlicedGroups.ThresholdIsTheDouble)
 *     and stores each member pair that changed with one 16-bit store.
 * Sites of one colour never neighbour each other, so the threads may run in any order: a
 * thread writes only its own pairs and reads the other colour's spins.
 *
 * A launch updates the slices j = 0 .. N - 1 (local planes first + step j, step 2 or N = 1).
 * A thread with base j updates its members j + e that lie in the launch; bases run from -3
 * (groups whose word-0 site is below the launch) to N - 1, so every site of the launch is
 * updated exactly once (also where the launch wraps around a torus of few slices: each
 * member is in the launch for exactly one base), and a group cut by the launch's ends (the
 * two-stream boundary slice, a rank's first slices) is drawn by each launch that needs it,
 * (N + 3) / N times the minimum draws. The plans, exchanges and message counts do not
 * change: every launch updates exactly the sites the per-site kernel would. */
#ifndef ISING_SLICED_GROUPS_H
#define ISING_SLICED_GROUPS_H
#include <string.h>

#include "kit/fastdiv.h"
#include "lattice.h"

/* The grouped kernel serves a launch when the 8-blocks are whole rows' pieces (LX % 8 == 0)
 * and the launch's slices are one colour two apart (the sliced plans' boundary and bulk). */
static inline KIT_HD int ising_grouped(const ising_block *b, ising_planes pl) {
  return b->layout == ISING_SLICED && b->L[0] % 8 == 0 && (pl.count == 1 || pl.step == 2);
}

/* Bases of a launch of N slices: -3 .. N - 1. */
static inline KIT_HD int ising_octet_bases(ising_planes pl) {
  return pl.count + 3;
}

/* What the kernel's index arithmetic needs, made once on the host and passed by value: the
 * divisors as multiply-highs (kit/fastdiv.h; a division loop would cost more per thread than
 * a site's update) of the 8-blocks of a row, LY, m and the bases of the launch, the global
 * slice g0 of the launch's first slice, and Q = LZ / m. */
typedef struct ising_octet_plan {
  kit_fastdiv blocks, LY, m, bases;
  uint32_t g0, Q;
} ising_octet_plan;

static inline ising_octet_plan ising_octet_plan_of(const ising_block *b, ising_planes pl) {
  const ising_octet_plan d = {
      kit_fastdiv_make((uint32_t)b->L[0] / 8),   kit_fastdiv_make((uint32_t)b->L[1]),
      kit_fastdiv_make((uint32_t)b->m),          kit_fastdiv_make((uint32_t)ising_octet_bases(pl)),
      (uint32_t)ising_global_plane(b, pl.first), (uint32_t)(b->L[2] / b->m)};
  return d;
}

/* Word `off` of p (the blocks are 8-byte aligned: LX, part_sites and plane_stride are
 * multiples of 8, so the offsets of planes and rows are whole words). Neighbour spins and
 * couplings do not change during a half-sweep: `readonly` lets the read-only cache serve
 * them; the thread's own spins share words with other threads' sites, which change. */
static inline KIT_HD uint32_t ising_ldw(const uint32_t *p, int off, int readonly) {
#ifdef __CUDA_ARCH__
  return readonly ? __ldg(p + off) : p[off];
#else
  (void)readonly;
  uint32_t v;
  memcpy(&v, (const char *)p + 4 * (ptrdiff_t)off, sizeof v); /* little-endian, as the device */
  return v;
#endif
}

/* CUDA's __byte_perm: byte n of the result is byte (s >> 4n) & 7 of the pair (y:x). */
static inline KIT_HD uint32_t ising_prmt(uint32_t x, uint32_t y, uint32_t s) {
#ifdef __CUDA_ARCH__
  return __byte_perm(x, y, s);
#else
  const uint64_t v = (uint64_t)y << 32 | x;
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n) r |= (uint32_t)(v >> 8 * (s >> 4 * n & 7) & 0xffu) << 8 * n;
  return r;
#endif
}

/* Bytes 0, 1 of x and 2, 3 of y. */
static inline KIT_HD uint32_t ising_pairs(uint32_t x, uint32_t y) {
  return ising_prmt(x, y, 0x7610);
}

/* An octet is two 32-bit words, its sites 0..3 (members 0, 1) and 4..7 (members 2, 3) in x
 * order. Site i = 2e + g takes byte i of member e's 8-block p[e] (+ off words): bytes 0, 1 of
 * p[0], 2, 3 of p[1], 4, 5 of p[2], 6, 7 of p[3], one byte permutation per word. */
static inline KIT_HD void ising_gather(const uint32_t *const p[4], int off, int readonly, uint32_t w[2]) {
  w[0] = ising_pairs(ising_ldw(p[0], off, readonly), ising_ldw(p[1], off, readonly));
  w[1] = ising_pairs(ising_ldw(p[2], off + 1, readonly), ising_ldw(p[3], off + 1, readonly));
}

/* For each byte (site) of a word, twice the number of its unsatisfied bonds, from its spin
 * byte, its coupling byte j and its six neighbours' spin bytes (ising_field's order). A
 * bond's term J s s_n is -1 where an odd number of J, s, s_n is negative; bit 1 of a spin
 * byte (0x01 or 0xff) is its sign and bit d of j is the d-th bond's J = -1, so one XOR per
 * direction, with j shifted to put bit d at bit 1, and a mask leave 2 in each byte with an
 * unsatisfied bond. Six such words add without carries (at most 12 a byte). With d bonds
 * unsatisfied s h = 6 - 2 d and dE = 2 s h = 12 - 4 d: dE <= 0 where the result is >= 6.
 * Equal to 2 s h by ising_field for every input (test IsingSlicedGroups.UnsatIsTheField). */
static inline KIT_HD uint32_t ising_unsat2(uint32_t own, uint32_t j, uint32_t xp, uint32_t yp, uint32_t zp,
                                           uint32_t xm, uint32_t ym, uint32_t zm) {
  const uint32_t M = 0x02020202u;
  return ((own ^ xp ^ j << 1) & M) + ((own ^ yp ^ j) & M) + ((own ^ zp ^ j >> 1) & M) +
         ((own ^ xm ^ j >> 2) & M) + ((own ^ ym ^ j >> 3) & M) + ((own ^ zm ^ j >> 4) & M);
}

/* The Metropolis decision by integer threshold of a site with u2 = 2 x unsatisfied bonds
 * (0, 2 or 4 where dE = 12 - 2 u2 > 0): u = word 2^-32 < exp(-dE/T) exactly when word < thr
 * (ising_rules.thr; test IsingSlicedGroups.ThresholdIsTheDouble). Bits of u2 pick the
 * threshold, by select: no run-time index into the rules. */
static inline KIT_HD int ising_accept_word(const ising_rules *r, uint32_t u2, uint32_t word) {
  return word < (u2 & 4 ? r->thr[0] : u2 & 2 ? r->thr[1] : r->thr[2]);
}

/* What a thread knows of its 8-block whatever the base: its row, block and coordinates, and
 * the offsets (in words) of the plane stride, the rows of y +- 1 and of the z-neighbours
 * across a multiple of m. */
typedef struct ising_octet_pos {
  uint32_t row, a, y, q;
  int pw, dyp, dym, dqp, dqm;
} ising_octet_pos;

static inline KIT_HD ising_octet_pos ising_octet_pos_of(const ising_block *b, const ising_octet_plan *dv,
                                                        uint32_t unit) {
  const uint32_t LX = (uint32_t)b->L[0], LY = (uint32_t)b->L[1], Q = dv->Q;
  ising_octet_pos o;
  o.row = kit_fastdiv_qr(dv->blocks, unit, &o.a);
  o.q = kit_fastdiv_qr(dv->LY, o.row, &o.y);
  const uint32_t yp = o.y + 1 == LY ? 0 : o.y + 1, ym = o.y == 0 ? LY - 1 : o.y - 1;
  const uint32_t qp = o.q + 1 == Q ? 0 : o.q + 1, qm = o.q == 0 ? Q - 1 : o.q - 1;
  const int r0 = (int)(LX * o.row);
  o.pw = (int)(b->plane_stride / 4); /* a plane stays below 2^31 bytes (the driver's rule) */
  o.dyp = ((int)(LX * (yp + LY * o.q)) - r0) / 4;
  o.dym = ((int)(LX * (ym + LY * o.q)) - r0) / 4;
  o.dqp = ((int)(LX * (o.y + LY * qp)) - r0) / 4;
  o.dqm = ((int)(LX * (o.y + LY * qm)) - r0) / 4;
  return o;
}

/* The words an octet reads, named by plane and half: L(X) and H(X) are bytes 0..3 and 4..7
 * of the thread's 8-block in plane X (a pointer to it as words). P_e is member e's plane,
 * O_k the plane below member k and above member k - 1 (k = 0..4: with step 2 the same
 * plane). Site i = 2 e + g takes byte i of its member's block, so each site word is two
 * half-words of two planes (ising_pairs), and the x-neighbours are those bytes shifted by
 * one. */
typedef struct ising_octet_raw {
  uint32_t oL0, oL1, oH2, oH3;           /* spins: L(P0), L(P1), H(P2), H(P3) */
  uint32_t cL0, cL1, cH2, cH3;           /* their coupling bytes */
  uint32_t rL0, rL1, rL2, rH2, rH3, rH4; /* L(O0), L(O1), L(O2), H(O2), H(O3), H(O4) */
  uint32_t nL1, nL2, nH3, nH4;           /* L(O1), L(O2), H(O3), H(O4) in the row of y + 1 */
  uint32_t sL0, sL1, sH2, sH3;           /* L(O0), L(O1), H(O2), H(O3) in the row of y - 1 */
  uint32_t next,
      prev; /* +x of site 7: first byte of the next block in O4; -x of site 0: last of the previous in O0 */
} ising_octet_raw;

static inline KIT_HD void ising_octet_load(ising_octet_raw *w, const uint32_t *const P[4],
                                           const uint32_t *const C[4], const uint32_t *const O[5],
                                           const ising_octet_pos *ps, int nb, int pb) {
  w->oL0 = ising_ldw(P[0], 0, 0), w->oL1 = ising_ldw(P[1], 0, 0), w->oH2 = ising_ldw(P[2], 1, 0),
  w->oH3 = ising_ldw(P[3], 1, 0);
  w->cL0 = ising_ldw(C[0], 0, 1), w->cL1 = ising_ldw(C[1], 0, 1), w->cH2 = ising_ldw(C[2], 1, 1),
  w->cH3 = ising_ldw(C[3], 1, 1);
  w->rL0 = ising_ldw(O[0], 0, 1), w->rL1 = ising_ldw(O[1], 0, 1), w->rL2 = ising_ldw(O[2], 0, 1),
  w->rH2 = ising_ldw(O[2], 1, 1), w->rH3 = ising_ldw(O[3], 1, 1), w->rH4 = ising_ldw(O[4], 1, 1);
  w->nL1 = ising_ldw(O[1], ps->dyp, 1), w->nL2 = ising_ldw(O[2], ps->dyp, 1),
  w->nH3 = ising_ldw(O[3], ps->dyp + 1, 1), w->nH4 = ising_ldw(O[4], ps->dyp + 1, 1);
  w->sL0 = ising_ldw(O[0], ps->dym, 1), w->sL1 = ising_ldw(O[1], ps->dym, 1),
  w->sH2 = ising_ldw(O[2], ps->dym + 1, 1), w->sH3 = ising_ldw(O[3], ps->dym + 1, 1);
  w->next = ((const uint8_t *)O[4])[nb], w->prev = ((const uint8_t *)O[0])[pb];
}

/* An octet's update from its words: the site words, the z-wrap corrections, the bond count,
 * the draws, the decisions and the stores. P[e] is member e's block, inl the bytes of the
 * members inside the launch, z00 the z mod m of group 0, k the sample. */
static inline KIT_HD void ising_octet_finish(const ising_rules *r, const ising_block *b,
                                             const ising_octet_pos *ps, const uint32_t *const P[4],
                                             const uint32_t inl[2], uint32_t z00, uint32_t k, int colour,
                                             uint32_t t, const ising_octet_raw *w) {
  const uint32_t LX = (uint32_t)b->L[0], LY = (uint32_t)b->L[1], m = (uint32_t)b->m;
  const uint32_t o[2] = {ising_pairs(w->oL0, w->oL1), ising_pairs(w->oH2, w->oH3)};
  const uint32_t jo[2] = {ising_pairs(w->cL0, w->cL1), ising_pairs(w->cH2, w->cH3)};
  uint32_t zp[2] = {ising_pairs(w->rL1, w->rL2), ising_pairs(w->rH3, w->rH4)};
  uint32_t zm[2] = {ising_pairs(w->rL0, w->rL1), ising_pairs(w->rH2, w->rH3)};
  const uint32_t yn[2] = {ising_pairs(w->nL1, w->nL2), ising_pairs(w->nH3, w->nH4)};
  const uint32_t ys[2] = {ising_pairs(w->sL0, w->sL1), ising_pairs(w->sH2, w->sH3)};
  /* +x: site i takes byte i + 1 of the block above; -x: byte i - 1 of the block below. */
  const uint32_t xp[2] = {ising_prmt(ising_prmt(w->rL1, w->rL2, 0x0721), w->rH2, 0x4210),
                          ising_prmt(ising_prmt(w->rH3, w->rH4, 0x0721), w->next, 0x4210)};
  const uint32_t xm[2] = {ising_prmt(ising_prmt(w->rL0, w->rL1, 0x6500), w->prev, 0x3214),
                          ising_prmt(ising_prmt(w->rL2, w->rH2, 0x0043), w->rH3, 0x6510)};
  /* Group g's sites (bytes g, g + 2 of each word) have z mod m = z0[g], fixed by its base
   * slice: where it is m - 1 the +z neighbour is in the row of the next q, where 0 the -z one
   * in that of the previous. One gather per direction serves both groups. */
  const uint32_t z0[2] = {z00, z00 == 0 ? m - 1 : z00 - 1};
  const uint32_t up_wrap = (z0[0] == m - 1 ? 0x00ff00ffu : 0u) | (z0[1] == m - 1 ? 0xff00ff00u : 0u);
  const uint32_t dn_wrap = (z0[0] == 0 ? 0x00ff00ffu : 0u) | (z0[1] == 0 ? 0xff00ff00u : 0u);
  if (up_wrap) {
    uint32_t v[2];
    ising_gather(P, ps->pw + ps->dqp, 1, v);
    for (int h = 0; h < 2; ++h) zp[h] = (zp[h] & ~up_wrap) | (v[h] & up_wrap);
  }
  if (dn_wrap) {
    uint32_t v[2];
    ising_gather(P, -ps->pw + ps->dqm, 1, v);
    for (int h = 0; h < 2; ++h) zm[h] = (zm[h] & ~dn_wrap) | (v[h] & dn_wrap);
  }
  uint32_t u2[2], need[2], flip[2];
  for (int h = 0; h < 2; ++h) {
    u2[h] = ising_unsat2(o[h], jo[h], xp[h], yn[h], zp[h], xm[h], ys[h], zm[h]);
    /* Bit 7 of a byte: u2 >= 6 (dE <= 0, a flip without a number). No carries: u2 <= 12. */
    flip[h] = (u2[h] + 0x7a7a7a7au) & 0x80808080u;
    need[h] = ~flip[h] & 0x80808080u & inl[h];
  }
  for (int g = 0; g < 2; ++g) {
    if (!((need[0] | need[1]) & 0x00800080u << 8 * g)) continue;
    /* ising_site of the group's word-0 site */
    const uint32_t s0 = (8 * ps->a + (uint32_t)g) + LX * (ps->y + LY * (z0[g] + m * ps->q));
    const kit_philox4x32 d = ising_draw(r, (int)k, s0, colour, t);
    for (int e = 0; e < 4; ++e) {
      const int h = e >> 1, sh = 8 * ((2 * e + g) & 3);
      flip[h] |= (ising_accept_word(r, u2[h] >> sh, d.v[e]) ? 0x80u << sh : 0u) & need[h];
    }
  }
  for (int h = 0; h < 2; ++h) {
    const uint32_t f = flip[h] & inl[h];
    const uint32_t x = (f - (f >> 6)) | f, nw = o[h] ^ x; /* 0x80 -> 0xfe: +1 <-> -1 is XOR 0xfe */
    for (int half = 0; half < 2; ++half) {
      if (!(x >> 16 * half & 0xffffu)) continue;
      const uint16_t pair = (uint16_t)(nw >> 16 * half);
      int8_t *dst = (int8_t *)P[2 * h + half] + 2 * (2 * h + half);
#ifdef __CUDA_ARCH__
      *(uint16_t *)dst = pair;
#else
      memcpy(dst, &pair, sizeof pair);
#endif
    }
  }
}

/* Byte offsets of the +x neighbour of site 7 from the block above member 3 (the next block,
 * or the row's first where the row wraps around), and of the -x neighbour of site 0 from the
 * block below member 0. */
static inline KIT_HD int ising_octet_next(const ising_block *b, const ising_octet_pos *ps) {
  return (int)ps->a + 1 == b->L[0] / 8 ? 8 - b->L[0] : 8;
}
static inline KIT_HD int ising_octet_prev(const ising_block *b, const ising_octet_pos *ps) {
  return ps->a == 0 ? b->L[0] - 1 : -1;
}

/* z mod m of group 0 of base j: m divides LX and LY, and 2 j >= -6, so the sum is not
 * negative. */
static inline KIT_HD uint32_t ising_octet_z0(const ising_block *b, const ising_octet_plan *dv,
                                             const ising_octet_pos *ps, int j) {
  const uint32_t m = (uint32_t)b->m;
  uint32_t z;
  kit_fastdiv_qr(
      dv->m, dv->g0 + (uint32_t)(2 * j) + 6 * m + (uint32_t)b->L[0] + (uint32_t)b->L[1] - 8 * ps->a - ps->y,
      &z);
  return z;
}

/* One octet, any base: the two groups of the thread's 8-block of sample k whose word-0 sites
 * lie in launch slice j, colour c, sweep t. Members outside the launch are read at a slice
 * inside it (so every address is in the slab) and never written; O_k is the plane below
 * member k where k is inside the launch, else the one above member k - 1, so that every
 * member inside reads its own neighbours. */
static inline KIT_HD void ising_octet_update(const ising_rules *r, const ising_block *b,
                                             const ising_octet_plan *dv, const ising_octet_pos *ps,
                                             int8_t *spin, const uint8_t *coupling, ising_planes pl,
                                             int colour, uint32_t t, uint32_t k, int j) {
  const int pw = ps->pw;
  const int8_t *const base =
      spin + (size_t)k * b->part_sites + (size_t)ps->row * (uint32_t)b->L[0] + 8 * ps->a;
  const uint32_t *P[4], *C[4], *O[5];
  uint32_t inl[2] = {0, 0}; /* 0xffff in the bytes of the members inside the launch */
  int in[4];
  for (int e = 0; e < 4; ++e) {
    const int i = j + e;
    in[e] = i >= 0 && i < pl.count;
    const int8_t *blk = base + (size_t)(pl.first + pl.step * (in[e]   ? i
                                                              : i < 0 ? 0
                                                                      : pl.count - 1)) *
                                   b->plane_stride;
    P[e] = (const uint32_t *)blk;
    C[e] = (const uint32_t *)(coupling + (blk - spin) - b->plane_stride); /* couplings start at plane 1 */
    if (in[e]) inl[e >> 1] |= 0xffffu << 16 * (e & 1);
  }
  O[0] = P[0] - pw, O[4] = P[3] + pw;
  for (int e = 1; e < 4; ++e) O[e] = in[e] ? P[e] - pw : P[e - 1] + pw;
  ising_octet_raw w;
  ising_octet_load(&w, P, C, O, ps, ising_octet_next(b, ps), ising_octet_prev(b, ps));
  ising_octet_finish(r, b, ps, P, inl, ising_octet_z0(b, dv, ps, j), k, colour, t, &w);
}

/* R consecutive bases j0 .. j0 + R - 1 of sample k, every member of each inside the launch
 * (step 2): member e of base j + 1 is member e + 1 of base j, so each base reuses most of the
 * words the one before it loaded, and loads 10 words and 2 bytes instead of 26 and 2. The
 * words carried over hold only bytes this thread updates itself later (the pair of its next
 * base's member 0 or 2), or bytes of the other colour, which no thread changes now. */
static inline KIT_HD void ising_octet_run(const ising_rules *r, const ising_block *b,
                                          const ising_octet_plan *dv, const ising_octet_pos *ps, int8_t *spin,
                                          const uint8_t *coupling, ising_planes pl, int colour, uint32_t t,
                                          uint32_t k, int j0, int R) {
  const int pw = ps->pw, dyp = ps->dyp, dym = ps->dym, m = b->m;
  const int nb = ising_octet_next(b, ps), pb = ising_octet_prev(b, ps);
  const int8_t *const blk0 = spin + (size_t)k * b->part_sites + (size_t)ps->row * (uint32_t)b->L[0] +
                             8 * ps->a + (size_t)(pl.first + 2 * j0) * b->plane_stride;
  const uint32_t *p = (const uint32_t *)blk0;                                         /* P_0 */
  const uint32_t *c = (const uint32_t *)(coupling + (blk0 - spin) - b->plane_stride); /* its couplings */
  ising_octet_raw w;
  {
    const uint32_t *const P[4] = {p, p + 2 * pw, p + 4 * pw, p + 6 * pw};
    const uint32_t *const C[4] = {c, c + 2 * pw, c + 4 * pw, c + 6 * pw};
    const uint32_t *const O[5] = {p - pw, p + pw, p + 3 * pw, p + 5 * pw, p + 7 * pw};
    ising_octet_load(&w, P, C, O, ps, nb, pb);
  }
  uint32_t z = ising_octet_z0(b, dv, ps, j0);
  const uint32_t inl[2] = {0xffffffffu, 0xffffffffu};
  for (int i = 0; i < R; ++i) {
    if (i > 0) { /* slide to the next base: P_e <- P_{e+1}, O_k <- O_{k+1} */
      p += 2 * pw;
      c += 2 * pw;
      w.oL0 = w.oL1, w.oL1 = ising_ldw(p, 2 * pw, 0), w.oH2 = w.oH3, w.oH3 = ising_ldw(p, 6 * pw + 1, 0);
      w.cL0 = w.cL1, w.cL1 = ising_ldw(c, 2 * pw, 1), w.cH2 = w.cH3, w.cH3 = ising_ldw(c, 6 * pw + 1, 1);
      w.rL0 = w.rL1, w.rL1 = w.rL2, w.rL2 = ising_ldw(p, 3 * pw, 1);
      w.rH2 = w.rH3, w.rH3 = w.rH4, w.rH4 = ising_ldw(p, 7 * pw + 1, 1);
      w.nL1 = w.nL2, w.nL2 = ising_ldw(p, 3 * pw + dyp, 1), w.nH3 = w.nH4,
      w.nH4 = ising_ldw(p, 7 * pw + dyp + 1, 1);
      w.sL0 = w.sL1, w.sL1 = ising_ldw(p, pw + dym, 1), w.sH2 = w.sH3,
      w.sH3 = ising_ldw(p, 5 * pw + dym + 1, 1);
      w.next = ((const uint8_t *)(p + 7 * pw))[nb], w.prev = ((const uint8_t *)(p - pw))[pb];
      z = z + 2 >= (uint32_t)m ? z + 2 - (uint32_t)m : z + 2;
    }
    const uint32_t *const P[4] = {p, p + 2 * pw, p + 4 * pw, p + 6 * pw};
    ising_octet_finish(r, b, ps, P, inl, z, k, colour, t, &w);
  }
}

enum { ISING_OCTET_BASES = 8 }; /* bases per thread (measured before the run: 4 2.82 ps, 8 2.78, 16 2.83) */

/* What one thread of the kernel does: the bases pk0 .. pk0 + ISING_OCTET_BASES - 1 (pk = k
 * (N + 3) + j + 3, cut at the launch's end) of the 8-block `unit`; consecutive bases of one
 * sample with every member inside the launch share their loads (ising_octet_run), the others
 * go one by one. */
static inline KIT_HD void ising_octet_thread(const ising_rules *r, const ising_block *b,
                                             const ising_octet_plan *dv, int8_t *spin,
                                             const uint8_t *coupling, ising_planes pl, int colour, uint32_t t,
                                             uint32_t pk0, uint32_t unit) {
  const ising_octet_pos ps = ising_octet_pos_of(b, dv, unit);
  const uint32_t pks = (uint32_t)ising_octet_bases(pl) * (uint32_t)b->samples;
  const uint32_t last = (pk0 + ISING_OCTET_BASES < pks ? pk0 + ISING_OCTET_BASES : pks) - 1;
  uint32_t jj0, jj1;
  const uint32_t k0 = kit_fastdiv_qr(dv->bases, pk0, &jj0), k1 = kit_fastdiv_qr(dv->bases, last, &jj1);
  if (k0 == k1 && pl.step == 2 && jj0 >= 3 && (int)jj1 < pl.count) {
    ising_octet_run(r, b, dv, &ps, spin, coupling, pl, colour, t, k0, (int)jj0 - 3, (int)(jj1 - jj0) + 1);
    return;
  }
  for (uint32_t pk = pk0; pk <= last; ++pk) {
    uint32_t jj;
    const uint32_t k = kit_fastdiv_qr(dv->bases, pk, &jj);
    ising_octet_update(r, b, dv, &ps, spin, coupling, pl, colour, t, k, (int)jj - 3);
  }
}
#endif
