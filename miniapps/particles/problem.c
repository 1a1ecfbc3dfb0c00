/* problem.c: the particles problem as kit_main's hooks check, plan, context and started build
 * it (main.c names them in its descriptor): the domain from the flags (the fcc lattice in a
 * periodic box, an --input file, or an irregular domain: the tube or a voxel mask with walls),
 * the tile grid of ranks (x threads for multi-thread) or METIS parts, --checkpoint / --restart,
 * each rank's initial particles and --dump-cells. Bernaschi et al. Sec. 3.2.1 (the tiling by
 * cells of side >= rc, each tile a rank's subdomain); the tiling's classification itself is
 * cells.c's. README.md in this folder. */
#include "problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/checkpoint.h"
#include "kit/driver.h"
#include "kit/input.h"
#include "lammps_io.h"
#include "verify.h"

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
    fprintf(f, "# particles --dump-cells: domain %s, %d ranks, %d x %d x %d cells of %.6g x %.6g x %.6g\n",
            p->domain, env->nranks, nc[0], nc[1], nc[2], p->side[0], p->side[1], p->side[2]);
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

/* --checkpoint / --restart (kit/checkpoint.h: the file format). A checkpoint holds, after
 * some step, every particle's record as fetch gives it (id x y z vx vy vz fx fy fz, PT_REC
 * doubles), sorted by id, gathered to rank 0. The ident is the problem: a checkpoint of
 * another one is refused. */
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

/* The rules of the domain (DESIGN.md Sec. 4: before anything is sized by it). Irregular
 * domains (every variant): METIS instead of a rank grid, the lattice instead of --input. */
static int build_domain(pt_problem *pb, const kit_env *env) {
  pt_params *p = &pb->p;
  pb->irregular = strcmp(p->domain, "box") != 0;
  if (pb->irregular) {
    if (p->input)
      return kit_usage_error(
          env, "particles: --input does not apply with --domain %s (the lattice fills the domain)",
          p->domain);
    if (pb->ranks_given)
      return kit_usage_error(
          env, "particles: --ranks does not apply with --domain %s (METIS partitions its cells)", p->domain);
    char err[300];
    if (strcmp(p->domain, "tube") == 0) {
      pt_geom_tube(&pb->geom, p->cells, cbrt(4.0 / p->density)); /* one voxel per fcc unit cell */
    } else {
      if (pb->cells_given)
        return kit_usage_error(
            env, "particles: --cells does not apply with --domain FILE (the mask gives the size)");
      /* Every rank reads the mask: all of them must read the same bytes, and agree on the
       * verdict, or one rank's missing file would leave the others waiting (kit/input.h). */
      char why[700];
      snprintf(why, sizeof why, "particles: --domain %s", p->domain);
      if (kit_same_file(env, p->domain, why)) return KIT_EXIT_USAGE;
      const int ok = pt_geom_read(p->domain, &pb->geom, err, sizeof err) == 0;
      snprintf(why, sizeof why, "particles: --domain %s: %s", p->domain, err); /* kit_agree escapes it */
      if (kit_agree(env, ok, why)) return KIT_EXIT_USAGE;
    }
    if (pt_geom_setup(p, &pb->geom, err, sizeof err) != 0) {
      char safe[300];
      return kit_usage_error(env, "particles: --domain %s: %s", kit_printable(p->domain, safe, sizeof safe),
                             err);
    }
  } else if (p->input) {
    if (pb->cells_given || pb->density_given || pb->temp_given)
      return kit_usage_error(env,
                             "particles: --%s does not apply with --input (the file gives the particles)",
                             pb->cells_given     ? "cells"
                             : pb->density_given ? "density"
                                                 : "temp");
    char err[300], why[700];
    /* Every rank reads the file (kit/input.h: same bytes everywhere, one verdict for all). */
    snprintf(why, sizeof why, "particles: --input %s", p->input);
    if (kit_same_file(env, p->input, why)) return KIT_EXIT_USAGE;
    const int ok = pt_read_header(p->input, &p->n, p->box, err, sizeof err) == 0 &&
                   pt_read_particles(p, NULL, NULL, NULL, err, sizeof err) == 0;
    snprintf(why, sizeof why, "particles: --input %s: %s", p->input, err); /* kit_agree escapes it */
    if (kit_agree(env, ok, why)) return KIT_EXIT_USAGE;
    /* A LAMMPS data file: its box's lower corner, what --dump-lammps adds back. */
    p->input_lammps = pt_input_is_lammps(p->input);
    if (p->input_lammps) {
      pt_lammps_header h;
      if (pt_lammps_read_header(p->input, &h, err, sizeof err) != 0)
        kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--input changed while reading: %s", err);
      memcpy(p->origin, h.lo, sizeof p->origin);
    }
    pt_derive_cells(p);
  } else {
    pt_derive(p);
  }
  /* Three cells per axis at least: the 27 neighbours of a cell are then distinct cells, and
   * the box is wider than 2 rc, so no pair meets two images of one particle. (Walls: no
   * images, pt_geom_setup asked for one cell.) */
  for (int a = 0; a < 3 && !pb->irregular; ++a)
    if (p->nc[a] < 3) {
      if (p->list)
        return kit_usage_error(env,
                               "particles: --rc + --skin: %g is too large for the box: "
                               "L%c = %.6g holds %d cell%s of side >= rc + skin, 3 are needed",
                               p->rc + p->skin, (char)('x' + a), p->box[a], p->nc[a],
                               p->nc[a] == 1 ? "" : "s");
      return kit_usage_error(env,
                             "particles: --rc: %g is too large for the box: "
                             "L%c = %.6g holds %d cell%s of side >= rc, 3 are needed",
                             p->rc, (char)('x' + a), p->box[a], p->nc[a], p->nc[a] == 1 ? "" : "s");
    }
  /* A tiling the int cell indices cannot hold, or a box of mostly empty cells (cells.c),
   * before anything is sized by it. (Walls: pt_geom_setup has its own limits.) With
   * --neighbor list the order cells of side >= rc are checked, the finer tiling (the
   * oracle runs on it); its own is coarser. */
  if (!pb->irregular) {
    char err[400];
    pt_params q;
    pt_cells_params(p, &q);
    if (pt_check_tiling(&q, err, sizeof err) != 0) return kit_usage_error(env, "particles: %s", err);
  }
  return -1;
}

