/* halo_sweep.c: kit-halo-sweep, the message-size sweep of labs/11-gpu-direct. Every rank
 * drives one GPU and exchanges a message with the rank below and the rank above (the apps'
 * z-slab pattern, kit/exchange.h) over each transport, for sizes from --min to --max bytes
 * (x4 apart): the time of one exchange (both sides, until the ghosts are in place) and the
 * bandwidth one way per link, in the spirit of the OSU benchmarks' osu_bibw. Beside it, the
 * ceiling the transports move over: a peer copy from GPU 0 to GPU 1 inside one process
 * (cudaMemcpyPeerAsync, NVLink where the GPUs have it), measured here the way the triad
 * measures memory bandwidth.
 *   mpiexec -n 2 build/bin/kit-halo-sweep --comm all
 *   mpiexec -n 4 build/bin/kit-halo-sweep --comm nccl --min 8 --max 64M --json sweep.jsonl
 *   mpiexec -n 2 build/bin/kit-halo-sweep --host-buffers   (no GPU: the host transport on host memory) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/driver.h"
#include "kit/exchange.h"
#include "kit/options.h"
#include "kit/report.h"
#ifdef KIT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

typedef struct sweep_params {
  const char *comm; /* a transport or "all" */
  double min, max;  /* message bytes */
  int reps;         /* timed exchanges per size (after as many untimed) */
  int host_buffers; /* host memory, host transport: the sweep on a machine without a GPU */
  const char *json;
} sweep_params;

/* "64M", "4k", "8": bytes. */
static int parse_bytes(const char *arg, void *dest, char *err, size_t errlen) {
  char *end = NULL;
  double v = strtod(arg, &end);
  if (end == arg || v < 1) {
    snprintf(err, errlen, "'%s' is not a byte count such as 8, 4k or 64M", arg);
    return -1;
  }
  if (*end == 'k' || *end == 'K')
    v *= 1024, ++end;
  else if (*end == 'M')
    v *= 1024 * 1024, ++end;
  else if (*end == 'G')
    v *= 1024.0 * 1024 * 1024, ++end;
  if (*end || v > 1024.0 * 1024 * 1024) {
    snprintf(err, errlen, "'%s' is not a byte count from 1 to 1G (8, 4k, 64M)", arg);
    return -1;
  }
  *(double *)dest = v;
  return 0;
}

static void *alloc(size_t bytes, int host) {
  if (host) return kit_malloc(bytes, "sweep buffer");
  void *p = NULL;
#ifdef KIT_HAVE_CUDA
  KIT_CUDA_CHECK(cudaMalloc(&p, bytes));
  KIT_CUDA_CHECK(cudaMemset(p, 0, bytes));
#endif
  return p;
}

static void release(void *p, int host) {
  if (host) free(p);
#ifdef KIT_HAVE_CUDA
  else
    KIT_CUDA_CHECK(cudaFree(p));
#endif
}

/* Seconds per exchange of `bytes`, the median of five batches of `reps`, max over ranks. */
static double time_exchange(kit_exchange *x, void *send[2], void *recv[2], void *stream, int reps) {
  double t[5];
  for (int i = 0; i < reps; ++i) kit_exchange_run(x, send, recv, stream); /* untimed */
  for (int b = 0; b < 5; ++b) {
#ifdef KIT_HAVE_CUDA
    if (stream) KIT_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
#endif
    KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = kit_now();
    for (int i = 0; i < reps; ++i) kit_exchange_run(x, send, recv, stream);
#ifdef KIT_HAVE_CUDA
    if (stream) KIT_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
#endif
    double mine = (kit_now() - t0) / reps;
    KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    t[b] = mine;
  }
  for (int a = 0; a < 5; ++a) /* the median of five */
    for (int b = a + 1; b < 5; ++b)
      if (t[b] < t[a]) {
        const double s = t[a];
        t[a] = t[b];
        t[b] = s;
      }
  return t[2];
}

