/* runtime.c: MPI start-up, node-local rank, GPU choice, staging memory (kit/runtime.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "kit/runtime.h"

#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kit/check.h"
#include "kit/input.h"

static void cpu_model(char *out, size_t n) {
  snprintf(out, n, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      const char *v = strchr(line, ':');
      if (v) {
        v++;
        while (*v == ' ') v++;
        snprintf(out, n, "%s", v);
        out[strcspn(out, "\n")] = '\0';
      }
      break;
    }
  }
  fclose(f);
}

/* OpenMP threads a rank may ask for: far above any node, far below what makes libgomp
 * fail to start its team (which ended a run as "verification failed"). */
#define KIT_MAX_OMP_THREADS 4096

/* OMP_NUM_THREADS as OpenMP defines it, a list of positive integers separated by commas
 * (one per nesting level), each at most KIT_MAX_OMP_THREADS; unset or empty is fine.
 * Returns 0, or -1 with one line in why. */
static int check_omp_num_threads(char *why, size_t n) {
  const char *v = getenv("OMP_NUM_THREADS");
  if (!v || !*v) return 0;
  const char *p = v;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    const size_t digits = strspn(p, "0123456789");
    long long t = 0;
    for (size_t i = 0; i < digits && t <= KIT_MAX_OMP_THREADS; ++i) t = 10 * t + (p[i] - '0');
    if (digits == 0 || t < 1 || t > KIT_MAX_OMP_THREADS) {
      snprintf(why, n, "OMP_NUM_THREADS='%.80s': expected threads per level, each an integer in [1, %d]", v,
               KIT_MAX_OMP_THREADS);
      return -1;
    }
    p += digits;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\0') return 0;
    if (*p++ != ',') {
      snprintf(why, n, "OMP_NUM_THREADS='%.80s': expected threads per level, each an integer in [1, %d]", v,
               KIT_MAX_OMP_THREADS);
      return -1;
    }
  }
}

/* The environment the run depends on, checked before anything runs: one line from the
 * lowest rank that finds a problem, then every rank exits 2 (collective). */
static void check_environment(const kit_env *env) {
  char why[240] = "";
  const int bad = check_omp_num_threads(why, sizeof why) != 0 ||
                  kit_fault_parse(getenv("KIT_FAULT"), why, sizeof why) != 0;
  int mine = bad ? env->rank : env->nranks, first = env->nranks;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  if (first == env->nranks) return;
  if (env->rank == first) {
    for (char *c = why; *c; ++c) /* one printable line, whatever the value held */
      if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f) *c = '?';
    fprintf(stderr, "kit: %s\n", why);
    fflush(stderr);
  }
  MPI_Finalize();
  exit(KIT_EXIT_USAGE);
}

int kit_threads_rule(int cores, int ranks, int user, int *over) {
  if (cores < 1) cores = 1;
  if (ranks < 1) ranks = 1;
  const int threads = user > 0 ? user : (cores / ranks > 1 ? cores / ranks : 1);
  *over = (long long)threads * ranks > cores;
  return threads;
}

/* The cores this node's ranks may run on: the union of their affinity masks (a launcher that
 * binds each rank to one core leaves one each), or the online processors where there is no
 * mask to read (collective over the node). */
static int node_cores(const kit_env *env) {
#ifdef CPU_COUNT
  cpu_set_t mine, all;
  CPU_ZERO(&mine);
  const int have = sched_getaffinity(0, sizeof mine, &mine) == 0;
  int every = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&have, &every, 1, MPI_INT, MPI_MIN, env->node_comm));
  if (every) {
    KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_BYTE, MPI_BOR, env->node_comm));
    return CPU_COUNT(&all);
  }
#else
  (void)env;
#endif
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

