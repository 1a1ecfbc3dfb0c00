/* main.c: the particles driver. Parse, set up the rank grid and each rank's tiling, warm up,
 * profile, time, verify, report; the variants (cpu.c, naive.c, two_stream.c, multi_thread.c,
 * hybrid.c) do the time steps. Bernaschi et al. Sec. 3.2; see README.md in this folder.
 *   build/bin/particles --variant list
 *   mpiexec -n 4 build/bin/particles --cells 6,5,4 --iters 50 --shift
 *   mpiexec -n 2 build/bin/particles --variant two-stream --cells 40 --iters 100
 *   build/bin/particles --input my.txt --rc 2.5 --iters 100
 *   mpiexec -n 4 build/bin/particles --domain tube --cells 12,10,6 --rc 2.0 --iters 50 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/ceiling.h"
#include "kit/check.h"
#include "kit/checkpoint.h"
#include "kit/driver.h"
#include "kit/hybrid.h"
#include "kit/input.h"
#include "kit/report.h"
#include "kit/slab.h"
#include "geometry.h"
#include "lj.h"
#include "particles.h"
#include "verify.h"

/* Bytes one atom-step must move in this layout: read id, x, v, f (80) and write x, v, f (72);
 * neighbour positions are assumed to come from cache (a lower bound, README.md). */
#define PT_BYTES_PER_ATOM 152.0

static const pt_variant *const variants[] = {
    &pt_cpu,
#ifdef KIT_HAVE_CUDA
    &pt_naive, &pt_two_stream, &pt_multi_thread, &pt_hybrid,
#endif
};
static const pt_variant *find_variant(const char *name) {
  for (size_t i = 0; i < sizeof variants / sizeof *variants; ++i)
    if (strcmp(variants[i]->name, name) == 0) return variants[i];
  return NULL;
}

/* --variant list: a CPU-only build lists the GPU variants too (they exit 77). */
static const char *describe(const char *name) {
  const pt_variant *v = find_variant(name);
  return v ? v->summary : "(not built: no CUDA toolkit)";
}

static int parse_ranks(const char *arg, void *dest, char *err, size_t errlen) {
  int *r = dest, n = 0;
  char extra;
  n = sscanf(arg, "%d,%d,%d%c", &r[0], &r[1], &r[2], &extra);
  if (n != 3 || r[0] < 1 || r[1] < 1 || r[2] < 1) {
    snprintf(err, errlen, "'%s' is not PX,PY,PZ with every entry >= 1", arg);
    return -1;
  }
  return 0;
}

/* Who owns what: the tile grid (the rank grid, or ranks x threads for multi-thread), tile q
 * belonging to rank q / tiles_per_rank. */
typedef struct owner_arg {
  const pt_params *p;
  int dims[3];
  int tiles_per_rank, rank;
  const int *owner; /* irregular domains: the tile of every cell (METIS), else NULL */
} owner_arg;

/* The tile owning global cell `cell` (wrapped coordinates): the grid's, or the owner map's
 * (-1: an empty cell of an irregular domain). */
static int owner_of(const owner_arg *a, const int cell[3]) {
  const pt_params *p = a->p;
  if (a->owner) return a->owner[((long long)cell[2] * p->nc[1] + cell[1]) * p->nc[0] + cell[0]];
  int rc[3];
  pt_owner_coords(p->nc, a->dims, cell, rc);
  return pt_rank_of(a->dims, rc);
}

/* The cell of x in cell[]; 0 if x lies outside the grid. */
static int cell_of(const pt_params *p, const double x[3], int cell[3]) {
  for (int k = 0; k < 3; ++k) {
    cell[k] = cell_coord(x[k], p->inv_side[k], p->box[k], p->nc[k]);
    if (cell[k] < 0 || cell[k] >= p->nc[k]) return 0;
  }
  return 1;
}

/* Does this rank own the cell of x (one of its tiles does)? (the `keep` of the initial state) */
static int owns(const void *arg, const double x[3]) {
  const owner_arg *a = arg;
  int cell[3];
  if (!cell_of(a->p, x, cell)) return 0;
  const int q = owner_of(a, cell);
  return q >= 0 && q / a->tiles_per_rank == a->rank;
}

/* Is x in a cell this rank owns or in one of their 26 neighbours (the periodic box)? What
 * --input keeps: the spacing check needs the particles around this rank's own. */
static int owns_or_near(const void *arg, const double x[3]) {
  const owner_arg *a = arg;
  const pt_params *p = a->p;
  int cell[3];
  if (!cell_of(p, x, cell)) return 0;
  for (int m = 0; m < 27; ++m) {
    const int n[3] = {(cell[0] + m % 3 - 1 + p->nc[0]) % p->nc[0],
                      (cell[1] + (m / 3) % 3 - 1 + p->nc[1]) % p->nc[1],
                      (cell[2] + m / 9 - 1 + p->nc[2]) % p->nc[2]};
    const int q = owner_of(a, n);
    if (q >= 0 && q / a->tiles_per_rank == a->rank) return 1;
  }
  return 0;
}

/* --input: no two particles closer than PT_MIN_SPACING (coincident ones have an infinite
 * force: the first step threw them out of their cells, exit 3). `init` holds what
 * owns_or_near kept; the neighbours are split off, leaving this rank's own, each rank tests
 * the pairs of its own particles (pt_close_pair) and the first pair by ids over all ranks is
 * the verdict, on every rank, whatever the rank count. Collective; 0 or KIT_EXIT_USAGE. */
