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
 *   nvshmem     one-sided puts into the neighbours' inboxes on NVSHMEM's symmetric heap (two
 *               slots per link, used in turn), each put carrying a signal the receiver's stream
 *               waits for; after taking a slot out, the receiver signals the writer that it
 *               may write that slot again. Every wait is on a stream: the host only enqueues,
 *               and trades no message per exchange (exchange_nvshmem.cu).
 *   cuda-aware  the device buffers straight to MPI (an MPI that can read device memory;
 *               none of the kit's GPU machines has one: the run skips there, exit 77).
 * A plan is a list of links (neighbours, each with its message each way: a slab's two
 * z-planes, an unstructured part's separator lists); a message is contiguous in both the
 * sender's and the receiver's memory: where a face is not, the app packs and unpacks it with
 * its own kernels around kit_exchange_run (lbm's five populations, tetfv's send lists).
 * Counters (messages and bytes sent, in `halo`) and the stale-halo fault (KIT_FAULT=
 * stale-halo: no message moves, the tests' proof that verification sees a stale ghost) are
 * the same for every transport. */
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
  KIT_COMM_NVSHMEM,
  KIT_COMM_CUDA_AWARE,
  KIT_COMM_COUNT
} kit_comm;
/* --comm's names, in kit_comm's order, and the option table's choice list. */
extern const char *const kit_comm_names[KIT_COMM_COUNT];
#define KIT_COMM_CHOICES "host|ipc|nccl|nvshmem|cuda-aware"

/* The transport of that name (the option table has checked it is one). */
kit_comm kit_comm_of(const char *name);
/* Can `name` run here? -1 if so, or if `variant` is not one of `variants` ("a|b": the
 * variants that take --comm; NULL: every one), which then exchanges its own way; otherwise
 * one line and the exit code: 77 for a transport not built into this binary (NCCL, NVSHMEM),
 * not supported by this machine's MPI (cuda-aware) or by the job's layout (ranks sharing a
 * GPU: nccl, nvshmem; ranks on several nodes: ipc, nvshmem). Every rank gets the same answer. */
int kit_comm_check(const kit_env *env, const char *app, const char *variants, const char *variant,
                   const char *name);
/* 1 if this MPI library can read device memory (MPIX_Query_cuda_support). */
int kit_mpi_cuda_aware(void);

/* One link of an exchange: a neighbour and the message each way. Several links may lead to
 * one rank (both sides of a periodic slab on two ranks); the tags tell them apart: what this
 * rank sends with send_tag arrives at the neighbour on its link whose recv_tag is that tag.
 * The counts must agree across a link (my send_count is the neighbour's recv_count); either
 * may be 0. rank MPI_PROC_NULL: no neighbour, nothing moves. */
typedef struct kit_link {
  int rank;
  size_t send_count, recv_count; /* elements */
  int send_tag, recv_tag;        /* 0 <= tag < KIT_LINK_TAGS */
} kit_link;
#define KIT_LINK_TAGS 64

typedef struct kit_exchange {
  kit_comm kind;
  MPI_Comm comm;
  MPI_Datatype type;
  size_t elem;                     /* bytes per element */
  int nlinks;                      /* links in the plan (2 for a slab: KIT_DOWN, KIT_UP) */
  kit_link *links;                 /* the plan, as given */
  size_t *cap_send, *cap_recv;     /* per link: the messages' bytes at set-up (resize's limit) */
  void **stage_send, **stage_recv; /* per link: pinned staging (host, device buffers) */
  MPI_Request *req;                /* 2 per link */
  MPI_Status *status;
  int *token;                   /* ipc: per link, the neighbour's slot this exchange */
  int *order_send, *order_recv; /* links by (rank, tag): NCCL pairs messages in issue order */
  kit_halo halo;                /* counters (messages, bytes sent); a slab's neighbours in halo.nbr */
  int on_host;                  /* the buffers are host memory (CPU tests, host-staged apps): no copies */
  void *nccl;                   /* ncclComm_t of the communicator's ranks (nccl) */
  void *nvshmem; /* per link: inbox offsets, signals, message counts (nvshmem; exchange_nvshmem.cu) */
  void *ipc;     /* per link: inboxes, mapped peers' inboxes and events (ipc; exchange.c) */
  void **buf_send, **buf_recv; /* per link: message buffers kit_exchange_buffers made (owned) */
  long long calls;             /* exchanges so far (ipc: which inbox slot) */
  int pending;                 /* MPI requests kit_exchange_start left for kit_exchange_finish */
} kit_exchange;

/* Sets up an exchange over `nlinks` links among the ranks of `comm` (collective: nccl makes
 * its communicator here, from a unique id rank 0 broadcasts; ipc trades memory and event
 * handles with each neighbour; nvshmem starts NVSHMEM over MPI_COMM_WORLD the first time, the
 * same way, and allocates the inboxes on its symmetric heap, so `comm` must then hold every
 * rank of MPI_COMM_WORLD). The calling thread's current device is the one the buffers live
 * on. `on_host`: the buffers handed to kit_exchange_run are host memory; only `host`
 * takes them, and MPI reads and writes them directly (the plan's tests on a machine without a
 * GPU; an app that stages its own faces). */
void kit_exchange_init_links(kit_exchange *x, kit_comm kind, MPI_Comm comm, int nlinks, const kit_link *links,
                             MPI_Datatype type, size_t elem, int on_host);
/* A slab's exchange (laplace, lbm, ising): link KIT_DOWN to nbr_down, KIT_UP to nbr_up,
 * `count` elements each way (MPI_PROC_NULL at an edge). */
void kit_exchange_init(kit_exchange *x, kit_comm kind, MPI_Comm comm, int nbr_down, int nbr_up, size_t count,
                       MPI_Datatype type, size_t elem, int on_host);
void kit_exchange_free(kit_exchange *x);
/* Message buffers owned by the exchange, for apps that pack their faces (laplace's x and y
 * faces, lbm's box links): x->buf_send[k] and x->buf_recv[k] hold link k's send_count and
 * recv_count elements, in host memory for an exchange on host buffers (`on_host`), else on the
 * calling thread's device; NULL for a link without a neighbour or with use[k] == 0 (use NULL:
 * every link). Freed by kit_exchange_free. */
void kit_exchange_buffers(kit_exchange *x, const char *use);
/* Later messages carry `count` elements on every link, at most what each link was set up
 * with (the message-size sweeps of labs/11-gpu-direct). */
void kit_exchange_resize(kit_exchange *x, size_t count);
/* Messages whose sizes change from one exchange to the next (bfs's frontiers: counts first,
 * then the data): link k's next messages carry send_count[k] and recv_count[k] elements, each
 * at most what the link was set up with (its capacity); the two ends of a link must agree,
 * so the counts travel first (a small MPI message of the app's own). 0: no message. */
void kit_exchange_set_counts(kit_exchange *x, const size_t *send_count, const size_t *recv_count);
/* One exchange: link k's send[k] (send_count elements, contiguous) goes to that neighbour,
 * whose message lands in recv[k]; ordered on `stream` (a cudaStream_t): work queued on it
 * after the call sees the received data, and may overwrite the send buffers. A NULL send[k]
 * or recv[k] skips that message this time (ising's half-sweeps move one side's planes only);
 * both ends of a link must skip alike. The host returns once the exchange is queued (ipc,
 * nccl) or done (host, cuda-aware: the stream is synchronised before MPI, since MPI cannot
 * wait on a stream). */
void kit_exchange_run(kit_exchange *x, void *const send[], void *const recv[], void *stream);
/* kit_exchange_run in two halves, so the host can compute while the messages travel (a CPU
 * rank's bulk, Paper II Listing 1): start posts them, finish waits until every receive buffer
 * is filled and every send buffer may be reused; until then the buffers belong to the
 * exchange. Only `host` on host buffers splits: with device buffers start does the whole
 * exchange (each transport orders it on the stream already) and finish returns at once. */
void kit_exchange_start(kit_exchange *x, void *const send[], void *const recv[], void *stream);
void kit_exchange_finish(kit_exchange *x);

#ifdef __cplusplus
}
#endif
#endif
