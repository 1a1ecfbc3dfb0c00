/* fake_kernels.c: host versions of the ising kernels (miniapps/ising/kernels.h), for the
 * fake-GPU test binary (tests/fakegpu/fake_cuda.c). Each launcher queues its work on the
 * stream; the work runs when the stream is forced, like a kernel. Each runs its kernel's
 * threads one after another over the same index space and calls the same per-thread function
 * (lattice.h, sliced_groups.h, sliced_bits.h): the threads of one half-sweep write disjoint
 * sites (or disjoint bytes of a word) and read only the other colour, so their order does not
 * matter. Every array is checked against its device allocation (fk_extent), so the GPU
 * variants' host code runs on a machine without a GPU. Test code only. */
#include <stdlib.h>

#include "fake_gpu.h"
#include "kernels.h"
#include "sliced_bits.h"
#include "sliced_groups.h"

/* The kernels' block size: a launch's shape (ising_bits_shape_of) depends on it. */
enum { kThreads = 256 };

/* The byte layout: spins of planes 0..n+1, couplings of planes 1..n. */
static void need_layout(const ising_block *b, const void *spin, const void *coupling) {
  fk_need_bytes(spin, (size_t)(b->n + 2) * b->plane_stride, "ising spins");
  if (coupling) fk_need_bytes(coupling, (size_t)b->n * b->plane_stride, "ising couplings");
}

typedef struct {
  ising_block b;
  ising_rules r;
  int8_t *spin;
  uint8_t *coupling;
} fill_arg;
static void fill_run(void *p) {
  fill_arg *a = p;
  const ising_block *b = &a->b;
  need_layout(b, a->spin, a->coupling);
  const size_t per_part = (size_t)b->samples * b->part_sites;
  const size_t total = per_part * b->parts * (size_t)(b->n + 2);
  for (size_t idx = 0; idx < total; ++idx) { /* ising_fill_kernel's index */
    const size_t plane_part = idx / per_part, rem = idx % per_part;
    const int l = (int)(plane_part / b->parts), part = (int)(plane_part % b->parts);
    const int k = (int)(rem / b->part_sites);
    const size_t pos = rem % b->part_sites;
    ising_fill_site(&a->r, b, a->spin, a->coupling, l, part, k, (int)(pos / b->width), (int)(pos % b->width));
  }
}
void launch_ising_fill(const ising_block *b, const ising_rules *r, int8_t *spin, uint8_t *coupling,
                       cudaStream_t stream) {
  FK_ARG(fill_arg);
  *a = (fill_arg){*b, *r, spin, coupling};
  const void *touch[] = {spin, coupling};
  fk_enqueue(stream, "ising_fill", fill_run, a, touch, 2);
}

typedef struct {
  ising_block b;
  ising_rules r;
  int8_t *spin;
  const uint8_t *coupling;
  int colour;
  uint32_t t;
  ising_planes pl;
} sweep_arg;
static void sweep_run(void *p) {
  sweep_arg *a = p;
  const ising_block *b = &a->b;
  need_layout(b, a->spin, a->coupling);
  const int samples = b->samples;
  if (ising_grouped(b, a->pl)) { /* ising_half_sweep_sliced_kernel */
    const ising_octet_plan dv = ising_octet_plan_of(b, a->pl);
    const uint32_t pks = (uint32_t)ising_octet_bases(a->pl) * (uint32_t)samples;
    for (uint32_t unit = 0; unit < (uint32_t)(b->part_sites / 8); ++unit)
      for (uint32_t p0 = 0; p0 < pks; p0 += ISING_OCTET_BASES)
        ising_octet_thread(&a->r, b, &dv, a->spin, a->coupling, a->pl, a->colour, a->t, p0, unit);
    return;
  }
  const int quads = ising_quads(b), units = quads ? b->width / 4 : b->width;
  for (int pk = 0; pk < a->pl.count * samples; ++pk) {
    const int plane = pk / samples, k = pk - plane * samples, l = a->pl.first + plane * a->pl.step;
    for (int row = 0; row < b->rows; ++row)
      for (int u = 0; u < units; ++u)
        if (quads) /* ising_half_sweep_quad_kernel */
          ising_update_quad(&a->r, b, a->spin, a->coupling, a->colour, a->t, l, k, row, u);
        else /* ising_half_sweep_kernel */
          ising_update_site(&a->r, b, a->spin, a->coupling, a->colour, a->t, l, k, row, u);
  }
}
void launch_ising_half_sweep(const ising_block *b, const ising_rules *r, int8_t *spin,
                             const uint8_t *coupling, int colour, uint32_t t, ising_planes planes,
                             cudaStream_t stream) {
  if (planes.count <= 0) return;
  FK_ARG(sweep_arg);
  *a = (sweep_arg){*b, *r, spin, coupling, colour, t, planes};
  const void *touch[] = {spin, coupling};
  fk_enqueue(stream, "ising_half_sweep", sweep_run, a, touch, 2);
}