static int check_spacing(const owner_arg *a, pt_particles *init, const kit_env *env) {
  pt_particles near = {0};
  long long kept = 0;
  for (long long i = 0; i < init->n; ++i) {
    if (!owns(a, init->x + 3 * i)) {
      pt_particles_push(&near, init->id[i], init->x + 3 * i, init->v + 3 * i);
      continue;
    }
    init->id[kept] = init->id[i];
    memmove(init->x + 3 * kept, init->x + 3 * i, 3 * sizeof(double));
    memmove(init->v + 3 * kept, init->v + 3 * i, 3 * sizeof(double));
    kept++;
  }
  init->n = kept;
  int64_t pair[2] = {0, 0};
  double dist = 0.0;
  const int found = pt_close_pair(a->p, init, &near, PT_MIN_SPACING, pair, &dist);
  pt_particles_free(&near);
  /* Ids below 1e12 (pt_read_header) are exact in a double. */
  double mine[3] = {found ? (double)pair[0] : INFINITY, found ? (double)pair[1] : INFINITY, dist};
  double *all = kit_malloc((size_t)env->nranks * 3 * sizeof *all, "spacing verdict");
  KIT_MPI_CHECK(MPI_Allgather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, MPI_COMM_WORLD));
  int best = 0;
  for (int r = 1; r < env->nranks; ++r)
    if (all[3 * r] < all[3 * best] || (all[3 * r] == all[3 * best] && all[3 * r + 1] < all[3 * best + 1]))
      best = r;
  const double first = all[3 * best], second = all[3 * best + 1], d = all[3 * best + 2];
  free(all);
  if (isinf(first)) return 0;
  char safe[300];
  return kit_usage_error(env,
                         "particles: --input %s: particles %.0f and %.0f are %.6g apart, closer than %g "
                         "(coincident or overlapping)",
                         kit_printable(a->p->input, safe, sizeof safe), first, second, d, PT_MIN_SPACING);
}

/* The tiling of tile q: of the grid dims (x fastest), or of the owner map. */
static void tile_decomp(const pt_params *p, const int dims[3], const int *owner, int q, pt_decomp *d) {
  const int coords[3] = {q % dims[0], (q / dims[0]) % dims[1], q / (dims[0] * dims[1])};
  if (owner)
    pt_decomp_build_owned(d, p->nc, owner, q);
  else
    pt_decomp_build(d, p->nc, dims, coords);
}

/* --dump-cells: rank 0 writes one line per occupied cell, "cx cy cz rank particles frontier",
 * the particles at step 0 and whether a neighbour belongs to another rank (what
 * labs/10-particles-irregular/plot.py draws). Collective. */
