/* main.c: the lbm driver. Parse, set up, warm up, profile, time (or run to steady state),
 * verify, report; the variants (cpu.c, later the GPU ones) do the time steps.
 * Risso Sec. 5.2 (validation runs) and 6.1; see README.md in this folder.
 *   build/bin/lbm --variant list
 *   mpiexec -n 2 build/bin/lbm --size 6,4,8 --iters 20 --init random
 *   build/bin/lbm --case poiseuille --size 4,3,32 --until-steady 1e-7 --iters 50000 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/ceiling.h"
#include "kit/check.h"
#include "kit/checkpoint.h"
#include "kit/driver.h"
#include "kit/hybrid.h"
#include "kit/ranges.h"
#include "kit/report.h"
#include "kit/slab.h"
#include "kit/stats.h"
#include "lbm.h"
#include "verify.h"

/* Bytes one cell update must move with two lattices: read 19 populations, write 19. */
#define LBM_BYTES_PER_CELL (2.0 * LBM_Q * 8.0)

static const lbm_variant *const variants[] = {
    &lbm_cpu,
#ifdef KIT_HAVE_CUDA
    &lbm_naive, &lbm_two_stream, &lbm_multi_thread, &lbm_hybrid,
#endif
};
static const lbm_variant *find_variant(const char *name) {
  for (size_t i = 0; i < sizeof variants / sizeof *variants; ++i)
    if (strcmp(variants[i]->name, name) == 0) return variants[i];
  return NULL;
}

/* --variant list: a CPU-only build lists the GPU variants too (they exit 77). */
static const char *describe(const char *name) {
  const lbm_variant *v = find_variant(name);
  return v ? v->summary : "(not built: no CUDA toolkit)";
}

/* --checkpoint: between chunks of the last repetition, gather the lattice and write it. */
typedef struct checkpoint_ctx {
  const lbm_params *p;
  const kit_env *env;
  const lbm_variant *v;
  const lbm_block *blk;
} checkpoint_ctx;

static void write_checkpoint(void *arg, void *state, int done) {
  const checkpoint_ctx *c = arg;
  const size_t plane = (size_t)LBM_Q * c->blk->plane;
  double *mine = kit_malloc(plane * (size_t)c->blk->nz * sizeof(double), "checkpoint");
  c->v->fetch_lattice(state, mine);
  double *all = kit_gather_planes(MPI_COMM_WORLD, mine, c->blk->k0 - 1, c->blk->nz, plane, c->p->size[2], MPI_DOUBLE,
                                  sizeof(double));
  lbm_checkpoint_save(c->p, c->env, all, c->p->start_step + done);
  free(all);
  free(mine);
}

/* --cpu-fraction auto's measurement of one schedule on a fresh state (kit_median_time). */
static double calibrate(const lbm_variant *v, const lbm_ctx *ctx, int steps) {
  void *st = v->setup(ctx);
  const double t = kit_median_time(st, v->run, steps);
  v->teardown(st);
  return t;
}

/* CPU planes summed over ranks for a share f. */
/* 1 if share f gives every rank a CPU part or none: the hybrid's CPU part sits between the
 * GPU part and the rank above, so a rank without one (a thin slab rounds its share to 0)
 * cannot run the scheme beside ranks that have one. */
static int cpu_planes_uniform(const lbm_block *b, double f) {
  const int mine = kit_cpu_planes(b->nz, f) > 0;
  int lo = 0, hi = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return lo == hi;
}

static int cpu_planes_total(const lbm_block *b, double f) {
  int mine = kit_cpu_planes(b->nz, f), all = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  return all;
}

/* Runs `steps` steps and returns the time, max over ranks. */
static double timed_run(const lbm_variant *v, void *st, int steps) {
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = kit_now();
  v->run(st, steps);
  double mine = kit_now() - t0, all = 0.0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return all;
}

/* --until-steady: one repetition in chunks of --check-every steps, until the largest change
 * of any velocity component over a chunk is below TOL x U, or --iters steps. Only the steps
 * are timed, not the checks between them. */
