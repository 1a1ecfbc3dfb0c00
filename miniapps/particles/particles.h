/* particles.h: short-range Lennard-Jones particle dynamics over internal / frontier / external
 * cells with selective frontier exchange and particle migration.
 * Bernaschi et al. Sec. 3.2 (`../shared/seeds/000_f40b0347fa5f33fd.txt`): each rank tiles
 * its subdomain with cells of side >= the cutoff, classifies them (properties 1-4 of Sec.
 * 3.2.1), keeps a cell array sorted by global index (binary search for the local index), a
 * cell matrix and a connection matrix, sends frontier particles only to the neighbours
 * listed for their cell, filters what it receives and migrates particles that left (Sec.
 * 3.2.2). Parameters, the decomposition every variant shares, and the variant contract.
 * See README.md in this folder. */
#ifndef PARTICLES_H
#define PARTICLES_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "binning.h"
#include "kit/app.h"
#include "kit/options.h"
#include "kit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pt_geom;

/* Every problem parameter, with the common run flags. */
typedef struct pt_params {
  kit_run run;                /* --variant, --iters, --reps, ... */
  int cells[3];               /* fcc unit cells NX, NY, NZ (--cells); 4 particles each */
  double density;             /* reduced number density (--density) */
  double temp;                /* initial temperature (--temp) */
  double rc;                  /* cutoff (--rc) */
  double dt;                  /* time step (--dt) */
  int shift;                  /* --shift: energy-shifted potential, continuous at rc */
  const char *input;          /* --input FILE: particles from a text file (the kit's format or a
                                 LAMMPS data file, lammps_io.h) instead of the lattice */
  int input_lammps;           /* --input is a LAMMPS data file (pt_input_is_lammps) */
  double origin[3];           /* its xlo ylo zlo (positions are x - xlo); 0 otherwise */
  const char *domain;         /* --domain: "box" (periodic), "tube" or a voxel mask FILE (walls) */
  const struct pt_geom *geom; /* the irregular domain (geometry.h); NULL for the periodic box */
  const char *dump_cells;     /* --dump-cells FILE: the decomposition, one line per occupied cell */
  int ranks[3];               /* --ranks PX,PY,PZ: the rank grid (multi-thread: of ranks x threads;
                                 default MPI_Dims_create) */
  int thermo;                 /* --thermo N: steps between thermodynamic lines (0: iters/10) */
  double max_drift;           /* --max-drift: bound on max_t |E(t) - E(0)| / |E(0)| (with --shift) */
  long long allpairs_max;     /* --allpairs-max: the O(N^2) checks run up to this many particles */
  const char *dump;           /* --dump FILE: id x y z vx vy vz per particle, by id, raw doubles */
  const char *dump_lammps;    /* --dump-lammps FILE: a LAMMPS text dump (lammps_io.h) */
  int dump_every;             /* --dump-every N: its frames (0: the first and the last) */
  int start_step;             /* --restart: the checkpoint's step; the run does iters - start_step */
  const char *neighbor;       /* --neighbor cells|list: the 27 cells every step, or a Verlet list */
  int list;                   /* 1 with --neighbor list (cpu variant only, for now) */
  double skin;                /* --skin: the list's skin (list cutoff rc + skin) */
  const char *images;         /* --images device|host: a GPU rank alone in the periodic box
                                 makes its own periodic images and wraps its migrants on the
                                 device, or stages them through the host as between ranks */
  /* Derived by pt_derive() (or from the --input header). */
  long long n;        /* particle count */
  double box[3];      /* box edges */
  int nc[3];          /* cells per axis of the global tiling: floor(L / rc), with --neighbor
                         list floor(L / (rc + skin)) */
  double side[3];     /* cell edges L / nc >= rc (list: >= rc + skin) */
  double inv_side[3]; /* nc / L, what binning multiplies by */
  double rc2, eshift; /* rc^2 and the energy shift (0 unless --shift) */
  /* The order cells: floor(L / rc) per axis, the tiling --neighbor cells runs on. Every force
   * sums its pairs in the order of these cells and the ids (lj.h), so --neighbor list, whose
   * tiling is coarser, still sums in --neighbor cells' order (neighbor.h). Equal to nc and
   * inv_side with --neighbor cells. */
  int knc[3];
  double kinv_side[3];
  double rl2; /* (rc + skin)^2: the list's cutoff (rc^2 with --neighbor cells) */
} pt_params;

/* Fills the derived fields from the lattice flags (not with --input: pt_read_header). */
void pt_derive(pt_params *p);
/* Cells per axis, sides and cutoff terms from p->box, p->rc (and p->skin with p->list). */
void pt_derive_cells(pt_params *p);
/* The same problem with --neighbor cells: p's flags, the tiling of side >= rc (what the
 * oracle of a --neighbor list run runs on). */
