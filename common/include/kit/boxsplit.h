/* kit/boxsplit.h: a process-grid box split for overlap (Sourouri Paper II Listing 1 and Risso
 * Sec. 4.3, in 3D): the cells a neighbour needs are computed first and sent while the rest
 * is computed. A box of n[0] x n[1] x n[2] cells, local indices 1..n along each axis, has a
 * neighbour rank beyond face f = 2a + s (axis a = 0, 1, 2 for x, y, z; s = 0 below, 1 above)
 * where side[f] is nonzero. The outer layer is every cell next to such a face; the inner box
 * [in_lo, in_hi) the rest (empty along an axis of one cell with neighbours on both sides).
 * The layer is cut into six disjoint boxes [lo[f], hi[f]), one per face, empty where side[f]
 * is 0, taken axis by axis in `order`: the first axis's two parts are whole along the other
 * axes, the second's lie within the first's inner range, the third's within both others'
 * (laplace: z, y, x, whole planes then rows then columns; lbm: x, y, z). With the inner box
 * they partition the box's cells, so sweeping them all computes every cell once. Plain C,
 * no dependencies: lbm's box.h, which CUDA code includes, names the struct. */
#ifndef KIT_BOXSPLIT_H
#define KIT_BOXSPLIT_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct kit_box_split {
  int lo[6][3], hi[6][3]; /* the layer's part beside face f, local and half-open per axis */
  int in_lo[3], in_hi[3]; /* the inner box */
} kit_box_split;

/* The split of a box of n[3] cells with neighbours beyond the faces where side[f] is nonzero,
 * its layer cut in the axis order order[3] (a permutation of 0, 1, 2). */
kit_box_split kit_box_split_make(const int n[3], const int side[6], const int order[3]);

#ifdef __cplusplus
}
#endif
#endif