void kit_init(int *argc, char ***argv, kit_env *env) {
  memset(env, 0, sizeof *env);
  int provided = 0;
  /* MULTIPLE: the multi-thread variant's assistant threads call MPI concurrently. */
  int rc = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "kit: MPI_Init_thread failed\n");
    exit(KIT_EXIT_RUNTIME);
  }
  /* Errors come back to KIT_MPI_CHECK, which reports the call and aborts the job. */
  KIT_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  env->thread_level = provided;
  KIT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &env->rank));
  KIT_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &env->nranks));
  KIT_MPI_CHECK(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, env->rank, MPI_INFO_NULL, &env->node_comm));
  KIT_MPI_CHECK(MPI_Comm_rank(env->node_comm, &env->local_rank));
  KIT_MPI_CHECK(MPI_Comm_size(env->node_comm, &env->local_size));
  int len = 0;
  char name[MPI_MAX_PROCESSOR_NAME];
  KIT_MPI_CHECK(MPI_Get_processor_name(name, &len));
  snprintf(env->host_name, sizeof env->host_name, "%s", name);
  check_environment(env);
  /* Threads that fit the node unless OMP_NUM_THREADS says otherwise (checked above). */
  const char *omp = getenv("OMP_NUM_THREADS");
  const int user = omp && *omp ? omp_get_max_threads() : 0;
  int over = 0;
  env->node_cores = node_cores(env);
  env->threads = kit_threads_rule(env->node_cores, env->local_size, user, &over);
  if (!user) omp_set_num_threads(env->threads);
  KIT_MPI_CHECK(MPI_Allreduce(&over, &env->oversubscribed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  env->gpus_visible = kit_gpu_count();
  env->device = -1;
  cpu_model(env->cpu_model, sizeof env->cpu_model);
  snprintf(env->device_name, sizeof env->device_name, "%s", env->cpu_model);
}

int kit_finalize(int code) {
  /* Whatever this rank printed (a report, --help, --variant list) must have reached
   * stdout: a run whose output was lost (a full disk, > /dev/full) did not succeed. */
  errno = 0;
  const int lost = fflush(stdout) != 0 || ferror(stdout);
  const int e = errno;
  if (lost) {
    if (code == KIT_EXIT_OK || code == KIT_EXIT_VERIFY) {
      fprintf(stderr, "kit: could not write standard output: %s\n", e ? strerror(e) : "write error");
      code = KIT_EXIT_RUNTIME;
    }
  }
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin) MPI_Finalize();
  return code;
}

int kit_gpu_count(void) {
#ifdef KIT_HAVE_CUDA
  int n = 0;
  /* No driver (the CPU machines have the toolkit only) is "no GPU", not an error. */
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

int kit_all_ranks_have_gpu(const kit_env *env) {
  int mine = env->gpus_visible > 0, all = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  return all;
}

int kit_usable_gpus(const kit_env *env, int limit) {
  return limit > 0 && limit < env->gpus_visible ? limit : env->gpus_visible;
}

void kit_select_device(kit_env *env, int gpus_limit) {
#ifdef KIT_HAVE_CUDA
  const int usable = kit_usable_gpus(env, gpus_limit);
  if (usable < 1) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "no CUDA device to select");
  env->device = env->local_rank % usable;
  KIT_CUDA_CHECK(cudaSetDevice(env->device));
  struct cudaDeviceProp prop;
  KIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, env->device));
  snprintf(env->device_name, sizeof env->device_name, "%s", prop.name);
#else
  (void)env;
  (void)gpus_limit;
  kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "built without CUDA");
#endif
}

int kit_enable_peer(int device, int other) {
#ifdef KIT_HAVE_CUDA
  if (device == other) return 1;
  int can = 0, back = 0;
  KIT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, other));
  KIT_CUDA_CHECK(cudaDeviceCanAccessPeer(&back, other, device));
  if (!can || !back) return 0;
  KIT_CUDA_CHECK(cudaSetDevice(device));
  cudaError_t e = cudaDeviceEnablePeerAccess(other, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError(); /* enabled earlier (another block on this device) */
    e = cudaSuccess;
  }
  KIT_CUDA_CHECK(e);
  return 1;
#else
  (void)device;
  (void)other;
  return 0;
#endif
}

void *kit_host_alloc(size_t bytes, int pinned) {
#ifdef KIT_HAVE_CUDA
  if (pinned) {
    void *p = NULL;
    cudaError_t e = cudaMallocHost(&p, bytes);
    if (e != cudaSuccess)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "cudaMallocHost(%zu bytes) failed: %s", bytes,
              cudaGetErrorString(e));
    return p;
  }
#endif
  (void)pinned;
  return kit_malloc(bytes, "host buffer");
}

void kit_host_free(void *p, int pinned) {
#ifdef KIT_HAVE_CUDA
  if (pinned) {
    KIT_CUDA_CHECK(cudaFreeHost(p));
    return;
  }
#endif
  (void)pinned;
  free(p);
}

double kit_now(void) {
  return MPI_Wtime();
}

void kit_vlog_line(const char *fmt, va_list ap) {
  /* Formatted whole, then escaped: a path or a file's bytes inside the message cannot drive
   * the terminal or split the line, whoever built the message. */
  char line[2048], shown[4 * sizeof line];
  vsnprintf(line, sizeof line, fmt, ap);
  fprintf(stderr, "%s\n", kit_printable(line, shown, sizeof shown));
}

void kit_log(const kit_env *env, const char *fmt, ...) {
  if (env && env->rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  kit_vlog_line(fmt, ap);
  va_end(ap);
}
