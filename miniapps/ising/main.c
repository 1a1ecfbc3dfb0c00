/* main.c: the ising driver. Parse, set up, warm up, profile, time, verify, report; the
 * variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c) do the sweeps. Bernaschi et al. Sec. 3.1; see
 * README.md in this folder.
 *   build/bin/ising --variant list
 *   mpiexec -n 2 build/bin/ising --variant cpu --size 32 --sweeps 20 --layout checkerboard */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ising.h"
#include "kit/ceiling.h"
#include "kit/check.h"
#include "kit/checkpoint.h"
#include "kit/driver.h"
#include "kit/hybrid.h"
#include "kit/report.h"
#include "kit/slab.h"
#include "verify.h"

/* Bytes one flip attempt must move: read and write the spin, read its coupling byte, and
 * read the other colour's spins once per half-sweep (each is a neighbour of six sites of
 * the colour being updated, loaded once when caches hold the planes around it). */
#define ISING_BYTES_PER_FLIP 4.0
/* The same with --layout msc, in bits: the spin read and written (2), six coupling bits
 * (bonds are stored at both ends, one plane per direction), the other colour's spin (1). */
#define ISING_MSC_BYTES_PER_FLIP (9.0 / 8.0)

static const ising_variant *const variants[] = {
    &ising_cpu,
#ifdef KIT_HAVE_CUDA
    &ising_naive, &ising_two_stream, &ising_multi_thread, &ising_hybrid,
#endif
};

static const ising_variant *find_variant(const char *name) {
  for (size_t i = 0; i < sizeof variants / sizeof *variants; ++i)
    if (strcmp(variants[i]->name, name) == 0) return variants[i];
  return NULL;
}

/* --cpu-fraction auto's measurement of one schedule on a fresh state (kit_median_time). */
static double calibrate(const ising_variant *v, const ising_ctx *ctx, int steps) {
  void *st = v->setup(ctx);
  const double t = kit_median_time(st, v->run, steps);
  v->teardown(st);
  return t;
}

/* --checkpoint: between chunks of the last repetition, gather the lattice and write it. */
typedef struct checkpoint_ctx {
  const ising_params *p;
  const kit_env *env;
  const ising_variant *v;
  const ising_block *blk;
} checkpoint_ctx;

static void write_checkpoint(void *arg, void *state, int done) {
  const checkpoint_ctx *c = arg;
  int8_t *interior = kit_malloc((size_t)c->blk->n * c->blk->plane_stride, "checkpoint");
  c->v->fetch(state, interior);
  int8_t *logical = ising_gather_logical(c->p, c->blk, interior);
  ising_checkpoint_save(c->p, c->env, logical, c->p->start_sweep + done);
  free(logical);
  free(interior);
}

/* CPU planes summed over ranks for a share f (whole granules per rank). */
/* 1 if share f gives every rank a CPU part or none: the hybrid's CPU part sits between the
 * GPU part and the rank above, so a rank without one (a thin slab rounds its share to 0)
 * cannot run the scheme beside ranks that have one. */
static int cpu_planes_uniform(const ising_block *b, int granule, double f) {
  const int mine = kit_cpu_planes(b->n / granule, f) * granule > 0;
  int lo = 0, hi = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return lo == hi;
}

static int cpu_planes_total(const ising_block *b, int granule, double f) {
  int mine = kit_cpu_planes(b->n / granule, f) * granule, all = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  return all;
}

/* --variant list: a CPU-only build lists the GPU variants too (they exit 77). */
static const char *describe(const char *name) {
  const ising_variant *v = find_variant(name);
  return v ? v->summary : "(not built: no CUDA toolkit)";
}

