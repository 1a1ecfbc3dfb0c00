/* main.c: the tetfv driver. Parse, build or read the mesh, assemble D, A, I once, partition,
 * choose the GPUs and the hybrid's CPU share, set up, warm up, profile, time, verify, report;
 * the variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c) do the time steps.
 * Paper III (`../shared/seeds/001_5c64d68c2bfeada2.txt`) Sec. 2-3; see README.md in this folder.
 *   build/bin/tetfv --variant list
 *   mpiexec -n 4 build/bin/tetfv --mesh box:10 --shuffle --iters 50
 *   mpiexec -n 2 build/bin/tetfv --variant two-stream --mesh box:100 --iters 100
 *   build/bin/tetfv --variant hybrid --mesh box:100 --cpu-fraction auto
 *   build/bin/tetfv --mesh tests/tetfv/data/sphere_v41.msh --init random
 *   build/bin/tetfv --mesh box:8 --jitter 0.4 --aniso 4 --t-end 0.01 */
#include <limits.h>
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
#include "kit/ranges.h"
#include "kit/report.h"
#include "kit/slab.h"
#include "tetfv.h"
#include "verify.h"

/* Bytes one cell update must move (Paper III Sec. 2): 16 weights and 16 indices, D[i] and
 * u_old[i] read (208), u_new[i] written (8); the 33 flops of tetfv_row. */
#define TETFV_BYTES_PER_CELL 216.0
#define TETFV_FLOPS_PER_CELL 33.0

static const tetfv_variant *const variants[] = {
    &tetfv_cpu,
#ifdef KIT_HAVE_CUDA
    &tetfv_naive, &tetfv_two_stream, &tetfv_multi_thread, &tetfv_hybrid,
#endif
};
static const tetfv_variant *find_variant(const char *name) {
  for (size_t i = 0; i < sizeof variants / sizeof *variants; ++i)
    if (strcmp(variants[i]->name, name) == 0) return variants[i];
  return NULL;
}

/* --variant list: a CPU-only build lists the GPU variants too (they exit 77). */
static const char *describe(const char *name) {
  const tetfv_variant *v = find_variant(name);
  return v ? v->summary : "(not built: no CUDA toolkit)";
}

/* --cpu-fraction auto's measurement of one schedule on a fresh state (kit_median_time). */
static double calibrate(const tetfv_variant *v, const tetfv_ctx *ctx, int steps) {
  void *st = v->setup(ctx);
  const double t = kit_median_time(st, v->run, steps);
  v->teardown(st);
  return t;
}

/* The hybrid's CPU rows for share f, summed over the ranks (collective). */
static int cpu_rows_total(const tetfv_local *l, double f) {
  int mine = kit_cpu_planes(l->nown, f), all = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  return all;
}

/* --mesh box:N or a file name. */
static int parse_mesh(const char *arg, void *dest, char *err, size_t errlen) {
  *(const char **)dest = arg;
  if (strncmp(arg, "box:", 4) == 0) {
    char *end = NULL;
    const long n = strtol(arg + 4, &end, 10);
    if (end == arg + 4 || *end || n < 1 || n > 400) {
      snprintf(err, errlen, "'%s' is not box:N with N in [1, 400]", arg);
      return -1;
    }
  } else if (*arg == '\0') {
    snprintf(err, errlen, "empty mesh name (box:N or FILE.msh)");
    return -1;
  }
  return 0;
}

/* MPI_Bcast of any length, in pieces an int can count. */
static void bcast(void *buf, size_t count, MPI_Datatype type, size_t elem) {
  const size_t piece = (size_t)1 << 28;
  for (size_t at = 0; at < count; at += piece) {
    const size_t n = count - at < piece ? count - at : piece;
    KIT_MPI_CHECK(MPI_Bcast((char *)buf + at * elem, (int)n, type, 0, MPI_COMM_WORLD));
  }
}

