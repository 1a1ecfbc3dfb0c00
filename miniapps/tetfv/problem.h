/* problem.h: the problem one tetfv run works on, built once before any variant's setup
 * (problem.c; Paper III Sec. 2-3.1): rank 0 builds or reads the mesh, assembles D, A, I and
 * partitions the cells with METIS; every rank receives the matrix and the partition and keeps
 * its own part. tetfv_context (kit_main's context hook) builds it, kit_main hands it to the
 * variants (its first member is their tetfv_ctx) and to the report hooks. problem.c also holds
 * the rules between flags and the memory model (the check and plan hooks). */
#ifndef TETFV_PROBLEM_H
#define TETFV_PROBLEM_H
#include "tetfv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The parameters, and which flags were given (rules between flags): kit_app.params. */
typedef struct tetfv_args {
  tetfv_params p; /* first member: the hooks' params are both */
  int iters, jitter, fibres, t_end, block;
} tetfv_args;

typedef struct tetfv_built {
  tetfv_ctx c;       /* what the variants get (first member: the same address) */
  tetfv_local loc;   /* this rank's part: separator, interior, ghosts (Paper III Fig. 1) */
  double *u0_local;  /* where the run starts (initial or --restart), local order, ghosts too */
  int ncells, nodes; /* the whole mesh */
  double dt_stable;  /* the assembly's figures, for the report (tetfv_assembly_info) */
  double theta;
  int width, nodominant;
  double part_build_s; /* building this rank's part, its --reorder included */
  /* Rank 0 alone: the global problem, for the oracle, --dump and checkpoints. */
  tetfv_mesh mesh;
  tetfv_matrix g;
  double *u0; /* the true initial field (the oracle starts there, even on restart) */
} tetfv_built;

/* --mesh's parser (kit_opt_parser): box:N with N in [1, 400] (6 N^3 cells), or a file name. */
int tetfv_parse_mesh(const char *arg, void *dest, char *err, size_t errlen);

/* kit_app.check: the rules between flags (DESIGN.md Sec. 4), on a tetfv_args; exit 2 with
 * one line, on any machine. Also sets p->box_n and --flux's default. */
int tetfv_check(const kit_env *env, void *params, const char *variant);
/* kit_app.plan: the box's size limit and the host and device bytes of this rank. */
int tetfv_plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host,
               double *device);

/* Builds b (zeroed by the caller, but for c.gpus) for p on every rank (collective); p->dt,
 * p->run.iters (by --t-end) and p->start_step (by --restart) are set on return. -1 to go on,
 * or the exit code after one line: a malformed mesh, more ranks than cells, an unstable
 * scheme or a checkpoint of another problem are usage errors (2), a failed partition a
 * runtime error (3). What was built is left in b for tetfv_free_context, also after a refusal. */
int tetfv_build(const kit_env *env, tetfv_params *p, tetfv_built *b);
/* kit_app.context: a tetfv_built made and built (tetfv_build), and the rule only the built
 * problem shows (multi-thread: a cell per GPU); *todo: the steps left after --restart. */
int tetfv_context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo);
/* kit_app.free_context: frees a tetfv_built and what it holds. */
void tetfv_free_context(void *ctx);

/* Rank 0: every rank's nown values of `mine` (local order) in mesh order, n cells; NULL on
 * the other ranks (collective). */
double *tetfv_gather(const kit_env *env, const tetfv_local *l, const double *mine, int n);

/* checkpoint.c: kit_app.checkpoint (ctx: the tetfv_built), --checkpoint, the field after
 * `step` steps in all, gathered into mesh order and written by rank 0 with the problem's
 * identity (collective). */
void tetfv_checkpoint_write(void *ctx, const kit_variant *v, void *st, int step);

#ifdef __cplusplus
}
#endif
#endif
