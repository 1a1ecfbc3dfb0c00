/* kit/halo.h: the halo exchange of a 1D (z-slab) decomposition over MPI.
 * Side 0 is the neighbour below (z-), side 1 the neighbour above (z+); MPI_PROC_NULL
 * marks the domain edge, where every call is a no-op. Receives are posted before sends
 * (Paper II Listing 1). Requests are kept per side and counters are atomic, so two
 * assistant threads may drive the two sides concurrently (Paper I; needs
 * MPI_THREAD_MULTIPLE). Physics code never calls MPI directly: it goes through here. */
#ifndef KIT_HALO_H
#define KIT_HALO_H
#include <mpi.h>
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

enum { KIT_DOWN = 0, KIT_UP = 1 };

typedef struct kit_halo {
  MPI_Comm comm;     /* communicator the neighbours live in */
  int nbr[2];        /* rank below and above, MPI_PROC_NULL at an edge */
  size_t count;      /* elements per message (one plane) */
  MPI_Datatype type; /* element type: MPI_DOUBLE (laplace, lbm), MPI_INT8_T (ising spins) */
  size_t elem;       /* bytes per element */
  void *send[2];     /* pinned staging buffers (NULL unless asked for, or no neighbour) */
  void *recv[2];
  int pinned;          /* staging buffers are page-locked */
  MPI_Request rreq[2]; /* outstanding receive per side */
  MPI_Request sreq[2]; /* outstanding send per side */
  long long messages;  /* messages sent since the last reset */
  long long bytes;     /* bytes sent since the last reset */
} kit_halo;

/* Sets up the neighbours; with `staging`, allocates send/recv buffers of `count`
 * doubles for each side that has a neighbour (pinned if `pinned`). A neighbour may be this
 * rank itself (a periodic direction on one rank): MPI delivers the message to itself. */
void kit_halo_init(kit_halo *h, MPI_Comm comm, int nbr_down, int nbr_up, size_t count, int staging,
                   int pinned);
/* The same for messages of `count` elements of `type`, `elem` bytes each. */
void kit_halo_init_typed(kit_halo *h, MPI_Comm comm, int nbr_down, int nbr_up, size_t count,
                         MPI_Datatype type, size_t elem, int staging, int pinned);
void kit_halo_free(kit_halo *h);
/* Post the receive of side's ghost data into buf (count elements). */
void kit_halo_irecv(kit_halo *h, int side, void *buf);
/* Send count elements from buf to side's neighbour. */
void kit_halo_isend(kit_halo *h, int side, const void *buf);
/* Wait for side's receive and send. */
void kit_halo_wait(kit_halo *h, int side);
/* Wait for both sides. */
void kit_halo_waitall(kit_halo *h);
/* Blocking receive of side's ghost data (for assistant threads). */
void kit_halo_recv(kit_halo *h, int side, void *buf);
/* Blocking send to side's neighbour (for assistant threads). */
void kit_halo_send(kit_halo *h, int side, const void *buf);

/* Whole-field transfers of a slab decomposition, a plane per message (so counts stay ints):
 * rank 0 gathers every rank's planes [first, first + count) (numbered from 0 in the global
 * field of `total` planes of `plane` elements of `type`, `elem` bytes each) into one array
 * it returns (NULL elsewhere); or scatters such an array so every rank receives its own
 * range. Collective over comm. */
void *kit_gather_planes(MPI_Comm comm, const void *mine, int first, int count, size_t plane, int total,
                        MPI_Datatype type, size_t elem);
void kit_scatter_planes(MPI_Comm comm, const void *all, void *mine, int first, int count, size_t plane,
                        MPI_Datatype type, size_t elem);

#ifdef __cplusplus
}
#endif
#endif
