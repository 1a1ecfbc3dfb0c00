/* bitmap.h: frontier bitmaps and their conversion to and from vertex lists, written once for
 * the host and CUDA code (KIT_HD). Bernaschi et al. Sec. 3.3: when a list of 32-bit vertex
 * indices would be longer in bits than the receiver's vertex range, send a bitmap instead.
 * Bit k of word w stands for vertex 32*w + k of the range (vertex v: word v/32, bit v%32).
 * The GPU pack sets bits with atomicOr, one thread per list element; the GPU unpack (their
 * Algorithm 1) first takes an exclusive scan of per-word popcounts, so each word knows where
 * its vertices go, then writes them in increasing order. The host functions below do the
 * same two steps serially; bfs_bitmap_unpack_word is the per-word body both share. */
#ifndef BFS_BITMAP_H
#define BFS_BITMAP_H
#include <stddef.h>
#include <stdint.h>

#include "kit/hd.h"

/* Words for n bits. */
static inline KIT_HD int64_t bfs_bitmap_words(int64_t nbits) {
  return (nbits + 31) >> 5;
}

/* Set bits in one word (the popcount the unpack scan adds up). */
static inline KIT_HD int bfs_popc32(uint32_t w) {
#if defined(__CUDA_ARCH__)
  return __popc(w);
#else
  return __builtin_popcount(w);
#endif
}

static inline KIT_HD int bfs_bit_get(const uint32_t *bmap, int64_t v) {
  return (int)((bmap[v >> 5] >> (v & 31)) & 1u);
}

/* Non-atomic set: one writer per word (host pack, or a GPU thread per word). */
static inline KIT_HD void bfs_bit_set(uint32_t *bmap, int64_t v) {
  bmap[v >> 5] |= 1u << (v & 31);
}

/* Writes the vertices of word `w` (word index `wi`) to out[0..popc(w)) in increasing order and
 * returns how many. The body of Algorithm 1 for one word, one "lane" per set bit. */
static inline KIT_HD int bfs_bitmap_unpack_word(uint32_t w, int64_t wi, uint32_t *out) {
  int k = 0;
  while (w) {
#if defined(__CUDA_ARCH__)
    const int bit = __ffs(w) - 1;
#else
    const int bit = __builtin_ctz(w);
#endif
    out[k++] = (uint32_t)((wi << 5) + bit);
    w &= w - 1; /* clear the lowest set bit */
  }
  return k;
}

/* Pack: sets the bit of every listed vertex (all < 32*nwords) in a zeroed bitmap. Duplicates
 * are harmless. */
static inline KIT_HD void bfs_bitmap_pack(const uint32_t *list, int64_t n, uint32_t *bmap) {
  for (int64_t k = 0; k < n; ++k) bfs_bit_set(bmap, list[k]);
}

/* Unpack: the set bits of bmap[0..nwords) as increasing vertex indices in out (room for every
 * set bit); returns their number. The exclusive scan of popcounts gives each word its start. */
static inline KIT_HD int64_t bfs_bitmap_unpack(const uint32_t *bmap, int64_t nwords, uint32_t *out) {
  int64_t offset = 0; /* exclusive scan of the popcounts, carried word by word */
  for (int64_t wi = 0; wi < nwords; ++wi) {
    if (bmap[wi]) bfs_bitmap_unpack_word(bmap[wi], wi, out + offset);
    offset += bfs_popc32(bmap[wi]);
  }
  return offset;
}

/* Set bits in bmap[0..nwords). */
static inline KIT_HD int64_t bfs_bitmap_count(const uint32_t *bmap, int64_t nwords) {
  int64_t c = 0;
  for (int64_t wi = 0; wi < nwords; ++wi) c += bfs_popc32(bmap[wi]);
  return c;
}
#endif
