/* ising.h: 3D Edwards-Anderson spin glass, Metropolis dynamics, checkerboard and sliced
 * layouts over a z-decomposition. Bernaschi et al. Sec. 3.1, Figs. 3-5
 * (`../shared/seeds/000_f40b0347fa5f33fd.txt`); the sliced layout after Lulli, Bernaschi,
 * Parisi, CPC 2015 (arXiv 1411.0127). Parameters, the block geometry every variant shares,
 * and the variant contract (the same contract as laplace.h). See README.md here. */
#ifndef ISING_H
#define ISING_H
#include <stddef.h>
#include <stdint.h>

#include "kit/app.h"
#include "kit/halo.h"
#include "kit/options.h"
#include "kit/runtime.h"
#include "lattice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every problem parameter, with the common run flags (run.iters: Metropolis sweeps). */
typedef struct ising_params {
  kit_run run;
  int size[3];        /* LX, LY, LZ (--size), every side even */
  double p;           /* probability of an antiferromagnetic bond J = -1 (--p) */
  double temp;        /* temperature T (--temp) */
  int samples;        /* independent disorder samples run together (--samples) */
  const char *layout; /* "sliced", "checkerboard" or "msc" (--layout) */
  const char *init;   /* "random" or "up" (--init) */
  int mattis;         /* couplings J_ij = e_i e_j (--mattis) */
  int p_given;        /* --p appeared (refused with --mattis) */
  const char *dump;   /* --dump FILE: final spins as int8, x fastest, sample after sample */
  const char *comm;   /* naive, two-stream: how plane parts move between processes (--comm, kit/exchange.h) */
  double w[3];        /* exp(-dE/T) for dE = 4, 8, 12, computed once on the host */
  /* --restart: the spins of every sample in logical order (the checkpoint's field, on every
   * rank) instead of --init, and the sweep they were taken after. */
  const int8_t *restart;
  int start_sweep;
} ising_params;

/* The slab of global planes [k0, k0 + n); sizes must already be valid for the layout. */
ising_block ising_block_make(const ising_params *p, int k0, int n);
/* The plain values a kernel needs (lattice.h). */
ising_rules ising_rules_of(const ising_params *p);
int ising_layout_of(const char *name);
/* --layout msc: the sliced layout's geometry, stored one bit per spin on the GPU
 * (sliced_bits.h); the host side (fetch, verification, --dump) sees the sliced bytes. */
int ising_msc(const ising_params *p);
/* Bytes of a message: a plane part, an eighth of it with --layout msc (a slice as bits). */
size_t ising_message_bytes(const ising_params *p, const ising_block *b);
/* Planes of the whole lattice along the decomposition direction, and the unit a rank's
 * share is counted in (sliced slabs hold whole pairs of slices, so each boundary is
 * one-coloured and every half-sweep exchanges one way: Bernaschi Fig. 5). */
int ising_global_planes(const ising_params *p);
int ising_plane_granule(const ising_params *p);

/* Initial spins of local planes 0..n+1 (ghosts from global indices, so no exchange is
 * needed before the first sweep; from p->restart when restarting) and couplings of planes
 * 1..n, with `threads` threads. */
void ising_fill(const ising_params *p, const ising_block *b, int8_t *spin, uint8_t *coupling, int threads);
/* One half-sweep of colour c over the given local planes with `threads` OpenMP threads;
 * `sweep` is the global sweep index t. */
void ising_sweep_host(const ising_params *p, const ising_block *b, int8_t *spin, const uint8_t *coupling,
                      int colour, uint32_t sweep, ising_planes planes, int threads);

/* --layout msc on the host (sliced_bits.h: the GPU kernel's own per-thread code, one thread a
 * word): the slab's spins as bits (local planes 0..n+1) and its six coupling bit planes
 * (planes 1..n) from the initial state, one half-sweep over the given planes, and the
 * interior back to bytes (n * plane_stride). */
void ising_bits_fill_host(const ising_params *p, const ising_block *b, uint32_t *sbits, uint32_t *jbits,
                          int threads);
