// kit_halo under MPI (label mpi; run with 2, 3 and 4 ranks): every rank receives exactly
// its neighbours' planes, nothing at the domain edges, and the counters add up.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "kit/halo.h"

TEST(Halo, ExchangesWithBothNeighbours) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t count = 1000;
  kit_halo h;
  kit_halo_init(&h, MPI_COMM_WORLD, rank > 0 ? rank - 1 : MPI_PROC_NULL,
                rank < size - 1 ? rank + 1 : MPI_PROC_NULL, count, 1, 0);
  double *send[2] = {static_cast<double *>(h.send[0]), static_cast<double *>(h.send[1])};
  double *recv[2] = {static_cast<double *>(h.recv[0]), static_cast<double *>(h.recv[1])};
  for (int side = 0; side < 2; ++side) {
    if (!send[side]) continue;
    for (size_t i = 0; i < count; ++i) {
      send[side][i] = 1000.0 * rank + 10.0 * side + (double)i;
      recv[side][i] = -1.0;
    }
  }
  for (int side = 0; side < 2; ++side) kit_halo_irecv(&h, side, h.recv[side]);
  for (int side = 0; side < 2; ++side) kit_halo_isend(&h, side, h.send[side]);
  kit_halo_waitall(&h);
  if (rank > 0) {  // from below: what rank-1 sent upwards
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(recv[KIT_DOWN][i], 1000.0 * (rank - 1) + 10.0 + (double)i);
  } else {
    EXPECT_EQ(h.recv[KIT_DOWN], nullptr);
  }
  if (rank < size - 1) {
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(recv[KIT_UP][i], 1000.0 * (rank + 1) + (double)i);
  } else {
    EXPECT_EQ(h.recv[KIT_UP], nullptr);
  }
  const long long expected = (rank > 0) + (rank < size - 1);
  EXPECT_EQ(h.messages, expected);
  EXPECT_EQ(h.bytes, expected * (long long)(count * sizeof(double)));
  kit_halo_free(&h);
}

TEST(Halo, BlockingSendRecvFromTwoThreads) {
  int rank = 0, size = 1, provided = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "MPI without MPI_THREAD_MULTIPLE";
  // Large enough for a rendezvous protocol: a send completes only once its receive is posted.
  const size_t count = (size_t)1 << 20;
  kit_halo h;
  kit_halo_init(&h, MPI_COMM_WORLD, rank > 0 ? rank - 1 : MPI_PROC_NULL,
                rank < size - 1 ? rank + 1 : MPI_PROC_NULL, count, 0, 0);
  std::vector<double> out(count, (double)rank), in_down(count, -1.0), in_up(count, -1.0);
  // The multi-thread variant's pattern: a sender and a receiver thread per process, each
  // blocking; one thread doing both in this order would deadlock with its neighbours.
  int team = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    team = omp_get_num_threads();
    if (omp_get_thread_num() == 0) {
      kit_halo_send(&h, KIT_UP, out.data());
      kit_halo_send(&h, KIT_DOWN, out.data());
    } else {
      kit_halo_recv(&h, KIT_DOWN, in_down.data());
      kit_halo_recv(&h, KIT_UP, in_up.data());
    }
  }
  ASSERT_EQ(team, 2) << "the test needs two threads";
  if (rank > 0) {
    EXPECT_EQ(in_down[count - 1], rank - 1.0);
  }
  if (rank < size - 1) {
    EXPECT_EQ(in_up[0], rank + 1.0);
  }
  kit_halo_free(&h);
}

// A periodic ring of int8 planes (the ising app's z-direction): rank 0's neighbour below is
// the last rank, and on one rank both neighbours are the rank itself.
TEST(Halo, PeriodicRingOfBytes) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t count = 77;
  const int down = (rank + size - 1) % size, up = (rank + 1) % size;
  kit_halo h;
  kit_halo_init_typed(&h, MPI_COMM_WORLD, down, up, count, MPI_INT8_T, 1, 1, 0);
  for (int side = 0; side < 2; ++side) {
    int8_t *out = static_cast<int8_t *>(h.send[side]), *in = static_cast<int8_t *>(h.recv[side]);
    for (size_t i = 0; i < count; ++i) {
      out[i] = (int8_t)(rank * 4 + side + (int)(i % 3));
      in[i] = -1;
    }
  }
  for (int side = 0; side < 2; ++side) kit_halo_irecv(&h, side, h.recv[side]);
  for (int side = 0; side < 2; ++side) kit_halo_isend(&h, side, h.send[side]);
  kit_halo_waitall(&h);
  const int8_t *from_below = static_cast<int8_t *>(h.recv[KIT_DOWN]);
  const int8_t *from_above = static_cast<int8_t *>(h.recv[KIT_UP]);
  for (size_t i = 0; i < count; ++i) {
    // Below sent its upward plane (side 1), above its downward one (side 0).
    ASSERT_EQ(from_below[i], (int8_t)(down * 4 + 1 + (int)(i % 3)));
    ASSERT_EQ(from_above[i], (int8_t)(up * 4 + 0 + (int)(i % 3)));
  }
  EXPECT_EQ(h.messages, 2);
  EXPECT_EQ(h.bytes, 2LL * (long long)count);
  kit_halo_free(&h);
}

// Gather and scatter of byte planes: rank r owns planes [2r, 2r+2) of a field of 2*size.
TEST(Halo, GatherScatterBytes) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t plane = 5;
  std::vector<int8_t> mine(2 * plane);
  for (size_t i = 0; i < mine.size(); ++i) mine[i] = (int8_t)(rank * 10 + (int)i);
  void *all = kit_gather_planes(MPI_COMM_WORLD, mine.data(), 2 * rank, 2, plane, 2 * size, MPI_INT8_T, 1);
  if (rank == 0) {
    const int8_t *a = static_cast<int8_t *>(all);
    for (int r = 0; r < size; ++r)
      for (size_t i = 0; i < 2 * plane; ++i) ASSERT_EQ(a[2 * r * plane + i], (int8_t)(r * 10 + (int)i));
  } else {
    EXPECT_EQ(all, nullptr);
  }
  std::vector<int8_t> back(2 * plane, -1);
  kit_scatter_planes(MPI_COMM_WORLD, all, back.data(), 2 * rank, 2, plane, MPI_INT8_T, 1);
  EXPECT_EQ(back, mine);
  free(all);
}
