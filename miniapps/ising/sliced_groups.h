/* sliced_groups.h: the sliced layout's GPU half-sweep with one Philox draw per group of four
 * sites, as host+device functions (kit/hd.h) so that the test suite runs the very code of the
 * kernel on the host (tests/ising/test_ising_sliced.cpp). Bernaschi et al. Sec. 3.1; the
 * sliced layout of Lulli, Bernaschi and Parisi (CPC 2015); README.md "Performance on one GPU".
 *
 * Why: the random-number contract (lattice.h) gives the four same-colour sites x0, x0+2,
 * x0+4, x0+6 of an 8-block of a row (x0 = 8a + px, px = 0 or 1) the four words of ONE draw,
 * counter (s >> 3, t, c, 3). In the sliced layout they lie at the same (row, x0 + 2e) of four
 * slices w, w+2, w+4, w+6: a thread per site draws four times, a thread per group reads bytes
 * spread over four slices (a quarter of each sector it fetches). So a block walks:
 *
 *   - a block owns a segment of ISING_SEG consecutive in-slice positions (row, x) (whole
 *     8-blocks, as LX % 8 == 0) of one sample and walks through the launch's slices
 *     W_0, W_0 + 2, ... (N of them), a thread per position: every load of a warp is 32
 *     consecutive bytes, as in the per-site kernel;
 *   - the site of position (row, x) in slice W_j has word e = (x >> 1) & 3, so its group's
 *     word-0 site lies in slice W_j - 2e: the group is "based" at iteration j - e, and its
 *     draw is made once, at iteration base + 4, after the fields of all four members are
 *     known; ISING_SEG / 4 threads make the segment's draws and park the words in shared
 *     memory (a ring of bases), where the members read them;
 *   - a draw is made only if a member in this launch has dE > 0 (the contract draws only
 *     then; a pure function, so skipping it changes nothing);
 *   - fields do not depend on same-colour spins, so a site's field is taken at iteration j
 *     and its spin written at j + 5, kept in registers in between (4 bits of it).
 *
 * Iteration it = 0 .. N + 4 of a block, with ONE barrier, at its end:
 *   look   (it < N):      field and dE of the thread's site in slice W_it, kept in registers
 *                         as a 4-bit code; the warp's ballot of "dE > 0" goes to vote slot it;
 *   draw   (base it - 4): ISING_SEG / 4 threads, one group each, read the votes of the group's
 *                         four members (looks base .. base + 3, all before the last barrier)
 *                         and draw if one is set, into word slot base;
 *   update (it >= 5):     the site of slice W_{it-5} decides with the word of its base
 *                         it - 5 - e (drawn at iteration it - 1 - e, before the last barrier);
 *   -- barrier --
 * Within an iteration the three phases touch different ring slots (look writes vote slot it,
 * draw reads vote slots it - 4 .. it - 1 and writes word slot it - 4, update reads word slots
 * it - 8 .. it - 5, all mod ISING_RING = 8), so any interleaving of the threads is correct and
 * one barrier per iteration orders what one iteration writes before the next reads it. A vote
 * slot is read up to 4 iterations after it was written and a word slot up to 4 after its draw:
 * a ring of 8 is never overwritten while still needed. (The first version had two barriers
 * per iteration and a lag of 3: every warp then waited for the slowest warp's loads and again
 * for the two drawing warps' Philox chain, with nothing else of its block to overlap.)
 * Bases run from -3 (groups whose word-0 site is below W_0) to N - 1, so a launch of N slices
 * makes at most (N + 3) / N times the minimum draws; groups cut by the launch's ends (the
 * two-stream boundary slice, a rank's first slices) are drawn by each launch that needs them.
 * Every launch updates exactly the sites the per-site kernel would: the half-sweep plans,
 * their exchanges and message counts do not change. */
#ifndef ISING_SLICED_GROUPS_H
#define ISING_SLICED_GROUPS_H
#include "lattice.h"

enum {
  ISING_SEG = 256,                  /* positions (threads) per block; a multiple of 32 */
  ISING_SEG_GROUPS = ISING_SEG / 4, /* groups of a segment with one base slice: 2 per 8-block */
  ISING_WARPS = ISING_SEG / 32,
  ISING_DRAW_LAG = 4, /* the draw of base B is made at iteration B + 4 */
  ISING_LAG = 5,      /* the site looked at in iteration j is updated in iteration j + 5 */
  ISING_RING = 8      /* slots of the vote and word rings: at least 5, a power of two */
};

