/* main.c: lbm's options and descriptor; kit_main (kit/app.h) runs it: parse, refuse, choose
 * GPUs, check memory, ceilings, the hybrid share, warm up, profile, time (or run to a steady
 * state: steady.c), verify, report. The variants (cpu.c naive.c two_stream.c multi_thread.c
 * hybrid.c) do the time steps; setup.c holds the rules and builds this rank's problem, report.c
 * reports it. Risso Sec. 5.2 (validation runs) and 6.1; see README.md in this folder.
 *   build/bin/lbm --variant list
 *   mpiexec -n 2 build/bin/lbm --size 6,4,8 --iters 20 --init random
 *   mpiexec -n 4 build/bin/lbm --size 13,10,11 --iters 20 --init random --procs 2x2x1
 *   build/bin/lbm --case poiseuille --size 4,3,32 --until-steady 1e-7 --iters 50000 */
#include "kit/app.h"
#include "kit/exchange.h"
#include "kit/procgrid.h"
#include "run.h"

static const kit_variant *const variants[] = {
    &lbm_cpu.base,
#ifdef KIT_HAVE_CUDA
    &lbm_naive.base,
    &lbm_two_stream.base,
    &lbm_multi_thread.base,
    &lbm_hybrid.base,
#endif
    NULL,
};

int main(int argc, char **argv) {
  lbm_args a = {.p = {.run = kit_run_defaults(),
                      .size = {32, 32, 32},
                      .flow = "cavity",
                      .lid_velocity = 0.1,
                      .peak_velocity = 0.05,
                      .init = "rest",
                      .check_every = 100,
                      .comm = "host"}};
  lbm_params *p = &a.p;
  kit_option opts[KIT_RUN_NOPTS + 16];
  int n = kit_run_options(&p->run, opts);
  /* One row per flag, read as --help prints them. */
  /* clang-format off */
  const kit_option app_opts[] = {
      {"size", KIT_OPT_CUSTOM, p->size, "N|NX,NY,NZ", "fluid cells (a cube for one number) [32]", 1, 0, 0, NULL, kit_parse_size3, NULL},
      {"procs", KIT_OPT_CUSTOM, p->procs, "PxQxR", "process grid: P ranks along x, Q along y, R along z (P*Q*R = ranks; cpu, naive and two-stream, --case cavity, take P or Q > 1) [1x1xranks]", 1, 0, 0, NULL, kit_procs_parse, NULL},
      {"case", KIT_OPT_STRING, &p->flow, "CASE", "flow: lid-driven cavity or plane Poiseuille", 1, 0, 0, "cavity|poiseuille", NULL, NULL},
      {"re", KIT_OPT_DOUBLE, &p->re, "RE", "Reynolds number U L / nu (L: nx for the cavity, nz for Poiseuille) [cavity 100, poiseuille 10]", 1e-3, 1e6, 0, NULL, NULL, &a.re_given},
      {"lid-velocity", KIT_OPT_DOUBLE, &p->lid_velocity, "U", "cavity: lid speed in +x, lattice units", 1e-6, 0.3, 0, NULL, NULL, &a.lid_given},
      {"peak-velocity", KIT_OPT_DOUBLE, &p->peak_velocity, "U", "poiseuille: analytic centre-line speed, lattice units", 1e-6, 0.3, 0, NULL, NULL, &a.peak_given},
      {"init", KIT_OPT_STRING, &p->init, "KIND", "initial state: rho 1 at rest, or a random perturbation", 1, 0, 0, "rest|random", NULL, NULL},
      {"until-steady", KIT_OPT_DOUBLE, &p->until_steady, "TOL", "run in chunks of --check-every steps until max|du| over a chunk < TOL x U [off]", 1e-15, 1.0, 0, NULL, NULL, NULL},
      {"check-every", KIT_OPT_INT, &p->check_every, "N", "with --until-steady: steps between checks", 1, 1e9, 0, NULL, NULL, &a.every_given},
      {"skip-oracle", KIT_OPT_FLAG, &p->skip_oracle, NULL, "skip the bitwise oracle (long validation runs; other checks stay)", 1, 0, 1, NULL, NULL, NULL},
      {"dump", KIT_OPT_STRING, &p->dump, "FILE", "write rho, ux, uy, uz per cell as raw little-endian doubles", 1, 0, 0, NULL, NULL, NULL},
      {"vtk", KIT_OPT_STRING, &p->vtk, "FILE", "write a legacy VTK image of rho and u (ParaView)", 1, 0, 0, NULL, NULL, NULL},
      {"profile", KIT_OPT_STRING, &p->profile, "FILE", "write the centre-line profiles (and the reference) as CSV", 1, 0, 0, NULL, NULL, NULL},
      /* multi-thread copies peer to peer between its GPUs (its MPI ends use the five copies), and
       * cpu packs on the host: --halo has nothing to choose there. Its default depends on --comm
       * (lbm_check): copies land in host memory, which only the host transport sends. */
      {"halo", KIT_OPT_STRING, &p->halo, "MODE", "face populations out of the lattice: 5 copies to pinned host (--comm host only) or a pack kernel [copies with --comm host on z-slabs, else pack]", 1, 0, 0, "copies|pack", NULL, NULL, "naive|two-stream|hybrid"},
      {"comm", KIT_OPT_STRING, &p->comm, "T", "how the face populations move between processes (kit/exchange.h) [host]", 1, 0, 0, KIT_COMM_CHOICES, NULL, NULL, LBM_COMM_VARIANTS},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;
  kit_option *iters = kit_option_named(opts, "iters"), *share = kit_option_named(opts, "cpu-fraction");
  iters->given = &a.iters_given;
  iters->help = "time steps per timed repetition; with --until-steady the cap (10^6 unless given)";
  share->help =
      "share of each rank's z-planes the CPU updates, whole planes at the top of its slab "
      "(auto: the bandwidth model's share, kept if a short run shows it beats the two-stream schedule)";
  const kit_app app = {
      .name = "lbm",
      .summary =
          "D3Q19 BGK lattice Boltzmann, lid-driven cavity or Poiseuille, on z-slabs; "
          "variants: cpu naive two-stream multi-thread hybrid",
      .variants = variants,
      .gpu_only_fallback = "two-stream",
      .opts = opts,
      .run = &p->run,
      .params = &a,
      .check = lbm_check,
      .outputs = lbm_outputs,
      .gpu_limit = lbm_gpu_limit,
      .plan = lbm_plan,
      .context = lbm_context,
      .free_context = lbm_free_context,
      .cpu_units = lbm_cpu_units,
      .set_cpu_fraction = lbm_set_cpu_fraction,
      .cpu_unit = "planes",
      .uniform_share = 1,
      .timed = lbm_timed,
      .measure = lbm_measure,
      .describe = lbm_describe,
      .checkpoint = lbm_checkpoint,
      .finish = lbm_finish,
  };
  return kit_main(&app, argc, argv);
}