/* multi-thread tiles the box over ranks x threads (one thread per GPU); the others over the
 * ranks. An irregular domain has METIS parts instead (partition): dims stays {tiles, 1, 1}. */
static int tile_grid(pt_problem *pb, const kit_env *env, int tiles_per_rank, int is_mt) {
  const pt_params *p = &pb->p;
  const int ntiles = env->nranks * tiles_per_rank;
  int *dims = pb->dims;
  pb->tiles_per_rank = tiles_per_rank;
  dims[0] = dims[1] = dims[2] = 0;
  if (pb->irregular) {
    dims[0] = ntiles;
    dims[1] = dims[2] = 1;
    return -1;
  }
  if (pb->ranks_given) {
    if ((long long)p->ranks[0] * p->ranks[1] * p->ranks[2] != ntiles) {
      if (is_mt)
        return kit_usage_error(
            env, "particles: --ranks: %d x %d x %d is not the %d tiles (%d ranks x %d threads) of this run",
            p->ranks[0], p->ranks[1], p->ranks[2], ntiles, env->nranks, tiles_per_rank);
      return kit_usage_error(env, "particles: --ranks: %d x %d x %d is not the %d ranks of this run",
                             p->ranks[0], p->ranks[1], p->ranks[2], env->nranks);
    }
    memcpy(dims, p->ranks, 3 * sizeof *dims);
  } else {
    KIT_MPI_CHECK(MPI_Dims_create(ntiles, 3, dims));
  }
  for (int a = 0; a < 3; ++a)
    if (dims[a] > p->nc[a])
      return kit_usage_error(
          env,
          "particles: more %s than cells: %d %s along %c (grid %dx%dx%d) but only %d cells of side >= rc%s",
          is_mt ? "tiles" : "ranks", dims[a], is_mt ? "tiles" : "ranks", (char)('x' + a), dims[0], dims[1],
          dims[2], p->nc[a], p->list ? " + skin" : "");
  return -1;
}

/* A METIS part of the occupied cells per tile (per rank; for multi-thread per thread of every
 * rank, tile q on thread q % T of rank q / T, as on the grid), computed on rank 0 (seed 1)
 * and broadcast, so every rank holds the same map. */
