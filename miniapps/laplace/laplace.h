/* laplace.h: 3D 7-point Jacobi stencil, the kit's reference mini-app.
 * Sourouri Paper I (multi-GPU threads) and Paper II (CPU+GPU, nested OpenMP), thesis
 * `../shared/seeds/001_5c64d68c2bfeada2.txt`. Parameters, the block geometry every variant
 * shares, and the variant contract. See README.md in this folder. */
#ifndef LAPLACE_H
#define LAPLACE_H
#include <stddef.h>

#include "kit/app.h"
#include "kit/exchange.h"
#include "kit/halo.h"
#include "kit/hd.h"
#include "kit/options.h"
#include "kit/procgrid.h"
#include "kit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a host sweep runs. by == 0: off, laplace_sweep_rows itself (bx and nt ignored).
 * Otherwise each thread takes the same rows as in laplace_sweep_rows (about planes/threads
 * consecutive planes) but visits them pencil by pencil: a pencil is bx x by interior points in
 * x and y (clamped to the grid), swept up all the thread's planes, so that the planes below,
 * at and above a row are still in cache when it is computed. nt: the new field goes to memory
 * with non-temporal (streaming) stores, which skip the read-for-ownership of its lines. */
typedef struct laplace_cpu_block {
  int bx, by; /* pencil extent in x and y; by < 0 only in a request: auto */
  int nt;     /* non-temporal stores for un */
} laplace_cpu_block;

#define LAPLACE_CPU_BLOCK_AUTO (-1)

/* Every problem parameter, with the common run flags. */
typedef struct laplace_params {
  kit_run run;        /* --variant, --iters, --reps, ... */
  int size[3];        /* interior points nx, ny, nz (--size) */
  double alpha, beta; /* update weights (--alpha, --beta) */
  const char *init;   /* initial interior: "zero" or "random" (--init) */
  const char *dump;   /* --dump FILE: final interior as raw little-endian doubles */
  int p2p;            /* multi-thread: peer-to-peer copies where possible (--no-p2p: off) */
  /* multi-thread's host side (--mt-scheme): "assistants" (Paper I Sec. 4: a main, a send and a
   * receive thread per GPU) or "single" (Paper I Sec. 5.1's Baseline: one host thread drives
   * every GPU), and the baseline's two exchange phases (--exchange-order, Paper I Sec. 3):
   * "left-right" or "pairwise" (NULL: not given; left-right). */
  const char *mt_scheme, *exchange_order;
  const char *comm; /* naive, two-stream: how planes move between processes (--comm, kit/exchange.h) */
  laplace_cpu_block cpu_block; /* cpu, hybrid: the host sweep's kernel (--cpu-block, cpu_kernel.h) */
  /* --restart: the initial interior comes from a checkpoint instead of --init. */
  const double *restart; /* interior planes [restart_k0, restart_k0 + restart_nz), or NULL */
  int restart_k0, restart_nz;
  int start_step; /* the checkpoint's step: the run does iters - start_step steps */
  /* --procs PxQxR: ranks along x, y and z (laplace_grid_coords: z fastest). {0, 0, 0} until
   * laplace_check resolves the default, 1x1xN (z-slabs over the N ranks). */
  int procs[3];
} laplace_params;

/* A box of interior points: columns [i0, i0+nx), rows [j0, j0+ny) and planes [k0, k0+nz)
 * (global, 1-based), stored with one layer of points around it on every side: ghost points
 * from a neighbour, or the Dirichlet boundary (global index 0 or N+1). Each plane holds
 * (ny+2) rows of nx+2 points (rows padded to sy), so a z-plane is contiguous and travels
 * without packing; x and y faces are strided (laplace_face_pack). Local point (i, j, l) is
 * global (i0-1+i, j0-1+j, k0-1+l). A z-slab is i0 = j0 = 1 with nx, ny the global sizes. */
typedef struct laplace_block {
  int nx, ny;    /* interior points per row and per column */
  int i0, j0;    /* global index of the first interior column and row */
  int k0, nz;    /* first global interior plane, number of interior planes */
  size_t sy, sz; /* strides of a row (nx + 2 rounded up to 16) and of a plane, in doubles */
  size_t points; /* (nz + 2) * sz: doubles in the stored block */
} laplace_block;

/* A z-slab: the whole xy extent (i0 = j0 = 1), planes [k0, k0+nz). */
laplace_block laplace_block_make(int nx, int ny, int k0, int nz);
/* A box: columns [i0, i0+nx), rows [j0, j0+ny), planes [k0, k0+nz). */
laplace_block laplace_block_make_box(int i0, int nx, int j0, int ny, int k0, int nz);

/* The process grid (--procs PxQxR, README.md "Process grids"). Rank r sits at coordinates
 * (px, py, pz) with r = (px*Q + py)*R + pz: z fastest, so the default 1x1xN is today's slab
 * order (rank r holds the r-th slab). Each axis is split as kit_block_split splits z: the
 * first N % P ranks along it get one point more. */