void pt_cells_params(const pt_params *p, pt_params *q);

/* Limits of the periodic box's tiling (cells.c). A tile's cells, shell included, are int
 * local indices with 27 neighbours each (27 x PT_MAX_CELLS < 2^31), so the global grid with
 * its one-cell shell, (nc0 + 2)(nc1 + 2)(nc2 + 2), may hold at most PT_MAX_CELLS cells; and a
 * tiling of more than PT_SPARSE_CELLS cells with more than PT_CELLS_PER_PARTICLE cells a
 * particle is a box of empty cells (an --input header with a far too large box, or a tiny
 * --rc), refused rather than allocated. A lattice at the lowest --density and --rc has at
 * most 1000 cells a particle. */
#define PT_MAX_CELLS (1LL << 26)
#define PT_SPARSE_CELLS (1LL << 20)
#define PT_CELLS_PER_PARTICLE 4096
/* Host and device bytes per local cell (cells.c, cpu.c, gpu_tile.c): the tiling's arrays
 * (coordinates, cell array, 27 neighbours, connection matrix, shell map) and the variant's
 * rows, twice (problem.c builds a second tiling for the report); for kit_check_memory. */
#define PT_CELL_HOST_BYTES 640.0
#define PT_CELL_DEVICE_BYTES 160.0
/* Closest distance two particles of an --input file may be (in units of sigma): a pair at
 * 0.5 has an energy of 16,000 epsilon and a force that throws both more than a cell in one
 * step at the default --dt; coincident particles have an infinite one. */
#define PT_MIN_SPACING 0.5

/* Cell groups of Sec. 3.2.1 (the local index encodes the group: internal cells are numbered
 * first, then frontier, then external, "saving the first index for each set"). */
enum { PT_INTERNAL = 0, PT_FRONTIER = 1, PT_EXTERNAL = 2 };

/* One entry of the cell array (pt_cell_entry: the global and the local index) is defined in
 * binning.h, with the binning the GPU kernels share. */

/* A connection: a neighbouring rank and the periodic image its cells are seen in. Particles
 * sent over connection k are shifted by -shift[k] * L into the receiver's frame. In an
 * irregular (non-periodic) geometry the shift is always 0 and a connection is a rank. */
typedef struct pt_conn {
  int rank;
  int shift[3];
} pt_conn;

/* This rank's tiling (Sec. 3.2.1). Cell coordinates are global and unwrapped: the owned
 * block is [lo, hi) per axis, the one-cell shell around it (coordinates -1 and nc included)
 * holds the external cells; gid linearises coordinates + 1 over the (nc + 2)^3 extended grid,
 * so an external cell that is a periodic image has its own gid. */
typedef struct pt_decomp {
  int nc[3];              /* global cells per axis */
  int dims[3], coords[3]; /* rank grid and this rank's place in it */
  int lo[3], hi[3];       /* owned cells [lo, hi) per axis */
  int ncells;             /* local cells: internal + frontier + external */
  int first[4];           /* first local index of each group; first[3] = ncells */
  int *coord;             /* 3 per local cell: its unwrapped global coordinates */
  pt_cell_entry *array;   /* the cell array: ncells entries sorted by gid */
  int *nbr;               /* 27 per owned cell (lid < first[2]): local ids of the neighbours,
                             offsets (dz, dy, dx) from -1 to 1, dx fastest */
  int nconn;              /* connections (neighbouring rank x image), sorted by (rank, shift) */
  pt_conn *conn;
  int *conn_start;  /* the connection matrix: for frontier cell f (lid - first[1]) the */
  int *conn_list;   /*   connections conn_list[conn_start[f] .. conn_start[f + 1]) */
  int *ext_conn;    /* for external cell e (lid - first[2]): the connection owning it */
  int nbr_ranks;    /* distinct neighbouring ranks (itself included if it is one) */
  int nwall;        /* external cells no rank owns (irregular domains: empty cells
                       beyond a wall, kept so every owned cell has 27 neighbours;
                       ext_conn -1, never holding a particle) */
  const int *owner; /* while building only (pt_decomp_build_owned): the owner map */
  int me;
} pt_decomp;

/* Ranks are numbered x fastest over the rank grid: rank = (cz dims[1] + cy) dims[0] + cx. */
int pt_rank_of(const int dims[3], const int coords[3]);
/* The grid coordinates of the rank owning wrapped cell coordinates `cell` (each axis split
 * into contiguous blocks with kit_block_split). */
void pt_owner_coords(const int nc[3], const int dims[3], const int cell[3], int rank_coords[3]);
/* Builds the tiling of rank grid position `coords` in a grid `dims` over nc cells per axis.
 * Pure (no MPI): unit-testable on hand-checked decompositions. */