/* The byte layout's spins (planes 0..n+1) and couplings (planes 1..n) as bits. */
void ising_bits_pack_host(const ising_block *b, const int8_t *spin, const uint8_t *coupling, uint32_t *sbits,
                          uint32_t *jbits, int threads);
void ising_bits_sweep_host(const ising_params *p, const ising_block *b, uint32_t *sbits,
                           const uint32_t *jbits, int colour, uint32_t sweep, ising_planes planes,
                           int threads);
void ising_bits_unpack_host(const ising_block *b, const uint32_t *sbits, int8_t *interior, int threads);

/* A half-sweep of colour c: the planes whose changed part a neighbour needs (boundary,
 * updated first), the rest (bulk), and the exchange after it: which local plane goes to /
 * comes from each side (-1: nothing on that side), always part `part` of that plane. */
typedef struct ising_plan {
  ising_planes boundary, bulk;
  int send_plane[2], recv_plane[2], part;
} ising_plan;
ising_plan ising_make_plan(const ising_block *b, int colour);

/* The slab's interior (local planes 1..n) in logical order per plane of every sample is not
 * contiguous, so variants return it in layout order; this converts a whole lattice in layout
 * order (nplanes planes, as gathered) into logical order: sample after sample, site index
 * s = x + LX (y + LY z). */
void ising_layout_to_logical(const ising_block *whole, const int8_t *layout, int8_t *logical);

/* What a variant gets from kit_main (main.c's context hook). */
typedef struct ising_ctx {
  const ising_params *p;
  const kit_env *env;
  ising_block blk;
  int nbr[2]; /* ranks below and above (periodic: never MPI_PROC_NULL) */
  int gpus;
  double cpu_fraction;
} ising_ctx;

/* The variant contract is the kit's (kit/app.h): setup gets a const ising_ctx *, fetch fills
 * this rank's interior (local planes 1..n, n * plane_stride bytes, layout order); kit_main
 * owns timing, verification and reporting, a variant its memory, streams and threads. */
typedef kit_variant ising_variant;

/* The variants whose exchange between processes goes through kit/exchange.h (--comm); hybrid
 * and multi-thread keep their own host-staged exchange. */
#define ISING_COMM_VARIANTS "naive|two-stream"

/* Most GPUs (sub-slabs) one multi-thread process drives. */
#define ISING_MT_MAX_GPUS 16

extern const ising_variant ising_cpu;
extern const ising_variant ising_naive;
extern const ising_variant ising_two_stream;
extern const ising_variant ising_multi_thread;
extern const ising_variant ising_hybrid;

/* checkpoint.c: --checkpoint and --restart (kit/checkpoint.h holds the file format): the
 * problem parameters a checkpoint belongs to (returns how many), the write on rank 0 of the
 * gathered logical lattice after sweep `sweep`, and the read of the whole lattice on rank 0,
 * broadcast to every rank (the caller frees it). */
int ising_checkpoint_ident(const ising_params *p, double *ident);
void ising_checkpoint_save(const ising_params *p, const kit_env *env, const int8_t *logical, int sweep);
int8_t *ising_restart_load(const ising_params *p, const kit_env *env);

/* reference.c: the serial oracle on the logical lattice (no layout, no decomposition).
 * Runs run.iters sweeps from the initial state of p, writes the final spins in logical order
 * (samples one after another) and, for each sample, the energy after every sweep into
 * energy[k * (iters + 1) + t] (t = 0: initial). `ferro_gauge`: run the ferromagnet (J = +1)
 * from the gauge-transformed start e_i s_i instead (the Mattis check). Returns the largest
 * difference between the energy tracked incrementally and recomputed from scratch. */
long long ising_reference(const ising_params *p, int ferro_gauge, int8_t *spins, long long *energy,
                          int threads);
/* Energy sum -sum_bonds J s_i s_j and magnetisation sum s_i of one sample in logical order. */
long long ising_energy(const ising_params *p, int sample, const int8_t *spins);
long long ising_magnetisation(const ising_params *p, const int8_t *spins);

#ifdef __cplusplus
}
#endif
#endif
