/* kit/check.h: the one checking macro family for every CUDA and MPI call.
 * A failed call prints the stringified call, file, line, rank and the library's error
 * string on one line, then aborts the whole job (MPI_Abort) with exit code 3, so a
 * failure on one rank never leaves the others hanging in a collective.
 * Pattern: NVIDIA multi-gpu-programming-models CUDA_RT_CALL, BabelStream's noreturn
 * handler, PRK MPI_bail_out. */
#ifndef KIT_CHECK_H
#define KIT_CHECK_H
#include <mpi.h>
#include <stddef.h>
#ifdef KIT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#ifdef __cplusplus
extern "C" {
#endif

#define KIT_EXIT_OK 0      /* verification passed */
#define KIT_EXIT_VERIFY 1  /* verification failed */
#define KIT_EXIT_USAGE 2   /* bad command line or input */
#define KIT_EXIT_RUNTIME 3 /* CUDA, MPI, out of memory */
#define KIT_EXIT_SKIP 77   /* variant not available here (no GPU, no CUDA build) */

/* Print "kit: rank R: <message> (file:line)" and abort every rank with `code`. */
__attribute__((noreturn, format(printf, 4, 5))) void kit_die(int code, const char *file, int line,
                                                             const char *fmt, ...);
__attribute__((noreturn)) void kit_mpi_fail(int rc, const char *call, const char *file, int line);

/* Fault injection by call name (tests only, see kit_fault below): nonzero when KIT_FAULT
 * names a CUDA or MPI function ("cudaMalloc@1", "MPI_Allreduce@2"), read once at start-up,
 * so an unset KIT_FAULT costs one load per checked call. */
extern int kit_fault_calls_armed;
int kit_fault_call(const char *call);
#define KIT_FAULT_CALL_(call) (kit_fault_calls_armed && kit_fault_call(call))

#define KIT_MPI_CHECK(call)                                                                                 \
  do {                                                                                                      \
    int kit_rc_ = (call);                                                                                   \
    if (kit_rc_ != MPI_SUCCESS || KIT_FAULT_CALL_(#call)) kit_mpi_fail(kit_rc_, #call, __FILE__, __LINE__); \
  } while (0)

#ifdef KIT_HAVE_CUDA
__attribute__((noreturn)) void kit_cuda_fail(cudaError_t e, const char *call, const char *file, int line);
#define KIT_CUDA_CHECK(call)                                                                               \
  do {                                                                                                     \
    cudaError_t kit_e_ = (call);                                                                           \
    if (kit_e_ != cudaSuccess || KIT_FAULT_CALL_(#call)) kit_cuda_fail(kit_e_, #call, __FILE__, __LINE__); \
  } while (0)
#endif

/* Fault injection for tests only: 1 if the environment variable KIT_FAULT names `what`,
 * as "what" (every rank) or "what@R" (world rank R only). Used: KIT_FAULT=stale-halo makes
 * every halo exchange a no-op, which verification must catch; KIT_FAULT=alloc@1 makes
 * kit_malloc fail on rank 1, which must end the whole job with exit 3, not hang it.
 * KIT_FAULT=<function>[@R], naming a CUDA or MPI function (cudaMalloc, MPI_Allreduce, ...),
 * makes the first KIT_CUDA_CHECK / KIT_MPI_CHECK of a call to that function on rank R (or
 * on every rank) report failure after the call ran, as a real error there would: a rank
 * dying inside or beside a collective must take the job down, never leave it hanging. */
int kit_fault(const char *what);
/* Checks a KIT_FAULT value: NAME or NAME@RANK (RANK decimal digits). Returns 0 (also for
 * NULL or ""), or -1 with one line in why; kit_init refuses a malformed value (exit 2). */
int kit_fault_parse(const char *value, char *why, size_t n);

/* 64-byte aligned malloc that aborts the job with exit 3, the size, and the caller's file
 * and line on failure. */
void *kit_malloc_at(size_t bytes, const char *what, const char *file, int line);
#define kit_malloc(bytes, what) kit_malloc_at((bytes), (what), __FILE__, __LINE__)

#ifdef __cplusplus
}
#endif
#endif
