/* exchange.c: the transports of kit/exchange.h. Each is the whole of one way to move a
 * z-plane between the GPUs of two processes; the variants only say when. */
#include "kit/exchange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/driver.h"
#include "kit/ranges.h"
#ifdef KIT_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#ifdef KIT_HAVE_NCCL
#include <nccl.h>
/* NCCL's calls, checked like every CUDA and MPI call (exit 3 with the call and the reason). */
#define KIT_NCCL_CHECK(call)                                                                      \
  do {                                                                                            \
    ncclResult_t kit_r_ = (call);                                                                 \
    if (kit_r_ != ncclSuccess)                                                                    \
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%s: %s", #call, ncclGetErrorString(kit_r_)); \
  } while (0)
#endif
/* Does MPI take device pointers? Asked at run time, never assumed from the build: Open MPI's
 * mpi-ext.h defines MPIX_CUDA_AWARE_SUPPORT (1 when built with CUDA) and declares
 * MPIX_Query_cuda_support(); MPICH >= 4.0 declares it in mpi.h; anything else is treated as
 * not CUDA-aware. */
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

const char *const kit_comm_names[KIT_COMM_COUNT] = {"host", "ipc", "nccl", "cuda-aware"};

kit_comm kit_comm_of(const char *name) {
  for (int k = 0; k < KIT_COMM_COUNT; ++k)
    if (strcmp(name, kit_comm_names[k]) == 0) return (kit_comm)k;
  return KIT_COMM_HOST;
}

int kit_mpi_cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
#if MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0; /* Open MPI built without CUDA */
#endif
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000 && !defined(OPEN_MPI)
  return MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}