/* GB/s of a 64 MB copy from device 0 to device 1 in this process (0 if there are not two). */
static double peer_ceiling(void) {
  double gbs = 0.0;
#ifdef KIT_HAVE_CUDA
  int n = 0, can = 0, cur = 0;
  KIT_CUDA_CHECK(cudaGetDeviceCount(&n));
  if (n < 2) return 0.0;
  KIT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
  KIT_CUDA_CHECK(cudaGetDevice(&cur));
  const size_t bytes = (size_t)64 << 20;
  void *a = NULL, *b = NULL;
  KIT_CUDA_CHECK(cudaSetDevice(1));
  KIT_CUDA_CHECK(cudaMalloc(&b, bytes));
  KIT_CUDA_CHECK(cudaSetDevice(0));
  KIT_CUDA_CHECK(cudaMalloc(&a, bytes));
  if (can) {
    const cudaError_t e = cudaDeviceEnablePeerAccess(1, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled)
      (void)cudaGetLastError(); /* clears the sticky-free error */
    else
      KIT_CUDA_CHECK(e);
  }
  cudaEvent_t t0, t1;
  KIT_CUDA_CHECK(cudaEventCreate(&t0));
  KIT_CUDA_CHECK(cudaEventCreate(&t1));
  float best = 1e30f;
  for (int r = 0; r < 6; ++r) {
    KIT_CUDA_CHECK(cudaEventRecord(t0, 0));
    KIT_CUDA_CHECK(cudaMemcpyPeerAsync(b, 1, a, 0, bytes, 0));
    KIT_CUDA_CHECK(cudaEventRecord(t1, 0));
    KIT_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0.0f;
    KIT_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    if (r > 0 && ms < best) best = ms; /* the first is a warm-up */
  }
  gbs = bytes / (best * 1e-3) / 1e9;
  KIT_CUDA_CHECK(cudaEventDestroy(t0));
  KIT_CUDA_CHECK(cudaEventDestroy(t1));
  KIT_CUDA_CHECK(cudaFree(a));
  KIT_CUDA_CHECK(cudaSetDevice(1));
  KIT_CUDA_CHECK(cudaFree(b));
  KIT_CUDA_CHECK(cudaSetDevice(cur));
#endif
  return gbs;
}

