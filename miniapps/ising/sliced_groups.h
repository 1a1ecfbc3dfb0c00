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
 * thread gathers the eight sites, in x order, into one 64-bit word from four 8-byte loads
 * (one per slice, each an aligned, fully used sector across a warp), the same for their
 * coupling bytes and for each of the six neighbour directions, and then
 *   - counts each site's unsatisfied bonds for all eight sites at once, byte by byte
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

#include "lattice.h"

/* The grouped kernel serves a launch when the 8-blocks are whole rows' pieces (LX % 8 == 0)
 * and the launch's slices are one colour two apart (the sliced plans' boundary and bulk). */
static inline KIT_HD int ising_grouped(const ising_block *b, ising_planes pl) {
  return b->layout == ISING_SLICED && b->L[0] % 8 == 0 && (pl.count == 1 || pl.step == 2);
}

/* Bases of a launch of N slices: -3 .. N - 1. */
static inline KIT_HD int ising_octet_bases(ising_planes pl) { return pl.count + 3; }

/* The eight bytes of an 8-block (8-byte aligned on the device: LX, part_sites and
 * plane_stride are multiples of 8). Neighbour spins and couplings do not change during a
 * half-sweep: the read-only cache may serve them. */
static inline KIT_HD uint64_t ising_ld8(const void *p, int readonly) {
#ifdef __CUDA_ARCH__
  return readonly ? __ldg((const unsigned long long *)p) : *(const uint64_t *)p;
#else
  (void)readonly;
  uint64_t v;
  memcpy(&v, p, sizeof v); /* little-endian, as the device */
  return v;
#endif
}

/* Site i (byte i, 0..7) of the octet gets byte i + s (s = -1, 0, +1) of 8-block blk[i >> 1];
 * the one byte that falls outside its block (s = +1: site 7; s = -1: site 0) is `edge`. */
static inline KIT_HD uint64_t ising_gather(const uint64_t blk[4], int s, uint64_t edge) {
  uint64_t v = 0;
  for (int e = 0; e < 4; ++e) {
    const uint64_t x = s > 0 ? blk[e] >> 8 : s < 0 ? blk[e] << 8 : blk[e];
    v |= x & (0xffffull << 16 * e);
  }
  return s > 0 ? v | edge << 56 : s < 0 ? v | edge : v;
}

/* For each byte (site) of the octet, twice the number of its unsatisfied bonds, from its
 * spin byte, its coupling byte j and its six neighbours' spin bytes (ising_field's order).
 * A bond's term J s s_n is -1 where an odd number of J, s, s_n is negative; bit 1 of a spin
 * byte (0x01 or 0xff) is its sign and bit d of j is the d-th bond's J = -1, so one XOR per
 * direction, with j shifted to put bit d at bit 1, and a mask leave 2 in each byte with an
 * unsatisfied bond. Six such words add without carries (at most 12 a byte). With d bonds
 * unsatisfied s h = 6 - 2 d and dE = 2 s h = 12 - 4 d: dE <= 0 where the result is >= 6.
 * Equal to 2 s h by ising_field for every input (test IsingSlicedGroups.UnsatIsTheField). */
static inline KIT_HD uint64_t ising_unsat2(uint64_t own, uint64_t j, uint64_t xp, uint64_t yp, uint64_t zp,
                                           uint64_t xm, uint64_t ym, uint64_t zm) {
  const uint64_t M = 0x0202020202020202ull;
  return ((own ^ xp ^ j << 1) & M) + ((own ^ yp ^ j) & M) + ((own ^ zp ^ j >> 1) & M) + ((own ^ xm ^ j >> 2) & M) +
         ((own ^ ym ^ j >> 3) & M) + ((own ^ zm ^ j >> 4) & M);
}

/* The Metropolis decision of a site with u2 = 2 x unsatisfied bonds (< 6: dE = 12 - 2 u2 > 0)
 * on its word: word < thr for exp(-dE/T), by select (no run-time index into the rules). */
static inline KIT_HD int ising_accept_word(const ising_rules *r, uint32_t u2, uint32_t word) {
  const uint64_t thr = u2 == 4 ? r->thr[0] : u2 == 2 ? r->thr[1] : r->thr[2];
  return (uint64_t)word < thr;
}

/* One octet: the two groups of 8-block `unit` (row unit / (LX / 8), block a = unit % (LX / 8))
 * of sample k whose word-0 sites lie in launch slice j (-3 <= j < N), colour c, sweep t. */