/* The grouped kernel serves a launch when the 8-blocks are whole rows' pieces (LX % 8 == 0)
 * and the launch's slices are one colour two apart (the sliced plans' boundary and bulk). */
static inline KIT_HD int ising_grouped(const ising_block *b, ising_planes pl) {
  return b->layout == ISING_SLICED && b->L[0] % 8 == 0 && (pl.count == 1 || pl.step == 2);
}

/* One launch: slice j (0 <= j < count) is local plane l0 + lstep j, global slice g0 + 2 j. */
typedef struct ising_stream {
  int g0, l0, lstep, count;
  int colour;
  uint32_t t;  /* the sweep */
  size_t step; /* bytes from slice j to slice j + 1 in the spin array, lstep * plane_stride
                * (modulo 2^64: a walking offset in unsigned arithmetic) */
  size_t lag;  /* ISING_LAG * step: from the look's slice back to the update's */
} ising_stream;

static inline KIT_HD ising_stream ising_stream_of(const ising_block *b, ising_planes pl, int colour, uint32_t t) {
  const ising_stream st = {ising_global_plane(b, pl.first), pl.first, pl.step, pl.count, colour, t,
                           (size_t)(ptrdiff_t)pl.step * b->plane_stride,
                           (size_t)(ptrdiff_t)(ISING_LAG * pl.step) * b->plane_stride};
  return st;
}

/* Iterations of a block's walk: the last update comes ISING_LAG after the last look. */
static inline KIT_HD int ising_stream_iterations(const ising_stream *st) { return st->count + ISING_LAG; }

/* A block's shared memory (8.25 KB).
 * word[base & 7][g][e]: lane l of a warp reads [g = 8 w + 2 (l >> 3) + (l & 1)][e = (l >> 1) & 3],
 * 32-bit word 256 slot + 4 g + e: the 32 lanes hit 32 distinct banks whatever their slots.
 * vote[it & 7][w]: bit l is lane l of warp w with dE > 0 at look it, one store per warp. (The
 * first version marked "dE > 0" with a byte store per lane into need[slot of base][g]: the
 * four members of a group wrote four slots, 256 bytes apart, so the same bank: a 4-way
 * conflict on every look, the "uncoalesced shared accesses" of the profile.) */
typedef struct ising_stream_shared {
  uint32_t word[ISING_RING][ISING_SEG_GROUPS][4];
  uint32_t vote[ISING_RING][ISING_WARPS];
} ising_stream_shared;

/* A thread's registers across the walk. */
typedef struct ising_stream_thread {
  int tid;
  int site;           /* its position is inside the part (the last segment may end early) */
  ising_slice_nbrs o; /* its position and neighbours, the same in every slice */
  int z0;             /* z mod m of its site in slice W_it of the current look */
  size_t off;         /* offset of sample k's part of slice W_it in the spin array */
  uint32_t codes;     /* codes of the looks it .. it - 7, 4 bits each, look it in bits 0..3 */
  int group;          /* it draws for group gl = tid (tid < ISING_SEG_GROUPS, inside the part) */
  uint32_t gs0;       /* that group's word-0 site less its z mod m part: gx + LX (gy + LY m gq) */
  int gz0;            /* and its z mod m at the base of the next draw */
} ising_stream_thread;

/* A look's result in 4 bits, all the update needs: dE / 4 where dE > 0 (1..3), 0 where
 * dE <= 0 (a flip that needs no number), and bit 2 for spin -1. Four registers of dE and
 * four of spins, shifted every iteration, were the first version's. */
static inline KIT_HD uint32_t ising_stream_code(int8_t s, int dE) {
  return (uint32_t)(dE > 0 ? dE >> 2 : 0) | (s < 0 ? 4u : 0u);
}

static inline KIT_HD int ising_popc(uint32_t v) {
#ifdef __CUDA_ARCH__
  return __popc(v);
#else
  int n = 0;
  for (; v; v &= v - 1) ++n;
  return n;
#endif
}

/* dE = 2 s h from the site's spin s, its coupling byte j and its neighbours' spins (bytes of
 * +1 or -1) in ising_field's order +x +y +z -x -y -z. A term s J s_n is -1 where an odd
 * number of s, J, s_n is negative; with d such terms among the six, s h = 6 - 2 d and
 * dE = 12 - 4 d. Bit 1 of a spin byte (0x01 or 0xff) is its sign, so the six signs go to
 * bits 1..6 with one AND each and a popcount counts d: about 12 instructions, where
 * ising_field's six multiply-adds with their bit extractions took about 25. The same integer
 * as 2 * s * ising_field(j, ...) for all 2^13 inputs (tests/ising/test_ising_sliced.cpp). */