/* --layout msc. */
typedef struct {
  ising_block b;
  const int8_t *spin;
  const uint8_t *coupling;
  int8_t *spin_out;
  uint32_t *sbits, *jbits;
  const uint32_t *sbits_in;
} bits_arg;
static void pack_run(void *p) {
  bits_arg *a = p;
  const ising_block *b = &a->b;
  const size_t pw = ising_bits_plane_words(b), total = (size_t)(b->n + 2) * pw;
  need_layout(b, a->spin, a->coupling);
  fk_need_bytes(a->sbits, total * sizeof(uint32_t), "ising sbits");
  fk_need_bytes(a->jbits, (size_t)6 * b->n * pw * sizeof(uint32_t), "ising jbits");
  for (size_t w = 0; w < total; ++w) { /* ising_bits_pack_kernel */
    a->sbits[w] = ising_bits_pack_spins(a->spin, w);
    if (w < (size_t)b->n * pw) ising_bits_pack_couplings(b, a->coupling, a->jbits, w);
  }
}
void launch_ising_bits_pack(const ising_block *b, const int8_t *spin, const uint8_t *coupling,
                            uint32_t *sbits, uint32_t *jbits, cudaStream_t stream) {
  FK_ARG(bits_arg);
  *a = (bits_arg){.b = *b, .spin = spin, .coupling = coupling, .sbits = sbits, .jbits = jbits};
  const void *touch[] = {spin, coupling, sbits, jbits};
  fk_enqueue(stream, "ising_bits_pack", pack_run, a, touch, 4);
}
static void unpack_run(void *p) {
  bits_arg *a = p;
  const ising_block *b = &a->b;
  const size_t pw = ising_bits_plane_words(b), total = (size_t)b->n * pw;
  fk_need_bytes(a->sbits_in, (total + 2 * pw) * sizeof(uint32_t), "ising sbits");
  fk_need_bytes(a->spin_out, total * 32, "ising unpacked spins");
  for (size_t w = 0; w < total; ++w) /* ising_bits_unpack_kernel */
    ising_bits_unpack_spins(a->sbits_in[pw + w], a->spin_out + 32 * w);
}
void launch_ising_bits_unpack(const ising_block *b, const uint32_t *sbits, int8_t *spin,
                              cudaStream_t stream) {
  FK_ARG(bits_arg);
  *a = (bits_arg){.b = *b, .spin_out = spin, .sbits_in = sbits};
  const void *touch[] = {sbits, spin};
  fk_enqueue(stream, "ising_bits_unpack", unpack_run, a, touch, 2);
}

/* A fixed occupancy (no device to ask): the shapes it leads to are ones a GPU could choose. */
void ising_bits_slots(int slots[3]) {
  slots[0] = slots[1] = slots[2] = 1056;
}

typedef struct {
  ising_block b;
  ising_rules r;
  uint32_t *sbits;
  const uint32_t *jbits;
  int colour;
  uint32_t t;
  ising_planes pl;
  ising_bits_shape sh;
} bsweep_arg;
static void bsweep_run(void *p) {
  bsweep_arg *a = p;
  const ising_block *b = &a->b;
  const size_t pw = ising_bits_plane_words(b);
  fk_need_bytes(a->sbits, (size_t)(b->n + 2) * pw * sizeof(uint32_t), "ising sbits");
  fk_need_bytes(a->jbits, (size_t)6 * b->n * pw * sizeof(uint32_t), "ising jbits");
  const ising_bits_plan dv = ising_bits_plan_of(b, a->pl, a->sh.run);
  const int P = a->sh.parts, runs = ising_bits_runs(a->pl, a->sh.run);
  for (int run = 0; run < runs; ++run) /* ising_bits_half_sweep_kernel<P> */
    for (uint32_t idx = 0; idx < (uint32_t)pw * (uint32_t)P; ++idx)
      ising_bits_thread(&a->r, b, &dv, a->sbits, a->jbits, a->pl, a->colour, a->t, idx / (uint32_t)P,
                        (int)(idx % (uint32_t)P), P, run);
}
void launch_ising_bits_half_sweep(const ising_block *b, const ising_rules *r, uint32_t *sbits,
                                  const uint32_t *jbits, int colour, uint32_t t, ising_planes planes,
                                  const int slots[3], int parts, int run, cudaStream_t stream) {
  if (planes.count <= 0) return;
  ising_bits_shape sh =
      ising_bits_shape_of((long long)ising_bits_plane_words(b), planes.count, slots, kThreads);
  if (parts) sh.parts = parts;
  if (run) sh.run = run;
  FK_ARG(bsweep_arg);
  *a = (bsweep_arg){*b, *r, sbits, jbits, colour, t, planes, sh};
  const void *touch[] = {sbits, jbits};
  fk_enqueue(stream, "ising_bits_half_sweep", bsweep_run, a, touch, 2);
}