int main(int argc, char **argv) {
  kit_env env;
  kit_init(&argc, &argv, &env);
  sweep_params p = {.comm = "all", .min = 8, .max = 64.0 * 1024 * 1024, .reps = 50};
  int help = 0;
  kit_option opts[] = {
      {"comm", KIT_OPT_STRING, &p.comm, "T", "transport, or every one built and usable here", 1, 0, 0,
       KIT_COMM_CHOICES "|all", NULL, NULL},
      {"min", KIT_OPT_CUSTOM, &p.min, "BYTES", "smallest message (8, 4k, 64M) [8]", 1, 0, 0, NULL,
       parse_bytes, NULL},
      {"max", KIT_OPT_CUSTOM, &p.max, "BYTES", "largest message [64M]", 1, 0, 0, NULL, parse_bytes, NULL},
      {"reps", KIT_OPT_INT, &p.reps, "N", "timed exchanges per size and batch", 1, 1e6, 0, NULL, NULL, NULL},
      {"host-buffers", KIT_OPT_FLAG, &p.host_buffers, NULL,
       "host memory and the host transport (no GPU needed)", 1, 0, 1, NULL, NULL, NULL},
      {"json", KIT_OPT_STRING, &p.json, "FILE", "append one JSON line per transport and size", 1, 0, 0, NULL,
       NULL, NULL},
      {"help", KIT_OPT_FLAG, &help, NULL, "print this help", 1, 0, 1, NULL, NULL, NULL},
      {NULL, KIT_OPT_END},
  };
  char err[512];
  const int rc = kit_parse(argc, argv, opts, err, sizeof err);
  if (rc == KIT_PARSE_HELP) {
    if (env.rank == 0)
      kit_print_help(stdout, "kit-halo-sweep",
                     "halo exchange time and bandwidth per transport and message size", opts);
    return kit_finalize(0);
  }
  if (rc == KIT_PARSE_ERROR) return kit_finalize(kit_usage_error(&env, "%s", err));
  if (p.min > p.max) return kit_finalize(kit_usage_error(&env, "kit-halo-sweep: --min is larger than --max"));
  if (env.nranks < 2)
    return kit_finalize(kit_usage_error(&env, "kit-halo-sweep: needs at least 2 ranks (mpiexec -n 2)"));
  if (p.host_buffers && strcmp(p.comm, "host") != 0 && strcmp(p.comm, "all") != 0)
    return kit_finalize(
        kit_usage_error(&env, "kit-halo-sweep: --host-buffers moves host memory: --comm host only"));
  if (kit_check_output_file(&env, "kit-halo-sweep", "--json", p.json)) return kit_finalize(KIT_EXIT_USAGE);
  if (!p.host_buffers) {
    if (!kit_all_ranks_have_gpu(&env))
      return kit_finalize(kit_skip(&env, "kit-halo-sweep", "gpu", "no CUDA device"));
    kit_select_device(&env, 0);
  }
  const double peer = p.host_buffers || env.rank != 0 ? 0.0 : peer_ceiling();

  const size_t most = (size_t)p.max;
  void *send[2], *recv[2], *stream = NULL;
  for (int s = 0; s < 2; ++s) {
    send[s] = alloc(most, p.host_buffers);
    recv[s] = alloc(most, p.host_buffers);
  }
#ifdef KIT_HAVE_CUDA
  if (!p.host_buffers) {
    cudaStream_t st;
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    stream = st;
  }
#endif
  FILE *json = p.json && env.rank == 0 ? kit_output_open("--json", p.json, "a") : NULL;
  if (env.rank == 0) {
    printf("kit-halo-sweep: %d ranks, each exchanging with the rank below and above; %s\n", env.nranks,
           p.host_buffers ? "host buffers" : env.device_name);
    if (peer > 0.0) printf("peer copy GPU 0 -> GPU 1 (64 MB, one process): %.1f GB/s\n", peer);
    printf("%-11s %12s %14s %16s %10s\n", "comm", "bytes", "us/exchange", "GB/s one way", "of peer");
  }
  const int down = env.rank > 0 ? env.rank - 1 : MPI_PROC_NULL;
  const int up = env.rank < env.nranks - 1 ? env.rank + 1 : MPI_PROC_NULL;
  int measured = 0; /* transports that ran: none (all skipped here) makes the whole sweep a skip */
  for (int k = 0; k < KIT_COMM_COUNT; ++k) {
    const char *name = kit_comm_names[k];
    if (strcmp(p.comm, "all") != 0 && strcmp(p.comm, name) != 0) continue;
    if (p.host_buffers && k != KIT_COMM_HOST) continue;
    /* A transport that cannot run here: its line says why (kit_comm_check), the sweep goes on. */
    if (kit_comm_check(&env, "kit-halo-sweep", NULL, name, name) >= 0) continue;
    kit_exchange x;
    kit_exchange_init(&x, (kit_comm)k, MPI_COMM_WORLD, down, up, most, MPI_BYTE, 1, p.host_buffers);
    for (double b = p.min; b <= p.max; b *= 4) {
      kit_exchange_resize(&x, (size_t)b);
      const double t = time_exchange(&x, send, recv, stream, p.reps);
      const double gbs = b / t / 1e9;
      if (env.rank == 0) {
        printf("%-11s %12.0f %14.2f %16.2f", name, b, t * 1e6, gbs);
        if (peer > 0.0) printf(" %9.1f%%", 100.0 * gbs / peer);
        printf("\n");
        if (json)
          fprintf(json,
                  "{\"schema\":\"kit.halo_sweep/1\",\"comm\":\"%s\",\"ranks\":%d,\"bytes\":%.0f,\"us\":%.4f,"
                  "\"GBs_one_way\":%.4f,\"peer_GBs\":%.4f,\"device\":\"%s\"}\n",
                  name, env.nranks, b, t * 1e6, gbs, peer, p.host_buffers ? "host" : env.device_name);
      }
    }
    kit_exchange_free(&x);
    ++measured;
  }
  if (json) kit_output_close(json, "--json", p.json);
  for (int s = 0; s < 2; ++s) {
    release(send[s], p.host_buffers);
    release(recv[s], p.host_buffers);
  }
#ifdef KIT_HAVE_CUDA
  if (stream) KIT_CUDA_CHECK(cudaStreamDestroy((cudaStream_t)stream));
#endif
  /* Every transport asked for was skipped (its line said why): exit 77, so a test of one
   * transport on a machine that cannot run it is marked skipped, not passed or failed. */
  return kit_finalize(measured > 0 ? 0 : KIT_EXIT_SKIP);
}