enum { LAPLACE_XM = 0, LAPLACE_XP, LAPLACE_YM, LAPLACE_YP, LAPLACE_ZM, LAPLACE_ZP, LAPLACE_FACES };
/* The grid's bookkeeping is the kit's (kit/procgrid.h); these are its names here. */
/* --procs PxQxR into int[3] (a kit_opt_parser). */
static inline int laplace_parse_procs(const char *arg, void *dest, char *err, size_t errlen) {
  return kit_procs_parse(arg, dest, err, errlen);
}
/* 1 if the grid splits along z only (1x1xN): the slab code paths of every variant. */
static inline int laplace_grid_is_slab(const int procs[3]) {
  return kit_procs_is_slab(procs);
}
static inline void laplace_grid_coords(const int procs[3], int rank, int coords[3]) {
  kit_procs_coords(procs, rank, coords);
}
/* The rank at coords, or MPI_PROC_NULL outside the grid (the domain edge: Dirichlet). */
static inline int laplace_grid_rank(const int procs[3], const int coords[3]) {
  return kit_procs_rank(procs, coords);
}
/* Rank `rank`'s box of the global size[3] interior under the grid procs. */
laplace_block laplace_grid_block(const int size[3], const int procs[3], int rank);
/* The neighbour across each face (LAPLACE_XM ... LAPLACE_ZP), MPI_PROC_NULL at the edge. */
void laplace_grid_neighbours(const int procs[3], int rank, int nbr[LAPLACE_FACES]);
/* An x or y face (LAPLACE_XM ... LAPLACE_YP): its points (ny*nz or nx*nz, no edges), and the
 * copies between a layer of the field and a contiguous buffer (z slowest; x, else y, fastest).
 * `ghost` 0: the interior layer next to the face (what is sent), 1: the ghost layer beyond it
 * (what is received). */
size_t laplace_face_count(const laplace_block *b, int face);
void laplace_face_pack(const laplace_block *b, const double *u, int face, int ghost, double *buf);
void laplace_face_unpack(const laplace_block *b, double *u, int face, int ghost, const double *buf);
/* An x or y face's layer as a 2D array: n1 x n2 points (n1 along the face's row or column, n2
 * planes), strides s1 and s2 in doubles, from offset `base` in the field. Point a of plane l
 * is packed at a + n1 * l and stored at field point laplace_face_at(f, a, l): the one index of
 * the host copies (grid.c) and the GPU's pack and unpack kernel (kernels.cu), as
 * lbm_face_offset is lbm's. */
typedef struct laplace_face_shape {
  size_t base, s1, s2;
  int n1, n2;
} laplace_face_shape;
laplace_face_shape laplace_face_shape_of(const laplace_block *b, int face, int ghost);
static inline KIT_HD size_t laplace_face_at(const laplace_face_shape *f, int a, int l) {
  return f->base + (size_t)a * f->s1 + (size_t)l * f->s2;
}
/* The six links of a grid's exchange (kit_exchange_init_links), one per face: what goes towards
 * -x arrives on the neighbour's +x link, so a face's send tag is its own index and its receive
 * tag the opposite face's. x and y faces carry their packed points, z faces the whole padded
 * plane, straight from and into the field. */
void laplace_face_links(const laplace_block *b, const int face_nbr[LAPLACE_FACES],
                        kit_link links[LAPLACE_FACES]);
/* The faces whose points are packed into the exchange's buffers (kit_exchange_buffers): x and y. */
static const char laplace_packed_faces[LAPLACE_FACES] = {1, 1, 1, 1, 0, 0};

/* A process grid's overlap (Paper II Listing 1 in 3D): the box's outer layer is every point one
 * step inside a face whose side[f] is nonzero (LAPLACE_XM ... LAPLACE_ZP: those with a neighbour
 * rank; what the neighbours need), the inner box the rest, [lo[d], hi[d]) along x, y and z
 * (empty where hi == lo). A side at the domain's edge sends nothing, so its points are left to
 * the inner box. */
void laplace_inner_box(const laplace_block *b, const int side[LAPLACE_FACES], int lo[3], int hi[3]);
/* The outer layer as disjoint boxes {i0, i1, j0, j1, l0, l1} (local, half-open), the empty ones
 * left out; returns how many (at most 6): the whole planes below and above the inner box, then
 * in the planes between whole rows in front of and behind it, then in those rows the columns
 * left and right of it. The layer's parts and the inner box partition the box, so sweeping
 * them all computes every point once (cpu's host sweep and the GPU variants' kernels alike). */
int laplace_layer_parts(const laplace_block *b, const int side[LAPLACE_FACES], int part[LAPLACE_FACES][6]);

/* Initial state of a block, ghost planes included (they hold the neighbour's initial
 * values, computed from global indices, so no exchange is needed before step 1). */