static kit_timing run_until_steady(const lbm_params *p, const kit_env *env, const lbm_variant *v, void *st,
                                   const lbm_block *b, const kit_halo *h, lbm_outcome *o) {
  kit_timing t;
  memset(&t, 0, sizeof t);
  const size_t n = 4 * b->plane * (size_t)b->nz;
  double *prev = kit_malloc(n * sizeof(double), "steady check"), *cur = kit_malloc(n * sizeof(double), "steady check");
  v->fetch(st, prev);
  t.messages_before = h->messages;
  t.bytes_before = h->bytes;
  double seconds = 0.0;
  int done = 0, checks = 0;
  o->change = INFINITY;
  while (done < p->run.iters) {
    const int todo = p->run.iters - done < p->check_every ? p->run.iters - done : p->check_every;
    seconds += timed_run(v, st, todo);
    done += todo;
    v->fetch(st, cur);
    double mine = 0.0;
    for (size_t c = 0; c < n; c += 4)
      for (int a = 1; a < 4; ++a) {
        const double d = fabs(cur[c + a] - prev[c + a]);
        if (!(d <= mine)) mine = d; /* NaN: the run blew up */
      }
    double all = 0.0;
    KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    o->change = all / p->u_ref;
    double *t_ = prev;
    prev = cur;
    cur = t_;
    if (++checks % 20 == 0) kit_log(env, "lbm: step %d: max|du|/U over %d steps = %.3e", done, p->check_every, o->change);
    if (o->change < p->until_steady) {
      o->steady_reached = 1;
      break;
    }
    if (isnan(o->change)) break;
  }
  free(prev);
  free(cur);
  o->steps = done;
  t.time = kit_stats_of(&seconds, 1);
  t.reps = 1;
  t.iters = done;
  return t;
}

