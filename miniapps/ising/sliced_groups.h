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
 *     draw is made once, at iteration base + 3, when the fields of all four members are
 *     known; ISING_SEG / 4 threads make the segment's draws and park the words in shared
 *     memory (a ring of four bases), where the members read them;
 *   - a draw is made only if a member in this launch has dE > 0 (the contract draws only
 *     then; a pure function, so skipping it changes nothing);
 *   - fields do not depend on same-colour spins, so a site's field is taken at iteration j
 *     and its spin written at j + 3, kept in registers in between.
 *
 * Iteration it = 0 .. N + 2 of a block, with two barriers:
 *   look   (it < N):   field and dE of the thread's site in slice W_it; mark need[base][e];
 *   -- barrier --
 *   draw   (base it - 3): ISING_SEG / 4 threads, one group each, draw if marked;
 *   -- barrier --
 *   update (it >= 3):  the site of slice W_{it-3} decides with its word and writes.
 * Bases run from -3 (groups whose word-0 site is below W_0) to N - 1, so a launch of N slices
 * makes at most (N + 3) / N times the minimum draws; groups cut by the launch's ends (the
 * two-stream boundary slice, a rank's first slices) are drawn by each launch that needs them.
 * Every launch updates exactly the sites the per-site kernel would: the half-sweep plans,
 * their exchanges and message counts do not change. */
#ifndef ISING_SLICED_GROUPS_H
#define ISING_SLICED_GROUPS_H
#include "lattice.h"

enum {
  ISING_SEG = 256,                 /* positions (threads) per block; a multiple of 8 */
  ISING_SEG_GROUPS = ISING_SEG / 4 /* groups of a segment with one base slice: 2 per 8-block */
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
  uint32_t t; /* the sweep */
} ising_stream;

static inline KIT_HD ising_stream ising_stream_of(const ising_block *b, ising_planes pl, int colour, uint32_t t) {
  const ising_stream st = {ising_global_plane(b, pl.first), pl.first, pl.step, pl.count, colour, t};
  return st;
}

/* A block's shared memory: draws and need-marks of the four latest bases, slot base & 3. */
typedef struct ising_stream_shared {
  uint32_t word[4][ISING_SEG_GROUPS][4];
  uint32_t need[4][ISING_SEG_GROUPS]; /* byte e set: the member of word e has dE > 0 */
} ising_stream_shared;

/* A thread's registers across the walk. */
typedef struct ising_stream_thread {
  int tid;
  int site;           /* its position is inside the part (the last segment may end early) */
  ising_slice_nbrs o; /* its position and neighbours, the same in every slice */
  int gl, e;          /* the group of its site within the segment, and the site's word */
  int z0;             /* z mod m of its site in the slice of the next look */
  int dE[4];          /* looks of iterations it-3 .. it: dE, and the spin before the update */
  int8_t spin[4];
  int group;                /* it draws for group gl = tid (tid < ISING_SEG_GROUPS, inside the part) */
  int gx, gy, gq, gz0;      /* that group's word-0 site: x, y, q, and z mod m at the next base */
} ising_stream_thread;

/* Thread tid of the block whose segment starts at in-part position seg0 (a multiple of
 * ISING_SEG); also clears the block's marks (barrier after it). */
static inline KIT_HD void ising_stream_begin(const ising_block *b, const ising_stream *st, ising_stream_shared *sh,
                                             ising_stream_thread *th, uint32_t seg0, int tid) {
  const uint32_t LX = (uint32_t)b->L[0], LY = (uint32_t)b->L[1], pos = seg0 + (uint32_t)tid;
  const int row = (int)(pos / LX), x = (int)(pos % LX);
  th->tid = tid;
  th->site = pos < b->part_sites;
  th->o = ising_slice_nbrs_of(b, row, x);
  /* pos = seg0 + 8 (tid >> 3) + 2 e + px with seg0 and LX multiples of 8: x = x0 + 2 e. */
  th->gl = 2 * (tid >> 3) + (tid & 1);
  th->e = (tid >> 1) & 3;
  th->z0 = ising_slice_z(b->m, st->g0, x, row % (int)LY, 0);
  for (int q = 0; q < 4; ++q) th->dE[q] = 0, th->spin[q] = 0;
  /* Group gl = tid: its word-0 site is position seg0 + 8 (tid >> 1) + (tid & 1); the first
   * base slice is W_0 - 6. */
  const uint32_t pos0 = seg0 + 8u * (uint32_t)(tid >> 1) + (uint32_t)(tid & 1);
  th->group = tid < ISING_SEG_GROUPS && pos0 < b->part_sites;
  th->gx = (int)(pos0 % LX);
  th->gy = (int)(pos0 / LX % LY);
  th->gq = (int)(pos0 / LX / LY);
  th->gz0 = ising_slice_z(b->m, st->g0 - 6, th->gx, th->gy, 0);
  for (int i = tid; i < 4 * ISING_SEG_GROUPS; i += ISING_SEG) sh->need[i / ISING_SEG_GROUPS][i % ISING_SEG_GROUPS] = 0;
}

