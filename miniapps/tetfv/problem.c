/* problem.c: the rules between flags, the memory model and building the problem of one tetfv
 * run (problem.h), Paper III Sec. 2-3.1.
 * Rank 0 alone builds or reads the mesh, checks it, assembles D, A, I once (Sec. 2) and
 * partitions the cell dual graph with METIS (Sec. 3.1); --restart's field is read there too,
 * because a checkpoint is recognised by fingerprints of that mesh and matrix. Rank 0 then
 * broadcasts the matrix, the partition and the start field, and every rank cuts out its part
 * (separator, reordered interior, ghosts: Fig. 1 left). The global matrix is replicated on
 * every rank during set-up (README.md "Not done yet"); only rank 0 keeps it, for the oracle. */
#include "problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/checkpoint.h"
#include "kit/driver.h"
#include "kit/input.h"

int tetfv_parse_mesh(const char *arg, void *dest, char *err, size_t errlen) {
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

int tetfv_check(const kit_env *env, void *params, const char *variant) {
  tetfv_args *g = params;
  tetfv_params *p = &g->p;
  p->box_n = strncmp(p->mesh, "box:", 4) == 0 ? atoi(p->mesh + 4) : 0;
  if (!p->flux) p->flux = "corrected";
  /* The bound's answer is wrong on purpose: it must not be checked, let alone pass. */
  if (p->no_exchange && p->run.verify)
    return kit_usage_error(env,
                           "tetfv: --no-exchange computes a wrong answer on purpose "
                           "(the communication-free bound): add --no-verify");
  if (g->jitter && !p->box_n) return kit_usage_error(env, "tetfv: --jitter applies only to --mesh box:N");
  if (g->fibres && p->aniso == 0.0)
    return kit_usage_error(env, "tetfv: --fibres applies only with --aniso A > 0");
  if (g->block && strcmp(p->reorder, "metis") != 0)
    return kit_usage_error(env, "tetfv: --block applies only to --reorder metis");
  if (g->t_end && g->iters) return kit_usage_error(env, "tetfv: give --iters or --t-end, not both");
  if (p->aniso > 0.0 && strcmp(p->flux, "two-point") == 0)
    return kit_usage_error(env,
                           "tetfv: --flux two-point with --aniso: "
                           "two-point fluxes are not consistent for a tensor K (use corrected)");
  const double cells = 6.0 * p->box_n * p->box_n * p->box_n; /* a file's count is known once read: context */
  if (p->box_n && cells < env->nranks)
    return kit_usage_error(env, "tetfv: --mesh %s has %.0f cells, fewer than the %d ranks", p->mesh, cells,
                           env->nranks);
  return -1;
}

/* The box's size and memory (a file is checked once read): the mesh and the global matrix on
 * every rank during set-up (replicated: README.md "Not done yet"), the local matrix, fields,
 * rank 0 the oracle's: about 950 bytes a cell (peaks of 819 at box:64 and 911 at box:40 were
 * measured, one rank, docs/sizing.md). A GPU holds its rows (D, A, I: 200 bytes each) and
 * three whole-length fields of its rank's part (and ghosts). */
int tetfv_plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host,
               double *device) {
  const tetfv_params *p = params;
  const double cells = 6.0 * p->box_n * p->box_n * p->box_n, rows = 1.1 * cells / env->nranks;
  if (cells > 1.3e8)
    return kit_usage_error(
        env, "tetfv: --mesh %s: %.0f cells exceed the 1.3e8 a rank's int indices and messages allow", p->mesh,
        cells);
  *host = 950.0 * cells;
  *device = gpus > 0 ? rows * (200.0 / gpus + 3.0 * 8.0 * 1.2) : 0.0;
  return -1;
}

/* MPI_Bcast of any length, in pieces an int can count. */
static void bcast(void *buf, size_t count, MPI_Datatype type, size_t elem) {
  const size_t piece = (size_t)1 << 28;
  for (size_t at = 0; at < count; at += piece) {
    const size_t n = count - at < piece ? count - at : piece;
    KIT_MPI_CHECK(MPI_Bcast((char *)buf + at * elem, (int)n, type, 0, MPI_COMM_WORLD));
  }
}

