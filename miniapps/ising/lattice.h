/* lattice.h: the physics and the random-number contract of one Metropolis update,
 * written once for C and CUDA (kit/hd.h): the oracle, the cpu variant and every GPU kernel
 * call these functions, so a flip decision cannot differ between them. Bernaschi et al.
 * Sec. 3.1; the contract below is also stated in README.md ("The random-number contract").
 *
 * Philox4x32-10, key = (low 32 bits of --seed, sample), u = word * 2^-32, logical site
 * s = x + LX (y + LY z):
 *   bond s -> +d neighbour (d = 0, 1, 2 for x, y, z): counter (s, d, 0, 1) word 0, J = -1 if u < p
 *   initial spin (--init random):                    counter (s, 0, 0, 2) word 0, -1 if u < 0.5
 *   Metropolis number, colour c, sweep t, h = s >> 1: counter (h >> 2, t, c, 3) word h & 3
 *   Mattis gauge sign e_s (--mattis, J_ij = e_i e_j): counter (s, 0, 0, 4) word 0, -1 if u < 0.5 */
#ifndef ISING_LATTICE_H
#define ISING_LATTICE_H
#include <stddef.h>
#include <stdint.h>

#include "kit/hd.h"
#include "kit/philox.h"

enum { ISING_CHECKERBOARD = 0, ISING_SLICED = 1 };

/* One rank's slab of the lattice in a layout. The lattice is cut into `nplanes` planes
 * along the decomposition direction: z-planes for checkerboard, diagonal slices for
 * sliced. A plane is stored as `parts` consecutive parts (checkerboard: colour 0 then
 * colour 1; sliced: one, the plane's single colour), each part holding every sample's
 * `part_sites` sites one sample after another, so that the part a half-sweep changes travels
 * as one contiguous MPI message for all samples. A part of one sample is `rows` rows of
 * `width` sites: checkerboard rows are y (width LX/2, the sites of the part's colour),
 * sliced rows are (y, q) pairs (width LX). The slab holds global planes [k0, k0 + n) as
 * local planes 1..n, with a ghost plane on each side (local 0 and n + 1, periodic).
 * Couplings are stored for local planes 1..n only, at the spin's position. */
typedef struct ising_block {
  int layout;  /* ISING_CHECKERBOARD or ISING_SLICED */
  int L[3];    /* LX, LY, LZ */
  int m;       /* number of diagonal slices, gcd(LX, LY, LZ) */
  int nplanes; /* planes of the whole lattice: LZ or m */
  int k0, n;   /* first global plane of the slab and the number of planes */
  int samples;
  int parts;           /* 2 (checkerboard) or 1 (sliced) */
  int rows, width;     /* a part of one sample: rows x width sites */
  size_t part_sites;   /* rows * width */
  size_t part_stride;  /* bytes of one part, all samples: samples * part_sites */
  size_t plane_stride; /* bytes of one plane: parts * part_stride */
} ising_block;

/* Local planes first, first + step, ..., count of them (the sliced layout updates every
 * other slice). */
typedef struct ising_planes {
  int first, count, step;
} ising_planes;

static inline KIT_HD size_t ising_part_offset(const ising_block *b, int local_plane, int part) {
  return (size_t)local_plane * b->plane_stride + (size_t)part * b->part_stride;
}

/* Global plane of local plane l (ghosts wrap around: the lattice is periodic). */
static inline KIT_HD int ising_global_plane(const ising_block *b, int l) {
  return ((b->k0 + l - 1) % b->nplanes + b->nplanes) % b->nplanes;
}

/* What an update needs to know, as plain values a kernel can take by value. */
typedef struct ising_rules {
  int L[3];
  uint32_t seed; /* low 32 bits of --seed */
  double p;      /* probability of J = -1 */
  int mattis;    /* J_ij = e_i e_j instead of drawn bonds */
  int init_up;   /* --init up */
  double w[3];   /* exp(-dE/T) for dE = 4, 8, 12 */
  /* The same as integer thresholds on the Philox word: u = word 2^-32 < w exactly when
   * word < ceil(w 2^32) (u is exact in a double, and so is w 2^32). Below 2^32 for every
   * temperature the options allow (T <= 1e6: w <= exp(-4e-6)); ising_rules_of refuses
   * others. Used by the sliced octet kernel (sliced_groups.h); ising_decide keeps the
   * contract's double comparison. */
  uint32_t thr[3];
} ising_rules;

