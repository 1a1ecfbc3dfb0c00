/* tetfv.h: cell-centred finite-volume diffusion du/dt = div(K grad u) on unstructured
 * tetrahedral meshes. Langguth, Sourouri, Lines, Baden, Cai, "Scalable Heterogeneous CPU-GPU
 * Computations for Unstructured Tetrahedral Meshes" (Sourouri thesis Paper III,
 * `../shared/seeds/001_5c64d68c2bfeada2.txt`): the D/A/I step (Sec. 2, row.h), the
 * partitioning into MPI separator and interior with contiguous ghosts (Sec. 3.1) and the
 * reordering of interior cells for cache reuse (Sec. 3.2), the second tier that splits a
 * rank's rows over its devices (split.c) and the blocked GPU storage (Sec. 3.2). Parameters,
 * the mesh, the assembled matrix, one rank's part and the variant contract. See README.md. */
#ifndef TETFV_H
#define TETFV_H
#include <stddef.h>
#include <stdint.h>

#include "kit/app.h"
#include "kit/exchange.h"
#include "kit/halo.h"
#include "kit/options.h"
#include "kit/runtime.h"
#include "row.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every problem parameter, with the common run flags. */
typedef struct tetfv_params {
  kit_run run;         /* --variant, --iters, --reps, ... */
  const char *mesh;    /* --mesh box:N or FILE.msh */
  int box_n;           /* N of box:N (0 for a file) */
  double jitter;       /* --jitter J: interior box vertices move up to J h / 2 per coordinate */
  int shuffle;         /* --shuffle: random renumbering of the cells (Philox, --seed) */
  double kappa;        /* --kappa: the scalar diffusivity */
  double aniso;        /* --aniso A: K = kappa (I + A f f^T), f the fibre direction (0: isotropic) */
  const char *fibres;  /* --fibres x|rotating: the fibre direction field */
  const char *flux;    /* --flux corrected|two-point (default corrected: two-point is inconsistent here) */
  const char *bc;      /* --bc neumann|dirichlet (homogeneous: u = 0 on the boundary) */
  double safety;       /* --safety: dt = safety x the Gershgorin stability limit */
  double t_end;        /* --t-end T: iters = ceil(T / dt_stable), dt = T / iters (0: use --iters) */
  const char *init;    /* --init mode|random|constant */
  const char *reorder; /* --reorder none|rcm|metis: interior cells for cache reuse */
  int block;           /* --block B: rows per block of --reorder metis (Paper III: 512 on a CPU) */
  int skip_oracle;     /* --skip-oracle */
  const char *dump;    /* --dump FILE: the final field, mesh order, raw little-endian doubles */
  int p2p;             /* multi-thread: peer-to-peer copies where the devices allow (--no-p2p: 0) */
  int no_exchange;     /* --no-exchange: nothing travels between parts (Paper III's
                          communication-free bound); the answer is wrong on purpose */
  const char *comm;    /* naive, two-stream: how the separator moves between processes (--comm,
                          kit/exchange.h) */
  /* Derived while the problem is set up (rank 0, then broadcast). */
  double dt;      /* the time step */
  int start_step; /* --restart: the checkpoint's step; the run does iters - start_step */
} tetfv_params;

/* A tetrahedral mesh: nodes, cells (4 node indices, positively oriented) and, after
 * tetfv_mesh_connect, the geometry and the face neighbours. Face f of a cell is the triangle
 * opposite its vertex f. */
typedef struct tetfv_mesh {
  int nnodes, ncells;
  double *xyz;      /* 3 x nnodes */
  int *tet;         /* 4 x ncells */
  double *centroid; /* 3 x ncells */
  double *volume;   /* ncells */
  int *nbr;         /* 4 x ncells: cell across face f, -1 on the boundary */
  int nfaces_interior, nfaces_boundary;
  int skipped; /* elements of other types a reader skipped */
  long *line;  /* ncells: the file line of each cell (NULL for the box), for messages */
} tetfv_mesh;

void tetfv_mesh_free(tetfv_mesh *m);
/* The box [0,1]^3 as n^3 cubes of 6 tetrahedra (the Kuhn split along the main diagonal of each
 * cube, so faces match across cubes); interior vertices jittered by up to jitter h / 2 per
 * coordinate (Philox keyed by seed and vertex); cells renumbered at random with shuffle. */
void tetfv_mesh_box(tetfv_mesh *m, int n, double jitter, int shuffle, uint64_t seed);
/* Renumbers the cells of m at random (Philox keyed by seed): real meshes are not in order. */
void tetfv_mesh_shuffle(tetfv_mesh *m, uint64_t seed);
/* Volumes and centroids, inverted/degenerate cells refused, faces matched (a face shared by
 * more than two cells refused). 0, or -1 with one line in err. */