void pt_decomp_build(pt_decomp *d, const int nc[3], const int dims[3], const int coords[3]);
/* The tiling of rank `me` of an irregular domain: owner[] gives the rank owning every global
 * cell (x fastest; -1: an empty cell, beyond the walls). Not periodic: every shift is 0; a
 * cell is frontier when a neighbour is owned by another rank (an empty neighbour needs no
 * data), and the empty cells touching owned ones are external cells without a connection. */
void pt_decomp_build_owned(pt_decomp *d, const int nc[3], const int *owner, int me);
void pt_decomp_free(pt_decomp *d);
/* A deep copy of src into dst (a variant's own tiling: the context keeps the original). */
void pt_decomp_copy(pt_decomp *dst, const pt_decomp *src);
/* The global index of unwrapped cell coordinates c (each in [-1, nc]). */
int64_t pt_gid(const int nc[3], const int c[3]);
/* Binary search of the cell array: the local index of gid, or -1 when the cell is not
 * this rank's (the particle is not in the subdomain or its shell). */
int pt_lookup(const pt_decomp *d, int64_t gid);
/* Refuses a periodic box's tiling beyond PT_MAX_CELLS or sparser than
 * PT_CELLS_PER_PARTICLE (counted in 64 bits, before anything is allocated): 0, or -1 with
 * one line naming --rc, the box and the cell counts in err. Needs p->nc, p->box, p->rc, p->n. */
int pt_check_tiling(const pt_params *p, char *err, size_t errlen);
/* The most local cells (owned and shell) a tile of the grid dims over nc cells per axis has:
 * the product of (ceil(nc / dims) + 2), in double (for the memory estimate). */
double pt_tile_cells_max(const int nc[3], const int dims[3]);
/* Group (PT_INTERNAL, ...) of local cell lid. */
static inline int pt_group(const pt_decomp *d, int lid) {
  return lid < d->first[1] ? PT_INTERNAL : lid < d->first[2] ? PT_FRONTIER : PT_EXTERNAL;
}
/* The local cell of position x (in this rank's frame), or -1 outside the local cells. */
int pt_cell_of(const pt_params *p, const pt_decomp *d, const double x[3]);
/* The binning of tiling d with its cell array at `cells` (d->array, or a device copy of it). */
pt_binner pt_binner_of(const pt_params *p, const pt_decomp *d, const pt_cell_entry *cells);

/* A set of particles in structure-of-arrays form (what a rank owns, or a whole system). */
typedef struct pt_particles {
  long long n, cap;
  int64_t *id;
  double *x, *v; /* 3 per particle */
} pt_particles;
void pt_particles_reserve(pt_particles *s, long long cap);
void pt_particles_push(pt_particles *s, int64_t id, const double x[3], const double v[3]);
void pt_particles_free(pt_particles *s);
/* Pairs closer than rmin in the periodic box (minimum image; needs p->nc >= 3 per axis):
 * every pair of a particle of `mine` with one of `mine` or `near` (the particles of the cells
 * around mine's, in the same frame, disjoint from mine) is tested, cell by neighbouring cell.
 * Returns 1 with the first such pair by ids (pair[0] < pair[1], smallest pair[0], then
 * pair[1]) and its distance, or 0. Pure (no MPI): a rank tests its own particles, and the
 * smallest pair over the ranks is the same whatever the rank count. */
int pt_close_pair(const pt_params *p, const pt_particles *mine, const pt_particles *near, double rmin,
                  int64_t pair[2], double *dist);

/* The initial state (init.c). Every rank walks all N particles in id order, so sums (the
 * momentum removed, the temperature rescaled) are the same on every rank and for every rank
 * count; a rank keeps the particles whose cell it owns (keep == NULL: keeps all). */
typedef int (*pt_keep_fn)(const void *arg, const double x[3]);
void pt_lattice(const pt_params *p, pt_keep_fn keep, const void *arg, pt_particles *out);
/* The position of fcc site `site` of the p->cells lattice (with p->geom, particle id's site is
 * p->geom->site[id]). */
void pt_lattice_site(const pt_params *p, int64_t site, double x[3]);
/* --input: the header (count and box). Returns 0, or -1 with "line L: reason" in err. A
 * LAMMPS data file (pt_input_is_lammps) is read by lammps_io.c: box = hi - lo. */
int pt_read_header(const char *path, long long *n, double box[3], char *err, size_t errlen);
/* --input: every particle line, validated (fields, numbers, ids 0..N-1 once, inside the box);
 * keeps those `keep` accepts. Returns 0, or -1 with "line L: reason" in err. */
int pt_read_particles(const pt_params *p, pt_keep_fn keep, const void *arg, pt_particles *out, char *err,
                      size_t errlen);

/* Per-step totals a variant records (local sums; report.c reduces them). */
enum { PT_TH_PE, PT_TH_KE, PT_TH_VIR, PT_TH_PX, PT_TH_PY, PT_TH_PZ, PT_TH_N };

