/* kit/exchange.h: the halo exchange between the GPUs of neighbouring processes, one call
 * over several transports (--comm), so that a variant keeps only its schedule (boundary,
 * exchange, bulk, swap) and never stages a buffer or calls MPI itself. Risso's thesis Sec.
 * 4.1-4.4 (a layer of pack infos, buffers and a manager choosing the scheme); NVIDIA's
 * multi-gpu-programming-models (the same Jacobi step over MPI, CUDA-aware MPI, NCCL).
 *   host        device -> pinned host -> MPI -> pinned host -> device: the lesson's
 *               baseline, Paper II Listing 1; the host waits for the copies and for MPI.
 *   ipc         CUDA IPC between the processes of one node: each rank maps its neighbours'
 *               device inboxes (two slots, used in turn) and copies its planes into them on
 *               the stream; interprocess events order writer and reader, a one-integer MPI
 *               message per neighbour and exchange says the events are recorded. The host
 *               only enqueues (and trades those tokens).
 *   nccl        ncclSend/ncclRecv of the device buffers in one group on the stream: the host
 *               only enqueues (NVLink or PCIe peer copies inside NCCL).
 *   cuda-aware  the device buffers straight to MPI (an MPI that can read device memory;
 *               none of the kit's GPU machines has one: the run skips there, exit 77).
 * A side's message is `count` elements of `elem` bytes, contiguous in both the sender's and
 * the receiver's memory (a z-plane); side KIT_DOWN is the neighbour below, KIT_UP above,
 * MPI_PROC_NULL an edge (nothing moves). Counters and the stale-halo fault (KIT_FAULT=
 * stale-halo: no message moves, the tests' proof that verification sees a stale ghost) are
 * those of kit_halo, for every transport. */
#ifndef KIT_EXCHANGE_H
#define KIT_EXCHANGE_H
#include <mpi.h>
#include <stddef.h>

#include "kit/halo.h"
#include "kit/runtime.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef enum kit_comm {
  KIT_COMM_HOST = 0,
  KIT_COMM_IPC,
  KIT_COMM_NCCL,
  KIT_COMM_CUDA_AWARE,
  KIT_COMM_COUNT
} kit_comm;
/* --comm's names, in kit_comm's order, and the option table's choice list. */
extern const char *const kit_comm_names[KIT_COMM_COUNT];
#define KIT_COMM_CHOICES "host|ipc|nccl|cuda-aware"

/* The transport of that name (the option table has checked it is one). */
kit_comm kit_comm_of(const char *name);
/* Can `name` run here? -1 if so; otherwise one line and the exit code: 77 for a transport not
 * built into this binary (NCCL) or not supported by this machine's MPI (cuda-aware). Every
 * rank gets the same answer. */
int kit_comm_check(const kit_env *env, const char *app, const char *variant, const char *name);
/* 1 if this MPI library can read device memory (MPIX_Query_cuda_support). */
int kit_mpi_cuda_aware(void);

typedef struct kit_exchange {
  kit_comm kind;
  kit_halo halo;   /* neighbours, requests, counters; pinned staging for `host` */
  size_t bytes;    /* one message */
  size_t capacity; /* the largest message, as set up (staging buffers' size) */
  int on_host;     /* the buffers are host memory (CPU tests of the plan): plain copies */
  void *nccl;      /* ncclComm_t of the communicator's ranks (nccl) */
  void *ipc;       /* the inboxes, mapped peers' inboxes and events (ipc; exchange.c) */
  long long calls; /* exchanges so far (ipc: which inbox slot) */
} kit_exchange;

/* Sets up the exchange among the ranks of `comm` (collective: nccl makes its communicator
 * here, from a unique id rank 0 broadcasts). The calling thread's current device is the one
 * the buffers live on. `on_host`: the "device" buffers are host memory (host transport only:
 * the plan's tests on a machine without a GPU). */
void kit_exchange_init(kit_exchange *x, kit_comm kind, MPI_Comm comm, int nbr_down, int nbr_up, size_t count,
                       MPI_Datatype type, size_t elem, int on_host);
void kit_exchange_free(kit_exchange *x);
/* Later messages carry `count` elements, at most the count given to kit_exchange_init (the
 * message-size sweeps of labs/11-gpu-direct). */
void kit_exchange_resize(kit_exchange *x, size_t count);
/* One exchange: side s's send[s] (count elements on the device) goes to that neighbour, whose
 * message lands in recv[s]; ordered on `stream` (a cudaStream_t): work queued on it after
 * the call sees the ghosts, and may overwrite the send buffers. Every side with a neighbour
 * needs both buffers. The host returns once the exchange is queued (nccl) or done (host,
 * cuda-aware: the stream is synchronised before MPI, since MPI cannot wait on a stream). */
void kit_exchange_run(kit_exchange *x, void *const send[2], void *const recv[2], void *stream);

#ifdef __cplusplus
}
#endif
#endif