/* 1 if two ranks of this node drive the same device (collective over the world). */
static int devices_shared(const kit_env *env) {
  int *dev = kit_malloc((size_t)env->local_size * sizeof *dev, "devices"), shared = 0, any = 0;
  KIT_MPI_CHECK(MPI_Allgather(&env->device, 1, MPI_INT, dev, 1, MPI_INT, env->node_comm));
  for (int a = 0; a < env->local_size; ++a)
    for (int b = a + 1; b < env->local_size; ++b) shared |= dev[a] == dev[b];
  free(dev);
  KIT_MPI_CHECK(MPI_Allreduce(&shared, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return any;
}

int kit_comm_check(const kit_env *env, const char *app, const char *variant, const char *name) {
  const kit_comm k = kit_comm_of(name);
  char why[96];
#ifndef KIT_HAVE_NCCL
  if (k == KIT_COMM_NCCL) {
    snprintf(why, sizeof why, "--comm nccl: built without NCCL (KIT_NCCL)");
    return kit_skip(env, app, variant, why);
  }
#endif
  /* A communicator takes one rank per GPU (NCCL refuses "duplicate GPU"): with more ranks
   * than GPUs this machine cannot run it. */
  if (k == KIT_COMM_NCCL && devices_shared(env)) {
    snprintf(why, sizeof why, "--comm nccl: ranks share a GPU (NCCL takes one rank per GPU)");
    return kit_skip(env, app, variant, why);
  }
  /* CUDA IPC maps memory of processes on this node only. */
  if (k == KIT_COMM_IPC && env->local_size != env->nranks) {
    snprintf(why, sizeof why, "--comm ipc: the job spans several nodes (CUDA IPC stays on one)");
    return kit_skip(env, app, variant, why);
  }
  /* Device pointers handed to an MPI that cannot read them would crash or send garbage. */
  if (k == KIT_COMM_CUDA_AWARE && !kit_mpi_cuda_aware()) {
    snprintf(why, sizeof why, "--comm cuda-aware: this MPI library is not CUDA-aware");
    return kit_skip(env, app, variant, why);
  }
  return -1;
}

#ifdef KIT_HAVE_CUDA
/* ipc: per side, this rank's inbox (two slots, where the neighbour on that side writes), the
 * neighbour's inbox mapped here (where this rank writes), and interprocess events per slot:
 * `sent` recorded by the writer after its copy, `consumed` by the reader after taking the
 * slot out. A slot is written again two exchanges later, after the writer's stream has
 * waited for the reader's `consumed` of it. */
typedef struct ipc_side {
  void *inbox;                                /* mine: 2 x capacity bytes on my device */
  void *peer_inbox;                           /* the neighbour's, mapped (cudaIpcOpenMemHandle) */
  cudaEvent_t sent[2], consumed[2];           /* mine, shared with the neighbour */
  cudaEvent_t peer_sent[2], peer_consumed[2]; /* the neighbour's, opened here */
} ipc_side;

/* What a rank publishes to one neighbour: its inbox and its events. */
typedef struct ipc_handles {
  cudaIpcMemHandle_t inbox;
  cudaIpcEventHandle_t sent[2], consumed[2];
} ipc_handles;

static void ipc_init(kit_exchange *x, MPI_Comm comm) {
  ipc_side *side = calloc(2, sizeof *side);
  if (!side) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory for the IPC exchange");
  ipc_handles mine[2], theirs[2];
  memset(mine, 0, sizeof mine);
  for (int s = 0; s < 2; ++s) {
    if (x->halo.nbr[s] == MPI_PROC_NULL) continue;
    KIT_CUDA_CHECK(cudaMalloc(&side[s].inbox, 2 * x->capacity));
    KIT_CUDA_CHECK(cudaIpcGetMemHandle(&mine[s].inbox, side[s].inbox));
    for (int slot = 0; slot < 2; ++slot) {
      const unsigned flags = cudaEventInterprocess | cudaEventDisableTiming;
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&side[s].sent[slot], flags));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&side[s].consumed[slot], flags));
      KIT_CUDA_CHECK(cudaIpcGetEventHandle(&mine[s].sent[slot], side[s].sent[slot]));
      KIT_CUDA_CHECK(cudaIpcGetEventHandle(&mine[s].consumed[slot], side[s].consumed[slot]));
    }
  }
  /* My side s is the neighbour's other side: its handles for me come back on side s. */
  MPI_Request req[4];
  int nreq = 0;
  for (int s = 0; s < 2; ++s) {
    if (x->halo.nbr[s] == MPI_PROC_NULL) continue;
    KIT_MPI_CHECK(MPI_Irecv(&theirs[s], (int)sizeof theirs[s], MPI_BYTE, x->halo.nbr[s], 130 + (1 - s), comm,
                            &req[nreq++]));
    KIT_MPI_CHECK(
        MPI_Isend(&mine[s], (int)sizeof mine[s], MPI_BYTE, x->halo.nbr[s], 130 + s, comm, &req[nreq++]));
  }
  MPI_Status status[4]; /* not MPI_STATUSES_IGNORE: GCC reads MPICH's as an empty array */
  KIT_MPI_CHECK(MPI_Waitall(nreq, req, status));
  for (int s = 0; s < 2; ++s) {
    if (x->halo.nbr[s] == MPI_PROC_NULL) continue;
    KIT_CUDA_CHECK(
        cudaIpcOpenMemHandle(&side[s].peer_inbox, theirs[s].inbox, cudaIpcMemLazyEnablePeerAccess));
    for (int slot = 0; slot < 2; ++slot) {
      KIT_CUDA_CHECK(cudaIpcOpenEventHandle(&side[s].peer_sent[slot], theirs[s].sent[slot]));
      KIT_CUDA_CHECK(cudaIpcOpenEventHandle(&side[s].peer_consumed[slot], theirs[s].consumed[slot]));
    }
  }
  x->ipc = side;
}