static inline KIT_HD int ising_dE_bits(int8_t s, uint8_t j, int8_t xp, int8_t yp, int8_t zp, int8_t xm, int8_t ym,
                                       int8_t zm) {
  const uint32_t n = ((uint32_t)(uint8_t)xp & 0x02u) | ((uint32_t)(uint8_t)yp & 0x04u) |
                     ((uint32_t)(uint8_t)zp & 0x08u) | ((uint32_t)(uint8_t)xm & 0x10u) |
                     ((uint32_t)(uint8_t)ym & 0x20u) | ((uint32_t)(uint8_t)zm & 0x40u);
  return 12 - 4 * ising_popc((n ^ ((uint32_t)j << 1) ^ (uint32_t)(uint8_t)s) & 0x7eu);
}

/* The group of thread tid's site within the segment, and the site's word e: position
 * seg0 + tid = seg0 + 8 (tid >> 3) + 2 e + px with seg0 and LX multiples of 8, so x = x0 + 2 e.
 * Recomputed where needed (two instructions) rather than held in two registers. */
static inline KIT_HD int ising_stream_gl(int tid) { return 2 * (tid >> 3) + (tid & 1); }
static inline KIT_HD int ising_stream_e(int tid) { return (tid >> 1) & 3; }

/* Thread tid of the block whose segment starts at in-part position seg0 (a multiple of
 * ISING_SEG), walking for sample k; also clears the block's votes (barrier after it). */
static inline KIT_HD void ising_stream_begin(const ising_block *b, const ising_stream *st, ising_stream_shared *sh,
                                             ising_stream_thread *th, uint32_t seg0, int tid, int k) {
  const uint32_t LX = (uint32_t)b->L[0], LY = (uint32_t)b->L[1], pos = seg0 + (uint32_t)tid;
  const int row = (int)(pos / LX), x = (int)(pos % LX);
  th->tid = tid;
  th->site = pos < b->part_sites;
  th->o = ising_slice_nbrs_of(b, row, x);
  /* The look of iteration it first steps to slice W_it: start one slice before W_0. */
  th->z0 = ising_slice_z(b->m, st->g0 - 2, x, row % (int)LY, 0);
  th->off = ising_part_offset(b, st->l0, 0) + (size_t)k * b->part_sites - st->step;
  th->codes = 0;
  /* Group gl = tid: its word-0 site is position seg0 + 8 (tid >> 1) + (tid & 1); the first
   * draw (iteration 0) is for base -4, slice W_0 - 8 (its members are not in the launch:
   * their votes are the cleared ones, so nothing is drawn). */
  const uint32_t pos0 = seg0 + 8u * (uint32_t)(tid >> 1) + (uint32_t)(tid & 1);
  const uint32_t gx = pos0 % LX, gy = pos0 / LX % LY, gq = pos0 / LX / LY;
  th->group = tid < ISING_SEG_GROUPS && pos0 < b->part_sites;
  th->gs0 = gx + LX * (gy + LY * ((uint32_t)b->m * gq));
  th->gz0 = ising_slice_z(b->m, st->g0 - 8, (int)gx, (int)gy, 0);
  for (int i = tid; i < ISING_RING * ISING_WARPS; i += ISING_SEG) sh->vote[i / ISING_WARPS][i % ISING_WARPS] = 0;
}

/* Logical site of the word-0 member of the thread's group at the current draw's base:
 * ising_site(gx, gy, gz0 + m gq), the same uint32 arithmetic rearranged. */
static inline KIT_HD uint32_t ising_stream_group_site(const ising_rules *r, const ising_block *b,
                                                      const ising_stream_thread *th) {
  (void)b;
  return th->gs0 + (uint32_t)r->L[0] * (uint32_t)r->L[1] * (uint32_t)th->gz0;
}

/* The warp's vote of `pred` for slot `slot`: one ballot and one store on the device. The host
 * emulation, which runs the threads one after another in any order, sets or clears the
 * thread's own bit: the same word once all 32 lanes have looked. */