static inline KIT_HD uint32_t ising_site(const ising_rules *r, int x, int y, int z) {
  return (uint32_t)x + (uint32_t)r->L[0] * ((uint32_t)y + (uint32_t)r->L[1] * (uint32_t)z);
}

static inline KIT_HD double ising_u(const ising_rules *r, int sample, uint32_t c0, uint32_t c1, uint32_t c2,
                                    uint32_t c3, int word) {
  return kit_philox_uniform(r->seed, (uint32_t)sample, c0, c1, c2, c3, word);
}

/* Mattis gauge sign of site s: +1 or -1. */
static inline KIT_HD int ising_gauge(const ising_rules *r, int sample, uint32_t s) {
  return ising_u(r, sample, s, 0, 0, 4, 0) < 0.5 ? -1 : 1;
}

/* 1 if the bond from (x,y,z) to its +d neighbour (periodic) has J = -1. */
static inline KIT_HD int ising_bond_negative(const ising_rules *r, int sample, int x, int y, int z, int d) {
  const uint32_t s = ising_site(r, x, y, z);
  if (r->mattis) {
    int q[3] = {x, y, z};
    q[d] = q[d] + 1 == r->L[d] ? 0 : q[d] + 1;
    return ising_gauge(r, sample, s) * ising_gauge(r, sample, ising_site(r, q[0], q[1], q[2])) < 0;
  }
  return ising_u(r, sample, s, (uint32_t)d, 0, 1, 0) < r->p;
}

/* The six couplings of a site in one byte: bit d (0..2) is the bond to the +d neighbour,
 * bit 3 + d the bond to the -d neighbour (that neighbour's +d bond); a set bit means J = -1.
 * Each bond is stored at both its ends, so an update reads one byte, not six. */
static inline KIT_HD uint8_t ising_coupling_byte(const ising_rules *r, int sample, int x, int y, int z) {
  unsigned b = 0;
  for (int d = 0; d < 3; ++d) {
    int q[3] = {x, y, z};
    q[d] = q[d] == 0 ? r->L[d] - 1 : q[d] - 1;
    b |= (unsigned)ising_bond_negative(r, sample, x, y, z, d) << d;
    b |= (unsigned)ising_bond_negative(r, sample, q[0], q[1], q[2], d) << (3 + d);
  }
  return (uint8_t)b;
}

static inline KIT_HD int8_t ising_initial_spin(const ising_rules *r, int sample, uint32_t s) {
  if (r->init_up) return 1;
  return ising_u(r, sample, s, 0, 0, 2, 0) < 0.5 ? -1 : 1;
}

/* Local field h = sum_j J_ij s_j, neighbours in the order +x +y +z -x -y -z. */
static inline KIT_HD int ising_field(uint8_t j, int xp, int yp, int zp, int xm, int ym, int zm) {
  return (1 - 2 * (int)(j & 1)) * xp + (1 - 2 * (int)((j >> 1) & 1)) * yp +
         (1 - 2 * (int)((j >> 2) & 1)) * zp + (1 - 2 * (int)((j >> 3) & 1)) * xm +
         (1 - 2 * (int)((j >> 4) & 1)) * ym + (1 - 2 * (int)((j >> 5) & 1)) * zm;
}

/* exp(-dE/T) for dE = 4, 8, 12. A select rather than r->w[dE / 4 - 1]: a run-time index into
 * the rules would put them in GPU local memory. */
static inline KIT_HD double ising_accept(const ising_rules *r, int dE) {
  return dE == 4 ? r->w[0] : dE == 8 ? r->w[1] : r->w[2];
}

/* The Metropolis decision for a spin with energy change dE, given the 32-bit Philox word the
 * contract assigns to its site: flip if dE <= 0, else flip if u < exp(-dE/T). Every
 * implementation decides through here. */
static inline KIT_HD int8_t ising_decide(const ising_rules *r, int8_t spin, int dE, uint32_t word) {
  if (dE <= 0) return (int8_t)-spin;
  return kit_u01(word) < ising_accept(r, dE) ? (int8_t)-spin : spin;
}

/* The contract's Philox draw of the group of logical site s (colour c, sweep t): counter
 * (s >> 3, t, c, 3). Its word (s >> 1) & 3 belongs to s; the other three to the same-colour
 * sites s' with s' >> 3 == s >> 3. */