static int partition(pt_problem *pb, const kit_env *env, int is_mt) {
  const int ntiles = pb->dims[0];
  struct {
    int bad;
    char why[300];
  } hdr;
  memset(&hdr, 0, sizeof hdr);
  free(pb->owner);
  pb->owner = kit_malloc((size_t)pb->geom.ncells * sizeof *pb->owner, "cell owners");
  if (env->rank == 0 && pt_geom_partition(&pb->geom, pb->p.nc, ntiles, pb->owner, &pb->edge_cut, hdr.why,
                                          sizeof hdr.why) != 0) {
    if (is_mt) /* its parts are tiles: say so */
      snprintf(hdr.why + strlen(hdr.why), sizeof hdr.why - strlen(hdr.why),
               "; multi-thread: a part per tile, %d ranks x %d threads", env->nranks, pb->tiles_per_rank);
    hdr.bad = 1;
  }
  KIT_MPI_CHECK(MPI_Bcast(&hdr, (int)sizeof hdr, MPI_BYTE, 0, MPI_COMM_WORLD));
  if (hdr.bad) return kit_usage_error(env, "particles: --domain %s: %s", pb->p.domain, hdr.why);
  KIT_MPI_CHECK(MPI_Bcast(pb->owner, pb->geom.ncells, MPI_INT, 0, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Bcast(&pb->edge_cut, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
  return -1;
}

/* --restart: rank 0 reads and checks the checkpoint (this problem's, whole, before --iters),
 * every rank gets it and keeps the particles whose cell it owns, as --input (pt_context). */
static int restart_read(pt_problem *pb, const kit_env *env) {
  pt_params *p = &pb->p;
  struct {
    int bad, start;
    char why[300];
  } hdr;
  memset(&hdr, 0, sizeof hdr);
  double *ck = pb->ck = kit_malloc((size_t)(p->n > 0 ? p->n : 1) * PT_REC * sizeof *ck, "restart");
  if (env->rank == 0) {
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = checkpoint_ident(p, ident);
    uint64_t step = 0;
    char why[240];
    if (kit_checkpoint_read(p->run.restart, "particles", ident, nid, sizeof(double),
                            (uint64_t)PT_REC * (uint64_t)p->n, &step, ck, why, sizeof why)) {
      snprintf(hdr.why, sizeof hdr.why, "--restart '%s': %s", p->run.restart, why);
      hdr.bad = 1;
    } else if (step >= (uint64_t)p->run.iters) {
      snprintf(hdr.why, sizeof hdr.why,
               "--restart: the checkpoint is at step %llu; --iters %d must be larger",
               (unsigned long long)step, p->run.iters);
      hdr.bad = 1;
    } else {
      for (long long i = 0; i < p->n && !hdr.bad; ++i)
        if (ck[PT_REC * i] != (double)i) {
          snprintf(hdr.why, sizeof hdr.why, "--restart '%s': record %lld holds id %.17g, not %lld",
                   p->run.restart, i, ck[PT_REC * i], i);
          hdr.bad = 1;
        }
    }
    hdr.start = (int)step;
  }
  KIT_MPI_CHECK(MPI_Bcast(&hdr, (int)sizeof hdr, MPI_BYTE, 0, MPI_COMM_WORLD));
  if (hdr.bad) return kit_usage_error(env, "particles: %s", hdr.why);
  p->start_step = hdr.start;
  for (long long at = 0, total = PT_REC * p->n; at < total; at += 1LL << 28) {
    const long long m = total - at < (1LL << 28) ? total - at : (1LL << 28);
    KIT_MPI_CHECK(MPI_Bcast(ck + at, (int)m, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  }
  return -1;
}

/* The host and device bytes this rank will allocate, T tiles a rank (kit_check_memory). */
static void memory(const pt_problem *pb, const kit_env *env, int needs_gpu, int T, double *host,
                   double *device) {
  const pt_params *p = &pb->p;
  /* Per particle: owned state and scratch about 250 bytes, twice for imbalance and copies;
   * rank 0 gathers 80 bytes a particle and the references 100 more, when they run; the cells
   * of this rank's tiles, shell included (a sparse box's cost, not its particles'). */
  const double n = (double)p->n, tile_cells = pt_tile_cells_max(p->nc, pb->dims);
  *host = 500.0 * n / env->nranks + 1e6 + PT_CELL_HOST_BYTES * tile_cells * T;
  if (env->rank == 0 && (p->n <= p->allpairs_max || p->dump || p->dump_lammps)) *host += 300.0 * n;
  if (p->run.restart) *host += 8.0 * PT_REC * n; /* the checkpoint, on every rank */
  /* GPU variants: pinned mirrors (about 100 bytes a particle with the copies) and the fetch;
   * on the device about 700 bytes a particle slot (two sets for the sort, forces, the
   * permutation, leavers, the external cells' copies: generous for tiles of a few thousand
   * cells or more) and the tile's cell rows and tables, the tiles shared out over the
   * devices this process uses. */
  /* --neighbor list: the lists (4 bytes an entry: the particles within rc + skin at the
   * density of the whole box, doubled for the build's thread buffers and imbalance), the
   * positions at the last build, the order cells, the send lists and receive slots. */
  if (p->list) {
    const double rl = p->rc + p->skin, vol = p->box[0] * p->box[1] * p->box[2];
    const double nbrs = 4.0 / 3.0 * 3.14159265358979 * rl * rl * rl * (vol > 0 ? n / vol : 0.0);
    *host += n / env->nranks * (2.0 * 4.0 * (nbrs + 8.0) + 150.0);
  }
  const int devices = T < env->gpus_visible ? T : env->gpus_visible;
  if (needs_gpu) *host += 200.0 * n / env->nranks;
  *device =
      (700.0 * n / (env->nranks * T) + PT_CELL_DEVICE_BYTES * tile_cells) * T / (devices > 0 ? devices : 1) +
      64e6;
  /* --neighbor list on a GPU (one rank): the lists transposed, every column as long as the
   * longest list (taken as 1.5 times the mean, plus the 1/8 the tile adds), two arrays of 4
   * bytes (the lists and their codes), and per particle the order cells, the positions at the
   * build, the counts and the build's order cells of every slot. */
  if (needs_gpu && p->list) {
    const double rl = p->rc + p->skin, vol = p->box[0] * p->box[1] * p->box[2];
    const double nbrs = 4.0 / 3.0 * 3.14159265358979 * rl * rl * rl * (vol > 0 ? n / vol : 0.0);
    *device += n * (8.0 * 1.125 * 1.5 * (nbrs + 8.0) + 80.0);
  }
}

/* kit_app.check: the flag rules, the domain (its files read and refused here, on any machine)
 * and the tile grid. multi-thread's tiles are ranks x the GPUs kit_main will give each process
 * (kit_mt_gpus: --gpus, or every visible one; one where none is), so its grid is refused
 * before it skips. */
int pt_check(const kit_env *env, void *params, const char *variant) {
  pt_problem *pb = params;
  pt_params *p = &pb->p;
  const int is_mt = strcmp(variant, "multi-thread") == 0;
  p->allpairs_max = (long long)pb->allpairs;
  if (is_mt && p->run.gpus > PT_MT_MAX_GPUS)
    return kit_usage_error(
        env, "particles: --gpus: multi-thread drives at most %d GPUs (threads) per process", PT_MT_MAX_GPUS);
  if (p->run.checkpoint_every > 0 && !p->run.checkpoint)
    return kit_usage_error(env, "particles: --checkpoint-every needs --checkpoint FILE");
  if (pb->dump_every_given && !p->dump_lammps)
    return kit_usage_error(env, "particles: --dump-every needs --dump-lammps FILE");
  if (pb->drift_given && !p->shift)
    return kit_usage_error(
        env, "particles: --max-drift applies only with --shift (the truncated energy is not conserved)");
  p->list = strcmp(p->neighbor, "list") == 0;
  if (pb->skin_given && !p->list)
    return kit_usage_error(env, "particles: --skin applies only with --neighbor list");
  /* On a GPU the list runs where a rank is alone in the periodic box and makes its images on
   * the device (naive, two-stream): its lists then name its own particles. Between ranks the
   * copies would have to travel every step; that is the next step (README.md). */
  const int list_gpu = kit_variant_in(PT_IMAGES_VARIANTS, variant);
  if (p->list && strcmp(variant, "cpu") != 0 &&
      (!list_gpu || env->nranks > 1 || strcmp(p->domain, "box") != 0 || strcmp(p->images, "device") != 0))
    return kit_usage_error(env,
                           "particles: --neighbor list on a GPU needs naive or two-stream on one rank in the "
                           "periodic box with --images device, for now (the other cases: --variant cpu)");
  int rc = build_domain(pb, env), tiles = 1;
  if (rc >= 0) return rc;
  if (is_mt && (tiles = kit_mt_gpus(env, "particles", p->run.gpus, PT_MT_MAX_GPUS)) < 0)
    return KIT_EXIT_USAGE;
  if ((rc = tile_grid(pb, env, tiles > 0 ? tiles : 1, is_mt)) >= 0) return rc;
  /* Its threads post their own messages: a skip, as for a machine without the GPU. */
  if (is_mt && env->nranks > 1 && env->thread_level < MPI_THREAD_MULTIPLE)
    return kit_skip(env, "particles", variant, "multi-thread over several ranks needs MPI_THREAD_MULTIPLE");
  return -1;
}

/* kit_app.plan: the GPUs given (multi-thread: its tiles per rank), the METIS parts,
 * --restart's file, and what this rank will allocate. */
int pt_plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host, double *device) {
  pt_problem *pb = params;
  pt_params *p = &pb->p;
  const int is_mt = v->gpus_max > 0, T = is_mt ? gpus : 1;
  int rc = T == pb->tiles_per_rank ? -1 : tile_grid(pb, env, T, is_mt);
  if (rc < 0 && pb->irregular) rc = partition(pb, env, is_mt);
  if (rc < 0 && p->run.restart) rc = restart_read(pb, env);
  if (rc >= 0) return rc;
  memcpy(p->ranks, pb->dims, sizeof pb->dims); /* multi-thread tiles this grid (multi_thread.c) */
  memory(pb, env, v->needs_gpu, T, host, device);
  return -1;
}

/* kit_app.context: this rank's run (a pt_run, the variants' pt_ctx first): its tiling, its
 * initial particles (checkpoint, --input with the spacing check, or the lattice),
 * --dump-cells, the tiling summary. */
int pt_context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo) {
  pt_run *r = *ctx = calloc(1, sizeof(pt_run));
  if (!r) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  pt_problem *pb = r->pb = params;
  const pt_params *p = &pb->p;
  const int is_mt = v->gpus_max > 0, T = pb->tiles_per_rank;
  *todo = p->run.iters - p->start_step; /* a restarted run does the steps left */
  r->c.p = p;
  r->c.env = env;
  r->c.comm = MPI_COMM_WORLD;
  r->c.faults = 1;
  r->c.gpus = T;
  r->c.owner = pb->owner;
  /* multi-thread tiles its own share of the grid or map (multi_thread.c): no tiling here. */
  if (!is_mt) tile_decomp(p, pb->dims, pb->owner, env->rank, &r->c.dec);
  owner_arg keep = {p, {pb->dims[0], pb->dims[1], pb->dims[2]}, T, env->rank, pb->owner};
  if (pb->ck) {
    for (long long i = 0; i < p->n; ++i) {
      const double *rec = pb->ck + PT_REC * i;
      if (owns(&keep, rec + 1)) pt_particles_push(&r->init, (int64_t)rec[0], rec + 1, rec + 4);
    }
  } else if (p->input) {
    char err[300];
    if (pt_read_particles(p, owns_or_near, &keep, &r->init, err, sizeof err) != 0)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--input changed while reading: %s", err);
    const int bad = check_spacing(&keep, &r->init, env); /* leaves init with this rank's own */
    if (bad) return bad;
  } else {
    pt_lattice(p, owns, &keep, &r->init);
  }
  r->c.init = &r->init;
  if (p->dump_cells) dump_cells(&keep, &r->init, p->dump_cells, env);
  /* What the report says of the tiling: this rank's tiles. */
  for (int i = 0; i < T; ++i) {
    pt_decomp td;
    tile_decomp(p, pb->dims, pb->owner, env->rank * T + i, &td);
    r->cl[0] += td.first[1] - td.first[0];
    r->cl[1] += td.first[2] - td.first[1];
    r->cl[2] += td.ncells - td.first[2] - td.nwall; /* another rank's cells (or images) */
    r->cl[3] += td.nbr_ranks;
    if (td.nconn > r->nb[0]) r->nb[0] = td.nconn;
    if (td.nbr_ranks > r->nb[1]) r->nb[1] = td.nbr_ranks;
    pt_decomp_free(&td);
  }
  return -1;
}

void pt_run_free(void *ctx) {
  pt_run *r = ctx;
  if (r->lmp) fclose(r->lmp); /* a run that ended early: its frames so far */
  free(r->lmp_types);
  pt_decomp_free(&r->c.dec);
  pt_particles_free(&r->init);
  free(r);
}

/* kit_app.started: not a timing of its own (kit_main's loop times the steps), the one hook
 * between the variant's set-up and its steps. --restart: the forces the integrator carries
 * into the next step are recomputed from the positions; they must be the checkpoint's, bit
 * for bit (each particle's sum runs over its neighbour cells in (cell, id) order whatever the
 * rank grid). */
void pt_restart_check_forces(void *ctx, const kit_variant *v, void *st) {
  const pt_run *r = ctx;
  pt_problem *pb = r->pb;
  if (!pb->ck) return;
  long long got = 0;
  double *now = pt_gather((const pt_variant *)v, st, MPI_COMM_WORLD, &got);
  int same = 1;
  if (r->c.env->rank == 0)
    same = got == pb->p.n && memcmp(now, pb->ck, (size_t)got * PT_REC * sizeof *now) == 0;
  KIT_MPI_CHECK(MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD));
  free(now);
  if (!same)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "--restart: the forces recomputed from the checkpoint's positions differ from its forces");
  free(pb->ck);
  pb->ck = NULL;
}

/* kit_app.checkpoint (--checkpoint): every particle's record after `step` steps in all. */
void pt_checkpoint(void *ctx, const kit_variant *v, void *st, int step) {
  const pt_run *r = ctx;
  const pt_params *p = r->c.p;
  long long got = 0;
  double *all = pt_gather((const pt_variant *)v, st, MPI_COMM_WORLD, &got);
  if (r->c.env->rank == 0) {
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = checkpoint_ident(p, ident);
    if (got != p->n)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "checkpoint: %lld particles gathered, expected %lld", got,
              p->n);
    kit_checkpoint_save(p->run.checkpoint, "particles", (uint64_t)step, ident, nid, all, sizeof(double),
                        (uint64_t)PT_REC * (uint64_t)got);
  }
  free(all);
}

