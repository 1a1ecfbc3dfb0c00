/* main.c: the laplace driver. Parse, set up, warm up, profile, time, verify, report;
 * the variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c) do the time steps.
 * Sourouri Papers I-II; see README.md in this folder.
 *   build/bin/laplace --variant list
 *   mpiexec -n 2 build/bin/laplace --variant two-stream --size 256 --iters 50 --json - */
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
#include "laplace.h"
#include "verify.h"

/* Bytes one point update must move: read u once, write u_new once (neighbours from cache). */
#define LAPLACE_BYTES_PER_POINT 16.0

static const laplace_variant *const variants[] = {
    &laplace_cpu,
#ifdef KIT_HAVE_CUDA
    &laplace_naive, &laplace_two_stream, &laplace_multi_thread, &laplace_hybrid,
#endif
};
static const laplace_variant *find_variant(const char *name) {
  for (size_t i = 0; i < sizeof variants / sizeof *variants; ++i)
    if (strcmp(variants[i]->name, name) == 0) return variants[i];
  return NULL;
}

/* --variant list: a CPU-only build lists the GPU variants too (they exit 77). */
static const char *describe(const char *name) {
  const laplace_variant *v = find_variant(name);
  return v ? v->summary : "(not built: no CUDA toolkit)";
}

/* --cpu-fraction auto's measurement of one schedule on a fresh state (kit_median_time). */
static double calibrate(const laplace_variant *v, const laplace_ctx *ctx, int steps) {
  void *st = v->setup(ctx);
  const double t = kit_median_time(st, v->run, steps);
  v->teardown(st);
  return t;
}

/* --checkpoint: between chunks of the last repetition, gather the field and write it. */
typedef struct checkpoint_ctx {
  const laplace_params *p;
  const kit_env *env;
  const laplace_variant *v;
  const laplace_block *blk;
} checkpoint_ctx;

static void write_checkpoint(void *arg, void *state, int done) {
  const checkpoint_ctx *c = arg;
  double *interior = kit_malloc((size_t)c->blk->nx * c->blk->ny * c->blk->nz * sizeof(double), "checkpoint");
  c->v->fetch(state, interior);
  double *all = laplace_gather(c->p, c->env, c->blk, interior);
  laplace_checkpoint_save(c->p, c->env, all, c->p->start_step + done);
  free(all);
  free(interior);
}