/* Logical site of the word-0 member of the thread's group at the current base. */
static inline KIT_HD uint32_t ising_stream_group_site(const ising_rules *r, const ising_block *b,
                                                      const ising_stream_thread *th) {
  return ising_site(r, th->gx, th->gy, th->gz0 + b->m * th->gq);
}

/* Offset in the spin array of sample k's part of the launch's slice j (the coupling array
 * starts one plane later: the same part sits plane_stride bytes lower there). */
static inline KIT_HD size_t ising_stream_at(const ising_block *b, const ising_stream *st, int j, int k) {
  return ising_part_offset(b, st->l0 + st->lstep * j, 0) + (size_t)k * b->part_sites;
}

static inline KIT_HD void ising_stream_look(const ising_block *b, const ising_stream *st, ising_stream_shared *sh,
                                            ising_stream_thread *th, int it, const int8_t *spin,
                                            const uint8_t *coupling, int k) {
  for (int q = 0; q < 3; ++q) th->dE[q] = th->dE[q + 1], th->spin[q] = th->spin[q + 1];
  th->dE[3] = 0;
  if (it < st->count && th->site) {
    const size_t at = ising_stream_at(b, st, it, k);
    const int8_t *own = spin + at;
    const int8_t s = own[th->o.at];
    const int h = ising_slice_field(&th->o, b->m, th->z0, coupling[at - b->plane_stride + th->o.at],
                                    own + b->plane_stride, own - b->plane_stride);
    th->dE[3] = 2 * s * h;
    th->spin[3] = s;
    /* Base iteration it - e >= -3: slot (it - e) & 3. */
    if (th->dE[3] > 0) ((uint8_t *)&sh->need[(it - th->e + 4) & 3][th->gl])[th->e] = 1;
  }
  th->z0 = th->z0 + 2 >= b->m ? th->z0 + 2 - b->m : th->z0 + 2;
}

static inline KIT_HD void ising_stream_draw(const ising_rules *r, const ising_block *b, const ising_stream *st,
                                            ising_stream_shared *sh, ising_stream_thread *th, int it, int k) {
  if (!th->group) return;
  const int slot = (it + 1) & 3; /* base it - 3 */
  if (sh->need[slot][th->tid]) {
    const kit_philox4x32 d = ising_draw(r, k, ising_stream_group_site(r, b, th), st->colour, st->t);
    for (int q = 0; q < 4; ++q) sh->word[slot][th->tid][q] = d.v[q];
    sh->need[slot][th->tid] = 0;
  }
  th->gz0 = th->gz0 + 2 >= b->m ? th->gz0 + 2 - b->m : th->gz0 + 2;
}

static inline KIT_HD void ising_stream_update(const ising_rules *r, const ising_block *b, const ising_stream *st,
                                              const ising_stream_shared *sh, const ising_stream_thread *th, int it,
                                              int8_t *spin, int k) {
  const int j = it - 3;
  if (j < 0 || !th->site) return;
  const int dE = th->dE[0];
  const int8_t s = th->spin[0];
  /* A word is read only where dE > 0, so only where the draw was made. */
  const uint32_t w = dE > 0 ? sh->word[(j - th->e + 4) & 3][th->gl][th->e] : 0;
  const int8_t flipped = ising_decide(r, s, dE, w);
  if (flipped != s) spin[ising_stream_at(b, st, j, k) + th->o.at] = flipped;
}
#endif