static inline KIT_HD void ising_stream_vote(ising_stream_shared *sh, int slot, int tid, int pred) {
#ifdef __CUDA_ARCH__
  const uint32_t v = __ballot_sync(0xffffffffu, pred);
  if ((tid & 31) == 0) sh->vote[slot][tid >> 5] = v;
#else
  const uint32_t bit = 1u << (tid & 31);
  uint32_t *v = &sh->vote[slot][tid >> 5];
  *v = pred ? *v | bit : *v & ~bit;
#endif
}

/* Every thread, every iteration (the ballot needs the whole warp). */
static inline KIT_HD void ising_stream_look(const ising_block *b, const ising_stream *st, ising_stream_shared *sh,
                                            ising_stream_thread *th, int it, const int8_t *spin,
                                            const uint8_t *coupling, int k) {
  (void)k;
  th->off += st->step;
  th->z0 = th->z0 + 2 >= b->m ? th->z0 + 2 - b->m : th->z0 + 2;
  th->codes <<= 4;
  int up = 0;
  if (it < st->count && th->site) {
    const ising_slice_nbrs *o = &th->o;
    const int8_t *own = spin + th->off, *above = own + b->plane_stride, *below = own - b->plane_stride;
    const int8_t s = own[o->at];
    const int dE = ising_dE_bits(s, coupling[th->off - b->plane_stride + o->at], above[o->xp], above[o->yp],
                                 above[th->z0 == b->m - 1 ? o->zp_wrap : o->at], below[o->xm], below[o->ym],
                                 below[th->z0 == 0 ? o->zm_wrap : o->at]);
    th->codes |= ising_stream_code(s, dE);
    up = dE > 0;
  }
  ising_stream_vote(sh, it & (ISING_RING - 1), th->tid, up);
}

static inline KIT_HD void ising_stream_draw(const ising_rules *r, const ising_block *b, const ising_stream *st,
                                            ising_stream_shared *sh, ising_stream_thread *th, int it, int k) {
  if (!th->group) return;
  const int base = it - ISING_DRAW_LAG, g = th->tid;
  /* Member e of group g is thread 8 (g >> 1) + 2 e + (g & 1): warp g >> 3, lane
   * 8 ((g >> 1) & 3) + 2 e + (g & 1); it looked at the group's slice in iteration base + e.
   * Its bit is bit 8 ((g >> 1) & 3) + (g & 1) of vote e shifted down by 2 e. */
  const uint32_t *v = &sh->vote[0][g >> 3];
  const uint32_t v0 = v[ISING_WARPS * ((base + ISING_RING) & (ISING_RING - 1))];
  const uint32_t v1 = v[ISING_WARPS * ((base + 1 + ISING_RING) & (ISING_RING - 1))];
  const uint32_t v2 = v[ISING_WARPS * ((base + 2 + ISING_RING) & (ISING_RING - 1))];
  const uint32_t v3 = v[ISING_WARPS * ((base + 3 + ISING_RING) & (ISING_RING - 1))];
  const uint32_t need = (v0 | v1 >> 2 | v2 >> 4 | v3 >> 6) >> (8 * ((g >> 1) & 3) + (g & 1)) & 1u;
  if (need) {
    const kit_philox4x32 d = ising_draw(r, k, ising_stream_group_site(r, b, th), st->colour, st->t);
    for (int q = 0; q < 4; ++q) sh->word[(base + ISING_RING) & (ISING_RING - 1)][g][q] = d.v[q];
  }
  th->gz0 = th->gz0 + 2 >= b->m ? th->gz0 + 2 - b->m : th->gz0 + 2;
}

static inline KIT_HD void ising_stream_update(const ising_rules *r, const ising_block *b, const ising_stream *st,
                                              const ising_stream_shared *sh, const ising_stream_thread *th, int it,
                                              int8_t *spin, int k) {
  (void)b, (void)k;
  const int j = it - ISING_LAG;
  if (j < 0 || !th->site) return;
  const uint32_t code = th->codes >> (4 * ISING_LAG) & 0xfu;
  const int dE = 4 * (int)(code & 3u);
  const int8_t s = code & 4u ? -1 : 1;
  /* A word is read only where dE > 0, so only where the draw was made. */
  const int e = ising_stream_e(th->tid);
  if (dE <= 0 ||
      ising_decide(r, s, dE, sh->word[(j - e + ISING_RING) & (ISING_RING - 1)][ising_stream_gl(th->tid)][e]) != s)
    spin[th->off - st->lag + th->o.at] = (int8_t)-s;
}
#endif