int tetfv_mesh_connect(tetfv_mesh *m, char *err, size_t errlen);
/* gmsh ASCII .msh 2.2 or 4.1 (msh_io.c): tetrahedra (type 4) are the cells, other types are
 * counted in m->skipped. 0, or -1 with "line L: reason" in err. Geometry is not checked here. */
int tetfv_read_msh(const char *path, tetfv_mesh *m, char *err, size_t errlen);

/* The diffusion tensor at point x (row-major 3 x 3). */
void tetfv_tensor(const tetfv_params *p, const double *x, double *K);

/* The matrix of one step, u_new = D u + A u[I]: n rows of TETFV_W slots. Globally indexed by
 * cell after tetfv_assemble; locally indexed (tetfv_local) in a rank's part. */
typedef struct tetfv_matrix {
  int n;     /* rows */
  double *D; /* n */
  double *A; /* TETFV_W x n, row-major (a row's slots contiguous) */
  int *I;    /* TETFV_W x n */
} tetfv_matrix;

/* What assembly reports besides the matrix. */
typedef struct tetfv_assembly_info {
  double dt_stable;       /* 2 / max_i Gershgorin radius of V^-1 L (before the safety factor) */
  int max_width;          /* most off-diagonal slots used by a row */
  int rows_no_gradient;   /* cells whose least-squares gradient is singular (corrected flux: TPFA there) */
  int rows_not_dominant;  /* rows of L that are not diagonally dominant (Gershgorin gives no bound) */
  double theta;           /* the limiter's factor on the flux correction (1: none; README "Stability") */
  int limited;            /* 1 if the growth probe found the full correction growing and theta < 1 */
  double dt_energy;       /* the step the energy bound proves V-norm stable (+inf: no limit) */
  int bad_cell, bad_face; /* a K-obtuse face (alpha <= 0) where the full correction grows: refused; -1 none */
} tetfv_assembly_info;

/* Assembles D, A, I once (assemble.c) with dt = min(safety x dt_stable, t_end / iters ...):
 * on return p->dt is the step and, when p->t_end > 0, p->run.iters the number of steps. */
void tetfv_assemble(tetfv_params *p, const tetfv_mesh *m, tetfv_matrix *z, tetfv_assembly_info *info);
void tetfv_matrix_alloc(tetfv_matrix *z, int n);
void tetfv_matrix_free(tetfv_matrix *z);

/* The initial field of global cell c at centroid x (mode: cos(pi x)cos(pi y)cos(pi z) with
 * Neumann, sin(...) with Dirichlet boundaries; random: Philox keyed by seed and c; constant). */
double tetfv_initial(const tetfv_params *p, int c, const double *x);

/* partition.c: METIS k-way partition of the cell dual graph (face neighbours) into nparts;
 * part[c] in [0, nparts). Returns 0, or -1 with the reason in err. */
int tetfv_partition(const tetfv_mesh *m, int nparts, int *part, char *err, size_t errlen);

/* One rank's part (Paper III Fig. 1, left): local rows [0, nsep) are the MPI separator (cells
 * other ranks read), [nsep, nown) the interior (reordered for cache reuse), and local indices
 * [nown, nown + nghost) the ghost cells, grouped by the rank that owns them so that each
 * neighbour's message lands in one contiguous range. */
typedef struct tetfv_local {
  int nown, nsep, nghost;
  int *gid;                             /* nown + nghost: the global cell of each local index */
  tetfv_matrix m;                       /* nown rows, local column indices */
  int nsend, nrecv;                     /* ranks this one sends to / receives from */
  int *send_peer, *send_off, *send_idx; /* per peer: local indices [send_off[k], send_off[k+1]) */
  int *recv_peer, *recv_off;            /* per peer: ghost range [recv_off[k], recv_off[k+1]) */
  double reorder_distance;              /* mean |row - column| over the interior rows' interior columns */
} tetfv_local;

/* Builds rank `rank`'s part from the global matrix and the partition; interior rows ordered
 * by `reorder` (none: global order; rcm: reverse Cuthill-McKee; metis: METIS blocks of `block`
 * rows, each block in global order). Deterministic: every rank computes the same lists. */
void tetfv_local_build(const tetfv_matrix *g, const int *part, int rank, const char *reorder, int block,
                       tetfv_local *l);
void tetfv_local_free(tetfv_local *l);

/* The variants whose exchange between processes goes through kit/exchange.h (--comm). */
#define TETFV_COMM_VARIANTS "naive|two-stream"