int main(int argc, char **argv) {
  kit_env env;
  kit_init(&argc, &argv, &env);

  lbm_params p;
  memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.size[0] = p.size[1] = p.size[2] = 32;
  p.flow = "cavity";
  p.re = 0.0; /* default by case, below */
  p.lid_velocity = 0.1;
  p.peak_velocity = 0.05;
  p.init = "rest";
  p.check_every = 100;
  p.halo = "copies";
  int iters_given = 0, re_given = 0, lid_given = 0, peak_given = 0, steady_given = 0, every_given = 0, halo_given = 0;
  kit_option opts[KIT_RUN_NOPTS + 16];
  int n = kit_run_options(&p.run, opts);
  for (int i = 0; i < n; ++i)
    if (strcmp(opts[i].name, "iters") == 0) {
      opts[i].given = &iters_given;
      opts[i].help = "time steps per timed repetition; with --until-steady the cap (10^6 unless given)";
    }
  const kit_option app_opts[] = {
      {"size", KIT_OPT_CUSTOM, p.size, "N|NX,NY,NZ", "fluid cells (a cube for one number) [32]", 1, 0, 0, NULL, kit_parse_size3, NULL},
      {"case", KIT_OPT_STRING, &p.flow, "CASE", "flow: lid-driven cavity or plane Poiseuille", 1, 0, 0, "cavity|poiseuille", NULL, NULL},
      {"re", KIT_OPT_DOUBLE, &p.re, "RE", "Reynolds number U L / nu (L: nx for the cavity, nz for Poiseuille) [cavity 100, poiseuille 10]", 1e-3, 1e6, 0, NULL, NULL, &re_given},
      {"lid-velocity", KIT_OPT_DOUBLE, &p.lid_velocity, "U", "cavity: lid speed in +x, lattice units", 1e-6, 0.3, 0, NULL, NULL, &lid_given},
      {"peak-velocity", KIT_OPT_DOUBLE, &p.peak_velocity, "U", "poiseuille: analytic centre-line speed, lattice units", 1e-6, 0.3, 0, NULL, NULL, &peak_given},
      {"init", KIT_OPT_STRING, &p.init, "KIND", "initial state: rho 1 at rest, or a random perturbation", 1, 0, 0, "rest|random", NULL, NULL},
      {"until-steady", KIT_OPT_DOUBLE, &p.until_steady, "TOL", "run until max|du| over --check-every steps < TOL x U (--iters: the cap)", 1e-15, 1.0, 0, NULL, NULL, &steady_given},
      {"check-every", KIT_OPT_INT, &p.check_every, "N", "with --until-steady: steps between checks", 1, 1e9, 0, NULL, NULL, &every_given},
      {"skip-oracle", KIT_OPT_FLAG, &p.skip_oracle, NULL, "skip the bitwise oracle (long validation runs; other checks stay)", 1, 0, 1, NULL, NULL, NULL},
      {"dump", KIT_OPT_STRING, &p.dump, "FILE", "write rho, ux, uy, uz per cell as raw little-endian doubles", 1, 0, 0, NULL, NULL, NULL},
      {"vtk", KIT_OPT_STRING, &p.vtk, "FILE", "write a legacy VTK image of rho and u (ParaView)", 1, 0, 0, NULL, NULL, NULL},
      {"profile", KIT_OPT_STRING, &p.profile, "FILE", "write the centre-line profiles (and the reference) as CSV", 1, 0, 0, NULL, NULL, NULL},
      /* multi-thread copies peer to peer between its GPUs (its MPI ends use the five copies), and
       * cpu packs on the host: --halo has nothing to choose there. */
      {"halo", KIT_OPT_STRING, &p.halo, "MODE", "face populations to MPI by 5 copies, a pack kernel + 1 copy, or device buffers to a CUDA-aware MPI", 1, 0, 0, "copies|pack|cuda-aware", NULL, &halo_given, "naive|two-stream|hybrid"},
  };
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;

  const int front = kit_front_door(&env, argc, argv, opts, "lbm",
      "D3Q19 BGK lattice Boltzmann, lid-driven cavity or Poiseuille, on z-slabs; variants: cpu naive "
      "two-stream multi-thread hybrid",
      &p.run, describe);
  if (front >= 0) return kit_finalize(front);

  /* Rules that need no allocation (DESIGN.md Sec. 4): exit 2 with one line. */
  const char *vn = p.run.variant;
  const int cavity = strcmp(p.flow, "cavity") == 0;
  if (strcmp(vn, "multi-thread") == 0 && p.run.gpus > LBM_MT_MAX_GPUS)
    return kit_finalize(kit_usage_error(&env, "lbm: --gpus: multi-thread drives at most %d GPUs per process",
                                        LBM_MT_MAX_GPUS));
  if (p.run.checkpoint_every > 0 && !p.run.checkpoint)
    return kit_finalize(kit_usage_error(&env, "lbm: --checkpoint-every needs --checkpoint FILE"));
  if ((p.run.checkpoint || p.run.restart) && steady_given)
    return kit_finalize(kit_usage_error(&env, "lbm: --checkpoint and --restart apply to runs of fixed --iters, not --until-steady"));
  if (lid_given && !cavity)
    return kit_finalize(kit_usage_error(&env, "lbm: --lid-velocity applies only to --case cavity"));
  if (peak_given && cavity)
    return kit_finalize(kit_usage_error(&env, "lbm: --peak-velocity applies only to --case poiseuille"));
  if (every_given && !steady_given)
    return kit_finalize(kit_usage_error(&env, "lbm: --check-every applies only with --until-steady"));
  if (p.size[2] < env.nranks)
    return kit_finalize(kit_usage_error(&env,
        "lbm: --size: %d z-planes cannot be split over %d ranks (each rank needs at least one plane)",
        p.size[2], env.nranks));
  /* One halo message carries five populations of an xy-plane. */
  if ((double)LBM_ZQ * p.size[0] * (double)p.size[1] > 2147483647.0)
    return kit_finalize(kit_usage_error(&env,
        "lbm: --size: an xy-plane of %d x %d cells is too large for one MPI message (5 populations, at most 2^31-1 values)",
        p.size[0], p.size[1]));
  if (steady_given && !iters_given) p.run.iters = 1000000; /* the cap, unless given */
  /* Poiseuille's default keeps tau near 1, where BGK's wall slip is small (README.md). */
  if (!re_given) p.re = cavity ? 100.0 : 10.0;
  lbm_derive(&p);
  /* BGK is unstable as tau approaches 1/2; below 0.5005 no grid we can afford is stable. */
  if (p.tau < 0.5005)
    return kit_finalize(kit_usage_error(&env,
        "lbm: --re: tau = 3 nu + 1/2 = %.6f is too close to 1/2 to be stable (lower --re or raise --size or the velocity)",
        p.tau));
  const lbm_variant *v = find_variant(vn);
  if (!v) return kit_finalize(kit_skip(&env, "lbm", vn, "built without CUDA"));
  /* The GPU kernel's grid covers y and z with one row and one plane per block. */
  if (v->needs_gpu && (p.size[1] > 65535 || p.size[2] > 65535))
    return kit_finalize(kit_usage_error(&env, "lbm: --size: the GPU variants take ny and nz up to 65535"));
  if (v->needs_gpu && !kit_all_ranks_have_gpu(&env)) return kit_finalize(kit_skip(&env, "lbm", vn, "no CUDA device"));
  /* Device pointers handed to an MPI that cannot read them would crash or send garbage. */
  if (p.halo_mode == LBM_HALO_CUDA_AWARE && !lbm_mpi_cuda_aware())
    return kit_finalize(kit_skip(&env, "lbm", vn, "MPI library is not CUDA-aware"));
  if (kit_check_output_file(&env, "lbm", "--dump", p.dump) || kit_check_output_file(&env, "lbm", "--json", p.run.json) ||
      kit_check_output_file(&env, "lbm", "--trace", p.run.trace) || kit_check_output_file(&env, "lbm", "--vtk", p.vtk) ||
      kit_check_output_file(&env, "lbm", "--profile", p.profile) ||
      kit_check_output_file(&env, "lbm", "--checkpoint", p.run.checkpoint))
    return kit_finalize(KIT_EXIT_USAGE);
  if (p.run.restart) {
    /* The whole file now (header and checksum): a checkpoint of another problem, or a
     * damaged one, is bad input, refused before anything is allocated. */
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = lbm_checkpoint_ident(&p, ident);
    const unsigned long long count = (unsigned long long)LBM_Q * p.size[0] * p.size[1] * p.size[2];
    const int rc = kit_restart_check(&env, "lbm", p.run.restart, ident, nid, sizeof(double), count, p.run.iters,
                                     "--iters", &p.start_step);
    if (rc >= 0) return kit_finalize(rc);
  }

  /* Refuse what cannot fit: two lattices per rank, the steady-check and fetch buffers; on
   * rank 0 the gathered field and, for the oracle, two whole lattices and its result. */
  {
    const double plane = (double)p.size[0] * p.size[1] * 8.0;
    const double slab = plane * (kit_block_split(p.size[2], env.nranks, env.rank).count + 2);
    const double cells = plane * p.size[2];
    double host = 2.0 * LBM_Q * slab + 3.0 * 4.0 * slab;
    if (env.rank == 0 && (p.run.verify || p.dump || p.vtk || p.profile)) host += 4.0 * cells;
    if (env.rank == 0 && p.run.verify && !p.skip_oracle) host += 2.0 * LBM_Q * (cells + 2.0 * plane) + 4.0 * cells;
    /* GPU variants: the current, next and initial lattices on the device, and a whole
     * lattice on the host for the fetch. */
    if (v->needs_gpu) host += LBM_Q * slab;
    if (p.run.restart) host += LBM_Q * slab + (env.rank == 0 ? LBM_Q * cells : 0.0);
    if (p.run.checkpoint) host += LBM_Q * slab + (env.rank == 0 ? LBM_Q * cells : 0.0);
    /* multi-thread spreads the slab over its GPUs (ranks sharing devices add up). */
    int per = 1;
    if (v->needs_gpu && strcmp(vn, "multi-thread") == 0) per = p.run.gpus > 0 ? p.run.gpus : (env.gpus_visible > 0 ? env.gpus_visible : 1);
    const int devices = per < env.gpus_visible ? per : env.gpus_visible;
    /* The whole slab: kit_check_memory shares it over the devices in use. */
    const int rc = kit_check_memory(&env, "lbm", host, v->needs_gpu ? 3.0 * LBM_Q * slab : 0.0, v->needs_gpu ? devices : 0);
    if (rc) return kit_finalize(rc);
  }

  /* GPUs: one per rank, or (multi-thread) every GPU the process may use. */
  /* (The end GPUs' threads call MPI themselves: MPI_THREAD_MULTIPLE.) */
  const int is_mt = v == find_variant("multi-thread");
  int gpus_total = 0;
  const int gpus_per_rank = kit_choose_gpus(&env, "lbm", v->needs_gpu, is_mt ? LBM_MT_MAX_GPUS : 0,
                                            MPI_THREAD_MULTIPLE, p.run.gpus, &gpus_total);
  if (gpus_per_rank < 0) return kit_finalize(KIT_EXIT_USAGE);
  if (is_mt && p.size[2] < env.nranks * gpus_per_rank)
    return kit_finalize(kit_usage_error(&env,
        "lbm: --size: %d z-planes cannot be split over %d ranks x %d GPUs (each GPU needs at least one plane)",
        p.size[2], env.nranks, gpus_per_rank));
  const int is_hybrid = v == find_variant("hybrid");
  const double host_bw = !v->needs_gpu || is_hybrid ? kit_host_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;
  const double dev_bw = v->needs_gpu ? kit_device_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;

  /* This rank's z-slab and its neighbours. */
  const kit_block part = kit_block_split(p.size[2], env.nranks, env.rank);
  lbm_ctx ctx;
  ctx.p = &p;
  ctx.env = &env;
  ctx.blk = lbm_block_make(p.size[0], p.size[1], 1 + part.begin, part.count);
  ctx.nbr[KIT_DOWN] = env.rank > 0 ? env.rank - 1 : MPI_PROC_NULL;
  ctx.nbr[KIT_UP] = env.rank < env.nranks - 1 ? env.rank + 1 : MPI_PROC_NULL;
  ctx.gpus = gpus_per_rank;

  /* The oracle and the analytic checks start from the true initial state, even on restart. */
  const lbm_params p_initial = p;
  double *restart_planes = p.run.restart ? lbm_restart_load(&p, &env, &ctx.blk) : NULL;
  /* A restarted run does only the steps the checkpoint has not done. */
  kit_run todo = p.run;
  todo.iters = p.run.iters - p.start_step;

  /* hybrid: the CPU share. --cpu-fraction auto: Paper II's bandwidth model proposes one, and
   * a short measurement against the GPU-only schedule (share 0, run as two-stream) decides,
   * so the hybrid never loses to it (the rule of laplace and ising, docs/hybrid.md). */
  double cpu_fraction = -1.0, model_fraction = -1.0, t_model = 0.0, t_zero = 0.0;
  const lbm_variant *exec = v;
  ctx.cpu_fraction = -1.0;
  if (is_hybrid) {
    cpu_fraction = p.run.cpu_fraction >= 0.0 ? p.run.cpu_fraction
                                             : (model_fraction = kit_cpu_share(host_bw / env.nranks, dev_bw, KIT_HYBRID_DERATE));
    ctx.cpu_fraction = cpu_fraction;
    if (model_fraction > 0.0 && !cpu_planes_uniform(&ctx.blk, model_fraction)) {
      kit_log(&env, "lbm: hybrid auto: model share %.4f leaves some ranks without a CPU plane: using 0", model_fraction);
      ctx.cpu_fraction = cpu_fraction = 0.0;
    }
    if (p.run.cpu_fraction >= 0.0 && !cpu_planes_uniform(&ctx.blk, cpu_fraction))
      return kit_finalize(kit_usage_error(&env,
          "lbm: --cpu-fraction %g gives some ranks a CPU plane and others none (their slabs are too thin); "
          "use a larger share, a smaller one, or fewer ranks", cpu_fraction));
    if (cpu_fraction > 0.0 && model_fraction > 0.0 && cpu_planes_total(&ctx.blk, model_fraction) > 0) {
      const int steps = todo.iters < 5 ? 5 : (todo.iters > 20 ? 20 : todo.iters);
      t_model = calibrate(v, &ctx, steps);
      t_zero = calibrate(find_variant("two-stream"), &ctx, steps);
      ctx.cpu_fraction = cpu_fraction = t_model < t_zero ? model_fraction : 0.0;
      kit_log(&env, "lbm: hybrid auto: model share %.4f took %.3g s, share 0 took %.3g s for %d steps: using %.4f",
              model_fraction, t_model, t_zero, steps, cpu_fraction);
    }
    /* No CPU plane on any rank: that is the two-stream schedule. */
    if (cpu_planes_total(&ctx.blk, cpu_fraction) == 0) {
      exec = find_variant("two-stream");
      kit_log(&env, "lbm: hybrid: no CPU plane on any rank: running the two-stream schedule");
    }
  }

  void *st = exec->setup(&ctx);
  const kit_halo *h = exec->halo(st);
  lbm_outcome out;
  memset(&out, 0, sizeof out);
  kit_timing timing;
  if (steady_given) {
    out.steady_mode = 1;
    timing = run_until_steady(&p, &env, exec, st, &ctx.blk, h, &out);
  } else {
    checkpoint_ctx ck = {&p, &env, exec, &ctx.blk};
    const kit_chunking chunks = {p.run.checkpoint_every > 0 ? p.run.checkpoint_every : todo.iters, write_checkpoint, &ck};
    timing = kit_time_variant(&todo, st, exec->run, exec->reset, h, p.run.checkpoint ? &chunks : NULL);
    out.steps = p.run.iters;
  }

  kit_report rep;
  kit_report_init(&rep, "lbm", v->name);
  kit_json *pj = &rep.params;
  kit_json_int(pj, "nx", p.size[0]);
  kit_json_int(pj, "ny", p.size[1]);
  kit_json_int(pj, "nz", p.size[2]);
  kit_json_string(pj, "case", p.flow);
  kit_json_number(pj, "re", p.re);
  kit_json_number(pj, "velocity", p.u_ref);
  kit_json_number(pj, "nu", p.nu);
  kit_json_number(pj, "tau", p.tau);
  kit_json_number(pj, "force_x", p.force[0]);
  kit_json_string(pj, "init", p.init);
  /* How the face populations travel: --halo for the variants that have it; multi-thread copies
   * peer to peer (five copies at its MPI ends); cpu packs on the host. */
  kit_json_string(pj, "halo", !v->needs_gpu ? "host" : (strcmp(v->name, "multi-thread") == 0 ? "peer" : p.halo));
  kit_json_int(pj, "iters", p.run.iters);
  kit_json_int(pj, "steps", out.steps);
  kit_json_int(pj, "start_step", p.start_step);
  kit_json_int(pj, "warmup", steady_given ? 0 : p.run.warmup);
  kit_json_int(pj, "reps", timing.reps);
  kit_json_number(pj, "until_steady", p.until_steady);
  kit_json_int(pj, "check_every", p.check_every);
  {
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)p.run.seed);
    kit_json_raw(pj, "seed", seed);
  }
  kit_json_string(pj, "precision", "double");
  kit_json_bool(pj, "exact", !KIT_EXACT_BUILD_OFF);
  kit_json_string(pj, "omp_wait_policy", getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "default");
  kit_json_end_object(pj);

  const double cells = (double)p.size[0] * p.size[1] * p.size[2];
  kit_report_fill_run(&rep, &env, &timing, gpus_total, cpu_fraction);
  kit_report_fom(&rep, "MLUP/s", "MLUP/s", cells * timing.iters / timing.time.median * 1e-6);
  kit_report_bandwidth(&rep, LBM_BYTES_PER_CELL * cells, timing.iters,
                       (v->needs_gpu ? dev_bw * gpus_total : 0.0) + (!v->needs_gpu || is_hybrid ? host_bw : 0.0),
                       v->needs_gpu ? (is_hybrid ? "device triad x GPUs + host triad x nodes" : "device triad x GPUs")
                                    : "host triad x nodes");
  if (is_hybrid) {
    kit_report_hybrid(&rep, "planes", cpu_planes_total(&ctx.blk, cpu_fraction), model_fraction, t_model, t_zero);
  }
  kit_report_messages(&rep, h->messages - timing.messages_before, h->bytes - timing.bytes_before,
                      (double)timing.reps * timing.iters);
  kit_report_result(&rep, "tau", p.tau, "");
  if (steady_given) kit_report_result(&rep, "steps_to_steady", out.steady_reached ? out.steps : -1, "steps");

  /* Verification and the output files work on the final state of the last repetition. */
  double *macro = kit_malloc(4 * ctx.blk.plane * (size_t)ctx.blk.nz * sizeof(double), "result");
  exec->fetch(st, macro);
  double *all = (p.run.verify || p.dump || p.vtk || p.profile) ? lbm_gather(&p, &ctx.blk, macro) : NULL;
  if (p.run.verify) lbm_verify(&p_initial, &env, all, &out, &rep);
  if (env.rank == 0) {
    if (p.dump) kit_write_doubles(p.dump, all, 4 * (size_t)cells);
    if (p.vtk) lbm_write_vtk(&p, p.vtk, all, out.steps);
    if (p.profile) lbm_write_profile(&p, p.profile, all, out.steps);
  }
  free(all);
  free(macro);

  const int code = kit_report_finish(&rep, &env, p.run.json);
  kit_report_free(&rep);
  exec->teardown(st);
  free(restart_planes);
  return kit_finalize(code);
}