static void dump_cells(const owner_arg *a, const pt_particles *init, const char *path, const kit_env *env) {
  const pt_params *p = a->p;
  const int *nc = p->nc, ncell = nc[0] * nc[1] * nc[2];
  int *mine = calloc((size_t)ncell, sizeof *mine), *all = calloc((size_t)ncell, sizeof *all);
  if (!mine || !all) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory for --dump-cells");
  for (long long i = 0; i < init->n; ++i) {
    int c[3];
    for (int k = 0; k < 3; ++k) c[k] = cell_coord(init->x[3 * i + k], p->inv_side[k], p->box[k], nc[k]);
    mine[(c[2] * nc[1] + c[1]) * nc[0] + c[0]]++;
  }
  KIT_MPI_CHECK(MPI_Reduce(mine, all, ncell, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
  if (env->rank == 0) {
    FILE *f = kit_output_open("--dump-cells", path, "w");
    fprintf(f, "# particles --dump-cells: domain %s, %d ranks, %d x %d x %d cells of %.6g x %.6g x %.6g\n", p->domain,
            env->nranks, nc[0], nc[1], nc[2], p->side[0], p->side[1], p->side[2]);
    fprintf(f, "# cx cy cz rank particles frontier\n");
    for (int cz = 0; cz < nc[2]; ++cz)
      for (int cy = 0; cy < nc[1]; ++cy)
        for (int cx = 0; cx < nc[0]; ++cx) {
          const int c[3] = {cx, cy, cz}, q = owner_of(a, c);
          if (q < 0) continue;
          int frontier = 0;
          for (int m = 0; m < 27; ++m) {
            int n[3] = {cx + m % 3 - 1, cy + (m / 3) % 3 - 1, cz + m / 9 - 1}, inside = 1;
            for (int k = 0; k < 3; ++k) {
              if (!a->owner) n[k] = (n[k] + nc[k]) % nc[k]; /* the box is periodic */
              inside &= n[k] >= 0 && n[k] < nc[k];
            }
            const int o = inside ? owner_of(a, n) : -1;
            frontier |= o >= 0 && o != q;
          }
          fprintf(f, "%d %d %d %d %d %d\n", cx, cy, cz, q, all[(cz * nc[1] + cy) * nc[0] + cx], frontier);
        }
    kit_output_close(f, "--dump-cells", path); /* every fprintf above is checked here (ferror) */
  }
  free(mine);
  free(all);
}

/* --cpu-fraction auto's measurement of one share on a fresh state (kit_median_time). */
static double calibrate(const pt_variant *v, pt_ctx ctx, double fraction, int steps) {
  ctx.cpu_fraction = fraction;
  /* The variant owns (and frees) the tiling it is given: this one gets its own, built as
   * main's (of the rank grid, or of the owner map of an irregular domain). */
  const int dims[3] = {ctx.dec.dims[0], ctx.dec.dims[1], ctx.dec.dims[2]};
  tile_decomp(ctx.p, dims, ctx.owner, ctx.env->rank, &ctx.dec);
  void *st = v->setup(&ctx);
  const double t = kit_median_time(st, v->run, steps);
  v->teardown(st);
  return t;
}

/* CPU cells of hybrid's share f, summed over ranks (kit_cpu_planes: as hybrid.c). */
static int cpu_cells_total(const pt_decomp *d, double f) {
  int mine = f > 0.0 ? kit_cpu_planes(d->first[2], f) : 0, all = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  return all;
}

/* --checkpoint / --restart (kit/checkpoint.h: the file format). A checkpoint holds, after
 * some step, every particle's record as fetch gives it (id x y z vx vy vz fx fy fz, PT_REC
 * doubles), sorted by id, gathered to rank 0. The ident is the problem: a checkpoint of
 * another one is refused. */
#define PT_REC 10
static int checkpoint_ident(const pt_params *p, double *ident) {
  int n = 0;
  for (int a = 0; a < 3; ++a) ident[n++] = p->cells[a];
  ident[n++] = p->density;
  ident[n++] = p->rc;
  ident[n++] = p->shift;
  ident[n++] = p->dt;
  ident[n++] = p->temp;
  ident[n++] = strcmp(p->domain, "box") == 0;
  ident[n++] = (double)(uint32_t)p->run.seed;
  ident[n++] = (double)(uint32_t)(p->run.seed >> 32);
  ident[n++] = (double)p->n;
  for (int a = 0; a < 3; ++a) ident[n++] = p->box[a];
  ident[n++] = p->input != NULL;
  if (p->geom) ident[n++] = (double)p->geom->checksum; /* the same mask, voxel for voxel */
  return n;
}

typedef struct checkpoint_ctx {
  const pt_params *p;
  const kit_env *env;
  const pt_variant *v;
} checkpoint_ctx;

static void write_checkpoint(void *arg, void *state, int done) {
  const checkpoint_ctx *c = arg;
  long long got = 0;
  double *all = pt_gather(c->v, state, MPI_COMM_WORLD, &got);
  if (c->env->rank == 0) {
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = checkpoint_ident(c->p, ident);
    if (got != c->p->n)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "checkpoint: %lld particles gathered, expected %lld", got, c->p->n);
    kit_checkpoint_save(c->p->run.checkpoint, "particles", (uint64_t)(c->p->start_step + done), ident, nid, all,
                        sizeof(double), (uint64_t)PT_REC * (uint64_t)got);
  }
  free(all);
}

int main(int argc, char **argv) {
  kit_env env;
  kit_init(&argc, &argv, &env);

  pt_params p;
  memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.cells[0] = p.cells[1] = p.cells[2] = 5;
  p.density = 0.8442;
  p.temp = 1.44;
  p.rc = 2.5;
  p.dt = 0.005;
  p.domain = "box";
  p.max_drift = 1e-4;
  p.allpairs_max = 4000;
  int cells_given = 0, density_given = 0, temp_given = 0, ranks_given = 0, drift_given = 0;
  double allpairs = (double)p.allpairs_max;
  kit_option opts[KIT_RUN_NOPTS + 16];
  int n = kit_run_options(&p.run, opts);
  const kit_option app_opts[] = {
      {"cells", KIT_OPT_CUSTOM, p.cells, "N|NX,NY,NZ", "fcc unit cells (4 particles each) [5]", 1, 0, 0, NULL, kit_parse_size3, &cells_given},
      {"density", KIT_OPT_DOUBLE, &p.density, "RHO", "reduced number density of the lattice", 1e-3, 1.5, 0, NULL, NULL, &density_given},
      {"temp", KIT_OPT_DOUBLE, &p.temp, "T", "initial temperature (velocities rescaled to exactly T)", 0, 100, 0, NULL, NULL, &temp_given},
      {"rc", KIT_OPT_DOUBLE, &p.rc, "RC", "cutoff of the pair potential", 1.0, 100, 0, NULL, NULL, NULL},
      {"dt", KIT_OPT_DOUBLE, &p.dt, "DT", "velocity-Verlet time step", 1e-6, 0.05, 0, NULL, NULL, NULL},
      {"shift", KIT_OPT_FLAG, &p.shift, NULL, "shift the potential to zero at rc (energy conserved)", 1, 0, 1, NULL, NULL, NULL},
      {"input", KIT_OPT_STRING, &p.input, "FILE", "particles from a text file (README.md: format) instead of the lattice", 1, 0, 0, NULL, NULL, NULL},
      {"domain", KIT_OPT_STRING, &p.domain, "box|tube|FILE", "periodic box, built-in branching tube (--cells voxels), or a voxel mask file (README.md); walls, METIS", 1, 0, 0, NULL, NULL, NULL},
      {"ranks", KIT_OPT_CUSTOM, p.ranks, "PX,PY,PZ", "rank grid (default: MPI_Dims_create)", 1, 0, 0, NULL, parse_ranks, &ranks_given},
      {"thermo", KIT_OPT_INT, &p.thermo, "N", "steps between thermodynamic lines (0: iters/10)", 0, 1e9, 0, NULL, NULL, NULL},
      {"max-drift", KIT_OPT_DOUBLE, &p.max_drift, "TOL", "with --shift: bound on max |E(t)-E(0)|/|E(0)|", 1e-16, 1.0, 0, NULL, NULL, &drift_given},
      {"allpairs-max", KIT_OPT_DOUBLE, &allpairs, "N", "O(N^2) checks and the oracle up to N particles", 0, 1e7, 0, NULL, NULL, NULL},
      {"dump", KIT_OPT_STRING, &p.dump, "FILE", "write id x y z vx vy vz per particle by id (raw doubles)", 1, 0, 0, NULL, NULL, NULL},
      {"dump-cells", KIT_OPT_STRING, &p.dump_cells, "FILE", "write the decomposition: cx cy cz rank particles frontier per occupied cell (text)", 1, 0, 0, NULL, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;

  const int front = kit_front_door(&env, argc, argv, opts, "particles",
      "Lennard-Jones particle dynamics over internal/frontier/external cells with migration "
      "(Bernaschi et al. Sec. 3.2); variants: cpu naive two-stream multi-thread hybrid",
      &p.run, describe);
  if (front >= 0) return kit_finalize(front);
  p.allpairs_max = (long long)allpairs;

  /* Rules that need no allocation (DESIGN.md Sec. 4): exit 2 with one line. */
  const char *vn = p.run.variant;
  const int is_mt = strcmp(vn, "multi-thread") == 0, is_hybrid = strcmp(vn, "hybrid") == 0;
  if (is_mt && p.run.gpus > PT_MT_MAX_GPUS)
    return kit_finalize(kit_usage_error(&env, "particles: --gpus: multi-thread drives at most %d GPUs (threads) per process",
                                        PT_MT_MAX_GPUS));
  if (p.run.checkpoint_every > 0 && !p.run.checkpoint)
    return kit_finalize(kit_usage_error(&env, "particles: --checkpoint-every needs --checkpoint FILE"));
  if (drift_given && !p.shift)
    return kit_finalize(kit_usage_error(&env, "particles: --max-drift applies only with --shift (the truncated energy is not conserved)"));
  /* Irregular domains (every variant): METIS instead of a rank grid, the lattice instead of
   * --input. */
  pt_geom geom;
  memset(&geom, 0, sizeof geom);
  const int irregular = strcmp(p.domain, "box") != 0;
  if (irregular) {
    if (p.input)
      return kit_finalize(kit_usage_error(&env, "particles: --input does not apply with --domain %s (the lattice fills the domain)", p.domain));
    if (ranks_given)
      return kit_finalize(kit_usage_error(&env, "particles: --ranks does not apply with --domain %s (METIS partitions its cells)", p.domain));
    char err[300];
    if (strcmp(p.domain, "tube") == 0) {
      pt_geom_tube(&geom, p.cells, cbrt(4.0 / p.density)); /* one voxel per fcc unit cell */
    } else {
      if (cells_given)
        return kit_finalize(kit_usage_error(&env, "particles: --cells does not apply with --domain FILE (the mask gives the size)"));
      /* Every rank reads the mask: all of them must read the same bytes, and agree on the
       * verdict, or one rank's missing file would leave the others waiting (kit/input.h). */
      char why[700];
      snprintf(why, sizeof why, "particles: --domain %s", p.domain);
      if (kit_same_file(&env, p.domain, why)) return kit_finalize(KIT_EXIT_USAGE);
      const int ok = pt_geom_read(p.domain, &geom, err, sizeof err) == 0;
      snprintf(why, sizeof why, "particles: --domain %s: %s", p.domain, err); /* kit_agree escapes it */
      if (kit_agree(&env, ok, why)) return kit_finalize(KIT_EXIT_USAGE);
    }
    if (pt_geom_setup(&p, &geom, err, sizeof err) != 0) {
      char safe[300];
      return kit_finalize(kit_usage_error(&env, "particles: --domain %s: %s", kit_printable(p.domain, safe, sizeof safe), err));
    }
  } else if (p.input) {
    if (cells_given || density_given || temp_given)
      return kit_finalize(kit_usage_error(&env, "particles: --%s does not apply with --input (the file gives the particles)",
                                          cells_given ? "cells" : density_given ? "density" : "temp"));
    char err[300], why[700];
    /* Every rank reads the file (kit/input.h: same bytes everywhere, one verdict for all). */
    snprintf(why, sizeof why, "particles: --input %s", p.input);
    if (kit_same_file(&env, p.input, why)) return kit_finalize(KIT_EXIT_USAGE);
    const int ok = pt_read_header(p.input, &p.n, p.box, err, sizeof err) == 0 &&
                   pt_read_particles(&p, NULL, NULL, NULL, err, sizeof err) == 0;
    snprintf(why, sizeof why, "particles: --input %s: %s", p.input, err); /* kit_agree escapes it */
    if (kit_agree(&env, ok, why)) return kit_finalize(KIT_EXIT_USAGE);
    pt_derive_cells(&p);
  } else {
    pt_derive(&p);
  }
  /* Three cells per axis at least: the 27 neighbours of a cell are then distinct cells, and
   * the box is wider than 2 rc, so no pair meets two images of one particle. (Walls: no
   * images, pt_geom_setup asked for one cell.) */
  for (int a = 0; a < 3 && !irregular; ++a)
    if (p.nc[a] < 3)
      return kit_finalize(kit_usage_error(&env,
          "particles: --rc: %g is too large for the box: L%c = %.6g holds %d cell%s of side >= rc, 3 are needed",
          p.rc, "xyz"[a], p.box[a], p.nc[a], p.nc[a] == 1 ? "" : "s"));
  /* A tiling the int cell indices cannot hold, or a box of mostly empty cells (cells.c),
   * before anything is sized by it. (Walls: pt_geom_setup has its own limits.) */
  if (!irregular) {
    char err[400];
    if (pt_check_tiling(&p, err, sizeof err) != 0)
      return kit_finalize(kit_usage_error(&env, "particles: %s", err));
  }
  /* multi-thread tiles the box over ranks x threads (one thread per GPU, --gpus or every
   * visible one); the others over the ranks. A machine without a GPU skips below. */
  int tiles_per_rank = 1;
  if (is_mt) {
    const int g = kit_mt_gpus(&env, "particles", p.run.gpus, PT_MT_MAX_GPUS);
    if (g < 0) return kit_finalize(KIT_EXIT_USAGE);
    tiles_per_rank = g > 0 ? g : 1;
  }
  const int ntiles = env.nranks * tiles_per_rank;
  int dims[3] = {0, 0, 0};
  /* An irregular domain: METIS parts of the occupied cells, one per tile (per rank; for
   * multi-thread per thread of every rank, tile q on thread q % T of rank q / T, as on the
   * grid), computed on rank 0 (seed 1) and broadcast, so every rank holds the same map. dims
   * stays {tiles, 1, 1}: no grid. */
  int *owner = NULL;
  long long edge_cut = 0;
  if (irregular) {
    struct { int bad; char why[300]; } hdr;
    memset(&hdr, 0, sizeof hdr);
    owner = kit_malloc((size_t)geom.ncells * sizeof *owner, "cell owners");
    if (env.rank == 0 && pt_geom_partition(&geom, p.nc, ntiles, owner, &edge_cut, hdr.why, sizeof hdr.why) != 0) {
      if (is_mt) /* its parts are tiles: say so */
        snprintf(hdr.why + strlen(hdr.why), sizeof hdr.why - strlen(hdr.why),
                 "; multi-thread: a part per tile, %d ranks x %d threads", env.nranks, tiles_per_rank);
      hdr.bad = 1;
    }
    KIT_MPI_CHECK(MPI_Bcast(&hdr, (int)sizeof hdr, MPI_BYTE, 0, MPI_COMM_WORLD));
    if (hdr.bad) return kit_finalize(kit_usage_error(&env, "particles: --domain %s: %s", p.domain, hdr.why));
    KIT_MPI_CHECK(MPI_Bcast(owner, geom.ncells, MPI_INT, 0, MPI_COMM_WORLD));
    KIT_MPI_CHECK(MPI_Bcast(&edge_cut, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
    dims[0] = ntiles;
    dims[1] = dims[2] = 1;
  } else if (ranks_given) {
    if ((long long)p.ranks[0] * p.ranks[1] * p.ranks[2] != ntiles) {
      if (is_mt)
        return kit_finalize(kit_usage_error(&env,
            "particles: --ranks: %d x %d x %d is not the %d tiles (%d ranks x %d threads) of this run",
            p.ranks[0], p.ranks[1], p.ranks[2], ntiles, env.nranks, tiles_per_rank));
      return kit_finalize(kit_usage_error(&env, "particles: --ranks: %d x %d x %d is not the %d ranks of this run",
                                          p.ranks[0], p.ranks[1], p.ranks[2], env.nranks));
    }
    memcpy(dims, p.ranks, sizeof dims);
  } else {
    KIT_MPI_CHECK(MPI_Dims_create(ntiles, 3, dims));
  }
  for (int a = 0; a < 3 && !irregular; ++a)
    if (dims[a] > p.nc[a])
      return kit_finalize(kit_usage_error(&env,
          "particles: more %s than cells: %d %s along %c (grid %dx%dx%d) but only %d cells of side >= rc",
          is_mt ? "tiles" : "ranks", dims[a], is_mt ? "tiles" : "ranks", "xyz"[a], dims[0], dims[1], dims[2], p.nc[a]));
  memcpy(p.ranks, dims, sizeof dims);
  const pt_variant *v = find_variant(vn);
  if (!v) return kit_finalize(kit_skip(&env, "particles", vn, "built without CUDA"));
  if (v->needs_gpu && !kit_all_ranks_have_gpu(&env)) return kit_finalize(kit_skip(&env, "particles", vn, "no CUDA device"));
  if (is_mt && env.nranks > 1 && env.thread_level < MPI_THREAD_MULTIPLE)
    return kit_finalize(kit_skip(&env, "particles", vn, "multi-thread over several ranks needs MPI_THREAD_MULTIPLE"));
  if (kit_check_output_file(&env, "particles", "--json", p.run.json) ||
      kit_check_output_file(&env, "particles", "--trace", p.run.trace) ||
      kit_check_output_file(&env, "particles", "--dump", p.dump) ||
      kit_check_output_file(&env, "particles", "--dump-cells", p.dump_cells) ||
      kit_check_output_file(&env, "particles", "--checkpoint", p.run.checkpoint))
    return kit_finalize(KIT_EXIT_USAGE);
  {
    /* Per particle: owned state and scratch about 250 bytes, twice for imbalance and copies;
     * rank 0 gathers 80 bytes a particle and the references 100 more, when they run. */
    double host = 500.0 * (double)p.n / env.nranks + 1e6;
    if (env.rank == 0 && (p.n <= p.allpairs_max || p.dump)) host += 300.0 * (double)p.n;
    if (p.run.restart) host += 8.0 * PT_REC * (double)p.n; /* the checkpoint, on every rank */
    /* The cells of this rank's tiles, shell included (a sparse box's cost, not its particles'). */
    const double tile_cells = pt_tile_cells_max(p.nc, dims);
    host += PT_CELL_HOST_BYTES * tile_cells * tiles_per_rank;
    /* GPU variants: pinned mirrors (about 100 bytes a particle with the copies) and the
     * fetch; on the device about 230 bytes a particle slot (two sets for the sort, forces,
     * the sort's permutation, the leaver records), slots for the copies of the external cells
     * too: 700 bytes a particle is generous for tiles of a few thousand cells or more; and
     * the tile's cell rows, cell array and neighbour table on the device. */
    double dev = 0.0;
    int devices = 0;
    if (v->needs_gpu) {
      host += 200.0 * (double)p.n / env.nranks;
      const int per = is_mt ? tiles_per_rank : 1;
      devices = per < env.gpus_visible ? per : env.gpus_visible;
      const double per_tile = 700.0 * (double)p.n / ntiles + PT_CELL_DEVICE_BYTES * tile_cells;
      dev = per_tile * per / (devices > 0 ? devices : 1) + 64e6;
    }
    const int rc = kit_check_memory(&env, "particles", host, dev, devices);
    if (rc) return kit_finalize(rc);
  }
  /* --restart: rank 0 reads and checks the checkpoint (this problem's, whole, before
   * --iters), every rank gets it and keeps the particles whose cell it owns, as --input. */
  double *ck = NULL;
  if (p.run.restart) {
    struct { int bad, start; char why[300]; } hdr;
    memset(&hdr, 0, sizeof hdr);
    ck = kit_malloc((size_t)(p.n > 0 ? p.n : 1) * PT_REC * sizeof *ck, "restart");
    if (env.rank == 0) {
      double ident[KIT_CKPT_MAX_IDENT];
      const int nid = checkpoint_ident(&p, ident);
      uint64_t step = 0;
      char why[240];
      if (kit_checkpoint_read(p.run.restart, "particles", ident, nid, sizeof(double), (uint64_t)PT_REC * (uint64_t)p.n,
                              &step, ck, why, sizeof why)) {
        snprintf(hdr.why, sizeof hdr.why, "--restart '%s': %s", p.run.restart, why);
        hdr.bad = 1;
      } else if (step >= (uint64_t)p.run.iters) {
        snprintf(hdr.why, sizeof hdr.why, "--restart: the checkpoint is at step %llu; --iters %d must be larger",
                 (unsigned long long)step, p.run.iters);
        hdr.bad = 1;
      } else {
        for (long long i = 0; i < p.n && !hdr.bad; ++i)
          if (ck[PT_REC * i] != (double)i) {
            snprintf(hdr.why, sizeof hdr.why, "--restart '%s': record %lld holds id %.17g, not %lld", p.run.restart, i,
                     ck[PT_REC * i], i);
            hdr.bad = 1;
          }
      }
      hdr.start = (int)step;
    }
    KIT_MPI_CHECK(MPI_Bcast(&hdr, (int)sizeof hdr, MPI_BYTE, 0, MPI_COMM_WORLD));
    if (hdr.bad) {
      free(ck);
      return kit_finalize(kit_usage_error(&env, "particles: %s", hdr.why));
    }
    p.start_step = hdr.start;
    for (long long at = 0, total = PT_REC * p.n; at < total; at += 1LL << 28) {
      const long long m = total - at < (1LL << 28) ? total - at : (1LL << 28);
      KIT_MPI_CHECK(MPI_Bcast(ck + at, (int)m, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    }
  }
  /* GPUs: one per rank, or (multi-thread) one per thread, wrapping around the visible ones. */
  int gpus_total = 0;
  if (is_mt) {
    kit_select_device(&env, 0);
    gpus_total = kit_distinct_gpus(&env, tiles_per_rank, 0);
  } else if (v->needs_gpu) {
    kit_select_device(&env, p.run.gpus);
    gpus_total = kit_distinct_gpus(&env, 1, p.run.gpus);
  }
  const double host_bw = !v->needs_gpu || is_hybrid ? kit_host_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;
  const double dev_bw = v->needs_gpu ? kit_device_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;

  /* This rank's place in the grid (x fastest) and its tiling. */
  pt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.p = &p;
  ctx.env = &env;
  ctx.comm = MPI_COMM_WORLD;
  ctx.faults = 1;
  ctx.gpus = tiles_per_rank;
  ctx.owner = owner;
  /* multi-thread tiles its own share of the grid or map (multi_thread.c): no decomposition
   * here. */
  if (!is_mt) tile_decomp(&p, dims, owner, env.rank, &ctx.dec);
  pt_particles init = {0};
  owner_arg keep_arg = {&p, {dims[0], dims[1], dims[2]}, tiles_per_rank, env.rank, owner};
  if (ck) {
    for (long long i = 0; i < p.n; ++i) {
      const double *r = ck + PT_REC * i;
      if (owns(&keep_arg, r + 1)) pt_particles_push(&init, (int64_t)r[0], r + 1, r + 4);
    }
  } else if (p.input) {
    char err[300];
    if (pt_read_particles(&p, owns_or_near, &keep_arg, &init, err, sizeof err) != 0)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--input changed while reading: %s", err);
    const int bad = check_spacing(&keep_arg, &init, &env); /* leaves init with this rank's own */
    if (bad) return kit_finalize(bad);
  } else {
    pt_lattice(&p, owns, &keep_arg, &init);
  }
  ctx.init = &init;
  if (p.dump_cells) dump_cells(&keep_arg, &init, p.dump_cells, &env);

  /* hybrid: the CPU share of the owned cells. --cpu-fraction auto: Paper II's bandwidth model
   * proposes one, and a short measurement against share 0 (the GPU-only schedule) decides, so
   * the hybrid never loses to it (the rule of laplace and lbm, docs/hybrid.md). */
  double cpu_fraction = -1.0, model_fraction = -1.0, t_model = 0.0, t_zero = 0.0;
  if (is_hybrid) {
    cpu_fraction = p.run.cpu_fraction >= 0.0 ? p.run.cpu_fraction
                                             : (model_fraction = kit_cpu_share(host_bw / env.nranks, dev_bw, KIT_HYBRID_DERATE));
    if (model_fraction > 0.0 && cpu_cells_total(&ctx.dec, model_fraction) > 0) {
      const int steps = p.run.iters < 5 ? 5 : (p.run.iters > 20 ? 20 : p.run.iters);
      t_model = calibrate(v, ctx, model_fraction, steps);
      t_zero = calibrate(v, ctx, 0.0, steps);
      cpu_fraction = t_model < t_zero ? model_fraction : 0.0;
      kit_log(&env, "particles: hybrid auto: model share %.4f took %.3g s, share 0 took %.3g s for %d steps: using %.4f",
              model_fraction, t_model, t_zero, steps, cpu_fraction);
    }
    ctx.cpu_fraction = cpu_fraction;
  }
  /* What the report says of the tiling: this rank's tiles (the variant owns ctx.dec from the
   * set-up on). */
  int cl[4] = {0, 0, 0, 0}, nb[2] = {0, 0};
  for (int i = 0; i < tiles_per_rank; ++i) {
    pt_decomp td;
    tile_decomp(&p, dims, owner, env.rank * tiles_per_rank + i, &td);
    cl[0] += td.first[1] - td.first[0];
    cl[1] += td.first[2] - td.first[1];
    cl[2] += td.ncells - td.first[2] - td.nwall; /* another rank's cells (or images) */
    cl[3] += td.nbr_ranks;
    if (td.nconn > nb[0]) nb[0] = td.nconn;
    if (td.nbr_ranks > nb[1]) nb[1] = td.nbr_ranks;
    pt_decomp_free(&td);
  }
  const int cpu_cells = is_hybrid ? cpu_cells_total(&ctx.dec, cpu_fraction) : 0;

  void *st = v->setup(&ctx);
  if (ck) {
    /* The forces the integrator carries into the next step are recomputed from the
     * positions; they must be the checkpoint's, bit for bit (each particle's sum runs over
     * its neighbour cells in (cell, id) order whatever the rank grid). */
    long long got = 0;
    double *now = pt_gather(v, st, MPI_COMM_WORLD, &got);
    int same = 1;
    if (env.rank == 0) same = got == p.n && memcmp(now, ck, (size_t)got * PT_REC * sizeof *ck) == 0;
    KIT_MPI_CHECK(MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD));
    free(now);
    if (!same)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--restart: the forces recomputed from the checkpoint's positions differ from its forces");
    free(ck);
    ck = NULL;
  }
  /* A restarted run does only the steps the checkpoint has not done. */
  kit_run todo = p.run;
  todo.iters = p.run.iters - p.start_step;
  checkpoint_ctx ckc = {&p, &env, v};
  const kit_chunking chunks = {p.run.checkpoint_every > 0 ? p.run.checkpoint_every : todo.iters, write_checkpoint, &ckc};
  const kit_timing timing = kit_time_variant(&todo, st, v->run, v->reset, NULL, p.run.checkpoint ? &chunks : NULL);

  /* Thermodynamics of the last repetition, summed over ranks. */
  int steps = 0;
  const double *mine = v->thermo(st, &steps);
  const size_t nth = (size_t)(steps + 1) * PT_TH_N;
  double *th = kit_malloc(nth * sizeof *th, "thermo");
  KIT_MPI_CHECK(MPI_Allreduce(mine, th, (int)nth, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  const int every = p.thermo > 0 ? p.thermo : (steps >= 10 ? steps / 10 : 1);
  if (env.rank == 0) {
    /* The lattice energy depends only on the lattice and the cutoff: full precision. */
    if (p.start_step == 0) printf("%-28s %.17g\n", "pe0_per_particle:", pt_thermo_of(&p, th).pe);
    else printf("%-28s %d (from --restart %s)\n", "start_step:", p.start_step, p.run.restart);
    printf("thermo: %8s %19s %19s %19s %12s %12s\n", "step", "pe/N", "ke/N", "etot/N", "T", "P");
    for (int t = 0; t <= steps; t += every) {
      const pt_thermo q = pt_thermo_of(&p, th + (size_t)t * PT_TH_N);
      printf("thermo: %8d %19.12f %19.12f %19.12f %12.8f %12.8f\n", p.start_step + t, q.pe, q.ke, q.etot, q.temp, q.press);
    }
    if (steps % every) {
      const pt_thermo q = pt_thermo_of(&p, th + (size_t)steps * PT_TH_N);
      printf("thermo: %8d %19.12f %19.12f %19.12f %12.8f %12.8f\n", p.start_step + steps, q.pe, q.ke, q.etot, q.temp, q.press);
    }
    fflush(stdout);
  }

  kit_report rep;
  kit_report_init(&rep, "particles", v->name);
  kit_json *pj = &rep.params;
  kit_json_int(pj, "n", p.n);
  kit_json_int(pj, "cells_x", p.cells[0]);
  kit_json_int(pj, "cells_y", p.cells[1]);
  kit_json_int(pj, "cells_z", p.cells[2]);
  kit_json_number(pj, "density", p.input ? p.n / (p.box[0] * p.box[1] * p.box[2]) : p.density);
  kit_json_number(pj, "temp", p.temp);
  kit_json_number(pj, "rc", p.rc);
  kit_json_number(pj, "dt", p.dt);
  kit_json_bool(pj, "shift", p.shift);
  kit_json_string(pj, "input", p.input);
  kit_json_string(pj, "domain", p.domain);
  kit_json_string(pj, "decomposition", irregular ? "metis" : "grid");
  kit_json_number(pj, "box_x", p.box[0]);
  kit_json_number(pj, "box_y", p.box[1]);
  kit_json_number(pj, "box_z", p.box[2]);
  kit_json_int(pj, "lj_cells_x", p.nc[0]);
  kit_json_int(pj, "lj_cells_y", p.nc[1]);
  kit_json_int(pj, "lj_cells_z", p.nc[2]);
  kit_json_int(pj, "ranks_x", dims[0]);
  kit_json_int(pj, "ranks_y", dims[1]);
  kit_json_int(pj, "ranks_z", dims[2]);
  kit_json_int(pj, "tiles_per_rank", tiles_per_rank); /* multi-thread: ranks_* is the tile grid */
  kit_json_int(pj, "iters", p.run.iters);
  kit_json_int(pj, "start_step", p.start_step);
  kit_json_int(pj, "warmup", p.run.warmup);
  kit_json_int(pj, "reps", timing.reps);
  kit_json_string(pj, "sort", "by cell and id, every step");
  {
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)p.run.seed);
    kit_json_raw(pj, "seed", seed);
  }
  kit_json_string(pj, "precision", "double");
  kit_json_bool(pj, "exact", !KIT_EXACT_BUILD_OFF);
  kit_json_end_object(pj);

  const pt_traffic *tr = v->traffic(st);
  kit_report_fill_run(&rep, &env, &timing, gpus_total, cpu_fraction);
  kit_report_fom(&rep, "atom-steps/s", "atom-steps/s", (double)p.n * timing.iters / timing.time.median);
  kit_report_bandwidth(&rep, PT_BYTES_PER_ATOM * (double)p.n, timing.iters,
                       (v->needs_gpu ? dev_bw * gpus_total : 0.0) + (!v->needs_gpu || is_hybrid ? host_bw : 0.0),
                       v->needs_gpu ? (is_hybrid ? "device triad x GPUs + host triad x nodes" : "device triad x GPUs")
                                    : "host triad x nodes");
  if (is_hybrid) {
    kit_report_result(&rep, "cpu_cells", cpu_cells, "cells"); /* over all ranks */
    if (model_fraction >= 0.0) kit_report_result(&rep, "cpu_fraction_model", model_fraction, "");
    if (t_model > 0.0) {
      kit_report_result(&rep, "calibration_model_s", t_model, "s");
      kit_report_result(&rep, "calibration_gpu_only_s", t_zero, "s");
    }
  }
  const double per = tr->steps > 0 ? (double)tr->steps : 1.0;
  kit_report_messages(&rep, tr->messages, tr->bytes, per);
  {
    long long loc[5] = {tr->ghosts_sent, tr->ghosts_all_nbrs, tr->migrated, tr->ghosts_discarded, tr->wall_hits}, tot[5];
    KIT_MPI_CHECK(MPI_Allreduce(loc, tot, 5, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    int ct[4], nbmax[2];
    KIT_MPI_CHECK(MPI_Allreduce(cl, ct, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    KIT_MPI_CHECK(MPI_Allreduce(nb, nbmax, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    const pt_thermo q = pt_thermo_of(&p, th + (size_t)steps * PT_TH_N);
    kit_report_result(&rep, "pe_per_particle", q.pe, "");
    kit_report_result(&rep, "ke_per_particle", q.ke, "");
    kit_report_result(&rep, "etot_per_particle", q.etot, "");
    kit_report_result(&rep, "temperature", q.temp, "");
    kit_report_result(&rep, "pressure", q.press, "");
    kit_report_result(&rep, "sent_per_step", tot[0] / per, "particles");
    kit_report_result(&rep, "sent_all_nbrs_per_step", tot[1] / per, "particles");
    kit_report_result(&rep, "migrated_per_step", tot[2] / per, "particles");
    kit_report_result(&rep, "discarded_per_step", tot[3] / per, "particles");
    kit_report_result(&rep, "cells_internal", ct[0], "all ranks");
    kit_report_result(&rep, "cells_frontier", ct[1], "all ranks");
    kit_report_result(&rep, "cells_external", ct[2], "all ranks");
    kit_report_result(&rep, "max_connections", nbmax[0], is_mt ? "per tile" : "per rank");
    kit_report_result(&rep, "max_nbr_ranks", nbmax[1], is_mt ? "tiles, per tile" : "per rank");
    kit_report_result(&rep, "mean_nbr_ranks", (double)ct[3] / ntiles, is_mt ? "tiles, per tile" : "per rank");
    if (irregular) {
      /* The METIS partition: balance of the particles at step 0, cell faces cut. */
      long long n0 = init.n, n0max = 0;
      KIT_MPI_CHECK(MPI_Allreduce(&n0, &n0max, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD));
      kit_report_result(&rep, "occupied_cells", geom.nocc, "cells"); /* of the global tiling */
      kit_report_result(&rep, "partition_edge_cut", (double)edge_cut, "edges"); /* of the cell graph, between ranks */
      kit_report_result(&rep, "load_imbalance", (double)n0max * env.nranks / (double)p.n, "max/mean"); /* particles per rank, step 0 */
      kit_report_result(&rep, "wall_hits_per_step", tot[4] / per, "reflections");
    }
  }
  if (p.run.verify) pt_verify(&p, &env, v, st, th, steps, &rep);
  if (p.dump) {
    long long got = 0;
    double *all = pt_gather(v, st, MPI_COMM_WORLD, &got);
    if (env.rank == 0) {
      double *o = kit_malloc((size_t)(got > 0 ? got : 1) * 7 * sizeof *o, "dump");
      for (long long i = 0; i < got; ++i) memcpy(o + 7 * i, all + 10 * i, 7 * sizeof *o);
      kit_write_doubles(p.dump, o, 7 * (size_t)got);
      free(o);
    }
    free(all);
  }
  free(th);

  const int code = kit_report_finish(&rep, &env, p.run.json);
  kit_report_free(&rep);
  v->teardown(st);
  pt_particles_free(&init);
  free(owner);
  pt_geom_free(&geom);
  return kit_finalize(code);
}