static inline KIT_HD kit_philox4x32 ising_draw(const ising_rules *r, int sample, uint32_t s, int colour,
                                               uint32_t t) {
  const kit_philox4x32 ctr = {{s >> 3, t, (uint32_t)colour, 3}};
  const kit_philox_key key = {{r->seed, (uint32_t)sample}};
  return kit_philox4x32_10(ctr, key);
}

/* One Metropolis update of spin `spin` at logical site s (colour c, sweep t) in field h:
 * dE = 2 s h; flip if dE <= 0, else flip if u < exp(-dE/T). The random number is drawn
 * only when it decides, as every implementation does. */
static inline KIT_HD int8_t ising_metropolis(const ising_rules *r, int sample, uint32_t s, int colour,
                                             uint32_t t, int8_t spin, int h) {
  const int dE = 2 * spin * h;
  if (dE <= 0) return (int8_t)-spin;
  const uint32_t half = s >> 1;
  const double u = ising_u(r, sample, half >> 2, t, (uint32_t)colour, 3, (int)(half & 3));
  return u < ising_accept(r, dE) ? (int8_t)-spin : spin;
}

/* --- the sliced layout (Lulli et al. Sec. II; README.md has the figure) ----------------
 * Slice w in [0, m), m = gcd(LX, LY, LZ), holds the sites with (x + y + z) mod m = w. As m is
 * even, a slice has one colour, w mod 2, and all six neighbours of a site in slice w lie in
 * slices w + 1 (the +x, +y, +z ones) and w - 1 (mod m). Within a slice a site sits at
 * (x, y, q), q = z div m, index x + LX (y + LY q). For a cube m = L and slices are L x L. */
static inline KIT_HD int ising_slice_z(int m, int w, int x, int y, int q) {
  const int z0 = ((w - x - y) % m + m) % m;
  return z0 + m * q;
}

/* Offsets within one sample's part of a slice (they fit 32 bits: the driver keeps a part
 * below 2^31 sites) of the sliced site at (row, x), row = y + LY q, and of its neighbours in
 * the slices above (+x, +y) and below (-x, -y). Its z-neighbours are at its own offset in
 * those slices, except where z crosses a multiple of m: the +z neighbour of z0 = m - 1 is in
 * the row of the next q (zp_wrap), the -z neighbour of z0 = 0 in that of the previous q. All
 * of it depends on (row, x) only, not on the slice, so a thread that walks through slices
 * computes it once. */
typedef struct ising_slice_nbrs {
  uint32_t at, xp, xm, yp, ym, zp_wrap, zm_wrap;
} ising_slice_nbrs;

static inline KIT_HD ising_slice_nbrs ising_slice_nbrs_of(const ising_block *b, int row, int x) {
  const uint32_t LX = (uint32_t)b->L[0], LY = (uint32_t)b->L[1], Q = (uint32_t)(b->L[2] / b->m);
  const uint32_t y = (uint32_t)row % LY, q = (uint32_t)row / LY, ux = (uint32_t)x;
  const uint32_t yp = y + 1 == LY ? 0 : y + 1, ym = y == 0 ? LY - 1 : y - 1;
  const uint32_t xp = ux + 1 == LX ? 0 : ux + 1, xm = ux == 0 ? LX - 1 : ux - 1;
  const uint32_t qp = q + 1 == Q ? 0 : q + 1, qm = q == 0 ? Q - 1 : q - 1, r0 = LX * (uint32_t)row;
  ising_slice_nbrs o = {r0 + ux,
                        r0 + xp,
                        r0 + xm,
                        LX * (yp + LY * q) + ux,
                        LX * (ym + LY * q) + ux,
                        LX * (y + LY * qp) + ux,
                        LX * (y + LY * qm) + ux};
  return o;
}

/* The local field of that site, z0 = z mod m, from its coupling byte and the same sample's
 * parts of the slices above and below. */
static inline KIT_HD int ising_slice_field(const ising_slice_nbrs *o, int m, int z0, uint8_t j,
                                           const int8_t *above, const int8_t *below) {
  return ising_field(j, above[o->xp], above[o->yp], above[z0 == m - 1 ? o->zp_wrap : o->at], below[o->xm],
                     below[o->ym], below[z0 == 0 ? o->zm_wrap : o->at]);
}

