/* kit/slab.h: 1D block decomposition (z-slabs) and the hybrid CPU/GPU split.
 * Paper II decomposes along z because an xy-plane is contiguous in memory, so a halo
 * plane travels without packing. */
#ifndef KIT_SLAB_H
#define KIT_SLAB_H
#ifdef __cplusplus
extern "C" {
#endif
typedef struct kit_block {
  int begin, count;
} kit_block;
/* Part `part` of n items split over `parts` as evenly as possible: the first n % parts
 * parts get one item more. Items are numbered from 0. */
kit_block kit_block_split(int n, int parts, int part);
/* Planes of an n-plane slab that the CPU takes for CPU fraction f in [0,1): round(f*n),
 * capped so the GPU keeps at least one plane. */
int kit_cpu_planes(int n, double f);
#ifdef __cplusplus
}
#endif
#endif
