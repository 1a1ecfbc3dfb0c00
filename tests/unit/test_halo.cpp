// kit_halo under MPI (label mpi; run with 2, 3 and 4 ranks): every rank receives exactly
// its neighbours' planes, nothing at the domain edges, and the counters add up.
#include <gtest/gtest.h>
#include <mpi.h>

#include <omp.h>

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
  for (int side = 0; side < 2; ++side) {
    if (!h.send[side]) continue;
    for (size_t i = 0; i < count; ++i) {
      h.send[side][i] = 1000.0 * rank + 10.0 * side + (double)i;
      h.recv[side][i] = -1.0;
    }
  }
  for (int side = 0; side < 2; ++side) kit_halo_irecv(&h, side, h.recv[side]);
  for (int side = 0; side < 2; ++side) kit_halo_isend(&h, side, h.send[side]);
  kit_halo_waitall(&h);
  if (rank > 0) {  // from below: what rank-1 sent upwards
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(h.recv[KIT_DOWN][i], 1000.0 * (rank - 1) + 10.0 + (double)i);
  } else {
    EXPECT_EQ(h.recv[KIT_DOWN], nullptr);
  }
  if (rank < size - 1) {
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(h.recv[KIT_UP][i], 1000.0 * (rank + 1) + (double)i);
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