/* Logical coordinates of the site at (row, i) of part `part` of global plane g. */
static inline KIT_HD void ising_coords(const ising_block *b, int g, int part, int row, int i, int *x, int *y,
                                       int *z) {
  if (b->layout == ISING_SLICED) {
    *x = i;
    *y = row % b->L[1];
    *z = ising_slice_z(b->m, g, i, *y, row / b->L[1]);
  } else {
    *y = row;
    *z = g;
    *x = 2 * i + ((part + row + g) & 1); /* the part's colour fixes the parity of x */
  }
}

/* The local field of the site at (row, i) of sample k in local plane l (colour c), with the
 * site's index in the spin array (*at) and its logical index (*s): spins of planes l - 1..l + 1,
 * the site's coupling byte at its own position (couplings start at local plane 1). The one
 * place the two layouts' neighbour addressing is written; the host sweep and the GPU kernels
 * both come through here.
 * Checkerboard: the x and y neighbours are in the other colour's part of the same z-plane,
 * the z ones in that part of the planes above and below.
 * Sliced: the +x, +y, +z neighbours are in the slice above, the -x, -y, -z ones in the
 * slice below, at the same (x, y, q) shifted by one; the z-neighbour moves to the next q
 * where z crosses a multiple of m. */
static inline KIT_HD int ising_site_field(const ising_rules *r, const ising_block *b, const int8_t *spin,
                                          const uint8_t *coupling, int c, int l, int k, int row, int i,
                                          size_t *at, uint32_t *s) {
  const int LX = b->L[0], LY = b->L[1], g = ising_global_plane(b, l);
  const size_t ks = (size_t)k * b->part_sites;
  int x, y, z;
  ising_coords(b, g, c, row, i, &x, &y, &z);
  *s = ising_site(r, x, y, z);
  if (b->layout == ISING_SLICED) {
    const ising_slice_nbrs o = ising_slice_nbrs_of(b, row, i);
    *at = ising_part_offset(b, l, 0) + ks + o.at;
    return ising_slice_field(&o, b->m, z % b->m, coupling[*at - b->plane_stride],
                             spin + ising_part_offset(b, l + 1, 0) + ks,
                             spin + ising_part_offset(b, l - 1, 0) + ks);
  }
  const int HX = LX / 2;
  const int8_t *other = spin + ising_part_offset(b, l, 1 - c) + ks;
  const int8_t *above = spin + ising_part_offset(b, l + 1, 1 - c) + ks + (size_t)y * HX;
  const int8_t *below = spin + ising_part_offset(b, l - 1, 1 - c) + ks + (size_t)y * HX;
  const int xp = x + 1 == LX ? 0 : x + 1, xm = x == 0 ? LX - 1 : x - 1;
  const int yp = y + 1 == LY ? 0 : y + 1, ym = y == 0 ? LY - 1 : y - 1;
  *at = ising_part_offset(b, l, c) + ks + (size_t)y * HX + i;
  return ising_field(coupling[*at - b->plane_stride], other[(size_t)y * HX + (xp >> 1)],
                     other[(size_t)yp * HX + i], above[i], other[(size_t)y * HX + (xm >> 1)],
                     other[(size_t)ym * HX + i], below[i]);
}

/* One Metropolis update of the site at (row, i) of sample k in local plane l, colour c, sweep t. */
static inline KIT_HD void ising_update_site(const ising_rules *r, const ising_block *b, int8_t *spin,
                                            const uint8_t *coupling, int c, uint32_t t, int l, int k, int row,
                                            int i) {
  size_t at;
  uint32_t s;
  const int h = ising_site_field(r, b, spin, coupling, c, l, k, row, i, &at, &s);
  spin[at] = ising_metropolis(r, k, s, c, t, spin[at], h);
}

/* Checkerboard with LX a multiple of 8: the four sites i = 4 j .. 4 j + 3 of a row have
 * consecutive h = s >> 1 with the same h >> 2, so the contract's Metropolis numbers of all
 * four are the four words of one Philox draw. Updating them together draws it once, not four
 * times; the decisions are the contract's, bit for bit. (Sites of one colour are not
 * neighbours, so the four fields may all be taken before any spin changes.) The four sites'
 * spins, couplings and their y- and z-neighbours are four consecutive bytes each: on the GPU
 * one 32-bit load apiece instead of four byte loads (HX = LX/2 is a multiple of 4 and every
 * part starts at a multiple of 4, so the words are aligned). */
static inline KIT_HD int ising_quads(const ising_block *b) {
  return b->layout == ISING_CHECKERBOARD && b->L[0] % 8 == 0;
}