/* Rank 0 gathers every rank's owned values into mesh order. */
static double *gather_field(const kit_env *env, const tetfv_local *l, const double *mine, int n) {
  int cnt = l->nown, *counts = NULL, *displs = NULL, *gids = NULL;
  double *vals = NULL, *all = NULL;
  if (env->rank == 0) counts = kit_malloc((size_t)env->nranks * sizeof(int), "gather");
  KIT_MPI_CHECK(MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (env->rank == 0) {
    displs = kit_malloc((size_t)env->nranks * sizeof(int), "gather");
    for (int r = 0, at = 0; r < env->nranks; at += counts[r++]) displs[r] = at;
    gids = kit_malloc(((size_t)n + 1) * sizeof(int), "gather");
    vals = kit_malloc(((size_t)n + 1) * sizeof(double), "gather");
    all = kit_malloc(((size_t)n + 1) * sizeof(double), "gathered field");
  }
  KIT_MPI_CHECK(MPI_Gatherv(l->gid, cnt, MPI_INT, gids, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Gatherv(mine, cnt, MPI_DOUBLE, vals, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  if (env->rank == 0)
    for (int k = 0; k < n; ++k) all[gids[k]] = vals[k];
  free(counts);
  free(displs);
  free(gids);
  free(vals);
  return all;
}

/* --checkpoint: between chunks of the last repetition, gather the field (mesh order) and
 * write it on rank 0 with the problem's identity (tetfv_checkpoint_ident). */
typedef struct checkpoint_ctx {
  const tetfv_params *p;
  const kit_env *env;
  const tetfv_variant *v;
  const tetfv_local *l;
  int n;
  const tetfv_mesh *mesh; /* rank 0 */
  const tetfv_matrix *g;  /* rank 0 */
} checkpoint_ctx;

static void write_checkpoint(void *arg, void *state, int done) {
  const checkpoint_ctx *c = arg;
  double *mine = kit_malloc(((size_t)c->l->nown + 1) * sizeof(double), "checkpoint");
  c->v->fetch(state, mine);
  double *all = gather_field(c->env, c->l, mine, c->n);
  if (c->env->rank == 0) {
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = tetfv_checkpoint_ident(c->p, c->mesh, c->g, ident);
    kit_checkpoint_save(c->p->run.checkpoint, "tetfv", (uint64_t)(c->p->start_step + done), ident, nid, all,
                        sizeof(double), (uint64_t)c->n);
  }
  free(all);
  free(mine);
}

int main(int argc, char **argv) {
  kit_env env;
  kit_init(&argc, &argv, &env);

  tetfv_params p;
  memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.run.iters = 100;
  p.mesh = "box:8";
  p.kappa = 1.0;
  p.fibres = "rotating";
  p.flux = NULL; /* by --aniso, below */
  p.bc = "neumann";
  p.safety = 0.9;
  p.init = "mode";
  p.reorder = "rcm"; /* README "Partitioning and ordering": faster than METIS blocks on the CPU, cheaper to set up */
  p.block = 512;
  p.p2p = 1;
  int iters_given = 0, jitter_given = 0, fibres_given = 0, tend_given = 0, block_given = 0;
  kit_option opts[KIT_RUN_NOPTS + 20];
  int n = kit_run_options(&p.run, opts);
  for (int i = 0; i < n; ++i)
    if (strcmp(opts[i].name, "iters") == 0) opts[i].given = &iters_given;
  const kit_option app_opts[] = {
      {"mesh", KIT_OPT_CUSTOM, &p.mesh, "box:N|FILE.msh", "the built-in box (n^3 cubes x 6 tetrahedra) or a gmsh ASCII 2.2/4.1 file [box:8]", 1, 0, 0, NULL, parse_mesh, NULL},
      {"jitter", KIT_OPT_DOUBLE, &p.jitter, "J", "box: move interior vertices up to J h / 2 per coordinate", 0.0, 0.5, 0, NULL, NULL, &jitter_given},
      {"shuffle", KIT_OPT_FLAG, &p.shuffle, NULL, "renumber the cells at random (real meshes are unordered in memory)", 1, 0, 1, NULL, NULL, NULL},
      {"kappa", KIT_OPT_DOUBLE, &p.kappa, "K", "scalar diffusivity", 1e-12, 1e12, 0, NULL, NULL, NULL},
      {"aniso", KIT_OPT_DOUBLE, &p.aniso, "A", "tensor K = kappa (I + A f f^T) along fibres f (needs --flux corrected)", 0.0, 1e6, 0, NULL, NULL, NULL},
      {"fibres", KIT_OPT_STRING, &p.fibres, "F", "fibre field of --aniso: along x, or rotating 120 deg through z", 1, 0, 0, "x|rotating", NULL, &fibres_given},
      {"flux", KIT_OPT_STRING, &p.flux, "KIND", "face fluxes: gradient-corrected (up to 16 neighbours, consistent) or two-point (4; inconsistent on tetrahedra, README) [corrected]", 1, 0, 0, "two-point|corrected", NULL, NULL},
      {"bc", KIT_OPT_STRING, &p.bc, "BC", "boundary: zero flux, or u = 0 on boundary faces", 1, 0, 0, "neumann|dirichlet", NULL, NULL},
      {"safety", KIT_OPT_DOUBLE, &p.safety, "S", "time step = S x the Gershgorin stability limit", 0.01, 1.0, 0, NULL, NULL, NULL},
      {"t-end", KIT_OPT_DOUBLE, &p.t_end, "T", "run to time T (sets --iters, shortens dt to land on T)", 1e-12, 1e6, 0, NULL, NULL, &tend_given},
      {"init", KIT_OPT_STRING, &p.init, "KIND", "initial field: the box's slowest mode, Philox noise, or 1", 1, 0, 0, "mode|random|constant", NULL, NULL},
      {"reorder", KIT_OPT_STRING, &p.reorder, "HOW", "interior cell order for cache reuse: none, reverse Cuthill-McKee (default), METIS blocks", 1, 0, 0, "none|rcm|metis", NULL, NULL},
      {"block", KIT_OPT_INT, &p.block, "B", "--reorder metis: cells per block (Paper III: 512 on a CPU)", 8, 1e8, 0, NULL, NULL, &block_given},
      {"skip-oracle", KIT_OPT_FLAG, &p.skip_oracle, NULL, "skip the bitwise oracle (large meshes; other checks stay)", 1, 0, 1, NULL, NULL, NULL},
      {"dump", KIT_OPT_STRING, &p.dump, "FILE", "write the final field (mesh order) as raw little-endian doubles", 1, 0, 0, NULL, NULL, NULL},
      {"no-p2p", KIT_OPT_FLAG, &p.p2p, NULL, "stage GPU-GPU copies through host memory", 1, 0, 0, NULL, NULL, NULL, "multi-thread"},
      {"no-exchange", KIT_OPT_FLAG, &p.no_exchange, NULL, "benchmark only: exchange nothing between parts, Paper III's communication-free bound (needs --no-verify)", 1, 0, 1, NULL, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;

  const int front = kit_front_door(&env, argc, argv, opts, "tetfv",
      "cell-centred finite-volume diffusion on unstructured tetrahedral meshes (Paper III's u = D u + A u[I]); "
      "variants: cpu naive two-stream multi-thread hybrid",
      &p.run, describe);
  if (front >= 0) return kit_finalize(front);

  /* Rules that need no allocation (DESIGN.md Sec. 4): exit 2 with one line. */
  const char *vn = p.run.variant;
  const int is_box = strncmp(p.mesh, "box:", 4) == 0;
  p.box_n = is_box ? atoi(p.mesh + 4) : 0;
  /* The bound's answer is wrong on purpose: it must not be checked, let alone pass. */
  if (p.no_exchange && p.run.verify)
    return kit_finalize(kit_usage_error(&env, "tetfv: --no-exchange computes a wrong answer on purpose (the communication-free bound): add --no-verify"));
  if (strcmp(vn, "multi-thread") == 0 && p.run.gpus > TETFV_MT_MAX_GPUS)
    return kit_finalize(kit_usage_error(&env, "tetfv: --gpus: multi-thread drives at most %d GPUs per process",
                                        TETFV_MT_MAX_GPUS));
  if (p.run.checkpoint_every > 0 && !p.run.checkpoint)
    return kit_finalize(kit_usage_error(&env, "tetfv: --checkpoint-every needs --checkpoint FILE"));
  if (jitter_given && !is_box) return kit_finalize(kit_usage_error(&env, "tetfv: --jitter applies only to --mesh box:N"));
  if (fibres_given && p.aniso == 0.0) return kit_finalize(kit_usage_error(&env, "tetfv: --fibres applies only with --aniso A > 0"));
  if (block_given && strcmp(p.reorder, "metis") != 0)
    return kit_finalize(kit_usage_error(&env, "tetfv: --block applies only to --reorder metis"));
  if (tend_given && iters_given)
    return kit_finalize(kit_usage_error(&env, "tetfv: give --iters or --t-end, not both"));
  if (!p.flux) p.flux = "corrected";
  if (p.aniso > 0.0 && strcmp(p.flux, "two-point") == 0)
    return kit_finalize(kit_usage_error(&env,
        "tetfv: --flux two-point with --aniso: two-point fluxes are not consistent for a tensor K (use corrected)"));
  if (is_box && 6.0 * p.box_n * p.box_n * p.box_n < env.nranks)
    return kit_finalize(kit_usage_error(&env, "tetfv: --mesh %s has %d cells, fewer than the %d ranks", p.mesh,
                                        6 * p.box_n * p.box_n * p.box_n, env.nranks));
  const tetfv_variant *v = find_variant(vn);
  if (!v) return kit_finalize(kit_skip(&env, "tetfv", vn, "built without CUDA"));
  if (v->needs_gpu && !kit_all_ranks_have_gpu(&env)) return kit_finalize(kit_skip(&env, "tetfv", vn, "no CUDA device"));
  if (kit_check_output_file(&env, "tetfv", "--json", p.run.json) ||
      kit_check_output_file(&env, "tetfv", "--trace", p.run.trace) ||
      kit_check_output_file(&env, "tetfv", "--dump", p.dump) ||
      kit_check_output_file(&env, "tetfv", "--checkpoint", p.run.checkpoint))
    return kit_finalize(KIT_EXIT_USAGE);

  /* GPUs: one per rank, or (multi-thread) every GPU the process may use. */
  const int is_mt = v == find_variant("multi-thread"), is_hybrid = v == find_variant("hybrid");
  /* (Only thread 0, the main thread, calls MPI in multi_thread.c: MPI_THREAD_FUNNELED.) */
  int gpus_total = 0;
  const int gpus_per_rank = kit_choose_gpus(&env, "tetfv", v->needs_gpu, is_mt ? TETFV_MT_MAX_GPUS : 0,
                                            MPI_THREAD_FUNNELED, p.run.gpus, &gpus_total);
  if (gpus_per_rank < 0) return kit_finalize(KIT_EXIT_USAGE);

  /* What the box needs (a file is checked once its size is known): the mesh, the global
   * matrix on every rank during set-up (replicated: README.md "Not done yet"), the local
   * matrix, fields; rank 0 the oracle's. About 500 bytes a cell. A GPU holds its rows (D, A,
   * I: 200 bytes each) and three whole-length fields of its rank's part (and ghosts). */
  if (is_box) {
    const double cells = 6.0 * p.box_n * p.box_n * p.box_n;
    if (cells > 1.3e8)
      return kit_finalize(kit_usage_error(&env, "tetfv: --mesh %s: %.0f cells exceed the 1.3e8 a rank's int indices and messages allow", p.mesh, cells));
    const double rows = 1.1 * cells / env.nranks;
    const double device = v->needs_gpu ? rows * (200.0 / gpus_per_rank + 3.0 * 8.0 * 1.2) : 0.0;
    const int devices = gpus_per_rank < env.gpus_visible ? gpus_per_rank : env.gpus_visible;
    const int rc = kit_check_memory(&env, "tetfv", 500.0 * cells, device, v->needs_gpu ? devices : 0);
    if (rc) return kit_finalize(rc);
  }

  /* Rank 0 builds or reads the mesh, checks it, assembles the matrix and partitions it. */
  tetfv_mesh mesh;
  memset(&mesh, 0, sizeof mesh);
  tetfv_matrix g;
  memset(&g, 0, sizeof g);
  tetfv_assembly_info info;
  memset(&info, 0, sizeof info);
  struct { int bad, ncells, iters, width, nodes, skipped, nodominant, nograd, start; double dt, dt_stable, theta; char why[300]; } hdr;
  memset(&hdr, 0, sizeof hdr);
  int *part = NULL;
  double *u0 = NULL, *ustart = NULL; /* the true initial field (oracle); where the run starts */
  if (env.rank == 0) {
    const double t0 = kit_now();
    if (is_box) tetfv_mesh_box(&mesh, p.box_n, p.jitter, p.shuffle, p.run.seed);
    else if (tetfv_read_msh(p.mesh, &mesh, hdr.why, sizeof hdr.why)) hdr.bad = 1;
    if (!hdr.bad && !is_box && p.shuffle) tetfv_mesh_shuffle(&mesh, p.run.seed);
    if (!hdr.bad && tetfv_mesh_connect(&mesh, hdr.why, sizeof hdr.why)) hdr.bad = 1;
    if (!hdr.bad && mesh.ncells < env.nranks) {
      snprintf(hdr.why, sizeof hdr.why, "%d cells, fewer than the %d ranks", mesh.ncells, env.nranks);
      hdr.bad = 1;
    }
    if (!hdr.bad) {
      if (mesh.skipped) kit_log(&env, "tetfv: %s: skipped %d elements that are not tetrahedra", p.mesh, mesh.skipped);
      tetfv_assemble(&p, &mesh, &g, &info);
      if (info.limited) /* the fall-back, said once: the figure of merit changes with it */
        kit_log(&env, "tetfv: --flux corrected: the full correction lets a mode grow on this mesh (set-up probe); "
                      "using it limited to %.3g of itself, which is provably dissipative (README.md \"Stability\")",
                info.theta);
      if (info.bad_cell >= 0) { /* README.md "Stability": growing, and no limit of it provably dissipative */
        const int c = info.bad_cell, nb = mesh.nbr[4 * (size_t)c + info.bad_face];
        char at[48] = "", other[64] = "its boundary face";
        if (mesh.line) snprintf(at, sizeof at, " (line %ld)", mesh.line[c]);
        if (nb >= 0 && mesh.line)
          snprintf(other, sizeof other, "cell %d (line %ld)", nb, mesh.line[nb]);
        else if (nb >= 0)
          snprintf(other, sizeof other, "cell %d", nb);
        snprintf(hdr.why, sizeof hdr.why,
                 "cell %d%s and %s: K S . d <= 0 across their face (K-obtuse for this --aniso): "
                 "the corrected flux grows and no limit of it is provably dissipative",
                 c, at, other);
        hdr.bad = 1;
      }
      part = kit_malloc((size_t)mesh.ncells * sizeof(int), "partition");
      if (tetfv_partition(&mesh, env.nranks, part, hdr.why, sizeof hdr.why)) hdr.bad = 3;
      u0 = kit_malloc((size_t)mesh.ncells * sizeof(double), "initial field");
      for (int c = 0; c < mesh.ncells; ++c) u0[c] = tetfv_initial(&p, c, mesh.centroid + 3 * (size_t)c);
      ustart = u0;
      if (p.run.restart && hdr.bad == 0) {
        /* The field of a checkpoint of this very problem (mesh, matrix, time step), refused
         * with the reason otherwise. */
        double ident[KIT_CKPT_MAX_IDENT];
        const int nid = tetfv_checkpoint_ident(&p, &mesh, &g, ident);
        uint64_t step = 0;
        char why[240];
        ustart = kit_malloc((size_t)mesh.ncells * sizeof(double), "restart field");
        if (kit_checkpoint_read(p.run.restart, "tetfv", ident, nid, sizeof(double), (uint64_t)mesh.ncells, &step, ustart,
                                why, sizeof why)) {
          snprintf(hdr.why, sizeof hdr.why, "--restart '%s': %s", p.run.restart, why);
          hdr.bad = 2;
        } else if (step >= (uint64_t)p.run.iters) {
          snprintf(hdr.why, sizeof hdr.why, "--restart: the checkpoint is at step %llu; --iters %d must be larger",
                   (unsigned long long)step, p.run.iters);
          hdr.bad = 2;
        }
        hdr.start = (int)step;
      }
      kit_log(&env, "tetfv: %s: %d cells, %d nodes, %d interior and %d boundary faces; set-up %.2f s", p.mesh,
              mesh.ncells, mesh.nnodes, mesh.nfaces_interior, mesh.nfaces_boundary, kit_now() - t0);
    }
    hdr.ncells = mesh.ncells;
    hdr.nodes = mesh.nnodes;
    hdr.iters = p.run.iters;
    hdr.dt = p.dt;
    hdr.dt_stable = info.dt_stable;
    hdr.width = info.max_width;
    hdr.skipped = mesh.skipped;
    hdr.nodominant = info.rows_not_dominant;
    hdr.theta = info.theta;
    hdr.nograd = info.rows_no_gradient;
  }
  KIT_MPI_CHECK(MPI_Bcast(&hdr, (int)sizeof hdr, MPI_BYTE, 0, MPI_COMM_WORLD));
  if (hdr.bad == 3) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%s", hdr.why);
  if (hdr.bad == 2) return kit_finalize(kit_usage_error(&env, "tetfv: %s", hdr.why));
  if (hdr.bad) {
    tetfv_mesh_free(&mesh);
    char safe[300];
    return kit_finalize(kit_usage_error(&env, "tetfv: --mesh '%s': %s", kit_printable(p.mesh, safe, sizeof safe), hdr.why));
  }
  p.start_step = hdr.start;
  p.run.iters = hdr.iters;
  p.dt = hdr.dt;
  const int N = hdr.ncells;
  if (env.rank != 0) {
    tetfv_matrix_alloc(&g, N);
    part = kit_malloc((size_t)N * sizeof(int), "partition");
    u0 = ustart = kit_malloc((size_t)N * sizeof(double), "initial field");
  }
  bcast(g.D, (size_t)N, MPI_DOUBLE, sizeof(double));
  bcast(g.A, (size_t)N * TETFV_W, MPI_DOUBLE, sizeof(double));
  bcast(g.I, (size_t)N * TETFV_W, MPI_INT, sizeof(int));
  bcast(part, (size_t)N, MPI_INT, sizeof(int));
  bcast(ustart, (size_t)N, MPI_DOUBLE, sizeof(double)); /* the start: initial or restarted */

  /* This rank's part: separator, interior, ghosts (Paper III Fig. 1). */
  tetfv_local loc;
  const double t_part = kit_now(); /* the interior reorder runs here: its cost is part of the choice */
  tetfv_local_build(&g, part, env.rank, p.reorder, p.block, &loc);
  const double part_build_s = kit_now() - t_part;
  double *u0_local = kit_malloc(((size_t)loc.nown + loc.nghost + 1) * sizeof(double), "initial field");
  for (int a = 0; a < loc.nown + loc.nghost; ++a) u0_local[a] = ustart[loc.gid[a]];
  if (ustart != u0) free(ustart);
  ustart = NULL;
  if (env.rank != 0) { /* only rank 0 keeps the global problem, for the oracle */
    tetfv_matrix_free(&g);
    free(u0);
    u0 = NULL;
  }
  free(part);
  if (is_mt) { /* METIS gives each GPU some rows only if there are enough */
    int least = 0;
    KIT_MPI_CHECK(MPI_Allreduce(&loc.nown, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (least < gpus_per_rank)
      return kit_finalize(kit_usage_error(&env, "tetfv: --mesh %s: a rank has %d cells, fewer than its %d GPUs (multi-thread)",
                                          p.mesh, least, gpus_per_rank));
  }
  /* Ceilings measured on this machine, and the hybrid share derived from them. */
  const double host_bw = !v->needs_gpu || is_hybrid ? kit_host_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;
  const double dev_bw = v->needs_gpu ? kit_device_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;

  tetfv_ctx ctx = {&p, &env, &loc, u0_local, gpus_per_rank, -1.0};
  /* A restarted run does only the steps the checkpoint has not done. */
  kit_run todo = p.run;
  todo.iters = p.run.iters - p.start_step;

  /* hybrid: the CPU share. --cpu-fraction auto: Paper III's bandwidth model (Sec. 5.1, r from
   * the STREAM bandwidths, lowered as it advises) proposes one, and a short measurement
   * against the GPU-only schedule (share 0, run as two-stream) decides, so that the hybrid
   * never loses to it (the rule of laplace and lbm, docs/hybrid.md). */
  double cpu_fraction = -1.0, model_fraction = -1.0, t_model = 0.0, t_zero = 0.0;
  const tetfv_variant *exec = v;
  if (is_hybrid) {
    cpu_fraction = p.run.cpu_fraction >= 0.0 ? p.run.cpu_fraction
                                             : (model_fraction = kit_cpu_share(host_bw / env.nranks, dev_bw, KIT_HYBRID_DERATE));
    ctx.cpu_fraction = cpu_fraction;
    if (model_fraction > 0.0 && cpu_rows_total(&loc, model_fraction) > 0) {
      const int steps = todo.iters < 5 ? 5 : (todo.iters > 20 ? 20 : todo.iters);
      t_model = calibrate(v, &ctx, steps);
      t_zero = calibrate(find_variant("two-stream"), &ctx, steps);
      ctx.cpu_fraction = cpu_fraction = t_model < t_zero ? model_fraction : 0.0;
      kit_log(&env, "tetfv: hybrid auto: model share %.4f took %.3g s, share 0 took %.3g s for %d steps: using %.4f",
              model_fraction, t_model, t_zero, steps, cpu_fraction);
    }
    /* No CPU row on any rank: that is the two-stream schedule. */
    if (cpu_rows_total(&loc, cpu_fraction) == 0) {
      exec = find_variant("two-stream");
      kit_log(&env, "tetfv: hybrid: no CPU row on any rank: running the two-stream schedule");
    }
  }

  void *st = exec->setup(&ctx);
  const kit_halo *h = exec->halo(st);
  checkpoint_ctx ck = {&p, &env, exec, &loc, N, &mesh, &g};
  const kit_chunking chunks = {p.run.checkpoint_every > 0 ? p.run.checkpoint_every : todo.iters, write_checkpoint, &ck};
  const kit_timing timing = kit_time_variant(&todo, st, exec->run, exec->reset, h, p.run.checkpoint ? &chunks : NULL);

  kit_report rep;
  kit_report_init(&rep, "tetfv", v->name);
  kit_json *pj = &rep.params;
  kit_json_string(pj, "mesh", p.mesh);
  kit_json_int(pj, "cells", N);
  kit_json_int(pj, "nodes", hdr.nodes);
  kit_json_int(pj, "box_n", p.box_n);
  kit_json_number(pj, "jitter", p.jitter);
  kit_json_bool(pj, "shuffle", p.shuffle);
  kit_json_bool(pj, "no_exchange", p.no_exchange);
  kit_json_number(pj, "kappa", p.kappa);
  kit_json_number(pj, "aniso", p.aniso);
  kit_json_string(pj, "fibres", p.aniso > 0.0 ? p.fibres : "none");
  kit_json_string(pj, "flux", p.flux);
  kit_json_string(pj, "bc", p.bc);
  kit_json_number(pj, "safety", p.safety);
  kit_json_number(pj, "dt", p.dt);
  kit_json_number(pj, "t_end", p.dt * p.run.iters);
  kit_json_int(pj, "iters", p.run.iters);
  kit_json_int(pj, "start_step", p.start_step);
  kit_json_int(pj, "warmup", p.run.warmup);
  kit_json_int(pj, "reps", p.run.reps);
  kit_json_string(pj, "init", p.init);
  kit_json_string(pj, "reorder", p.reorder);
  kit_json_int(pj, "block", p.block);
  {
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)p.run.seed);
    kit_json_raw(pj, "seed", seed);
  }
  kit_json_string(pj, "partitioner", env.nranks > 1 ? "METIS_PartGraphKway, dual graph" : "none (1 rank)");
  kit_json_string(pj, "precision", "double");
  kit_json_bool(pj, "exact", !KIT_EXACT_BUILD_OFF);
  kit_json_bool(pj, "p2p", p.p2p);
  kit_json_int(pj, "gpu_block_rows", TETFV_GPU_B);
  kit_json_end_object(pj);

  kit_report_fill_run(&rep, &env, &timing, gpus_total, cpu_fraction);
  kit_report_fom(&rep, "GFLOP/s", "GFLOP/s", TETFV_FLOPS_PER_CELL * N * (double)timing.iters / timing.time.median * 1e-9);
  kit_report_bandwidth(&rep, TETFV_BYTES_PER_CELL * N, timing.iters,
                       (v->needs_gpu ? dev_bw * gpus_total : 0.0) + (!v->needs_gpu || is_hybrid ? host_bw : 0.0),
                       v->needs_gpu ? (is_hybrid ? "device triad x GPUs + host triad x nodes" : "device triad x GPUs")
                                    : "host triad x nodes");
  kit_report_messages(&rep, h->messages - timing.messages_before, h->bytes - timing.bytes_before,
                      (double)timing.reps * timing.iters);
  {
    long long mine[2] = {loc.nsep, loc.nghost}, sum[2] = {0, 0};
    KIT_MPI_CHECK(MPI_Allreduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    double dist[2] = {loc.reorder_distance, part_build_s}, dmax[2] = {0.0, 0.0};
    KIT_MPI_CHECK(MPI_Allreduce(dist, dmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    kit_report_result(&rep, "dt", p.dt, "time");
    kit_report_result(&rep, "dt_stable", hdr.dt_stable, "time");
    kit_report_result(&rep, "t_end", p.dt * p.run.iters, "time");
    kit_report_result(&rep, "max_row_width", hdr.width, "slots");
    kit_report_result(&rep, "rows_not_dominant", hdr.nodominant, "rows");
    kit_report_result(&rep, "flux_limiter", hdr.theta, "");
    kit_report_result(&rep, "separator_cells", (double)sum[0], "cells");
    kit_report_result(&rep, "ghost_cells", (double)sum[1], "cells");
    kit_report_result(&rep, "interior_distance", dmax[0], "rows");
    kit_report_result(&rep, "part_build_s", dmax[1], "s"); /* slowest rank: its part, --reorder included */
    kit_report_result(&rep, "MCUP/s", N * (double)timing.iters / timing.time.median * 1e-6, "MCUP/s");
  }
  /* The hybrid's split, as kit_report_hybrid reports planes for the slab apps: the CPU rows
   * summed over ranks, the model's share and the auto calibration's two timings. */
  if (is_hybrid) {
    kit_report_result(&rep, "cpu_rows", cpu_rows_total(&loc, cpu_fraction), "rows");
    if (model_fraction >= 0.0) kit_report_result(&rep, "cpu_fraction_model", model_fraction, "");
    if (t_model > 0.0) {
      kit_report_result(&rep, "calibration_model_s", t_model, "s");
      kit_report_result(&rep, "calibration_gpu_only_s", t_zero, "s");
    }
  }

  /* Verification works on the final state of the last repetition. */
  double *mine = kit_malloc(((size_t)loc.nown + 1) * sizeof(double), "result");
  exec->fetch(st, mine);
  double *all = p.run.verify || p.dump ? gather_field(&env, &loc, mine, N) : NULL;
  if (p.run.verify) {
    tetfv_problem pr = {&mesh, &g, u0, all};
    tetfv_verify(&p, &env, env.rank == 0 ? &pr : NULL, &rep);
  }
  if (p.dump && env.rank == 0) kit_write_doubles(p.dump, all, (size_t)N);
  free(all);
  free(mine);

  const int code = kit_report_finish(&rep, &env, p.run.json);
  kit_report_free(&rep);
  exec->teardown(st);
  tetfv_local_free(&loc);
  tetfv_matrix_free(&g);
  tetfv_mesh_free(&mesh);
  free(u0);
  free(u0_local);
  return kit_finalize(code);
}
