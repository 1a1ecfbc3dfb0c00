/* lattice.c: the two layouts on the host. Block geometry, the initial state, the host
 * half-sweep, the half-sweep plans (which planes are boundary, what travels) and the
 * conversion back to logical order. The per-site work is lattice.h's, shared with the GPU
 * kernels. Bernaschi et al. Sec. 3.1 and Fig. 5. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ising.h"
#include "kit/check.h"
#include "sliced_bits.h"

static int gcd(int a, int b) {
  while (b) {
    const int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int ising_layout_of(const char *name) {
  return strcmp(name, "checkerboard") == 0 ? ISING_CHECKERBOARD : ISING_SLICED;
}

int ising_msc(const ising_params *p) {
  return strcmp(p->layout, "msc") == 0;
}

size_t ising_message_bytes(const ising_params *p, const ising_block *b) {
  return ising_msc(p) ? b->part_stride / 8 : b->part_stride;
}

int ising_global_planes(const ising_params *p) {
  return ising_layout_of(p->layout) == ISING_SLICED ? gcd(gcd(p->size[0], p->size[1]), p->size[2])
                                                    : p->size[2];
}

int ising_plane_granule(const ising_params *p) {
  return ising_layout_of(p->layout) == ISING_SLICED ? 2 : 1;
}

ising_block ising_block_make(const ising_params *p, int k0, int n) {
  ising_block b;
  memset(&b, 0, sizeof b);
  b.layout = ising_layout_of(p->layout);
  for (int d = 0; d < 3; ++d) b.L[d] = p->size[d];
  b.m = gcd(gcd(b.L[0], b.L[1]), b.L[2]);
  b.nplanes = ising_global_planes(p);
  b.k0 = k0;
  b.n = n;
  b.samples = p->samples;
  if (b.layout == ISING_SLICED) {
    b.parts = 1;
    b.rows = b.L[1] * (b.L[2] / b.m);
    b.width = b.L[0];
  } else {
    b.parts = 2;
    b.rows = b.L[1];
    b.width = b.L[0] / 2;
  }
  b.part_sites = (size_t)b.rows * b.width;
  b.part_stride = b.part_sites * b.samples;
  b.plane_stride = b.part_stride * b.parts;
  return b;
}

ising_rules ising_rules_of(const ising_params *p) {
  ising_rules r;
  memset(&r, 0, sizeof r);
  for (int d = 0; d < 3; ++d) r.L[d] = p->size[d];
  r.seed = (uint32_t)(p->run.seed & 0xffffffffu);
  r.p = p->p;
  r.mattis = p->mattis;
  r.init_up = strcmp(p->init, "up") == 0;
  for (int i = 0; i < 3; ++i) {
    r.w[i] = p->w[i];
    const double thr = ceil(p->w[i] * 4294967296.0);
    if (!(thr >= 0 && thr < 4294967296.0))
      kit_die(KIT_EXIT_USAGE, __FILE__, __LINE__,
              "exp(-dE/T) = %g has no 32-bit threshold (temperature too high)", p->w[i]);
    r.thr[i] = (uint32_t)thr;
  }
  return r;
}

void ising_fill(const ising_params *p, const ising_block *b, int8_t *spin, uint8_t *coupling, int threads) {
  const ising_rules r = ising_rules_of(p);
#pragma omp parallel for collapse(4) num_threads(threads) schedule(static)
  for (int l = 0; l < b->n + 2; ++l)
    for (int part = 0; part < b->parts; ++part)
      for (int k = 0; k < b->samples; ++k)
        for (int row = 0; row < b->rows; ++row)
          for (int i = 0; i < b->width; ++i) ising_fill_site(&r, b, spin, coupling, l, part, k, row, i);
  if (!p->restart) return;
  /* Restart: the spins come from the checkpoint, ghosts included; couplings as always. */
  const size_t N = (size_t)b->L[0] * b->L[1] * b->L[2];
#pragma omp parallel for collapse(4) num_threads(threads) schedule(static)
  for (int l = 0; l < b->n + 2; ++l)
    for (int part = 0; part < b->parts; ++part)
      for (int k = 0; k < b->samples; ++k)
        for (int row = 0; row < b->rows; ++row)
          for (int i = 0; i < b->width; ++i) {
            int x, y, z;
            ising_coords(b, ising_global_plane(b, l), part, row, i, &x, &y, &z);
            spin[ising_part_offset(b, l, part) + (size_t)k * b->part_sites + (size_t)row * b->width + i] =
                p->restart[(size_t)k * N + (size_t)x + (size_t)b->L[0] * (y + (size_t)b->L[1] * z)];
          }
}

void ising_sweep_host(const ising_params *p, const ising_block *b, int8_t *spin, const uint8_t *coupling,
                      int colour, uint32_t sweep, ising_planes planes, int threads) {
  const ising_rules r = ising_rules_of(p);
  const int quads = ising_quads(b);
  /* Sites of one colour are independent: any thread may take any row. */
#pragma omp parallel for collapse(3) num_threads(threads) schedule(static)
  for (int j = 0; j < planes.count; ++j)
    for (int k = 0; k < b->samples; ++k)
      for (int row = 0; row < b->rows; ++row) {
        const int l = planes.first + j * planes.step;
        if (quads) {
          for (int q = 0; q < b->width / 4; ++q)
            ising_update_quad(&r, b, spin, coupling, colour, sweep, l, k, row, q);
        } else {
          for (int i = 0; i < b->width; ++i)
            ising_update_site(&r, b, spin, coupling, colour, sweep, l, k, row, i);
        }
      }
}

