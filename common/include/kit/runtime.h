/* kit/runtime.h: MPI start-up, node-local rank and GPU choice.
 * GPU selection (DESIGN.md Sec. 3): the node-local rank comes from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), never from launcher variables; the device is
 * local rank % visible devices, with --gpus limiting how many a node uses. A machine with
 * the CUDA toolkit but no usable driver counts as having no GPU. */
#ifndef KIT_RUNTIME_H
#define KIT_RUNTIME_H
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct kit_env {
  int rank, nranks;                       /* in MPI_COMM_WORLD */
  int local_rank, local_size;             /* on this node */
  MPI_Comm node_comm;                     /* ranks sharing this node's memory */
  int thread_level;                       /* MPI thread support provided */
  int threads;                            /* OpenMP threads per rank (kit_threads_rule) */
  int node_cores;                         /* cores of this node the job's ranks may run on */
  int oversubscribed;                     /* some node runs more threads than it has cores */
  int gpus_visible;                       /* CUDA devices this process sees (0 without driver or build) */
  int device;                             /* device this rank drives, -1 if none chosen */
  char device_name[256];                  /* its name, or the CPU model for CPU-only runs */
  char cpu_model[256];                    /* from /proc/cpuinfo */
  char host_name[MPI_MAX_PROCESSOR_NAME]; /* MPI processor name */
} kit_env;

/* MPI_Init_thread (asking for MPI_THREAD_MULTIPLE), errors returned to the checks,
 * node communicator, the OpenMP threads (kit_threads_rule), visible GPU count. */
void kit_init(int *argc, char ***argv, kit_env *env);

/* The OpenMP threads of one rank: `user` when OMP_NUM_THREADS gives them (0: unset), else
 * the node's `cores` shared by its `ranks`, at least one, so that `mpiexec -n 4` on a
 * 2-core machine does not run 8 threads on 2 cores. *over: ranks x threads exceed cores. */
int kit_threads_rule(int cores, int ranks, int user, int *over);

/* MPI_Finalize and return `code`, so main() can `return kit_finalize(rc);`. */
int kit_finalize(int code);

/* Number of CUDA devices this process can use; 0 without a driver or a CUDA build. */
int kit_gpu_count(void);

/* 1 if every rank sees at least one GPU (collective). */
int kit_all_ranks_have_gpu(const kit_env *env);

/* GPUs a node uses: the visible ones, or `limit` (--gpus) when positive and smaller. */
int kit_usable_gpus(const kit_env *env, int limit);

/* Chooses device local_rank % kit_usable_gpus(env, gpus_limit),
 * makes it current and records its name. Requires a GPU. */
void kit_select_device(kit_env *env, int gpus_limit);

/* Peer-to-peer access between two devices, enabled from `device` (made current) when the
 * hardware allows it both ways; returns 1 if enabled (or already), 0 if copies between them
 * must go through host memory (cudaMemcpyPeerAsync then stages by itself). The same device
 * twice returns 1. */
int kit_enable_peer(int device, int other);

/* Host memory for halo staging: pinned (page-locked) when a GPU is in use so copies are
 * asynchronous and run at full PCIe speed, plain aligned memory otherwise. Aborts on failure. */
void *kit_host_alloc(size_t bytes, int pinned);
void kit_host_free(void *p, int pinned);

/* Wall-clock seconds (MPI_Wtime). */
double kit_now(void);

/* Rank-0 message helpers: one line on stderr, printed once for the job. */
void kit_log(const kit_env *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line on stderr from a printf format, with every byte a terminal could act on escaped
 * (kit_printable): the one place kit_log and kit_usage_error print. */
void kit_vlog_line(const char *fmt, va_list ap);

#ifdef __cplusplus
}
#endif
#endif