/* exchange.c: the same separator exchange as kit/exchange.h's plan (naive, two-stream): one
 * link per neighbouring part, in ascending rank order, tags 0 (one link per pair of ranks).
 * Link k's message out is the packed send entries [send_at[k], send_at[k] + send_count)
 * (send_off order, as tetfv_exchange_pack and the device's pack kernel lay them out); its
 * message in is ghosts [recv_at[k], recv_at[k] + recv_count), contiguous because partition.c
 * groups the ghosts by owner. Both sides derive their lists from the same global matrix, so
 * my send_count to a peer is its recv_count from me. The matrix's pattern is symmetric (face
 * neighbours and the corrected flux's second level both ways), so a part sends to exactly the
 * parts it receives from; a peer on one side only would still get a link, 0 the other way. */
typedef struct tetfv_links {
  int n;                  /* links (neighbouring parts) */
  kit_link *link;         /* n (+1, never NULL) */
  int *send_at, *recv_at; /* n: the first packed entry / ghost (from 0) of each link */
} tetfv_links;
void tetfv_links_build(const tetfv_local *l, tetfv_links *k);
void tetfv_links_free(tetfv_links *k);

/* exchange.c: the separator exchange of one step between host fields (Paper III Sec. 3.1): the
 * send lists packed into one contiguous buffer, then the kit's exchange layer (kit/exchange.h,
 * `host` transport on host buffers) over the links of tetfv_links_build below, split so the
 * caller computes while the messages travel. cpu, hybrid and multi-thread use it; naive and
 * two-stream hand the same links to the layer with device buffers (gpu_block.h). */
typedef struct tetfv_exchange {
  const tetfv_local *l;
  double *sbuf;        /* packed send lists, send_off order */
  int stale;           /* --no-exchange or KIT_FAULT=stale-halo: nothing is exchanged */
  tetfv_links plan;    /* one link per neighbouring part */
  void **send, **recv; /* per link: this exchange's message out and in */
  kit_exchange x;      /* the links over the host transport; x.halo counts the messages */
} tetfv_exchange;
void tetfv_exchange_init(tetfv_exchange *x, const tetfv_local *l, int off);
/* Whether exchanges are off: --no-exchange (the communication-free bound) or, in tests,
 * KIT_FAULT=stale-halo (verification must then fail). */
int tetfv_exchange_off(const tetfv_params *p);
void tetfv_exchange_free(tetfv_exchange *x);
/* Packs sbuf from a field of local indices (host). */
void tetfv_exchange_pack(tetfv_exchange *x, const double *u);
/* Sends sbuf and receives into ghosts[0, nghost) (the ghost ranges, recv_off order); finish
 * waits until every ghost has arrived and sbuf may be packed again. */
void tetfv_exchange_start(tetfv_exchange *x, double *ghosts);
void tetfv_exchange_finish(tetfv_exchange *x);
/* The messages and bytes sent so far (a kit_halo's counters). */
static inline const kit_halo *tetfv_exchange_counters(const tetfv_exchange *x) {
  return &x->x.halo;
}

/* Rows [r0, r1) of u_new = D u + A u[I], a worksharing loop in the innermost enclosing OpenMP
 * team (serial without one). */
void tetfv_rows(const tetfv_matrix *z, const double *u, double *un, int r0, int r1);

/* split.c: the second tier of Paper III's hierarchy (Sec. 3.1, Fig. 1 right). A rank's rows
 * are given to `ndev` devices (GPUs of a multi-thread process, or a GPU and the CPU cores of a
 * hybrid rank) and renumbered so that each device's rows are contiguous and, within a device,
 * grouped by what must happen to them early in a step:
 *   TETFV_CAT_MPI     rows other ranks read, no other device of this rank
 *   TETFV_CAT_BOTH    rows other ranks and another device of this rank read
 *   TETFV_CAT_DEV     rows another device of this rank reads, no other rank
 *   TETFV_CAT_IMPORT  rows that read a ghost or a row of another device, and nobody else reads
 *   TETFV_CAT_BULK    rows that read only rows of their own device, and only it reads them
 * so the rows to send over MPI are [MPI, DEV), the rows to copy to other devices [BOTH, IMPORT),
 * the boundary rows computed first [MPI, BULK), and the bulk can run while values travel. Each
 * category keeps the rank's order (reordered for cache reuse). Ghosts keep their places. */
enum { TETFV_CAT_MPI, TETFV_CAT_BOTH, TETFV_CAT_DEV, TETFV_CAT_IMPORT, TETFV_CAT_BULK, TETFV_NCAT };

typedef struct tetfv_split {
  int ndev;
  tetfv_local l; /* the rank's part renumbered (rows only; its own allocations) */
  int *newpos;   /* nown: row r of the original part is row newpos[r] of l */
  int *cut;      /* ndev * TETFV_NCAT + 1: category k of device d is rows [cut[d*NCAT+k], cut[d*NCAT+k+1]) */
  char *reads;   /* ndev x ndev: reads[d * ndev + e] = 1 if rows of device d read rows of device e != d */
  char *reads_ghosts; /* ndev: 1 if rows of device d read ghosts */
} tetfv_split;

