/* lbm.h: D3Q19 BGK lattice Boltzmann, 3D lid-driven cavity and plane Poiseuille flow.
 * Risso, MSc thesis (`../shared/seeds/004_1a92fc39482716a2.txt`): the model (Sec. 2.4), the
 * cavity (Sec. 2.5), the exchange of only the populations that cross a face (Sec. 4.2) and
 * the inner/outer split (Sec. 4.3); validation as in Sec. 5.2 and 6.1. Parameters, the block
 * geometry every variant shares, and the variant contract. See README.md in this folder. */
#ifndef LBM_H
#define LBM_H
#include <stddef.h>

#include "box.h"
#include "d3q19.h"
#include "kit/app.h"
#include "kit/halo.h"
#include "kit/options.h"
#include "kit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a GPU variant moves a face's five crossing populations out of the lattice and back
 * (--halo; Risso Sec. 4.2's schemes). The message is the same in both: 5 * nx * ny doubles;
 * how it travels between processes is --comm (kit/exchange.h). */
typedef enum lbm_halo_mode {
  LBM_HALO_COPIES = 0, /* five cudaMemcpyAsync per face into pinned host memory (--comm host only) */
  LBM_HALO_PACK        /* a pack kernel into one device buffer, an unpack kernel out of one */
} lbm_halo_mode;
/* The --halo names, in lbm_halo_mode's order. */
extern const char *const lbm_halo_names[2];
/* The variants whose exchange between processes goes through kit/exchange.h (--comm); hybrid
 * and multi-thread keep their own (README.md, "--comm"). */
#define LBM_COMM_VARIANTS "naive|two-stream"
/* The variants that run any process grid (--procs PxQxR); the others split along z only. */
#define LBM_GRID_VARIANTS "cpu|naive|two-stream"

/* Every problem parameter, with the common run flags. */
typedef struct lbm_params {
  kit_run run;          /* --variant, --iters, --reps, ... */
  int size[3];          /* fluid cells nx, ny, nz (--size) */
  const char *flow;     /* "cavity" or "poiseuille" (--case) */
  double re;            /* Reynolds number U L / nu (--re) */
  double lid_velocity;  /* cavity: lid speed U in +x, lattice units (--lid-velocity) */
  double peak_velocity; /* poiseuille: analytic centre-line speed U (--peak-velocity) */
  const char *init;     /* "rest" (rho 1, u 0) or "random" (Philox perturbation) (--init) */
  double until_steady;  /* > 0: run until max|du| over --check-every steps < TOL * U */
  int check_every;      /* steps between steady-state checks (--check-every) */
  int skip_oracle;      /* --skip-oracle: no bitwise oracle run (long validation runs) */
  const char *dump;     /* --dump FILE: rho, ux, uy, uz per cell, raw little-endian doubles */
  const char *vtk;      /* --vtk FILE: legacy VTK image (ParaView) */
  const char *profile;  /* --profile FILE: centre-line profiles as CSV */
  const char *halo;     /* --halo: naive, two-stream, hybrid's faces (lbm_halo_names) */
  const char *comm;     /* --comm: naive, two-stream: how the faces move between processes */
  /* --restart: the lattice comes from a checkpoint instead of --init: global planes
   * [restart_k0, restart_k0 + restart_nz), each the 19 populations of an xy-plane
   * (population after population, x fastest), or NULL. */
  const double *restart;
  int restart_k0, restart_nz;
  int start_step; /* the checkpoint's step: the run does iters - start_step steps */
  /* --procs PxQxR: ranks along x, y and z (kit/procgrid.h: z fastest). {0, 0, 0} until
   * lbm_check resolves the default, 1x1xN (z-slabs over the N ranks). */
  int procs[3];
  /* Derived by lbm_derive() from the above. */
  double nu;               /* kinematic viscosity U L / Re */
  double tau, omega;       /* relaxation time 3 nu + 1/2 and its inverse */
  double force[3];         /* body force per cell (Poiseuille: 8 nu U / NZ^2 in +x) */
  double lid;              /* wall velocity behind plane NZ (cavity: U; Poiseuille: 0) */
  double u_ref;            /* the velocity scale U */
  int periodic_xy;         /* Poiseuille: x and y periodic */
  lbm_halo_mode halo_mode; /* --halo as an enum */
} lbm_params;

/* 1 on a process grid other than 1x1xN (a box per rank; p->procs unresolved counts as 1x1xN). */
static inline int lbm_on_grid(const lbm_params *p) {
  return p->procs[0] > 1 || p->procs[1] > 1;
}

/* Fill the derived fields of p. */
void lbm_derive(lbm_params *p);

/* Consecutive z-planes [k0, k0 + nz) (global, 1-based) of the lattice, stored with one ghost
 * plane below and one above, as 19 arrays (structure of arrays) of (nz + 2) planes of
 * nx * ny cells, x fastest. Local plane l is global plane k0 - 1 + l. On a process grid other
 * than 1x1xN it names the rank's box instead: columns [i0, i0 + nx), rows [j0, j0 + ny) (0-based)
 * of planes [k0, k0 + nz), which the cpu variant stores as an lbm_box (box.h: ghosts on every
 * side; plane, qs and total below then describe no storage). A slab has i0 = j0 = 0. */
typedef struct lbm_block {
  int nx, ny;   /* cells per row and rows per plane */
  int i0, j0;   /* global index (0-based) of the first column and row: 0 for a slab */
  int k0, nz;   /* first global plane, number of planes */
  size_t plane; /* nx * ny */
  size_t qs;    /* (nz + 2) * plane: doubles per population array */
  size_t total; /* 19 * qs: doubles per lattice */
} lbm_block;

lbm_block lbm_block_make(int nx, int ny, int k0, int nz);
lbm_geom lbm_geom_of(const lbm_params *p, const lbm_block *b);

/* Initial state (equilibrium of the initial rho, u; or the checkpoint's populations) of every
 * plane of b, ghosts included (from global indices, so no exchange is needed before step 1). */
void lbm_fill(const lbm_params *p, const lbm_block *b, double *f);
/* The initial density and velocity of global cell (i, j, k), k 1-based. */
void lbm_initial_cell(const lbm_params *p, int i, int j, int k, double *rho, double *u);
/* One update of local planes [l0, l1) from f into fn, a worksharing loop over the innermost
 * enclosing OpenMP team (serial without one). */
void lbm_update_rows(const lbm_params *p, const lbm_block *b, const double *f, double *fn, int l0, int l1);
/* The same with its own team of `threads` threads. */
void lbm_update_host(const lbm_params *p, const lbm_block *b, const double *f, double *fn, int l0, int l1,
                     int threads);
/* rho, ux, uy, uz of local planes [l0, l1) (streamed, not yet collided: the state at the
 * current time), four doubles per cell, x fastest, into out. Needs current ghost planes. */
void lbm_macroscopic(const lbm_params *p, const lbm_block *b, const double *f, int l0, int l1, double *out);
/* The five populations of local plane l that cross a z-face upwards (up = 1) or downwards,
 * packed into buf (5 * plane doubles), and back. */
void lbm_pack(const lbm_block *b, const double *f, int l, int up, double *buf);
/* Local planes 1..nz of lattice f as a checkpoint stores them: plane after plane, each the 19
 * populations of the plane (LBM_Q * plane doubles). */
void lbm_lattice_planes(const lbm_block *b, const double *f, double *out);
void lbm_unpack(const lbm_block *b, double *f, int l, int up, const double *buf);

/* box.c: a box of a process grid (box.h; README.md "Process grids"). The box of blk (its i0, j0,
 * k0 and sizes) in the lattice of p; its initial state, ghosts included (lbm_fill's, from global
 * indices or the checkpoint's planes); one update of local cells [lo, hi) per axis (1-based,
 * interior) from f into fn with `threads` threads; rho, ux, uy, uz of its cells (4 per cell,
 * x fastest, as lbm_macroscopic) and its populations as a checkpoint stores them (plane after
 * plane, each the 19 populations of the box's plane). */
lbm_box lbm_box_make(const lbm_params *p, const lbm_block *blk);
void lbm_box_fill(const lbm_params *p, const lbm_box *b, double *f);
void lbm_box_update(const lbm_params *p, const lbm_box *b, const double *f, double *fn, const int lo[3],
                    const int hi[3], int threads);
void lbm_box_macroscopic(const lbm_params *p, const lbm_box *b, const double *f, double *out);
void lbm_box_lattice_planes(const lbm_box *b, const double *f, double *out);
/* Link n's message (box.h): lbm_link_pops(n) populations of lbm_box_link_cells(b, n) cells; the
 * copies between the lattice and it (ghost 0: the interior layer, outgoing populations: what is
 * sent; ghost 1: the ghost layer, incoming ones: what is received). */
size_t lbm_box_link_count(const lbm_box *b, int n);
/* The outer layer's parts and the inner box (box.h) of b, side[f] nonzero for the faces with a
 * neighbour rank: the cpu variant's overlapped step and two-stream's on the GPU. */
lbm_box_regions lbm_box_regions_of(const lbm_box *b, const int side[LBM_FACE_LINKS]);
void lbm_box_pack(const lbm_box *b, const double *f, int n, int ghost, double *buf);
void lbm_box_unpack(const lbm_box *b, double *f, int n, int ghost, const double *buf);
/* The plan of rank `rank`'s box on grid procs: link n to the neighbour at lbm_link_dir(n, .)
 * (MPI_PROC_NULL and no message where that leaves the grid), lbm_box_link_count(b, n) doubles
 * each way, send tag n, receive tag n ^ 1 (kit_exchange_init_links). */
struct kit_link;
void lbm_box_links(const lbm_box *b, const int procs[3], int rank, struct kit_link *links);

/* What a variant gets from the driver. */
typedef struct lbm_ctx {
  const lbm_params *p;
  const kit_env *env;
  lbm_block blk;       /* this rank's slab (its box on a --procs grid other than 1x1xN) */
  int nbr[2];          /* ranks below and above (MPI_PROC_NULL at the domain edge) */
  int gpus;            /* GPUs this rank drives (multi-thread: all it may use) */
  double cpu_fraction; /* hybrid: CPU share of the slab, already resolved from 'auto' */
} lbm_ctx;

/* The variant contract is the kit's (kit/app.h): setup gets a const lbm_ctx *, fetch fills
 * this rank's rho, ux, uy, uz (4 * nx*ny*nz doubles, x fastest). lbm adds one hook, so its
 * variant embeds kit_variant as its first member (kit_main sees &v->base; lbm's --checkpoint
 * hook casts it back). */
typedef struct lbm_variant {
  kit_variant base;
  void (*fetch_lattice)(void *st, double *f); /* its populations, lbm_lattice_planes' order */
} lbm_variant;

extern const lbm_variant lbm_cpu;
extern const lbm_variant lbm_naive;
extern const lbm_variant lbm_two_stream;
extern const lbm_variant lbm_multi_thread;
extern const lbm_variant lbm_hybrid;
/* Most GPUs (sub-slabs) one multi-thread process drives. */
#define LBM_MT_MAX_GPUS 16

/* checkpoint.c: --checkpoint and --restart (kit/checkpoint.h: the file format): the problem
 * parameters a checkpoint belongs to (returns how many), rank 0's write of the gathered
 * lattice after step `step`, and the restart: rank 0 reads the file and every rank receives
 * the planes its slab and ghost planes need (sets p->restart*; the caller frees them). */
int lbm_checkpoint_ident(const lbm_params *p, double *ident);
void lbm_checkpoint_save(const lbm_params *p, const kit_env *env, const double *gathered, int step);
double *lbm_restart_load(lbm_params *p, const kit_env *env, const lbm_block *b);

/* reference.c: the serial oracle on the whole domain: `steps` steps from the initial state,
 * then rho, ux, uy, uz of every cell (4 * nx*ny*nz doubles) into out. */
void lbm_reference(const lbm_params *p, int steps, double *out);

#ifdef __cplusplus
}
#endif
#endif
