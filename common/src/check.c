/* check.c: fatal-error handling behind KIT_MPI_CHECK / KIT_CUDA_CHECK (kit/check.h).
 * One line with rank, call, file and line, then MPI_Abort so no rank hangs. */
/* nanosleep is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "kit/check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int kit_world_rank(void) {
  int init = 0, fin = 0, rank = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

void kit_die(int code, const char *file, int line, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "kit: rank %d: %s (%s:%d)\n", kit_world_rank(), msg, file, line);
  fflush(stderr);
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* MPI_Abort tells the launcher to kill every rank at once, and MPICH's hydra can
     * tear down the I/O forwarding before it has read this rank's stderr pipe: the one
     * line that says what went wrong is then lost (seen in CI about 1 run in 12).
     * A quarter second lets the forwarder drain the line; dying is not a hot path. */
    if (size > 1) {
      const struct timespec drain = {0, 250 * 1000 * 1000};
      nanosleep(&drain, NULL);
    }
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  exit(code);
}

/* Set once before main: KIT_FAULT names a CUDA or MPI function, so the checking macros must
 * ask kit_fault_call; unset, they pay one load. */
int kit_fault_calls_armed = 0;

__attribute__((constructor)) static void kit_fault_arm(void) {
  const char *f = getenv("KIT_FAULT");
  kit_fault_calls_armed = f && (strncmp(f, "cuda", 4) == 0 || strncmp(f, "MPI_", 4) == 0);
}

int kit_fault_call(const char *call) {
  /* `call` is the stringified expression: the function's name, then "(" (maybe after
   * spaces); kit_fault matches the name and the rank. */
  char name[64];
  size_t n = strcspn(call, " (");
  if (n >= sizeof name) return 0;
  memcpy(name, call, n);
  name[n] = '\0';
  return kit_fault(name);
}

void kit_mpi_fail(int rc, const char *call, const char *file, int line) {
  char err[MPI_MAX_ERROR_STRING] = "unknown MPI error";
  int len = 0;
  if (rc == MPI_SUCCESS) kit_die(3, file, line, "MPI call %s failed: fault injected by KIT_FAULT", call);
  MPI_Error_string(rc, err, &len);
  kit_die(3, file, line, "MPI call %s failed: %s", call, err);
}

#ifdef KIT_HAVE_CUDA
void kit_cuda_fail(cudaError_t e, const char *call, const char *file, int line) {
  if (e == cudaSuccess) kit_die(3, file, line, "CUDA call %s failed: fault injected by KIT_FAULT", call);
  kit_die(3, file, line, "CUDA call %s failed: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
}
#endif

void *kit_malloc_at(size_t bytes, const char *what, const char *file, int line) {
  void *p = NULL;
  /* 64-byte alignment: whole cache lines for vector loads and streaming stores. */
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  p = kit_fault("alloc") ? NULL : aligned_alloc(64, rounded);
  if (!p) kit_die(3, file, line, "out of host memory allocating %zu bytes for %s", bytes, what);
  return p;
}

int kit_fault_parse(const char *value, char *why, size_t n) {
  if (!value || !*value) return 0;
  /* A name: a letter, then letters, digits, '_' or '-' (stale-halo, alloc, MPI_Allreduce). */
  const char *p = value;
  int ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z');
  for (; ok && *p && *p != '@'; ++p)
    ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' ||
         *p == '-';
  if (!ok || p - value > 63) {
    snprintf(why, n, "KIT_FAULT='%.80s': expected NAME or NAME@RANK (a fault or a CUDA/MPI function name)",
             value);
    return -1;
  }
  if (*p == '\0') return 0;
  /* "@R": a world rank, decimal digits only: atoi("abc") was rank 0, so a typo hit rank 0. */
  const char *r = p + 1;
  size_t digits = strspn(r, "0123456789");
  if (digits == 0 || r[digits] != '\0' || digits > 9) {
    snprintf(why, n, "KIT_FAULT='%.80s': the rank after '@' must be a non-negative integer", value);
    return -1;
  }
  return 0;
}

int kit_fault(const char *what) {
  const char *f = getenv("KIT_FAULT");
  if (!f || kit_fault_parse(f, (char[8]){0}, 8) != 0) return 0;
  /* "name" applies to every rank, "name@R" to world rank R only. */
  const size_t n = strlen(what);
  if (strncmp(f, what, n) != 0) return 0;
  if (f[n] == '\0') return 1;
  if (f[n] != '@') return 0;
  return atoi(f + n + 1) == kit_world_rank();
}