/* What the communication of one run moved (this rank, since the last reset of the counters). */
typedef struct pt_traffic {
  long long messages, bytes;  /* MPI messages and bytes sent (counts, ghosts, migrants) */
  long long ghosts_sent;      /* frontier particle copies sent (the selective scheme) */
  long long ghosts_all_nbrs;  /* what sending every frontier particle to every connection would have */
  long long ghosts_discarded; /* received copies the filter dropped */
  long long migrated;         /* particles that left this rank */
  long long wall_hits;        /* reflections off the walls of an irregular domain */
  long long device_images;    /* frontier copies a GPU rank alone in the periodic box made on
                                 the device (kept by the filter), not staged through the host */
  long long steps;            /* steps these counters cover */
  /* The cpu variant's force work (0 for the GPU variants): */
  long long pair_checks;    /* pair distances computed (cells: the 27 cells' candidates; list:
                               the lists' entries, and the cell walks of the list builds) */
  long long list_builds;    /* --neighbor list: builds during these steps (not the set-up's) */
  long long list_entries;   /* --neighbor list: entries of this rank's lists at the last build */
  long long list_particles; /*   and the particles they belong to */
} pt_traffic;

/* The variants that take --images (and, alone in the periodic box, --neighbor list on a GPU):
 * one rank per GPU without a CPU share, naive and two-stream (main.c's option table says so). */
#define PT_IMAGES_VARIANTS "naive|two-stream"

/* The frontier copies of one exchange (Sec. 3.2.1): the particles of every frontier cell (rows
 * cstart[], indexed as the cell matrix) times the connections of its row of the connection
 * matrix, added to tr->ghosts_sent, and what sending each to every connection would have sent,
 * to tr->ghosts_all_nbrs (the multicast the paper avoids). Returns the copies sent. */
long long pt_count_frontier(const pt_decomp *d, const int *cstart, pt_traffic *tr);

/* What a variant gets from the app (problem.c: pt_context). */
typedef struct pt_ctx {
  const pt_params *p;
  const kit_env *env;
  MPI_Comm comm;            /* the ranks of this run (the oracle runs on MPI_COMM_SELF) */
  pt_decomp dec;            /* this rank's tiling, the caller's (setup copies it; multi-thread:
                               empty, it tiles p->ranks itself) */
  const int *owner;         /* irregular domains: the tile owning every global cell (METIS; -1:
                               empty), a tile being a rank (multi-thread: q on thread q % gpus of
                               rank q / gpus); NULL for the periodic box */
  const pt_particles *init; /* this rank's initial particles */
  int faults;               /* 1: honour KIT_FAULT (0 for the oracle re-run) */
  int gpus;                 /* multi-thread: tiles (threads, GPUs) of this rank; else 1 */
  double cpu_fraction;      /* hybrid: CPU share of the owned cells, resolved from auto; else 0 */
} pt_ctx;

/* multi-thread: at most this many threads (tiles) per process, so the MPI tags of
 * px_init_tiles stay within 32767. */
#define PT_MT_MAX_GPUS 16

/* The variant contract: kit_variant (kit/app.h; kit_main owns timing and reporting) and the
 * three hooks particles needs beyond it, for its thermodynamics, its message counters (the
 * report's messages, base.halo NULL) and the particle count a gather sizes its buffer by.
 * base.setup takes a const pt_ctx * and copies ctx->dec (the caller keeps it: kit_main sets
 * up the same context up to three times, for --cpu-fraction auto's calibration);
 * base.fetch writes this rank's particles, 10 doubles each (id x y z vx vy vz fx fy fz). */
typedef struct pt_variant {
  kit_variant base;             /* first member: kit_main's view of the variant */
  long long (*count)(void *st); /* this rank's particles (fetch's records) */
  /* Local per-step totals since the last reset: (steps + 1) x PT_TH_N doubles, step 0 first. */
  const double *(*thermo)(void *st, int *steps);
  const pt_traffic *(*traffic)(void *st);
} pt_variant;

extern const pt_variant pt_cpu;
#ifdef KIT_HAVE_CUDA
extern const pt_variant pt_naive, pt_two_stream, pt_multi_thread, pt_hybrid;
#endif

/* reference.c: the independent all-pairs O(N^2) code (minimum image, no cells), serial.
 * Forces, potential energy and virial of n particles at x (3 each) in the periodic box. */
void pt_allpairs_forces(const pt_params *p, long long n, const double *x, double *f, double *pe, double *vir);
/* `steps` velocity-Verlet steps of the whole system with those forces, x and v in place. */
void pt_allpairs_run(const pt_params *p, long long n, double *x, double *v, int steps);

#ifdef __cplusplus
}
#endif
#endif
