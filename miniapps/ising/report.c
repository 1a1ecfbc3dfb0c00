/* report.c: what an ising run reports beyond kit_main's own lines: --dump's path (kit_app's
 * outputs, checked before the run), the problem's params (describe), and on the final
 * lattice of the last repetition the observables (energy and magnetisation per spin over
 * the samples), the checks of README.md "Checks" (Bernaschi et al. Sec. 3.1's update
 * against the serial oracle, reference.c) and --dump. */
#include <stdio.h>
#include <stdlib.h>

#include "kit/check.h"
#include "run.h"
#include "verify.h"

/* Bytes one flip attempt must move: read and write the spin, read its coupling byte, and
 * read the other colour's spins once per half-sweep (each is a neighbour of six sites of
 * the colour being updated, loaded once when caches hold the planes around it): 4. With
 * --layout msc, in bits: the spin read and written (2), six coupling bits (bonds are stored
 * at both ends, one plane per direction), the other colour's spin (1): 9/8. */
double ising_bytes_per_flip(const ising_params *p) {
  return ising_msc(p) ? 9.0 / 8.0 : 4.0;
}

/* The app's one output flag beyond kit_main's: --dump, checked before the run. */
int ising_outputs(const void *params, const char **flags, const char **paths) {
  flags[0] = "--dump";
  paths[0] = ((const ising_params *)params)->dump;
  return 1;
}

void ising_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j) {
  const ising_params *p = params;
  kit_json_int(j, "lx", p->size[0]);
  kit_json_int(j, "ly", p->size[1]);
  kit_json_int(j, "lz", p->size[2]);
  kit_json_string(j, "layout", p->layout);
  kit_json_int(j, "planes", ising_global_planes(p));
  kit_json_number(j, "p", p->p);
  kit_json_number(j, "temp", p->temp);
  kit_json_int(j, "samples", p->samples);
  /* How plane parts moved between processes: --comm where the variant takes it; hybrid and
   * multi-thread stage through host memory and MPI (cpu: MPI on host memory). */
  kit_json_string(j, "comm", kit_variant_in(ISING_COMM_VARIANTS, v->name) ? p->comm : "host");
  kit_json_string(j, "init", p->init);
  kit_json_bool(j, "mattis", p->mattis);
  kit_json_int(j, "iters", p->run.iters); /* sweeps, the kit's one spelling of steps */
  kit_json_int(j, "start_step", p->start_sweep);
  kit_json_int(j, "warmup", p->run.warmup);
  kit_json_int(j, "reps", p->run.reps);
  kit_json_u64(j, "seed", p->run.seed);
  kit_json_bool(j, "exact", !KIT_EXACT_BUILD_OFF);
}

int8_t *ising_final_lattice(const ising_ctx *c, const kit_variant *v, void *st) {
  int8_t *interior = kit_malloc((size_t)c->blk.n * c->blk.plane_stride, "result");
  v->fetch(st, interior);
  int8_t *logical = ising_gather_logical(c->p, &c->blk, interior);
  free(interior);
  return logical;
}

void ising_results(const ising_ctx *c, const int8_t *logical, kit_report *rep) {
  const ising_params *p = c->p;
  const double m_mean = ising_observables(p, c->env, logical, rep);
  if (p->run.verify) ising_verify(p, c->env, logical, m_mean, rep);
  if (p->dump && c->env->rank == 0) {
    FILE *f = kit_output_open("--dump", p->dump, "wb");
    fwrite(logical, 1, (size_t)ising_attempts(p), f);
    kit_output_close(f, "--dump", p->dump); /* a short write is checked here (ferror) */
  }
}
