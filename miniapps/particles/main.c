/* main.c: particles' options, hooks and descriptor; kit_main (kit/app.h) runs it: parse,
 * refuse, choose GPUs, check memory, ceilings, the hybrid share, warm up, profile, time,
 * verify, report. problem.c builds the problem (the hooks pt_check, pt_plan, pt_context,
 * pt_restart_check_forces), report.c reports it (pt_describe, pt_finish); the variants (cpu.c
 * naive.c two_stream.c multi_thread.c hybrid.c) do the time steps. Bernaschi et al. Sec. 3.2;
 * see README.md in this folder.
 *   build/bin/particles --variant list
 *   mpiexec -n 4 build/bin/particles --cells 6,5,4 --iters 50 --shift
 *   mpiexec -n 2 build/bin/particles --variant two-stream --cells 40 --iters 100
 *   mpiexec -n 4 build/bin/particles --domain tube --cells 12,10,6 --rc 2.0 --iters 50
 *   build/bin/particles --input lmp.data --iters 40 --dump-lammps traj.lammpstrj --dump-every 10
 *   build/bin/particles --cells 20 --iters 100 --neighbor list --skin 0.3 */
#include <stdio.h>

#include "kit/app.h"
#include "kit/slab.h"
#include "problem.h"

/* Bytes one atom-step must move in this layout: read id, x, v, f (80) and write x, v, f (72);
 * neighbour positions are assumed to come from cache (a lower bound, README.md). */
#define PT_BYTES_PER_ATOM 152.0

static const kit_variant *const variants[] = {
    &pt_cpu.base,
#ifdef KIT_HAVE_CUDA
    &pt_naive.base, &pt_two_stream.base, &pt_multi_thread.base, &pt_hybrid.base,
#endif
    NULL,
};

static int parse_ranks(const char *arg, void *dest, char *err, size_t errlen) {
  int *r = dest;
  char extra;
  if (sscanf(arg, "%d,%d,%d%c", &r[0], &r[1], &r[2], &extra) == 3 && r[0] >= 1 && r[1] >= 1 && r[2] >= 1)
    return 0;
  snprintf(err, errlen, "'%s' is not PX,PY,PZ with every entry >= 1", arg);
  return -1;
}

static int outputs(const void *params, const char **flags, const char **paths) {
  const pt_params *p = params;
  flags[0] = "--dump", paths[0] = p->dump;
  flags[1] = "--dump-cells", paths[1] = p->dump_cells;
  flags[2] = "--dump-lammps", paths[2] = p->dump_lammps;
  return 3;
}

/* hybrid: its CPU cells of share f (kit_cpu_planes over the owned cells, as hybrid.c). */
static int cpu_units(const void *ctx, double f) {
  return f > 0.0 ? kit_cpu_planes(((const pt_run *)ctx)->c.dec.first[2], f) : 0;
}
static void set_cpu_fraction(void *ctx, double f) {
  ((pt_run *)ctx)->c.cpu_fraction = f;
}

static void measure(const void *ctx, const kit_timing *t, kit_measure *m) {
  const double n = (double)((const pt_run *)ctx)->c.p->n;
  *m = (kit_measure){"atom-steps/s", "atom-steps/s", n * t->iters / t->time.median, PT_BYTES_PER_ATOM * n};
}