/* Builds the split of part l for dev[r] in [0, ndev), the device of each row. */
void tetfv_split_build(const tetfv_local *l, int ndev, const int *dev, tetfv_split *s);
void tetfv_split_free(tetfv_split *s);
/* First row of category k of device d (k = TETFV_NCAT: one past the device's last row). */
static inline int tetfv_split_at(const tetfv_split *s, int d, int k) {
  return s->cut[d * TETFV_NCAT + k];
}
/* A field over the split's rows back to the original local order: out[r] = in[newpos[r]], r < nown. */
void tetfv_split_unpermute(const tetfv_split *s, const double *in, double *out);
/* The original local field (nown + nghost) in the split's order. */
void tetfv_split_permute(const tetfv_split *s, const double *in, double *out);
/* Hybrid (Paper III Sec. 3.2): dev[r] = 1 for the `ncpu` rows the CPU cores compute, 0 for the
 * GPU's. The MPI separator first (the CPU computes it and its MPI thread sends it, no
 * device-to-host copy on the way), then the rows nearest to it, breadth first over the
 * matrix graph, so the CPU part is compact and its interface with the GPU part small. */
void tetfv_assign_cpu_rows(const tetfv_local *l, int ncpu, int *dev);
/* Hybrid with ngpu GPUs in one process (Paper III: "one subpartition per GPU, plus one CPU
 * subpartition"): the CPU's ncpu rows as above, device ngpu; the rest over GPUs 0..ngpu-1 by
 * tetfv_partition_rows. With one GPU it is tetfv_assign_cpu_rows. */
void tetfv_assign_hybrid_rows(const tetfv_local *l, int ngpu, int ncpu, int *dev);
/* partition.c: the rank's rows into nparts parts for the GPUs of a process (METIS k-way on the
 * graph of the rows, the partitioner's second use in Paper III); contiguous ranges of the local
 * order where METIS fails or leaves a part empty. Rows with skip[r] != 0 (skip may be NULL:
 * none) take no part (part[r] = -1) and are left out of the graph: hybrid's CPU rows. */
void tetfv_partition_rows(const tetfv_local *l, int nparts, const char *skip, int *part);

/* GPU storage (Paper III Sec. 3.2, after Vazquez et al.): rows in blocks of TETFV_GPU_B, each
 * block's A and I transposed to column-major, entry j of row r of block b at
 * [(b * TETFV_W + j) * TETFV_GPU_B + r], so the threads of a warp (consecutive rows) read
 * consecutive addresses; the remainder rows after the last full block follow row-major.
 * Rows [r0, r1) of z into D (r1 - r0), A and I ((r1 - r0) x TETFV_W) (host; gpu_block.c
 * copies them to the device). */
#define TETFV_GPU_B 128
void tetfv_block_rows(const tetfv_matrix *z, int r0, int r1, double *D, double *A, int *I);

/* Most GPUs (sub-domains) one multi-thread process drives. */
#define TETFV_MT_MAX_GPUS 16

/* reference.c: the serial oracle on the global matrix: `steps` steps from u0 into out. */
void tetfv_reference(const tetfv_matrix *g, const double *u0, int steps, double *out, const kit_run *run);

/* checkpoint.c: the identity of the problem a checkpoint belongs to (returns how many
 * numbers): the cell count, the time step, the physics flags, --init and the seed, and
 * fingerprints of the mesh (cell centroids) and of the assembled matrix, so a checkpoint of
 * another mesh or scheme is refused. Rank 0 (it needs the mesh and the matrix). */
struct tetfv_mesh;
int tetfv_checkpoint_ident(const tetfv_params *p, const struct tetfv_mesh *m, const tetfv_matrix *g,
                           double *ident);

/* What a variant gets: the first member of the context problem.c builds (tetfv_built). */
typedef struct tetfv_ctx {
  const tetfv_params *p;
  const kit_env *env;
  const tetfv_local *l;
  const double *u0;    /* nown + nghost: the initial field in local order, ghosts included */
  int gpus;            /* GPUs (sub-domains) this rank drives: multi-thread; 1 for the others */
  double cpu_fraction; /* hybrid: the CPU's share of the rank's rows, resolved from 'auto' */
} tetfv_ctx;

/* The variant contract is the kit's (kit/app.h): setup receives a `const tetfv_ctx *` (as
 * `const void *`), fetch writes the nown owned values in local order (`double *` as `void *`);
 * kit_main owns timing, verification and the report. */
typedef kit_variant tetfv_variant;

extern const tetfv_variant tetfv_cpu;
extern const tetfv_variant tetfv_naive;
extern const tetfv_variant tetfv_two_stream;
extern const tetfv_variant tetfv_multi_thread;
extern const tetfv_variant tetfv_hybrid;

#ifdef __cplusplus
}
#endif
#endif