static void ipc_free(kit_exchange *x) {
  ipc_side *side = x->ipc;
  /* Nobody may still read my inbox or write into the neighbour's: drain, then meet. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
  KIT_MPI_CHECK(MPI_Barrier(x->halo.comm));
  for (int s = 0; s < 2; ++s) {
    if (!side[s].inbox) continue;
    KIT_CUDA_CHECK(cudaIpcCloseMemHandle(side[s].peer_inbox));
    for (int slot = 0; slot < 2; ++slot) {
      KIT_CUDA_CHECK(cudaEventDestroy(side[s].peer_sent[slot]));
      KIT_CUDA_CHECK(cudaEventDestroy(side[s].peer_consumed[slot]));
    }
  }
  KIT_MPI_CHECK(MPI_Barrier(x->halo.comm));
  for (int s = 0; s < 2; ++s) {
    if (!side[s].inbox) continue;
    KIT_CUDA_CHECK(cudaFree(side[s].inbox));
    for (int slot = 0; slot < 2; ++slot) {
      KIT_CUDA_CHECK(cudaEventDestroy(side[s].sent[slot]));
      KIT_CUDA_CHECK(cudaEventDestroy(side[s].consumed[slot]));
    }
  }
  free(side);
  x->ipc = NULL;
}

/* One exchange: write into each neighbour's inbox slot, say so, take mine out. The token
 * message is sent only after this exchange's `sent` records are enqueued and the last one's
 * `consumed` records too, so every cross-process wait below finds the record it needs (the
 * record a slot gets next needs a token this rank has not sent yet). */
static void ipc_run(kit_exchange *x, void *const send[2], void *const recv[2], cudaStream_t stream) {
  ipc_side *side = x->ipc;
  kit_halo *h = &x->halo;
  const int slot = (int)(x->calls & 1);
  const size_t at = (size_t)slot * x->capacity;
  int g = kit_gpu_range_begin("ipc_put", stream);
  for (int s = 0; s < 2; ++s) {
    if (h->nbr[s] == MPI_PROC_NULL) continue;
    KIT_CUDA_CHECK(cudaStreamWaitEvent(stream, side[s].peer_consumed[slot], 0));
    KIT_CUDA_CHECK(cudaMemcpyAsync((char *)side[s].peer_inbox + at, send[s], x->bytes,
                                   cudaMemcpyDeviceToDevice, stream));
    KIT_CUDA_CHECK(cudaEventRecord(side[s].sent[slot], stream));
    h->messages += 1;
    h->bytes += (long long)x->bytes;
  }
  kit_gpu_range_end(g, stream);
  KIT_RANGE_PUSH("ipc_token");
  int token_out = slot, token_in[2] = {0, 0};
  MPI_Request req[4];
  int nreq = 0;
  for (int s = 0; s < 2; ++s) {
    if (h->nbr[s] == MPI_PROC_NULL) continue;
    KIT_MPI_CHECK(MPI_Irecv(&token_in[s], 1, MPI_INT, h->nbr[s], 140 + (1 - s), h->comm, &req[nreq++]));
    KIT_MPI_CHECK(MPI_Isend(&token_out, 1, MPI_INT, h->nbr[s], 140 + s, h->comm, &req[nreq++]));
  }
  MPI_Status status[4];
  KIT_MPI_CHECK(MPI_Waitall(nreq, req, status));
  KIT_RANGE_POP();
  g = kit_gpu_range_begin("ipc_take", stream);
  for (int s = 0; s < 2; ++s) {
    if (h->nbr[s] == MPI_PROC_NULL) continue;
    if (token_in[s] != slot)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "ipc exchange: rank %d is at slot %d, this rank at %d",
              h->nbr[s], token_in[s], slot);
    KIT_CUDA_CHECK(cudaStreamWaitEvent(stream, side[s].peer_sent[slot], 0));
    KIT_CUDA_CHECK(
        cudaMemcpyAsync(recv[s], (char *)side[s].inbox + at, x->bytes, cudaMemcpyDeviceToDevice, stream));
    KIT_CUDA_CHECK(cudaEventRecord(side[s].consumed[slot], stream));
  }
  kit_gpu_range_end(g, stream);
}
#endif

void kit_exchange_init(kit_exchange *x, kit_comm kind, MPI_Comm comm, int nbr_down, int nbr_up, size_t count,
                       MPI_Datatype type, size_t elem, int on_host) {
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->bytes = x->capacity = count * elem;
  x->on_host = on_host;
  /* Only `host` stages: the others hand the device buffers to the transport. */
  kit_halo_init_typed(&x->halo, comm, nbr_down, nbr_up, count, type, elem, kind == KIT_COMM_HOST, !on_host);
#ifdef KIT_HAVE_CUDA
  if (kind == KIT_COMM_IPC) ipc_init(x, comm);
#endif
#ifdef KIT_HAVE_NCCL
  if (kind == KIT_COMM_NCCL) {
    int rank = 0, size = 1;
    KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    KIT_MPI_CHECK(MPI_Comm_size(comm, &size));
    ncclUniqueId id;
    if (rank == 0) KIT_NCCL_CHECK(ncclGetUniqueId(&id));
    KIT_MPI_CHECK(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm));
    ncclComm_t nc;
    KIT_NCCL_CHECK(ncclCommInitRank(&nc, size, id, rank));
    x->nccl = nc;
  }
#endif
}

