/* exchange_nvshmem.h: the nvshmem transport of kit/exchange.h, private to libkit: exchange.c
 * calls these where KIT_HAVE_NVSHMEM is defined; exchange_nvshmem.cu (compiled by nvcc, the
 * only file that sees NVSHMEM's headers) implements them. */
#ifndef KIT_EXCHANGE_NVSHMEM_H
#define KIT_EXCHANGE_NVSHMEM_H
#include "kit/exchange.h"
#ifdef __cplusplus
extern "C" {
#endif

/* exchange.c's: does link k move a message out (in) this time, and count one sent. */
int kit_exchange_sends(const kit_exchange *x, int k, void *const send[]);
int kit_exchange_receives(const kit_exchange *x, int k, void *const recv[]);
void kit_exchange_count_sent(kit_exchange *x, int k);

/* The MPI tag of the set-up message of a link's send_tag t: the base plus t (exchange.c's
 * data, IPC handle and token tags lie below it). */
#define KIT_NVSHMEM_TAG (200 + 3 * KIT_LINK_TAGS)

/* Starts NVSHMEM on the first call (collective over MPI_COMM_WORLD), allocates x's inboxes and
 * signals on the symmetric heap (collective) and trades inbox offsets with each neighbour. */
void kit_nvshmem_init(kit_exchange *x);
/* One exchange, ordered on `stream` (a cudaStream_t): puts with signals out, waits and copies
 * in, each taken slot acknowledged. */
void kit_nvshmem_run(kit_exchange *x, void *const send[], void *const recv[], void *stream);
/* Collective: frees x's symmetric memory; NVSHMEM stops with the last exchange that uses it. */
void kit_nvshmem_free(kit_exchange *x);

#ifdef __cplusplus
}
#endif
#endif