int main(int argc, char **argv) {
  kit_env env;
  kit_init(&argc, &argv, &env);

  laplace_params p;
  memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.size[0] = p.size[1] = p.size[2] = 64;
  p.alpha = 0.0;
  p.beta = 1.0 / 6.0;
  p.init = "zero";
  p.p2p = 1;
  kit_option opts[KIT_RUN_NOPTS + 8];
  int n = kit_run_options(&p.run, opts);
  const kit_option app_opts[] = {
      {"size", KIT_OPT_CUSTOM, p.size, "N|NX,NY,NZ", "interior points (a cube for one number) [64]", 1, 0, 0, NULL, kit_parse_size3, NULL},
      {"alpha", KIT_OPT_DOUBLE, &p.alpha, "A", "weight of the centre point", 1, 0, 0, NULL, NULL, NULL},
      {"beta", KIT_OPT_DOUBLE, &p.beta, "B", "weight of each of the six neighbours", 1, 0, 0, NULL, NULL, NULL},
      {"init", KIT_OPT_STRING, &p.init, "KIND", "initial interior", 1, 0, 0, "zero|random", NULL, NULL},
      {"dump", KIT_OPT_STRING, &p.dump, "FILE", "write the final interior as raw little-endian doubles", 1, 0, 0, NULL, NULL, NULL},
      {"no-p2p", KIT_OPT_FLAG, &p.p2p, NULL, "stage GPU-GPU copies through host memory", 1, 0, 0, NULL, NULL, NULL, "multi-thread"},
  };
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;

  const int front = kit_front_door(&env, argc, argv, opts, "laplace",
      "3D 7-point Jacobi stencil on z-slabs; variants: cpu naive two-stream multi-thread hybrid", &p.run, describe);
  if (front >= 0) return kit_finalize(front);

  /* Rules that need no allocation (DESIGN.md Sec. 4): exit 2 with one line. */
  const char *vn = p.run.variant;
  if (strcmp(vn, "multi-thread") == 0 && p.run.gpus > LAPLACE_MT_MAX_GPUS)
    return kit_finalize(kit_usage_error(&env, "laplace: --gpus: multi-thread drives at most %d GPUs per process",
                                        LAPLACE_MT_MAX_GPUS));
  if (p.size[2] < env.nranks)
    return kit_finalize(kit_usage_error(&env,
        "laplace: --size: %d z-planes cannot be split over %d ranks (each rank needs at least one plane)",
        p.size[2], env.nranks));
  /* A z-plane travels as one MPI message of (nx+2 rounded up to 16) x (ny+2) doubles. */
  if (((double)p.size[0] + 2 + 15) / 16 * 16 * ((double)p.size[1] + 2) > 2147483647.0)
    return kit_finalize(kit_usage_error(&env,
        "laplace: --size: an xy-plane of %d x %d points is too large for one MPI message (at most 2^31-1 values)",
        p.size[0], p.size[1]));
  /* The GPU kernel's grid covers y and z with blocks of at least one row and one plane. */
  if (strcmp(vn, "cpu") != 0 && (p.size[1] > 65535 || p.size[2] > 65535))
    return kit_finalize(kit_usage_error(&env, "laplace: --size: the GPU variants take ny and nz up to 65535"));
  if (p.run.checkpoint_every > 0 && !p.run.checkpoint)
    return kit_finalize(kit_usage_error(&env, "laplace: --checkpoint-every needs --checkpoint FILE"));
  const laplace_variant *v = find_variant(vn);
  if (!v) return kit_finalize(kit_skip(&env, "laplace", vn, "built without CUDA"));
  if (v->needs_gpu && !kit_all_ranks_have_gpu(&env)) return kit_finalize(kit_skip(&env, "laplace", vn, "no CUDA device"));
  if (kit_check_output_file(&env, "laplace", "--dump", p.dump) || kit_check_output_file(&env, "laplace", "--json", p.run.json) ||
      kit_check_output_file(&env, "laplace", "--trace", p.run.trace) ||
      kit_check_output_file(&env, "laplace", "--checkpoint", p.run.checkpoint))
    return kit_finalize(KIT_EXIT_USAGE);
  if (p.run.restart) {
    /* The whole file, now: a checkpoint of another problem, or a damaged one, is bad input,
     * refused before anything is allocated. */
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = laplace_checkpoint_ident(&p, ident);
    const unsigned long long count = (unsigned long long)p.size[0] * p.size[1] * p.size[2];
    const int rc = kit_restart_check(&env, "laplace", p.run.restart, ident, nid, sizeof(double), count, p.run.iters,
                                     "--iters", &p.start_step);
    if (rc >= 0) return kit_finalize(rc);
  }

  /* GPUs: one per rank, or (multi-thread) every GPU the process may use. */
  /* (The end GPUs' threads call MPI themselves: MPI_THREAD_MULTIPLE.) */
  const int is_mt = v == find_variant("multi-thread");
  int gpus_total = 0;
  /* Without --gpus, multi-thread takes every visible GPU that has a plane to hold: the
   * default must not refuse a problem because of the machine it lands on (1x1x2 on four
   * GPUs); a --gpus the planes cannot hold stays refused below. */
  int mt_max = LAPLACE_MT_MAX_GPUS;
  if (!p.run.gpus_given && p.size[2] / env.nranks < mt_max) mt_max = p.size[2] / env.nranks;
  const int gpus_per_rank = kit_choose_gpus(&env, "laplace", v->needs_gpu, is_mt ? mt_max : 0,
                                            MPI_THREAD_MULTIPLE, p.run.gpus, &gpus_total);
  if (gpus_per_rank < 0) return kit_finalize(KIT_EXIT_USAGE);
  if (is_mt && p.size[2] < env.nranks * gpus_per_rank)
    return kit_finalize(kit_usage_error(&env,
        "laplace: --size: %d z-planes cannot be split over %d ranks x %d GPUs (each GPU needs at least one plane)",
        p.size[2], env.nranks, gpus_per_rank));

  /* Refuse what cannot fit (host: fields, staging and fetch buffers on every rank, the
   * gathered field and the oracle's two full fields on rank 0; device: three fields). */
  {
    const double plane = ((double)p.size[0] + 2 + 16) * ((double)p.size[1] + 2) * 8.0;
    const double slab = plane * (kit_block_split(p.size[2], env.nranks, env.rank).count + 2);
    const double whole = plane * (p.size[2] + 2);
    const double interior = 8.0 * p.size[0] * p.size[1] * (double)p.size[2];
    double host = 3.0 * slab;
    if (env.rank == 0 && (p.run.verify || p.dump || p.run.checkpoint)) host += 2.0 * whole + 2.0 * interior;
    if (env.rank == 0 && p.run.restart) host += interior;
    const double device = v->needs_gpu ? 3.0 * slab : 0.0;
    const int devices = gpus_per_rank < env.gpus_visible ? gpus_per_rank : env.gpus_visible;
    const int rc = kit_check_memory(&env, "laplace", host, device, devices);
    if (rc) return kit_finalize(rc);
  }

  /* Ceilings measured on this machine, and the hybrid share derived from them. */
  const int uses_host = !v->needs_gpu || v == find_variant("hybrid");
  const double host_bw = uses_host ? kit_host_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;
  const double dev_bw = v->needs_gpu ? kit_device_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;
  double cpu_fraction = -1.0, model_fraction = -1.0, t_model = 0.0, t_zero = 0.0;
  if (v == find_variant("hybrid"))
    cpu_fraction = p.run.cpu_fraction >= 0.0 ? p.run.cpu_fraction
                                             : (model_fraction = kit_cpu_share(host_bw / env.nranks, dev_bw, KIT_HYBRID_DERATE));

  /* This rank's z-slab and its neighbours. */
  const kit_block part = kit_block_split(p.size[2], env.nranks, env.rank);
  laplace_ctx ctx;
  ctx.p = &p;
  ctx.env = &env;
  ctx.blk = laplace_block_make(p.size[0], p.size[1], 1 + part.begin, part.count);
  ctx.nbr[KIT_DOWN] = env.rank > 0 ? env.rank - 1 : MPI_PROC_NULL;
  ctx.nbr[KIT_UP] = env.rank < env.nranks - 1 ? env.rank + 1 : MPI_PROC_NULL;
  ctx.gpus = gpus_per_rank;
  ctx.cpu_fraction = cpu_fraction;
  /* The oracle and the analytic check start from the true initial state, even on restart. */
  laplace_params p_initial = p;
  double *restart_planes = p.run.restart ? laplace_restart_load(&p, &env, &ctx.blk) : NULL;
  /* A restarted run does only the steps the checkpoint has not done. */
  kit_run todo = p.run;
  todo.iters = p.run.iters - p.start_step;

  /* --cpu-fraction auto: Paper II's model proposes a share; a short measurement against
   * the GPU-only scheme (share 0, run as two-stream, below) decides, so that the hybrid
   * never loses to it. On the H200 machines the model's 1-2% share lost (docs/hybrid.md). */
  if (model_fraction > 0.0) {
    int planes = kit_cpu_planes(ctx.blk.nz, model_fraction), any = 0;
    KIT_MPI_CHECK(MPI_Allreduce(&planes, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (any > 0) {
      const int steps = p.run.iters < 5 ? 5 : (p.run.iters > 20 ? 20 : p.run.iters);
      t_model = calibrate(v, &ctx, steps);
      ctx.cpu_fraction = 0.0;
      t_zero = calibrate(find_variant("two-stream"), &ctx, steps);
      ctx.cpu_fraction = cpu_fraction = t_model < t_zero ? model_fraction : 0.0;
      kit_log(&env, "laplace: hybrid auto: model share %.4f took %.3g s, share 0 took %.3g s for %d steps: using %.4f",
              model_fraction, t_model, t_zero, steps, cpu_fraction);
    }
  }

  /* A hybrid run that gives no rank a CPU plane is Paper II's GPU-only scheme, which is the
   * two-stream variant: run its schedule rather than the hybrid's with idle CPU groups
   * (with two ranks the idle groups cost 8-11%, docs/hybrid.md). */
  const laplace_variant *exec = v;
  if (cpu_fraction >= 0.0) {
    int planes = kit_cpu_planes(ctx.blk.nz, cpu_fraction), any = 0;
    KIT_MPI_CHECK(MPI_Allreduce(&planes, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (any == 0) {
      exec = find_variant("two-stream");
      kit_log(&env, "laplace: hybrid: no CPU plane on any rank: running the two-stream schedule");
    }
  }
  void *st = exec->setup(&ctx);
  const kit_halo *h = exec->halo(st);
  checkpoint_ctx ck = {&p, &env, exec, &ctx.blk};
  const kit_chunking chunks = {p.run.checkpoint_every > 0 ? p.run.checkpoint_every : todo.iters, write_checkpoint, &ck};
  kit_timing timing = kit_time_variant(&todo, st, exec->run, exec->reset, h, p.run.checkpoint ? &chunks : NULL);

  kit_report rep;
  kit_report_init(&rep, "laplace", v->name);
  kit_json *pj = &rep.params;
  kit_json_int(pj, "nx", p.size[0]);
  kit_json_int(pj, "ny", p.size[1]);
  kit_json_int(pj, "nz", p.size[2]);
  kit_json_number(pj, "alpha", p.alpha);
  kit_json_number(pj, "beta", p.beta);
  kit_json_string(pj, "init", p.init);
  kit_json_int(pj, "iters", p.run.iters);
  kit_json_int(pj, "warmup", p.run.warmup);
  kit_json_int(pj, "reps", p.run.reps);
  {
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)p.run.seed);
    kit_json_raw(pj, "seed", seed);
  }
  kit_json_bool(pj, "p2p", p.p2p);
  kit_json_bool(pj, "exact", !KIT_EXACT_BUILD_OFF);
  kit_json_int(pj, "start_step", p.start_step);
  kit_json_string(pj, "omp_wait_policy", getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "default");
  kit_json_end_object(pj);

  const double points = (double)p.size[0] * p.size[1] * p.size[2];
  const double ceiling = (v->needs_gpu ? dev_bw * gpus_total : 0.0) +
                         (v->needs_gpu && v != find_variant("hybrid") ? 0.0 : host_bw);
  kit_report_fill_run(&rep, &env, &timing, gpus_total, cpu_fraction);
  kit_report_fom(&rep, "GLUP/s", "GLUP/s", points * todo.iters / timing.time.median * 1e-9);
  kit_report_bandwidth(&rep, LAPLACE_BYTES_PER_POINT * points, todo.iters, ceiling,
                       v->needs_gpu ? (v == find_variant("hybrid") ? "device triad x GPUs + host triad x nodes"
                                                                  : "device triad x GPUs")
                                    : "host triad x nodes");
  kit_report_messages(&rep, h->messages - timing.messages_before, h->bytes - timing.bytes_before,
                      (double)p.run.reps * todo.iters);
  if (cpu_fraction >= 0.0) {
    int nc = kit_cpu_planes(ctx.blk.nz, cpu_fraction), nct = 0;
    KIT_MPI_CHECK(MPI_Allreduce(&nc, &nct, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    kit_report_hybrid(&rep, nct, model_fraction, t_model, t_zero);
  }

  /* Verification and --dump work on the final field of the last repetition. */
  double *interior = kit_malloc((size_t)ctx.blk.nx * ctx.blk.ny * ctx.blk.nz * sizeof(double), "result");
  exec->fetch(st, interior);
  double *gathered = (p.run.verify || p.dump) ? laplace_gather(&p, &env, &ctx.blk, interior) : NULL;
  if (p.run.verify) laplace_verify(&p_initial, &env, &ctx.blk, interior, gathered, &rep);
  {
    double s2 = 0.0, all = 0.0;
    for (size_t i = 0; i < (size_t)ctx.blk.nx * ctx.blk.ny * ctx.blk.nz; ++i) s2 += interior[i] * interior[i];
    KIT_MPI_CHECK(MPI_Allreduce(&s2, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    kit_report_result(&rep, "l2_norm", sqrt(all), "");
  }
  if (p.dump && env.rank == 0) kit_write_doubles(p.dump, gathered, (size_t)points);
  free(gathered);
  free(interior);

  const int code = kit_report_finish(&rep, &env, p.run.json);
  kit_report_free(&rep);
  exec->teardown(st);
  free(restart_planes);
  return kit_finalize(code);
}