void kit_exchange_free(kit_exchange *x) {
#ifdef KIT_HAVE_NCCL
  if (x->nccl) KIT_NCCL_CHECK(ncclCommDestroy((ncclComm_t)x->nccl));
#endif
  x->nccl = NULL;
#ifdef KIT_HAVE_CUDA
  if (x->ipc) ipc_free(x);
#endif
  kit_halo_free(&x->halo);
}

void kit_exchange_resize(kit_exchange *x, size_t count) {
  if (count * x->halo.elem > x->capacity)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "kit_exchange_resize: %zu elements exceed the %zu bytes set up", count, x->capacity);
  x->halo.count = count;
  x->bytes = count * x->halo.elem;
}

/* A copy of one message on the stream (host memory in the plan's CPU tests). */
static void copy(const kit_exchange *x, void *dst, const void *src, void *stream) {
  if (x->on_host) {
    memcpy(dst, src, x->bytes);
    return;
  }
#ifdef KIT_HAVE_CUDA
  KIT_CUDA_CHECK(cudaMemcpyAsync(dst, src, x->bytes, cudaMemcpyDefault, (cudaStream_t)stream));
#else
  (void)stream;
#endif
}

static void stream_sync(const kit_exchange *x, void *stream) {
#ifdef KIT_HAVE_CUDA
  if (!x->on_host) KIT_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
#else
  (void)x;
  (void)stream;
#endif
}

/* Receives first, then sends (Paper II Listing 1), then both waits, over MPI. */
static void mpi_exchange(kit_halo *h, void *const send[2], void *const recv[2]) {
  KIT_RANGE_PUSH("mpi");
  for (int side = 0; side < 2; ++side) kit_halo_irecv(h, side, recv[side]);
  for (int side = 0; side < 2; ++side) kit_halo_isend(h, side, send[side]);
  kit_halo_waitall(h);
  KIT_RANGE_POP();
}

void kit_exchange_run(kit_exchange *x, void *const send[2], void *const recv[2], void *stream) {
  kit_halo *h = &x->halo;
  /* The tests' stale halo: nothing moves, the ghosts keep what they held. */
  if (kit_fault("stale-halo")) return;
  x->calls++;
  switch (x->kind) {
    case KIT_COMM_HOST: {
      int g = kit_gpu_range_begin("d2h", stream);
      for (int side = 0; side < 2; ++side)
        if (h->send[side]) copy(x, h->send[side], send[side], stream);
      kit_gpu_range_end(g, stream);
      stream_sync(x, stream); /* MPI cannot wait on a stream */
      mpi_exchange(h, h->send, h->recv);
      g = kit_gpu_range_begin("h2d", stream);
      for (int side = 0; side < 2; ++side)
        if (h->recv[side]) copy(x, recv[side], h->recv[side], stream);
      kit_gpu_range_end(g, stream);
      break;
    }
    case KIT_COMM_IPC:
#ifdef KIT_HAVE_CUDA
      ipc_run(x, send, recv, (cudaStream_t)stream);
#endif
      break;
    case KIT_COMM_CUDA_AWARE:
      stream_sync(x, stream); /* the send planes are complete before MPI reads them */
      mpi_exchange(h, send, recv);
      break;
    case KIT_COMM_NCCL: {
#ifdef KIT_HAVE_NCCL
      /* One group: NCCL pairs each send with the neighbour's receive, whatever the order. */
      const int g = kit_gpu_range_begin("nccl", stream);
      KIT_NCCL_CHECK(ncclGroupStart());
      for (int side = 0; side < 2; ++side) {
        if (h->nbr[side] == MPI_PROC_NULL) continue;
        KIT_NCCL_CHECK(ncclRecv(recv[side], x->bytes, ncclChar, h->nbr[side], (ncclComm_t)x->nccl,
                                (cudaStream_t)stream));
        KIT_NCCL_CHECK(ncclSend(send[side], x->bytes, ncclChar, h->nbr[side], (ncclComm_t)x->nccl,
                                (cudaStream_t)stream));
        h->messages += 1;
        h->bytes += (long long)x->bytes;
      }
      KIT_NCCL_CHECK(ncclGroupEnd());
      kit_gpu_range_end(g, stream);
#else
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--comm nccl: built without NCCL");
#endif
      break;
    }
    default:
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "kit_exchange_run: unknown transport %d", (int)x->kind);
  }
}