void laplace_fill(const laplace_params *p, const laplace_block *b, double *u);
/* One sweep over local planes [l0, l1) of b with `threads` OpenMP threads. */
void laplace_sweep_host(const laplace_params *p, const laplace_block *b, const double *u, double *un, int l0,
                        int l1, int threads);
/* The same sweep as a worksharing loop over the innermost enclosing OpenMP team
 * (for variants that keep a team alive across steps). */
void laplace_sweep_rows(const laplace_params *p, const laplace_block *b, const double *u, double *un, int l0,
                        int l1);
/* kit_app.check: the sizes and grids that cannot run anywhere (--procs vs the rank count, ranks
 * vs points along an axis, a grid other than 1x1xN for multi-thread or hybrid, a message too large
 * for MPI, the GPU grid's limits); -1 or the exit code after one line. Resolves the default
 * grid (p->procs = 1x1xranks). */
int laplace_check(const kit_env *env, void *params, const char *variant);
/* The bytes this rank will allocate on the host and on each device (kit_check_memory). */
void laplace_memory(const laplace_params *p, const kit_env *env, double *host, double *device);
/* Copy local planes [l0, l1)'s interior points into out (x fastest). */
void laplace_copy_interior(const laplace_block *b, const double *u, int l0, int l1, double *out);

/* What a variant gets from the driver. */
typedef struct laplace_ctx {
  const laplace_params *p;
  const kit_env *env;
  laplace_block blk;           /* this rank's box (a z-slab on a 1x1xN grid) */
  int nbr[2];                  /* ranks below and above (MPI_PROC_NULL at the domain edge) */
  int face_nbr[LAPLACE_FACES]; /* the neighbour across each face (nbr[] = the z ones) */
  int gpus;                    /* GPUs this rank drives (multi-thread: all it may use) */
  double cpu_fraction;         /* hybrid: CPU share of the slab, already resolved from 'auto' */
} laplace_ctx;

/* What a run holds beside the variants' context (kit_app's ctx). */
typedef struct laplace_run {
  laplace_ctx c;          /* what the variants get (first member: the same address) */
  laplace_params initial; /* the true initial problem: the oracle starts there, even on restart */
  double *restart_planes; /* --restart: the planes this rank's slab starts from */
} laplace_run;

/* The variants whose exchange between processes goes through kit/exchange.h (--comm). */
#define LAPLACE_COMM_VARIANTS "naive|two-stream"
/* Paper II's CPU+GPU variants (Listings 3 and 2): they take --cpu-fraction and --cpu-block. */
#define LAPLACE_HYBRID_VARIANTS "hybrid|hybrid-naive"
/* The variants that run any process grid (--procs PxQxR); the others split along z only. */
#define LAPLACE_GRID_VARIANTS "cpu|naive|two-stream"

/* report.c: kit_app's measure (GLUP/s, 16 bytes a point) and describe (the JSON params). */
void laplace_measure(const void *ctx, const kit_timing *t, kit_measure *m);
void laplace_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j);

/* The variant contract is the kit's (kit/app.h): setup gets a laplace_ctx, fetch fills this
 * rank's interior, nx*ny*nz doubles, x fastest; kit_main owns timing, verification and
 * reporting. */
typedef kit_variant laplace_variant;

/* Most GPUs (blocks) one multi-thread process drives. */
#define LAPLACE_MT_MAX_GPUS 16

extern const laplace_variant laplace_cpu;
extern const laplace_variant laplace_naive;
extern const laplace_variant laplace_two_stream;
extern const laplace_variant laplace_multi_thread;
extern const laplace_variant laplace_hybrid;
extern const laplace_variant laplace_hybrid_naive;

/* reference.c: the serial oracle on the whole domain. Writes the final interior into
 * out (nx*ny*nz) and max|u - g| after each sweep into err[0..iters] (err[0]: initial). */
void laplace_reference(const laplace_params *p, double *out, double *err);

/* checkpoint.c: --checkpoint and --restart (kit/checkpoint.h holds the file format). */
/* The problem parameters a checkpoint belongs to; returns how many were written. */
int laplace_checkpoint_ident(const laplace_params *p, double *ident);
/* Rank 0 writes the gathered field of step `step` (aborts with exit 3 on an I/O error). */
void laplace_checkpoint_save(const laplace_params *p, const kit_env *env, const double *gathered, int step);
/* Reads the checkpoint on rank 0 and gives every rank the planes its slab and ghost planes
 * need (the caller frees the returned array); sets p->restart*. */
double *laplace_restart_load(laplace_params *p, const kit_env *env, const laplace_block *b);

/* verify.c helpers. */
double laplace_max_error_vs_g(const laplace_params *p, const laplace_block *b, const double *interior);
int laplace_fixed_point_applies(const laplace_params *p);

#ifdef __cplusplus
}
#endif
#endif