void ising_bits_fill_host(const ising_params *p, const ising_block *b, uint32_t *sbits, uint32_t *jbits,
                          int threads) {
  /* Built in bytes by the functions every layout uses, then packed, as on the GPU. */
  int8_t *spin = kit_malloc((size_t)(b->n + 2) * b->plane_stride, "msc fill spins");
  uint8_t *coupling = kit_malloc((size_t)b->n * b->plane_stride, "msc fill couplings");
  ising_fill(p, b, spin, coupling, threads);
  ising_bits_pack_host(b, spin, coupling, sbits, jbits, threads);
  free(spin);
  free(coupling);
}

void ising_bits_pack_host(const ising_block *b, const int8_t *spin, const uint8_t *coupling, uint32_t *sbits,
                          uint32_t *jbits, int threads) {
  const long long pw = (long long)ising_bits_plane_words(b), all = (b->n + 2) * pw, inner = b->n * pw;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long long w = 0; w < all; ++w) {
    sbits[w] = ising_bits_pack_spins(spin, (size_t)w);
    if (w < inner) ising_bits_pack_couplings(b, coupling, jbits, (size_t)w);
  }
}

void ising_bits_sweep_host(const ising_params *p, const ising_block *b, uint32_t *sbits,
                           const uint32_t *jbits, int colour, uint32_t sweep, ising_planes planes,
                           int threads) {
  if (planes.count <= 0) return;
  const ising_rules r = ising_rules_of(p);
  const long long words = (long long)ising_bits_plane_words(b);
  /* As few runs as give every thread a few words (a run's first three bases repeat the
   * previous run's draws); contiguous chunks of words per thread, so no two threads write
   * one cache line but at a chunk's edge. */
  long long runs = (8LL * threads + words - 1) / words;
  if (runs > planes.count) runs = planes.count;
  const int run = (int)((planes.count + runs - 1) / runs);
  const ising_bits_plan dv = ising_bits_plan_of(b, planes, run);
  const long long n = (long long)ising_bits_runs(planes, run) * words;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long long i = 0; i < n; ++i)
    ising_bits_thread(&r, b, &dv, sbits, jbits, planes, colour, sweep, (uint32_t)(i % words), 0, 1,
                      (int)(i / words));
}

void ising_bits_unpack_host(const ising_block *b, const uint32_t *sbits, int8_t *interior, int threads) {
  const long long pw = (long long)ising_bits_plane_words(b), inner = b->n * pw;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long long w = 0; w < inner; ++w) ising_bits_unpack_spins(sbits[pw + w], interior + 32 * w);
}

ising_plan ising_make_plan(const ising_block *b, int colour) {
  ising_plan plan;
  memset(&plan, 0, sizeof plan);
  const int n = b->n;
  if (b->layout == ISING_CHECKERBOARD) {
    /* Every z-plane has both colours: both boundary planes change and both travel,
     * two messages per half-sweep (Bernaschi Fig. 5, left). */
    plan.boundary = (ising_planes){1, n > 1 ? 2 : 1, n > 1 ? n - 1 : 1};
    plan.bulk = (ising_planes){2, n > 2 ? n - 2 : 0, 1};
    plan.send_plane[KIT_DOWN] = 1;
    plan.send_plane[KIT_UP] = n;
    plan.recv_plane[KIT_DOWN] = 0;
    plan.recv_plane[KIT_UP] = n + 1;
    plan.part = colour;
  } else {
    /* The slab starts on an even slice and holds whole pairs, so local plane l has colour
     * (l - 1) mod 2. Colour 0 changes the bottom slice, which only the rank below needs;
     * colour 1 the top slice, which only the rank above needs: one message per half-sweep
     * (Bernaschi Fig. 5, right). */
    if (colour == 0) {
      plan.boundary = (ising_planes){1, 1, 1};
      plan.bulk = (ising_planes){3, n / 2 - 1, 2};
    } else {
      plan.boundary = (ising_planes){n, 1, 1};
      plan.bulk = (ising_planes){2, n / 2 - 1, 2};
    }
    plan.send_plane[KIT_DOWN] = colour == 0 ? 1 : -1;
    plan.send_plane[KIT_UP] = colour == 0 ? -1 : n;
    plan.recv_plane[KIT_DOWN] = colour == 0 ? -1 : 0;
    plan.recv_plane[KIT_UP] = colour == 0 ? n + 1 : -1;
    plan.part = 0;
  }
  return plan;
}

void ising_layout_to_logical(const ising_block *b, const int8_t *layout, int8_t *logical) {
  const size_t N = (size_t)b->L[0] * b->L[1] * b->L[2];
  for (int g = 0; g < b->nplanes; ++g)
    for (int part = 0; part < b->parts; ++part)
      for (int k = 0; k < b->samples; ++k)
        for (int row = 0; row < b->rows; ++row)
          for (int i = 0; i < b->width; ++i) {
            int x, y, z;
            ising_coords(b, g, part, row, i, &x, &y, &z);
            const size_t from = (size_t)g * b->plane_stride + (size_t)part * b->part_stride +
                                (size_t)k * b->part_sites + (size_t)row * b->width + i;
            logical[(size_t)k * N + (size_t)x + (size_t)b->L[0] * (y + (size_t)b->L[1] * z)] = layout[from];
          }
}