double *tetfv_gather(const kit_env *env, const tetfv_local *l, const double *mine, int n) {
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

/* What rank 0 learns while building and every rank needs: one broadcast. `bad`: 0 fine, 1 the
 * mesh (or the scheme on it) is refused, 2 --restart is refused, 3 the partition failed. */
typedef struct header {
  int bad, ncells, iters, width, nodes, skipped, nodominant, nograd, start;
  double dt, dt_stable, theta;
  char why[300];
} header;

/* README.md "Stability": the full correction grows at a K-obtuse face and no limit of it is
 * provably dissipative: the run is refused, naming the two cells (and their file lines). */
static void k_obtuse_reason(const tetfv_mesh *m, const tetfv_assembly_info *info, header *h) {
  const int c = info->bad_cell, nb = m->nbr[4 * (size_t)c + info->bad_face];
  char at[48] = "", other[64] = "its boundary face";
  if (m->line) snprintf(at, sizeof at, " (line %ld)", m->line[c]);
  if (nb >= 0 && m->line)
    snprintf(other, sizeof other, "cell %d (line %ld)", nb, m->line[nb]);
  else if (nb >= 0)
    snprintf(other, sizeof other, "cell %d", nb);
  snprintf(h->why, sizeof h->why,
           "cell %d%s and %s: K S . d <= 0 across their face (K-obtuse for this --aniso): "
           "the corrected flux grows and no limit of it is provably dissipative",
           c, at, other);
  h->bad = 1;
}

/* --restart: the field of a checkpoint of this very problem (mesh, matrix, time step) into
 * ustart, or the reason in h. */
static void read_restart(const tetfv_params *p, const tetfv_built *b, double *ustart, header *h) {
  double ident[KIT_CKPT_MAX_IDENT];
  const int nid = tetfv_checkpoint_ident(p, &b->mesh, &b->g, ident);
  uint64_t step = 0;
  char why[240];
  if (kit_checkpoint_read(p->run.restart, "tetfv", ident, nid, sizeof(double), (uint64_t)b->mesh.ncells,
                          &step, ustart, why, sizeof why)) {
    snprintf(h->why, sizeof h->why, "--restart '%s': %s", p->run.restart, why);
    h->bad = 2;
  } else if (step >= (uint64_t)p->run.iters) {
    snprintf(h->why, sizeof h->why, "--restart: the checkpoint is at step %llu; --iters %d must be larger",
             (unsigned long long)step, p->run.iters);
    h->bad = 2;
  }
  h->start = (int)step;
}

/* Rank 0: mesh, checks, matrix, partition, initial (and restart) field into b, part, *ustart. */
static void build_on_root(const kit_env *env, tetfv_params *p, tetfv_built *b, int **part, double **ustart,
                          header *h) {
  tetfv_mesh *mesh = &b->mesh;
  tetfv_assembly_info info;
  memset(&info, 0, sizeof info);
  const double t0 = kit_now();
  if (p->box_n > 0)
    tetfv_mesh_box(mesh, p->box_n, p->jitter, p->shuffle, p->run.seed);
  else if (tetfv_read_msh(p->mesh, mesh, h->why, sizeof h->why))
    h->bad = 1;
  if (!h->bad && p->box_n == 0 && p->shuffle) tetfv_mesh_shuffle(mesh, p->run.seed);
  if (!h->bad && tetfv_mesh_connect(mesh, h->why, sizeof h->why)) h->bad = 1;
  if (!h->bad && mesh->ncells < env->nranks) {
    snprintf(h->why, sizeof h->why, "%d cells, fewer than the %d ranks", mesh->ncells, env->nranks);
    h->bad = 1;
  }
  if (!h->bad) {
    if (mesh->skipped)
      kit_log(env, "tetfv: %s: skipped %d elements that are not tetrahedra", p->mesh, mesh->skipped);
    tetfv_assemble(p, mesh, &b->g, &info);
    if (info.limited) /* the fall-back, said once: the figure of merit changes with it */
      kit_log(env,
              "tetfv: --flux corrected: the full correction lets a mode grow on this mesh (set-up probe); "
              "using it limited to %.3g of itself, which is provably dissipative (README.md \"Stability\")",
              info.theta);
    if (info.bad_cell >= 0) k_obtuse_reason(mesh, &info, h);
    *part = kit_malloc((size_t)mesh->ncells * sizeof(int), "partition");
    if (tetfv_partition(mesh, env->nranks, *part, h->why, sizeof h->why)) h->bad = 3;
    b->u0 = kit_malloc((size_t)mesh->ncells * sizeof(double), "initial field");
    for (int c = 0; c < mesh->ncells; ++c) b->u0[c] = tetfv_initial(p, c, mesh->centroid + 3 * (size_t)c);
    *ustart = b->u0;
    if (p->run.restart && h->bad == 0) {
      *ustart = kit_malloc((size_t)mesh->ncells * sizeof(double), "restart field");
      read_restart(p, b, *ustart, h);
    }
    kit_log(env, "tetfv: %s: %d cells, %d nodes, %d interior and %d boundary faces; set-up %.2f s", p->mesh,
            mesh->ncells, mesh->nnodes, mesh->nfaces_interior, mesh->nfaces_boundary, kit_now() - t0);
  }
  h->ncells = mesh->ncells;
  h->nodes = mesh->nnodes;
  h->iters = p->run.iters;
  h->dt = p->dt;
  h->dt_stable = info.dt_stable;
  h->width = info.max_width;
  h->skipped = mesh->skipped;
  h->nodominant = info.rows_not_dominant;
  h->theta = info.theta;
  h->nograd = info.rows_no_gradient;
}

int tetfv_build(const kit_env *env, tetfv_params *p, tetfv_built *b) {
  header h;
  memset(&h, 0, sizeof h);
  int *part = NULL;
  double *ustart = NULL; /* where the run starts: b->u0, or the restart's field */
  if (env->rank == 0) build_on_root(env, p, b, &part, &ustart, &h);
  KIT_MPI_CHECK(MPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, MPI_COMM_WORLD));
  if (h.bad == 3) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%s", h.why);
  if (h.bad) {
    free(part);
    if (ustart != b->u0) free(ustart);
    if (h.bad == 2) return kit_usage_error(env, "tetfv: %s", h.why);
    char safe[300];
    return kit_usage_error(env, "tetfv: --mesh '%s': %s", kit_printable(p->mesh, safe, sizeof safe), h.why);
  }
  p->start_step = h.start;
  p->run.iters = h.iters;
  p->dt = h.dt;
  const int N = b->ncells = h.ncells;
  b->nodes = h.nodes;
  b->dt_stable = h.dt_stable;
  b->width = h.width;
  b->nodominant = h.nodominant;
  b->theta = h.theta;
  if (env->rank != 0) {
    tetfv_matrix_alloc(&b->g, N);
    part = kit_malloc((size_t)N * sizeof(int), "partition");
    ustart = kit_malloc((size_t)N * sizeof(double), "initial field");
  }
  bcast(b->g.D, (size_t)N, MPI_DOUBLE, sizeof(double));
  bcast(b->g.A, (size_t)N * TETFV_W, MPI_DOUBLE, sizeof(double));
  bcast(b->g.I, (size_t)N * TETFV_W, MPI_INT, sizeof(int));
  bcast(part, (size_t)N, MPI_INT, sizeof(int));
  bcast(ustart, (size_t)N, MPI_DOUBLE, sizeof(double)); /* the start: initial or restarted */

  /* This rank's part: separator, interior, ghosts (Paper III Fig. 1). */
  const double t_part = kit_now(); /* the interior reorder runs here: its cost is part of the choice */
  tetfv_local_build(&b->g, part, env->rank, p->reorder, p->block, &b->loc);
  b->part_build_s = kit_now() - t_part;
  const tetfv_local *l = &b->loc;
  b->u0_local = kit_malloc(((size_t)l->nown + l->nghost + 1) * sizeof(double), "initial field");
  for (int a = 0; a < l->nown + l->nghost; ++a) b->u0_local[a] = ustart[l->gid[a]];
  if (ustart != b->u0) free(ustart);
  if (env->rank != 0) tetfv_matrix_free(&b->g); /* only rank 0 keeps the global problem, for the oracle */
  free(part);
  b->c = (tetfv_ctx){p, env, &b->loc, b->u0_local, b->c.gpus, -1.0}; /* gpus: the caller's */
  return -1;
}

/* multi-thread and hybrid --gpus N need a row per GPU, which only METIS shows. */
int tetfv_context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo) {
  tetfv_params *p = params;
  tetfv_built *b = *ctx = kit_malloc(sizeof *b, "context");
  *b = (tetfv_built){.c.gpus = gpus};
  const int rc = tetfv_build(env, p, b);
  if (rc >= 0) return rc;
  if (v->gpus_max > 0) {
    int least = b->loc.nown;
    KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (least < gpus)
      return kit_usage_error(env, "tetfv: --mesh %s: a rank has %d cells, fewer than its %d GPUs (%s)",
                             p->mesh, least, gpus, v->name);
  }
  *todo = p->run.iters - p->start_step; /* a restarted run does only the steps left */
  return -1;
}

void tetfv_free_context(void *ctx) {
  tetfv_built *b = ctx;
  tetfv_local_free(&b->loc);
  tetfv_matrix_free(&b->g);
  tetfv_mesh_free(&b->mesh);
  free(b->u0);
  free(b->u0_local);
  free(b);
}
