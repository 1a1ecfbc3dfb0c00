/* gpu_block.c: device memory of an ising slab (gpu_block.h). */
#include "gpu_block.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "kit/check.h"
#include "sliced_bits.h"

/* A positive integer from the environment, 0 if unset; anything else is refused. */
static int env_positive(const char *name) {
  const char *e = getenv(name);
  if (!e || !*e) return 0;
  char *end = NULL;
  const long v = strtol(e, &end, 10);
  if (*end || v <= 0 || v > 1 << 20)
    kit_die(KIT_EXIT_USAGE, __FILE__, __LINE__, "%s='%s': not a positive integer", name, e);
  return (int)v;
}

void ising_dev_block_init(ising_dev_block *d, const ising_params *p, const ising_block *b, int device) {
  memset(d, 0, sizeof *d);
  d->blk = *b;
  d->rules = ising_rules_of(p);
  d->p = p;
  d->device = device;
  d->bits = ising_msc(p);
  KIT_CUDA_CHECK(cudaSetDevice(device));
  if (d->bits) {
    const size_t words = ising_bits_plane_words(b);
    KIT_CUDA_CHECK(cudaMalloc((void **)&d->sbits, (size_t)(b->n + 2) * words * sizeof(uint32_t)));
    KIT_CUDA_CHECK(cudaMalloc((void **)&d->jbits, (size_t)6 * b->n * words * sizeof(uint32_t)));
    ising_bits_slots(d->bits_slots);
    d->bits_parts = env_positive("ISING_BITS_PARTS");
    d->bits_run = env_positive("ISING_BITS_RUN");
    if (d->bits_parts && d->bits_parts != 1 && d->bits_parts != 2 && d->bits_parts != 4)
      kit_die(KIT_EXIT_USAGE, __FILE__, __LINE__, "ISING_BITS_PARTS=%d: threads a word must be 1, 2 or 4",
              d->bits_parts);
  } else {
    KIT_CUDA_CHECK(cudaMalloc((void **)&d->spin, (size_t)(b->n + 2) * b->plane_stride));
    KIT_CUDA_CHECK(cudaMalloc((void **)&d->coupling, (size_t)b->n * b->plane_stride));
  }
  ising_dev_block_reset(d);
}

void ising_dev_half_sweep(const ising_dev_block *d, int colour, uint32_t t, ising_planes planes,
                          cudaStream_t stream) {
  if (d->bits)
    launch_ising_bits_half_sweep(&d->blk, &d->rules, d->sbits, d->jbits, colour, t, planes, d->bits_slots,
                                 d->bits_parts, d->bits_run, stream);
  else
    launch_ising_half_sweep(&d->blk, &d->rules, d->spin, d->coupling, colour, t, planes, stream);
}

/* The initial state in bytes (spin, coupling: device arrays of the byte layout's size). */
static void fill_bytes(ising_dev_block *d, int8_t *spin, uint8_t *coupling) {
  if (d->p->restart) {
    /* The checkpoint's spins are on the host: build the state there, as the cpu variant
     * does, and copy it over. */
    const size_t spins = (size_t)(d->blk.n + 2) * d->blk.plane_stride,
                 bonds = (size_t)d->blk.n * d->blk.plane_stride;
    int8_t *hs = kit_malloc(spins, "restart spins");
    uint8_t *hc = kit_malloc(bonds, "restart couplings");
    ising_fill(d->p, &d->blk, hs, hc, omp_get_max_threads());
    KIT_CUDA_CHECK(cudaMemcpy(spin, hs, spins, cudaMemcpyHostToDevice));
    KIT_CUDA_CHECK(cudaMemcpy(coupling, hc, bonds, cudaMemcpyHostToDevice));
    free(hs);
    free(hc);
  } else {
    launch_ising_fill(&d->blk, &d->rules, spin, coupling, 0);
  }
}

void ising_dev_block_reset(ising_dev_block *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  if (d->bits) {
    /* Built in bytes by the same functions as every layout, then packed. */
    int8_t *spin;
    uint8_t *coupling;
    KIT_CUDA_CHECK(cudaMalloc((void **)&spin, (size_t)(d->blk.n + 2) * d->blk.plane_stride));
    KIT_CUDA_CHECK(cudaMalloc((void **)&coupling, (size_t)d->blk.n * d->blk.plane_stride));
    fill_bytes(d, spin, coupling);
    launch_ising_bits_pack(&d->blk, spin, coupling, d->sbits, d->jbits, 0);
    KIT_CUDA_CHECK(cudaDeviceSynchronize());
    KIT_CUDA_CHECK(cudaFree(spin));
    KIT_CUDA_CHECK(cudaFree(coupling));
  } else {
    fill_bytes(d, d->spin, d->coupling);
  }
  /* Both paths: complete before the variants' non-blocking streams touch the spins. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

void ising_dev_block_fetch(const ising_dev_block *d, int8_t *out) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  const size_t bytes = (size_t)d->blk.n * d->blk.plane_stride;
  if (d->bits) {
    int8_t *spin;
    KIT_CUDA_CHECK(cudaMalloc((void **)&spin, bytes));
    launch_ising_bits_unpack(&d->blk, d->sbits, spin, 0);
    KIT_CUDA_CHECK(cudaMemcpy(out, spin, bytes, cudaMemcpyDeviceToHost));
    KIT_CUDA_CHECK(cudaFree(spin));
  } else {
    KIT_CUDA_CHECK(cudaMemcpy(out, d->spin + d->blk.plane_stride, bytes, cudaMemcpyDeviceToHost));
  }
}

void ising_prime_inboxes(void *const buf[2], size_t bytes) {
  for (int side = 0; side < 2; ++side)
    if (buf[side]) memset(buf[side], 1, bytes);
}

void ising_dev_block_free(ising_dev_block *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  KIT_CUDA_CHECK(cudaFree(d->spin));
  KIT_CUDA_CHECK(cudaFree(d->coupling));
  KIT_CUDA_CHECK(cudaFree(d->sbits));
  KIT_CUDA_CHECK(cudaFree(d->jbits));
}
