/* ceiling.c: measured bandwidth ceilings with a per-machine cache (kit/ceiling.h). */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */

#include "kit/ceiling.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit/check.h"
#include "kit/input.h"

double kit_measure_host_triad(size_t n, int reps) {
  double *a = kit_malloc(n * sizeof *a, "host triad");
  double *b = kit_malloc(n * sizeof *b, "host triad");
  double *c = kit_malloc(n * sizeof *c, "host triad");
  const double s = 3.0;
  /* First touch by the threads that use the data (NUMA placement). */
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    const double t = omp_get_wtime() - t0;
    if (t < best) best = t;
  }
  if (a[n / 2] != 7.0) kit_die(3, __FILE__, __LINE__, "host triad produced a wrong value");
  free(a);
  free(b);
  free(c);
  return 3.0 * 8.0 * (double)n / best * 1e-9;
}

/* The cache is only a shortcut: a file that cannot be used (a FIFO, a device, a directory, a
 * damaged line, a full disk) is ignored with one warning and the ceiling is measured, never
 * refused, because the run's answer does not depend on it. Rank 0 alone reads and writes it. */
static int cache_unusable;

/* One warning per process, then the cache is left alone. */
static void cache_warn(const char *path, const char *why) {
  if (!cache_unusable) {
    char safe[600];
    fprintf(stderr, "kit: warning: ceiling cache '%s': %s; not used (ceilings are measured)\n",
            kit_printable(path, safe, sizeof safe), why);
  }
  cache_unusable = 1;
}

/* The cache file's name; 0 if it does not fit `n` (then it is not used: a cut name would be
 * another file). */
static int cache_path(char *out, size_t n) {
  const char *p = getenv("KIT_CEILING_CACHE");
  const char *x = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  int len;
  if (p && *p)
    len = snprintf(out, n, "%s", p);
  else if (x && *x)
    len = snprintf(out, n, "%s/kit/ceilings", x);
  else
    len = snprintf(out, n, "%s/.cache/kit/ceilings", home && *home ? home : "/tmp");
  if (len < 0 || (size_t)len >= n) {
    cache_warn(p && *p ? p : "(under $XDG_CACHE_HOME or $HOME)", "the path is too long");
    return 0;
  }
  return !cache_unusable;
}

/* A cached value: finite, positive and below any machine's bandwidth (1 PB/s). */
static int parse_ceiling(const char *s, double *v) {
  char *end = NULL;
  errno = 0;
  *v = strtod(s, &end);
  return end != s && *end == '\0' && errno == 0 && *v > 0.0 && *v < 1e6;
}

static double cache_get(const char *key) {
  char path[512], err[256];
  if (!cache_path(path, sizeof path)) return 0.0;
  errno = 0;
  if (access(path, F_OK) != 0 && errno == ENOENT) return 0.0; /* first run: nothing cached yet */
  kit_lines in;
  if (kit_lines_open(&in, path, 2048, err, sizeof err) != 0) {
    cache_warn(path, err);
    return 0.0;
  }
  double v = 0.0;
  const size_t klen = strlen(key);
  int rc;
  while ((rc = kit_lines_next(&in)) > 0) {
    double got;
    if (strncmp(in.buf, key, klen) != 0 || in.buf[klen] != '\t') continue;
    if (!parse_ceiling(in.buf + klen + 1, &got)) {
      snprintf(err, sizeof err, "line %lld: '%s' is not a bandwidth in GB/s", in.lineno, in.buf + klen + 1);
      cache_warn(path, err);
      v = 0.0;
      break;
    }
    v = got; /* later lines win */
  }
  if (rc < 0) {
    cache_warn(path, in.err);
    v = 0.0;
  }
  kit_lines_close(&in);
  return v;
}

static void mkdirs_for(const char *path) {
  char tmp[512];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; ++p)
    if (*p == '/') {
      *p = '\0';
      mkdir(tmp, 0755);
      *p = '/';
    }
}

/* Append, then let later lines win on read: no locking needed between writers (one write()
 * of a short line to an O_APPEND file lands whole). */