static inline KIT_HD void ising_octet_update(const ising_rules *r, const ising_block *b, int8_t *spin,
                                             const uint8_t *coupling, ising_planes pl, int colour, uint32_t t, int k,
                                             int j, uint32_t unit) {
  const uint32_t LX = (uint32_t)b->L[0], LY = (uint32_t)b->L[1], A = LX / 8, Q = (uint32_t)(b->L[2] / b->m);
  const uint32_t row = unit / A, a = unit - row * A, y = row % LY, q = row / LY;
  const size_t ps = b->plane_stride;
  /* Member e's 8-block in its slice; members outside the launch are read at a slice inside
   * it (so every address is in the slab) and never written. */
  const int8_t *blk[4];
  uint64_t inl = 0; /* 0xffff in the bytes of the members inside the launch */
  for (int e = 0; e < 4; ++e) {
    const int i = j + e, in = i >= 0 && i < pl.count;
    const int l = pl.first + pl.step * (in ? i : i < 0 ? 0 : pl.count - 1);
    blk[e] = spin + ising_part_offset(b, l, 0) + (size_t)k * b->part_sites + (size_t)row * LX + 8 * a;
    if (in) inl |= 0xffffull << 16 * e;
  }
  /* Row offsets of the y-neighbours and of the z-neighbours across a multiple of m. */
  const uint32_t yp = y + 1 == LY ? 0 : y + 1, ym = y == 0 ? LY - 1 : y - 1;
  const uint32_t qp = q + 1 == Q ? 0 : q + 1, qm = q == 0 ? Q - 1 : q - 1;
  const ptrdiff_t r0 = (ptrdiff_t)(LX * row), dyp = (ptrdiff_t)(LX * (yp + LY * q)) - r0,
                  dym = (ptrdiff_t)(LX * (ym + LY * q)) - r0, dqp = (ptrdiff_t)(LX * (y + LY * qp)) - r0,
                  dqm = (ptrdiff_t)(LX * (y + LY * qm)) - r0;
  uint64_t own[4], jb[4], up[4], dn[4], upy[4], dny[4];
  for (int e = 0; e < 4; ++e) {
    own[e] = ising_ld8(blk[e], 0);
    jb[e] = ising_ld8(coupling + (blk[e] - spin) - (ptrdiff_t)ps, 1);
    up[e] = ising_ld8(blk[e] + ps, 1);
    dn[e] = ising_ld8(blk[e] - ps, 1);
    upy[e] = ising_ld8(blk[e] + ps + dyp, 1);
    dny[e] = ising_ld8(blk[e] - ps + dym, 1);
  }
  /* x wraps around the row: site 7's +x neighbour starts the next block, site 0's -x one ends
   * the previous. */
  const uint64_t next = (uint8_t)blk[3][(ptrdiff_t)ps + (a + 1 == A ? 8 - (ptrdiff_t)LX : 8)];
  const uint64_t prev = (uint8_t)blk[0][-(ptrdiff_t)ps + (a == 0 ? (ptrdiff_t)LX - 1 : -1)];
  const uint64_t o = ising_gather(own, 0, 0), jo = ising_gather(jb, 0, 0);
  uint64_t zp = ising_gather(up, 0, 0), zm = ising_gather(dn, 0, 0);
  /* Group b's sites have z mod m = z0b (its base slice fixes it, the same for all four); where
   * it is m - 1 the +z neighbour is in the row of the next q, where 0 the -z one in that of
   * the previous (bytes b, b + 2, b + 4, b + 6 of the octet). */
  const int wb = ((ising_global_plane(b, pl.first) + 2 * j) % b->m + b->m) % b->m;
  int z0b[2];
  for (int g = 0; g < 2; ++g) {
    z0b[g] = ising_slice_z(b->m, wb, (int)(8 * a) + g, (int)y, 0);
    const uint64_t mask = 0x00ff00ff00ff00ffull << 8 * g;
    if (z0b[g] == b->m - 1) {
      uint64_t w[4];
      for (int e = 0; e < 4; ++e) w[e] = ising_ld8(blk[e] + ps + dqp, 1);
      zp = (zp & ~mask) | (ising_gather(w, 0, 0) & mask);
    }
    if (z0b[g] == 0) {
      uint64_t w[4];
      for (int e = 0; e < 4; ++e) w[e] = ising_ld8(blk[e] - ps + dqm, 1);
      zm = (zm & ~mask) | (ising_gather(w, 0, 0) & mask);
    }
  }
  const uint64_t u2 = ising_unsat2(o, jo, ising_gather(up, 1, next), ising_gather(upy, 0, 0), zp,
                                   ising_gather(dn, -1, prev), ising_gather(dny, 0, 0), zm);
  /* Bit 7 of a byte: u2 >= 6 (dE <= 0: flip without a number). No carries: u2 <= 12. */
  const uint64_t free_flip = (u2 + 0x7a7a7a7a7a7a7a7aull) & 0x8080808080808080ull;
  const uint64_t need = ~free_flip & 0x8080808080808080ull & inl;
  uint64_t flip = free_flip;
  for (int g = 0; g < 2; ++g) {
    if (!(need & 0x0080008000800080ull << 8 * g)) continue;
    const uint32_t s0 = ising_site(r, (int)(8 * a) + g, (int)y, z0b[g] + b->m * (int)q);
    const kit_philox4x32 d = ising_draw(r, k, s0, colour, t);
    for (int e = 0; e < 4; ++e) {
      const int i = 2 * e + g;
      if (need >> (8 * i + 7) & 1 && ising_accept_word(r, (uint32_t)(u2 >> 8 * i) & 0xffu, d.v[e]))
        flip |= 0x80ull << 8 * i;
    }
  }
  flip &= inl;
  /* 0x80 -> 0xfe in each flipping byte: +1 (0x01) <-> -1 (0xff) is XOR 0xfe. */
  const uint64_t x = (flip - (flip >> 6)) | flip, nw = o ^ x;
  for (int e = 0; e < 4; ++e) {
    if (!(x >> 16 * e & 0xffffu)) continue;
    const uint16_t pair = (uint16_t)(nw >> 16 * e);
    int8_t *dst = (int8_t *)blk[e] + 2 * e;
#ifdef __CUDA_ARCH__
    *(uint16_t *)dst = pair;
#else
    memcpy(dst, &pair, sizeof pair);
#endif
  }
}
#endif