/* Bytes p[0..3] into v[0..3]; p is 4-byte aligned. */
static inline KIT_HD void ising_load4(const void *p, int8_t v[4]) {
#ifdef __CUDA_ARCH__
  const char4 w = *(const char4 *)p;
  v[0] = w.x, v[1] = w.y, v[2] = w.z, v[3] = w.w;
#else
  for (int q = 0; q < 4; ++q) v[q] = ((const int8_t *)p)[q];
#endif
}

static inline KIT_HD void ising_store4(int8_t *p, const int8_t v[4]) {
#ifdef __CUDA_ARCH__
  *(char4 *)p = make_char4(v[0], v[1], v[2], v[3]);
#else
  for (int q = 0; q < 4; ++q) p[q] = v[q];
#endif
}

static inline KIT_HD void ising_update_quad(const ising_rules *r, const ising_block *b, int8_t *spin,
                                            const uint8_t *coupling, int c, uint32_t t, int l, int k, int y,
                                            int j) {
  const int LX = b->L[0], LY = b->L[1], HX = LX / 2, g = ising_global_plane(b, l);
  const int px = (c + y + g) & 1; /* x of site i is 2 i + px (the part's colour fixes the parity) */
  const int i0 = 4 * j, yp = y + 1 == LY ? 0 : y + 1, ym = y == 0 ? LY - 1 : y - 1;
  const size_t ks = (size_t)k * b->part_sites,
               at = ising_part_offset(b, l, c) + ks + (size_t)y * HX + (size_t)i0;
  const int8_t *other = spin + ising_part_offset(b, l, 1 - c) + ks;
  const int8_t *row = other + (size_t)y * HX;
  int8_t own[4], jb[4], xs[6], ns[4], ss[4], up[4], dn[4];
  ising_load4(spin + at, own);
  ising_load4(coupling + at - b->plane_stride, jb);
  /* x-neighbours of site i0 + q: other-colour entries i0 + q + px (+x) and i0 + q + px - 1
   * (-x) of the row, wrapping around; xs[e] holds entry i0 - 1 + e. */
  ising_load4(row + i0, xs + 1);
  xs[0] = px ? 0 : row[i0 == 0 ? HX - 1 : i0 - 1];
  xs[5] = px ? row[i0 + 4 == HX ? 0 : i0 + 4] : 0;
  ising_load4(other + (size_t)yp * HX + i0, ns);
  ising_load4(other + (size_t)ym * HX + i0, ss);
  ising_load4(spin + ising_part_offset(b, l + 1, 1 - c) + ks + (size_t)y * HX + i0, up);
  ising_load4(spin + ising_part_offset(b, l - 1, 1 - c) + ks + (size_t)y * HX + i0, dn);
  int h[4], draw = 0;
  /* Constant indices once unrolled (px picks between two), so the arrays stay in registers. */
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int q = 0; q < 4; ++q) {
    const int8_t xp = px ? xs[q + 2] : xs[q + 1], xm = px ? xs[q + 1] : xs[q];
    h[q] = ising_field((uint8_t)jb[q], xp, ns[q], up[q], xm, ss[q], dn[q]);
    draw |= 2 * own[q] * h[q] > 0;
  }
  kit_philox4x32 u = {{0, 0, 0, 0}};
  if (draw) u = ising_draw(r, k, ising_site(r, 2 * i0 + px, y, g), c, t);
    /* Site q has s = s0 + 2 q and s0 = 8 m + px, so its word, (s >> 1) & 3, is q. */
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int q = 0; q < 4; ++q) own[q] = ising_decide(r, own[q], 2 * own[q] * h[q], u.v[q]);
  ising_store4(spin + at, own);
}

/* The initial spin and coupling byte of one position of local plane l (couplings only for
 * l in 1..n). */
static inline KIT_HD void ising_fill_site(const ising_rules *r, const ising_block *b, int8_t *spin,
                                          uint8_t *coupling, int l, int part, int k, int row, int i) {
  int x, y, z;
  ising_coords(b, ising_global_plane(b, l), part, row, i, &x, &y, &z);
  const size_t at = ising_part_offset(b, l, part) + (size_t)k * b->part_sites + (size_t)row * b->width + i;
  spin[at] = ising_initial_spin(r, k, ising_site(r, x, y, z));
  if (l >= 1 && l <= b->n) coupling[at - b->plane_stride] = ising_coupling_byte(r, k, x, y, z);
}
#endif