static void cache_put(const char *key, double v) {
  char path[512], line[1100];
  if (!cache_path(path, sizeof path)) return;
  mkdirs_for(path);
  /* O_NONBLOCK: opening a FIFO for writing would wait for a reader for ever. */
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
  if (fd < 0) {
    /* A read-only home only costs a re-measurement next time: no warning for that. */
    if (errno != EACCES && errno != EROFS && errno != ENOENT) cache_warn(path, strerror(errno));
    return;
  }
  struct stat st;
  const int len = snprintf(line, sizeof line, "%s\t%.3f\n", key, v);
  errno = 0;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    cache_warn(path, "is not a regular file");
  else if (len < 0 || (size_t)len >= sizeof line || write(fd, line, (size_t)len) != (ssize_t)len)
    cache_warn(path, errno ? strerror(errno) : "short write");
  close(fd);
}

static double cached_or_measured(const kit_env *env, const char *key, int force, double (*measure)(void)) {
  double v = 0.0;
  if (env->rank == 0) {
    v = force ? 0.0 : cache_get(key);
    if (!(v > 0.0)) {
      fprintf(stderr, "kit: measuring %s (cached afterwards)\n", key);
      v = measure();
      cache_put(key, v);
    }
  }
  KIT_MPI_CHECK(MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  return v;
}

/* The node's host triad, measured by every rank of the node at once, each with its own
 * threads, between node barriers: ranks waiting in MPI would otherwise spin on cores the
 * measurement needs. Best over repetitions of the slowest rank's time; 3 x 128 MiB per
 * node in all, far beyond any last-level cache and quick on a 2-core CI machine. */
static double node_triad(const kit_env *env, int threads) {
  const size_t n = ((size_t)16 << 20) / (size_t)env->local_size;
  double *a = kit_malloc(n * sizeof *a, "host triad");
  double *b = kit_malloc(n * sizeof *b, "host triad");
  double *c = kit_malloc(n * sizeof *c, "host triad");
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  double best = 1e30;
  for (int r = 0; r < 8; ++r) {
    KIT_MPI_CHECK(MPI_Barrier(env->node_comm));
    const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    double t = omp_get_wtime() - t0, slowest = 0.0;
    KIT_MPI_CHECK(MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, env->node_comm));
    if (slowest < best) best = slowest;
  }
  if (a[n / 2] != 7.0) kit_die(3, __FILE__, __LINE__, "host triad produced a wrong value");
  free(a);
  free(b);
  free(c);
  return 3.0 * 8.0 * (double)n * env->local_size / best * 1e-9;
}

double kit_host_triad_ceiling(const kit_env *env, int force) {
  /* The node's ceiling with every rank on it and its threads, at most one thread per core
   * (more measure the scheduler, not the memory), times the number of nodes. */
  int total = env->threads * env->local_size;
  if (total > omp_get_num_procs()) total = omp_get_num_procs();
  const int per_rank = total / env->local_size > 1 ? total / env->local_size : 1;
  char key[1024];
  snprintf(key, sizeof key, "host-triad:%s:%s:threads=%d", env->host_name, env->cpu_model, total);
  double node = 0.0;
  if (env->rank == 0 && !force) node = cache_get(key);
  KIT_MPI_CHECK(MPI_Bcast(&node, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  if (!(node > 0.0)) {
    if (env->rank == 0) fprintf(stderr, "kit: measuring %s (cached afterwards)\n", key);
    node = node_triad(env, per_rank);
    KIT_MPI_CHECK(MPI_Bcast(&node, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    if (env->rank == 0) cache_put(key, node);
  }
  int leaders = 0, mine = env->local_rank == 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  return node * leaders;
}

#ifdef KIT_HAVE_CUDA
/* 3 x 2 GiB as DESIGN.md Sec. 7 specifies. */
static double device_measure(void) {
  return kit_measure_device_triad((size_t)1 << 28, 20);
}
#endif

double kit_device_triad_ceiling(const kit_env *env, int force) {
#ifdef KIT_HAVE_CUDA
  char key[1024];
  snprintf(key, sizeof key, "device-triad:%s", env->device_name);
  return cached_or_measured(env, key, force, device_measure);
#else
  (void)env;
  (void)force;
  return 0.0;
#endif
}