int main(int argc, char **argv) {
  kit_env env;
  kit_init(&argc, &argv, &env);

  ising_params p;
  memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.run.iters = 20;
  p.size[0] = p.size[1] = p.size[2] = 32;
  p.p = 0.5;
  p.temp = 1.0;
  p.samples = 1;
  p.layout = "sliced";
  p.init = "random";
  int p_given = 0;
  kit_option opts[KIT_RUN_NOPTS + 12];
  int n = kit_run_options(&p.run, opts);
  const kit_option app_opts[] = {
      {"size", KIT_OPT_CUSTOM, p.size, "L|LX,LY,LZ", "lattice sides, each even (a cube for one number) [32]", 1, 0, 0, NULL, kit_parse_size3, NULL},
      {"sweeps", KIT_OPT_INT, &p.run.iters, "N", "Metropolis sweeps per repetition (the same as --iters)", 0, 1e9, 0, NULL, NULL, NULL},
      {"temp", KIT_OPT_DOUBLE, &p.temp, "T", "temperature", 1e-3, 1e6, 0, NULL, NULL, NULL},
      {"p", KIT_OPT_DOUBLE, &p.p, "P", "probability of an antiferromagnetic bond J = -1 (0: ferromagnet)", 0, 1, 0, NULL, NULL, &p_given},
      {"samples", KIT_OPT_INT, &p.samples, "S", "independent disorder samples run together", 1, 65536, 0, NULL, NULL, NULL},
      {"layout", KIT_OPT_STRING, &p.layout, "KIND", "memory layout and decomposition", 1, 0, 0, "sliced|checkerboard|msc", NULL, NULL},
      {"init", KIT_OPT_STRING, &p.init, "KIND", "initial spins", 1, 0, 0, "random|up", NULL, NULL},
      {"mattis", KIT_OPT_FLAG, &p.mattis, NULL, "Mattis couplings J_ij = e_i e_j, checked against the gauge-transformed ferromagnet", 1, 0, 1, NULL, NULL, NULL},
      {"dump", KIT_OPT_STRING, &p.dump, "FILE", "write the final spins as int8, x fastest, sample after sample", 1, 0, 0, NULL, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;

  const int front = kit_front_door(&env, argc, argv, opts, "ising",
      "3D Edwards-Anderson spin glass, Metropolis, checkerboard or sliced layout (msc: sliced, one bit per spin) on a z-decomposition", &p.run,
      describe);
  if (front >= 0) return kit_finalize(front);

  /* Rules that need no allocation: exit 2 with one line. */
  const char *vn = p.run.variant;
  for (int d = 0; d < 3; ++d)
    if (p.size[d] % 2 != 0 || p.size[d] < 2)
      return kit_finalize(kit_usage_error(&env,
          "ising: --size: every side must be even and at least 2 (two colours along each periodic axis); got %d,%d,%d",
          p.size[0], p.size[1], p.size[2]));
  if ((double)p.size[0] * p.size[1] * p.size[2] > 4294967296.0)
    return kit_finalize(kit_usage_error(&env, "ising: --size: more than 2^32 sites (the site index is a 32-bit random-number counter)"));
  if (p.mattis && p_given)
    return kit_finalize(kit_usage_error(&env, "ising: --p does not apply with --mattis (the couplings are e_i e_j)"));
  if (p.run.checkpoint_every > 0 && !p.run.checkpoint)
    return kit_finalize(kit_usage_error(&env, "ising: --checkpoint-every needs --checkpoint FILE"));
  if (ising_msc(&p) && strcmp(vn, "hybrid") == 0)
    return kit_finalize(kit_usage_error(&env,
        "ising: --layout msc (one bit per spin) runs on cpu, naive, two-stream and multi-thread, not hybrid "
        "(its CPU share works on bytes: use --layout sliced)"));
  if (ising_msc(&p) && p.size[0] % 32 != 0)
    return kit_finalize(kit_usage_error(&env,
        "ising: --layout msc: LX must be a multiple of 32 (a row is whole 32-bit words); got LX = %d", p.size[0]));
  if (strcmp(vn, "multi-thread") == 0 && p.run.gpus > ISING_MT_MAX_GPUS)
    return kit_finalize(kit_usage_error(&env, "ising: --gpus: multi-thread drives at most %d GPUs per process",
                                        ISING_MT_MAX_GPUS));
  const int planes = ising_global_planes(&p), granule = ising_plane_granule(&p);
  if (planes / granule < env.nranks) {
    if (granule == 2)
      return kit_finalize(kit_usage_error(&env,
          "ising: --layout %s: the %dx%dx%d lattice has gcd(LX,LY,LZ) = %d diagonal slices, which split in pairs "
          "over at most %d rank(s), not %d (use --layout checkerboard or sides with a larger common divisor)",
          p.layout, p.size[0], p.size[1], p.size[2], planes, planes / 2, env.nranks));
    return kit_finalize(kit_usage_error(&env,
        "ising: --size: %d z-planes cannot be split over %d ranks (each rank needs at least one plane)", planes,
        env.nranks));
  }
  {
    const ising_block probe = ising_block_make(&p, 0, 1);
    if ((double)probe.part_stride > 2147483647.0)
      return kit_finalize(kit_usage_error(&env, "ising: --size/--samples: one plane part of %.0f bytes is too large for one MPI message",
                                          (double)probe.part_stride));
  }
  const ising_variant *v = find_variant(vn);
  if (!v) return kit_finalize(kit_skip(&env, "ising", vn, "built without CUDA"));
  if (v->needs_gpu && !kit_all_ranks_have_gpu(&env)) return kit_finalize(kit_skip(&env, "ising", vn, "no CUDA device"));
  if (kit_check_output_file(&env, "ising", "--dump", p.dump) || kit_check_output_file(&env, "ising", "--json", p.run.json) ||
      kit_check_output_file(&env, "ising", "--trace", p.run.trace) ||
      kit_check_output_file(&env, "ising", "--checkpoint", p.run.checkpoint))
    return kit_finalize(KIT_EXIT_USAGE);
  if (p.run.restart) {
    /* The whole file now (header and checksum): a checkpoint of another problem, or a
     * damaged one, is bad input, refused before anything is allocated. */
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = ising_checkpoint_ident(&p, ident);
    const unsigned long long count =
        (unsigned long long)p.size[0] * p.size[1] * p.size[2] * (unsigned long long)p.samples;
    const int rc = kit_restart_check(&env, "ising", p.run.restart, ident, nid, 1, count, p.run.iters,
                                     "--sweeps", &p.start_sweep);
    if (rc >= 0) return kit_finalize(rc);
  }

  /* exp(-dE/T) once, in double, on the host: every implementation uses these three. */
  for (int i = 0; i < 3; ++i) p.w[i] = exp(-4.0 * (i + 1) / p.temp);

  /* GPUs: one per rank, or (multi-thread) every GPU the process may use. */
  const int is_mt = v == find_variant("multi-thread");
  /* The end GPUs' threads both call MPI (periodic: also on one rank, which
   * kit_choose_gpus does not check). */
  if (is_mt && env.thread_level < MPI_THREAD_MULTIPLE)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "multi-thread needs MPI_THREAD_MULTIPLE");
  int gpus_total = 0;
  const int gpus_per_rank = kit_choose_gpus(&env, "ising", v->needs_gpu, is_mt ? ISING_MT_MAX_GPUS : 0,
                                            MPI_THREAD_MULTIPLE, p.run.gpus, &gpus_total);
  if (gpus_per_rank < 0) return kit_finalize(KIT_EXIT_USAGE);
  if (is_mt && planes / granule < env.nranks * gpus_per_rank)
    return kit_finalize(kit_usage_error(&env,
        "ising: --size: %d planes (in granules of %d) cannot be split over %d ranks x %d GPUs", planes, granule,
        env.nranks, gpus_per_rank));

  /* This rank's slab: whole granules (pairs of slices for sliced). */
  const kit_block part = kit_block_split(planes / granule, env.nranks, env.rank);
  ising_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.p = &p;
  ctx.env = &env;
  ctx.blk = ising_block_make(&p, part.begin * granule, part.count * granule);
  ctx.nbr[KIT_DOWN] = (env.rank + env.nranks - 1) % env.nranks; /* periodic in z */
  ctx.nbr[KIT_UP] = (env.rank + 1) % env.nranks;
  ctx.gpus = gpus_per_rank;
  ctx.cpu_fraction = -1.0;

  /* Refuse what cannot fit: spins with ghosts and couplings on every rank (and on the GPU);
   * on rank 0 the gathered lattice twice, the oracle's spins and bonds (and the Mattis
   * ferromagnet's) when verifying. */
  {
    const double slab = (double)ctx.blk.plane_stride * (2.0 * ctx.blk.n + 2.0);
    const double lattice = (double)p.size[0] * p.size[1] * p.size[2] * p.samples;
    double host = slab + slab / 2;
    if (env.rank == 0) host += 2.0 * lattice + (p.run.verify ? (p.mattis ? 2.0 : 1.0) * lattice + 3.0 * lattice / p.samples : 0.0);
    if (p.run.restart) host += lattice; /* the checkpoint's spins, on every rank */
    const int devices = gpus_per_rank < env.gpus_visible ? gpus_per_rank : env.gpus_visible;
    /* msc: the bytes while the initial state is packed, and the bits (spins of n + 2 planes,
     * six coupling planes of n). The whole slab: kit_check_memory shares it over the devices
     * (multi-thread's sub-slabs). */
    const double bits = (double)ctx.blk.plane_stride * (7.0 * ctx.blk.n + 2.0) / 8.0;
    const double dev = v->needs_gpu ? slab + (ising_msc(&p) ? bits : 0.0) : 0.0;
    const int rc = kit_check_memory(&env, "ising", host, dev, devices);
    if (rc) return kit_finalize(rc);
  }

  /* The checkpoint's spins on every rank; a restarted run does only the sweeps left. */
  int8_t *restart_spins = p.run.restart ? ising_restart_load(&p, &env) : NULL;
  p.restart = restart_spins;
  kit_run todo = p.run;
  todo.iters = p.run.iters - p.start_sweep;

  const int is_hybrid = v == find_variant("hybrid");
  const double host_bw = !v->needs_gpu || is_hybrid ? kit_host_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;
  const double dev_bw = v->needs_gpu ? kit_device_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;

  /* hybrid: the CPU share. --cpu-fraction auto: Paper II's bandwidth model proposes one,
   * and a short measurement against the GPU-only schedule (share 0, run as two-stream)
   * decides, so the hybrid never loses to it (the same rule as laplace, docs/hybrid.md). */
  double cpu_fraction = -1.0, model_fraction = -1.0, t_model = 0.0, t_zero = 0.0;
  const ising_variant *exec = v;
  if (is_hybrid) {
    cpu_fraction = p.run.cpu_fraction >= 0.0 ? p.run.cpu_fraction
                                             : (model_fraction = kit_cpu_share(host_bw / env.nranks, dev_bw, KIT_HYBRID_DERATE));
    ctx.cpu_fraction = cpu_fraction;
    if (model_fraction > 0.0 && !cpu_planes_uniform(&ctx.blk, granule, model_fraction)) {
      kit_log(&env, "ising: hybrid auto: model share %.4f leaves some ranks without a CPU plane: using 0", model_fraction);
      ctx.cpu_fraction = cpu_fraction = 0.0;
    }
    if (p.run.cpu_fraction >= 0.0 && !cpu_planes_uniform(&ctx.blk, granule, cpu_fraction))
      return kit_finalize(kit_usage_error(&env,
          "ising: --cpu-fraction %g gives some ranks a CPU plane and others none (their slabs are too thin); "
          "use a larger share, a smaller one, or fewer ranks", cpu_fraction));
    if (cpu_fraction > 0.0 && model_fraction > 0.0 && cpu_planes_total(&ctx.blk, granule, model_fraction) > 0) {
      const int sweeps = p.run.iters < 5 ? 5 : (p.run.iters > 20 ? 20 : p.run.iters);
      t_model = calibrate(v, &ctx, sweeps);
      t_zero = calibrate(find_variant("two-stream"), &ctx, sweeps);
      ctx.cpu_fraction = cpu_fraction = t_model < t_zero ? model_fraction : 0.0;
      kit_log(&env, "ising: hybrid auto: model share %.4f took %.3g s, share 0 took %.3g s for %d sweeps: using %.4f",
              model_fraction, t_model, t_zero, sweeps, cpu_fraction);
    }
    /* No CPU granule on any rank: that is the two-stream schedule. */
    if (cpu_planes_total(&ctx.blk, granule, cpu_fraction) == 0) {
      exec = find_variant("two-stream");
      kit_log(&env, "ising: hybrid: no CPU plane on any rank: running the two-stream schedule");
    }
  }

  void *st = exec->setup(&ctx);
  const kit_halo *h = exec->halo(st);
  checkpoint_ctx ck = {&p, &env, exec, &ctx.blk};
  const kit_chunking chunks = {p.run.checkpoint_every > 0 ? p.run.checkpoint_every : todo.iters, write_checkpoint, &ck};
  kit_timing timing = kit_time_variant(&todo, st, exec->run, exec->reset, h, p.run.checkpoint ? &chunks : NULL);

  kit_report rep;
  kit_report_init(&rep, "ising", v->name);
  kit_json *pj = &rep.params;
  kit_json_int(pj, "lx", p.size[0]);
  kit_json_int(pj, "ly", p.size[1]);
  kit_json_int(pj, "lz", p.size[2]);
  kit_json_string(pj, "layout", p.layout);
  kit_json_int(pj, "planes", planes);
  kit_json_number(pj, "p", p.p);
  kit_json_number(pj, "temp", p.temp);
  kit_json_int(pj, "samples", p.samples);
  kit_json_string(pj, "init", p.init);
  kit_json_bool(pj, "mattis", p.mattis);
  kit_json_int(pj, "sweeps", p.run.iters);
  kit_json_int(pj, "start_step", p.start_sweep);
  kit_json_int(pj, "warmup", p.run.warmup);
  kit_json_int(pj, "reps", p.run.reps);
  {
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)p.run.seed);
    kit_json_raw(pj, "seed", seed);
  }
  kit_json_bool(pj, "exact", !KIT_EXACT_BUILD_OFF);
  kit_json_end_object(pj);

  const double attempts = (double)p.size[0] * p.size[1] * p.size[2] * p.samples;
  const double ceiling = (v->needs_gpu ? dev_bw * gpus_total : 0.0) + (!v->needs_gpu || is_hybrid ? host_bw : 0.0);
  kit_report_fill_run(&rep, &env, &timing, gpus_total, cpu_fraction);
  const double ps = timing.time.median / (attempts * todo.iters) * 1e12;
  kit_report_fom(&rep, "ps/flip", "ps per flip attempt", ps);
  kit_report_result(&rep, "flips_per_ns", 1000.0 / ps, "attempts/ns");
  kit_report_bandwidth(&rep, (ising_msc(&p) ? ISING_MSC_BYTES_PER_FLIP : ISING_BYTES_PER_FLIP) * attempts, todo.iters,
                       ceiling,
                       v->needs_gpu ? (is_hybrid ? "device triad x GPUs + host triad x nodes" : "device triad x GPUs")
                                    : "host triad x nodes");
  kit_report_messages(&rep, h->messages - timing.messages_before, h->bytes - timing.bytes_before,
                      (double)p.run.reps * todo.iters);
  if (is_hybrid) {
    kit_report_hybrid(&rep, "planes", cpu_planes_total(&ctx.blk, granule, cpu_fraction), model_fraction, t_model, t_zero);
  }

  /* Observables, verification and --dump work on the final lattice of the last repetition. */
  int8_t *interior = kit_malloc((size_t)ctx.blk.n * ctx.blk.plane_stride, "result");
  exec->fetch(st, interior);
  int8_t *logical = ising_gather_logical(&p, &ctx.blk, interior);
  free(interior);
  const double m_mean = ising_observables(&p, &env, logical, &rep);
  if (p.run.verify) ising_verify(&p, &env, logical, m_mean, &rep);
  if (p.dump && env.rank == 0) {
    FILE *f = kit_output_open("--dump", p.dump, "wb");
    fwrite(logical, 1, (size_t)attempts, f);
    kit_output_close(f, "--dump", p.dump); /* a short write is checked here (ferror) */
  }
  free(logical);

  const int code = kit_report_finish(&rep, &env, p.run.json);
  kit_report_free(&rep);
  exec->teardown(st);
  free(restart_spins);
  return kit_finalize(code);
}