/* --dump-lammps: the frame of `step` (collective: the gather; rank 0 writes). The file is
 * opened at the first frame; with a LAMMPS --input rank 0 reads each atom's type then. */
static void lammps_frame(pt_run *r, const kit_variant *v, void *st, int step) {
  const pt_params *p = r->c.p;
  long long got = 0;
  double *all = pt_gather((const pt_variant *)v, st, MPI_COMM_WORLD, &got);
  if (r->c.env->rank == 0) {
    if (got != p->n)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--dump-lammps: %lld particles gathered, expected %lld",
              got, p->n);
    if (!r->lmp) {
      if (p->input_lammps) {
        char err[300];
        r->lmp_types = kit_malloc((size_t)p->n * sizeof *r->lmp_types, "--dump-lammps types");
        if (pt_lammps_read_particles(p, NULL, NULL, NULL, r->lmp_types, err, sizeof err) != 0)
          kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--input changed during the run: %s", err);
      }
      r->lmp = kit_output_open("--dump-lammps", p->dump_lammps, "w");
    }
    pt_lammps_write_frame(r->lmp, step, p->origin, p->box, p->geom != NULL, all, got, r->lmp_types);
  }
  free(all);
}

/* Between chunks of the last repetition: the frames and checkpoints due after `done` steps. */
typedef struct between_arg {
  pt_run *r;
  const kit_variant *v;
  int todo, every_dump, every_ck; /* every_ck 0: no --checkpoint */
} between_arg;
static void between(void *arg, void *st, int done) {
  const between_arg *b = arg;
  const int start = b->r->c.p->start_step, last = done == b->todo;
  if (last || done % b->every_dump == 0) lammps_frame(b->r, b->v, st, start + done);
  if (b->every_ck && (last || done % b->every_ck == 0)) pt_checkpoint(b->r, b->v, st, start + done);
}