int main(int argc, char **argv) {
  pt_problem pb = {.p = {.run = kit_run_defaults(),
                         .cells = {5, 5, 5},
                         .density = 0.8442,
                         .temp = 1.44,
                         .rc = 2.5,
                         .dt = 0.005,
                         .domain = "box",
                         .neighbor = "cells",
                         .images = "device",
                         .skin = 0.3,
                         .max_drift = 1e-4},
                   .allpairs = 4000};
  pt_params *p = &pb.p;
  kit_option opts[KIT_RUN_NOPTS + 19]; /* the app's 18 rows and the END */
  int n = kit_run_options(&p->run, opts);
  /* One row per flag, read as --help prints them. */
  /* clang-format off */
  const kit_option app_opts[] = {
      {"cells", KIT_OPT_CUSTOM, p->cells, "N|NX,NY,NZ", "fcc unit cells (4 particles each; --domain tube: its voxels) [5]", 1, 0, 0, NULL, kit_parse_size3, &pb.cells_given},
      {"density", KIT_OPT_DOUBLE, &p->density, "RHO", "reduced number density of the lattice", 1e-3, 1.5, 0, NULL, NULL, &pb.density_given},
      {"temp", KIT_OPT_DOUBLE, &p->temp, "T", "initial temperature (velocities rescaled to exactly T)", 0, 100, 0, NULL, NULL, &pb.temp_given},
      {"rc", KIT_OPT_DOUBLE, &p->rc, "RC", "cutoff of the pair potential", 1.0, 100, 0, NULL, NULL, NULL},
      {"dt", KIT_OPT_DOUBLE, &p->dt, "DT", "velocity-Verlet time step", 1e-6, 0.05, 0, NULL, NULL, NULL},
      {"shift", KIT_OPT_FLAG, &p->shift, NULL, "shift the potential to zero at rc (energy conserved)", 1, 0, 1, NULL, NULL, NULL},
      {"input", KIT_OPT_STRING, &p->input, "FILE", "particles from a text file (the kit's format or a LAMMPS data file, README.md) instead of the lattice", 1, 0, 0, NULL, NULL, NULL},
      {"domain", KIT_OPT_STRING, &p->domain, "box|tube|FILE", "periodic box, built-in branching tube (--cells voxels), or a voxel mask file (README.md); walls, METIS", 1, 0, 0, NULL, NULL, NULL},
      {"ranks", KIT_OPT_CUSTOM, p->ranks, "PX,PY,PZ", "rank grid of --domain box (multi-thread: of ranks x threads tiles; default: MPI_Dims_create)", 1, 0, 0, NULL, parse_ranks, &pb.ranks_given},
      {"thermo", KIT_OPT_INT, &p->thermo, "N", "steps between thermodynamic lines (0: iters/10)", 0, 1e9, 0, NULL, NULL, NULL},
      {"max-drift", KIT_OPT_DOUBLE, &p->max_drift, "TOL", "with --shift: bound on max |E(t)-E(0)|/|E(0)|", 1e-16, 1.0, 0, NULL, NULL, &pb.drift_given},
      {"allpairs-max", KIT_OPT_DOUBLE, &pb.allpairs, "N", "O(N^2) checks and the oracle up to N particles", 0, 1e7, 0, NULL, NULL, NULL},
      {"dump", KIT_OPT_STRING, &p->dump, "FILE", "write id x y z vx vy vz per particle by id (raw doubles)", 1, 0, 0, NULL, NULL, NULL},
      {"dump-lammps", KIT_OPT_STRING, &p->dump_lammps, "FILE", "write a LAMMPS text dump (id type x y z vx vy vz) at step 0, every --dump-every steps and the last", 1, 0, 0, NULL, NULL, NULL},
      {"dump-every", KIT_OPT_INT, &p->dump_every, "N", "steps between --dump-lammps frames (0: the first and the last step only)", 0, 1e9, 0, NULL, NULL, &pb.dump_every_given},
      {"dump-cells", KIT_OPT_STRING, &p->dump_cells, "FILE", "write the decomposition: cx cy cz rank particles frontier per occupied cell (text)", 1, 0, 0, NULL, NULL, NULL},
      {"neighbor", KIT_OPT_STRING, &p->neighbor, "cells|list", "pairs from the 27 cells every step, or from a Verlet list rebuilt when a particle moved skin/2 (list: cpu; naive and two-stream on one rank in the periodic box)", 1, 0, 0, "cells|list", NULL, NULL},
      {"images", KIT_OPT_STRING, &p->images, "device|host", "one rank in the periodic box: its own periodic images and wrap-around migrants made on the GPU, or staged through the host as between ranks", 1, 0, 0, "device|host", NULL, NULL, PT_IMAGES_VARIANTS},
      {"skin", KIT_OPT_DOUBLE, &p->skin, "S", "with --neighbor list: the list's skin (pairs within rc + S; cells of side >= rc + S)", 0, 10, 0, NULL, NULL, &pb.skin_given, "cpu|naive|two-stream"},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;
  /* What the shared flags mean here. */
  kit_option_named(opts, "iters")->help = "velocity-Verlet steps per timed repetition";
  kit_option_named(opts, "gpus")->help =
      "GPUs a node's ranks share, one a rank (multi-thread: GPUs, threads and tiles per process, at most 16) "
      "(0: all visible)";
  kit_option_named(opts, "cpu-fraction")->help =
      "CPU share of each rank's owned cells, frontier first "
      "(auto: the triads' model, kept only if it beats share 0)";
  const kit_app app = {
      .name = "particles",
      .summary =
          "Lennard-Jones particle dynamics over internal/frontier/external cells with migration "
          "(Bernaschi et al. Sec. 3.2); variants: cpu naive two-stream multi-thread hybrid",
      .variants = variants,
      .gpu_only_fallback = NULL,
      .opts = opts,
      .run = &p->run,
      .params = &pb,
      .check = pt_check,
      .outputs = outputs,
      .plan = pt_plan,
      .context = pt_context,
      .free_context = pt_run_free,
      .cpu_units = cpu_units,
      .set_cpu_fraction = set_cpu_fraction,
      .cpu_unit = "cells",
      .started = pt_restart_check_forces,
      .timed = pt_timed,
      .measure = measure,
      .describe = pt_describe,
      .checkpoint = pt_checkpoint,
      .finish = pt_finish};
  const int code = kit_main(&app, argc, argv);
  pt_problem_free(&pb);
  return code;
}
