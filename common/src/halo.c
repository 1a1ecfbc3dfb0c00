/* halo.c: z-slab halo exchange over MPI (kit/halo.h). */
#include "kit/halo.h"

#include <string.h>

#include "kit/check.h"
#include "kit/runtime.h"

/* A message travelling up is received from below, and the other way round. */
enum { TAG_UPWARD = 101, TAG_DOWNWARD = 102 };
static int send_tag(int side) {
  return side == KIT_UP ? TAG_UPWARD : TAG_DOWNWARD;
}
static int recv_tag(int side) {
  return side == KIT_DOWN ? TAG_UPWARD : TAG_DOWNWARD;
}

void kit_halo_init(kit_halo *h, MPI_Comm comm, int nbr_down, int nbr_up, size_t count, int staging,
                   int pinned) {
  kit_halo_init_typed(h, comm, nbr_down, nbr_up, count, MPI_DOUBLE, sizeof(double), staging, pinned);
}

void kit_halo_init_typed(kit_halo *h, MPI_Comm comm, int nbr_down, int nbr_up, size_t count,
                         MPI_Datatype type, size_t elem, int staging, int pinned) {
  h->comm = comm;
  h->type = type;
  h->elem = elem;
  h->nbr[KIT_DOWN] = nbr_down;
  h->nbr[KIT_UP] = nbr_up;
  h->count = count;
  h->pinned = pinned;
  h->messages = h->bytes = 0;
  if (count > (size_t)2147483647)
    kit_die(3, __FILE__, __LINE__, "halo plane of %zu elements exceeds one MPI message", count);
  for (int s = 0; s < 2; ++s) {
    h->rreq[s] = h->sreq[s] = MPI_REQUEST_NULL;
    h->send[s] = h->recv[s] = NULL;
    if (staging && h->nbr[s] != MPI_PROC_NULL) {
      h->send[s] = kit_host_alloc(count * elem, pinned);
      h->recv[s] = kit_host_alloc(count * elem, pinned);
    }
  }
}

void kit_halo_free(kit_halo *h) {
  for (int s = 0; s < 2; ++s) {
    if (h->send[s]) kit_host_free(h->send[s], h->pinned);
    if (h->recv[s]) kit_host_free(h->recv[s], h->pinned);
    h->send[s] = h->recv[s] = NULL;
  }
}

void kit_halo_irecv(kit_halo *h, int side, void *buf) {
  if (h->nbr[side] == MPI_PROC_NULL || kit_fault("stale-halo")) return;
  KIT_MPI_CHECK(
      MPI_Irecv(buf, (int)h->count, h->type, h->nbr[side], recv_tag(side), h->comm, &h->rreq[side]));
}

static void count_message(kit_halo *h) {
#pragma omp atomic
  h->messages += 1;
#pragma omp atomic
  h->bytes += (long long)(h->count * h->elem);
}

void kit_halo_isend(kit_halo *h, int side, const void *buf) {
  if (h->nbr[side] == MPI_PROC_NULL || kit_fault("stale-halo")) return;
  KIT_MPI_CHECK(
      MPI_Isend(buf, (int)h->count, h->type, h->nbr[side], send_tag(side), h->comm, &h->sreq[side]));
  count_message(h);
}

void kit_halo_wait(kit_halo *h, int side) {
  KIT_MPI_CHECK(MPI_Wait(&h->rreq[side], MPI_STATUS_IGNORE));
  KIT_MPI_CHECK(MPI_Wait(&h->sreq[side], MPI_STATUS_IGNORE));
}

void kit_halo_waitall(kit_halo *h) {
  kit_halo_wait(h, KIT_DOWN);
  kit_halo_wait(h, KIT_UP);
}

void kit_halo_recv(kit_halo *h, int side, void *buf) {
  if (h->nbr[side] == MPI_PROC_NULL || kit_fault("stale-halo")) return;
  KIT_MPI_CHECK(
      MPI_Recv(buf, (int)h->count, h->type, h->nbr[side], recv_tag(side), h->comm, MPI_STATUS_IGNORE));
}

void kit_halo_send(kit_halo *h, int side, const void *buf) {
  if (h->nbr[side] == MPI_PROC_NULL || kit_fault("stale-halo")) return;
  KIT_MPI_CHECK(MPI_Send(buf, (int)h->count, h->type, h->nbr[side], send_tag(side), h->comm));
  count_message(h);
}

enum { TAG_RANGE = 120, TAG_PLANE = 121 };

void *kit_gather_planes(MPI_Comm comm, const void *mine_, int first, int count, size_t plane, int total,
                        MPI_Datatype type, size_t elem) {
  const char *mine = mine_;
  const size_t pb = plane * elem; /* bytes per plane */
  int rank = 0, size = 1;
  KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  KIT_MPI_CHECK(MPI_Comm_size(comm, &size));
  const int range[2] = {first, count};
  if (rank != 0) {
    KIT_MPI_CHECK(MPI_Send(range, 2, MPI_INT, 0, TAG_RANGE, comm));
    for (int k = 0; k < count; ++k)
      KIT_MPI_CHECK(MPI_Send(mine + (size_t)k * pb, (int)plane, type, 0, TAG_PLANE, comm));
    return NULL;
  }
  char *all = kit_malloc(pb * (size_t)total, "gathered field");
  memcpy(all + (size_t)first * pb, mine, pb * (size_t)count);
  for (int r = 1; r < size; ++r) {
    int theirs[2];
    KIT_MPI_CHECK(MPI_Recv(theirs, 2, MPI_INT, r, TAG_RANGE, comm, MPI_STATUS_IGNORE));
    for (int k = 0; k < theirs[1]; ++k)
      KIT_MPI_CHECK(MPI_Recv(all + (size_t)(theirs[0] + k) * pb, (int)plane, type, r, TAG_PLANE, comm,
                             MPI_STATUS_IGNORE));
  }
  return all;
}

void kit_scatter_planes(MPI_Comm comm, const void *all_, void *mine_, int first, int count, size_t plane,
                        MPI_Datatype type, size_t elem) {
  const char *all = all_;
  char *mine = mine_;
  const size_t pb = plane * elem;
  int rank = 0, size = 1;
  KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  KIT_MPI_CHECK(MPI_Comm_size(comm, &size));
  if (rank != 0) {
    const int range[2] = {first, count};
    KIT_MPI_CHECK(MPI_Send(range, 2, MPI_INT, 0, TAG_RANGE, comm));
    for (int k = 0; k < count; ++k)
      KIT_MPI_CHECK(MPI_Recv(mine + (size_t)k * pb, (int)plane, type, 0, TAG_PLANE, comm, MPI_STATUS_IGNORE));
    return;
  }
  memcpy(mine, all + (size_t)first * pb, pb * (size_t)count);
  for (int r = 1; r < size; ++r) {
    int theirs[2];
    KIT_MPI_CHECK(MPI_Recv(theirs, 2, MPI_INT, r, TAG_RANGE, comm, MPI_STATUS_IGNORE));
    for (int k = 0; k < theirs[1]; ++k)
      KIT_MPI_CHECK(MPI_Send(all + (size_t)(theirs[0] + k) * pb, (int)plane, type, r, TAG_PLANE, comm));
  }
}