int pt_timed(void *ctx, const kit_variant *v, void *st, kit_timing *t) {
  pt_run *r = ctx;
  const pt_params *p = r->c.p;
  if (!p->dump_lammps) return 0;
  kit_run todo = p->run;
  todo.iters = p->run.iters - p->start_step;
  between_arg b = {r, v, todo.iters, p->dump_every > 0 ? p->dump_every : todo.iters, 0};
  if (p->run.checkpoint) b.every_ck = p->run.checkpoint_every > 0 ? p->run.checkpoint_every : todo.iters;
  int every = b.every_dump;
  for (int c = b.every_ck; c > 0;) { /* gcd: a chunk boundary at every frame and checkpoint */
    const int rest = every % c;
    every = c;
    c = rest;
  }
  lammps_frame(r, v, st, p->start_step); /* the state set up: step 0 (or --restart's step) */
  const kit_chunking chunks = {every, between, &b};
  *t = kit_time_variant(&todo, st, v->run, v->reset, v->halo ? v->halo(st) : NULL, &chunks);
  if (r->c.env->rank == 0) kit_output_close(r->lmp, "--dump-lammps", p->dump_lammps);
  r->lmp = NULL;
  return 1;
}

void pt_problem_free(pt_problem *pb) {
  free(pb->ck);
  free(pb->owner);
  pt_geom_free(&pb->geom);
}
