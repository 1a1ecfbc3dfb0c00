// kit_exchange's plan under MPI (label mpi; 2, 3 and 4 ranks), with the host transport on
// host buffers (on_host): what a GPU run does but for the copies' kind. Every rank's ghosts
// get exactly its neighbours' boundary planes, the edges stay untouched, the counters add up
// over repeated exchanges, and the stale-halo fault moves nothing.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "kit/exchange.h"

namespace {
struct Planes {
  std::vector<double> send[2], recv[2];
};

// Fills the planes of exchange number `round`: values that name the rank, side and round.
void fill(Planes &p, int rank, int round, size_t count) {
  for (int side = 0; side < 2; ++side) {
    p.send[side].assign(count, 0.0);
    p.recv[side].assign(count, -1.0);
    for (size_t i = 0; i < count; ++i) p.send[side][i] = 1e6 * rank + 1e4 * round + 1e3 * side + (double)i;
  }
}

void run(kit_exchange *x, Planes &p) {
  void *send[2] = {p.send[0].data(), p.send[1].data()}, *recv[2] = {p.recv[0].data(), p.recv[1].data()};
  kit_exchange_run(x, send, recv, nullptr);
}
}  // namespace

TEST(Exchange, NamesRoundTrip) {
  for (int k = 0; k < KIT_COMM_COUNT; ++k) EXPECT_EQ(kit_comm_of(kit_comm_names[k]), (kit_comm)k);
  EXPECT_STREQ(kit_comm_names[KIT_COMM_NCCL], "nccl");
}

TEST(Exchange, HostTransportDeliversNeighboursPlanes) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int down = rank > 0 ? rank - 1 : MPI_PROC_NULL, up = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  const size_t count = 777;
  kit_exchange x;
  kit_exchange_init(&x, KIT_COMM_HOST, MPI_COMM_WORLD, down, up, count, MPI_DOUBLE, sizeof(double), 1);
  Planes p;
  for (int round = 0; round < 3; ++round) {
    fill(p, rank, round, count);
    run(&x, p);
    for (size_t i = 0; i < count; ++i) {
      // From below: what rank-1 sent up (its side 1); from above: what rank+1 sent down.
      ASSERT_EQ(p.recv[KIT_DOWN][i], rank > 0 ? 1e6 * (rank - 1) + 1e4 * round + 1e3 + (double)i : -1.0);
      ASSERT_EQ(p.recv[KIT_UP][i], rank < size - 1 ? 1e6 * (rank + 1) + 1e4 * round + (double)i : -1.0);
    }
  }
  const long long per_round = (rank > 0) + (rank < size - 1);
  EXPECT_EQ(x.halo.messages, 3 * per_round);
  EXPECT_EQ(x.halo.bytes, 3 * per_round * (long long)(count * sizeof(double)));
  kit_exchange_free(&x);
}

TEST(Exchange, StaleHaloFaultMovesNothing) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  kit_exchange x;
  kit_exchange_init(&x, KIT_COMM_HOST, MPI_COMM_WORLD, rank > 0 ? rank - 1 : MPI_PROC_NULL,
                    rank < size - 1 ? rank + 1 : MPI_PROC_NULL, 16, MPI_DOUBLE, sizeof(double), 1);
  Planes p;
  fill(p, rank, 0, 16);
  setenv("KIT_FAULT", "stale-halo", 1);
  run(&x, p);
  unsetenv("KIT_FAULT");
  for (int side = 0; side < 2; ++side)
    for (double v : p.recv[side]) ASSERT_EQ(v, -1.0);
  EXPECT_EQ(x.halo.messages, 0);
  kit_exchange_free(&x);
}

// A periodic slab: on two ranks both links lead to the same neighbour, and only the tags tell
// the plane going up from the one going down.
TEST(Exchange, PeriodicLinksToOneRankKeepTheirSides) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int down = (rank + size - 1) % size, up = (rank + 1) % size;
  const size_t count = 33;
  kit_exchange x;
  kit_exchange_init(&x, KIT_COMM_HOST, MPI_COMM_WORLD, down, up, count, MPI_DOUBLE, sizeof(double), 1);
  Planes p;
  fill(p, rank, 5, count);
  run(&x, p);
  for (size_t i = 0; i < count; ++i) {
    ASSERT_EQ(p.recv[KIT_DOWN][i], 1e6 * down + 1e4 * 5 + 1e3 + (double)i);  // what `down` sent up
    ASSERT_EQ(p.recv[KIT_UP][i], 1e6 * up + 1e4 * 5 + (double)i);            // what `up` sent down
  }
  EXPECT_EQ(x.halo.messages, 2);
  kit_exchange_free(&x);
}

// The general plan (tetfv's): a link to every other rank, messages of different lengths each
// way, and messages skipped by both ends alike (a NULL buffer). Each rank gets exactly what
// each neighbour addressed to it; a skipped receive is left untouched; the counters add up.
TEST(Exchange, LinksOfUnequalCountsAndSkippedMessages) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto len = [](int from, int to) { return (size_t)(10 + 3 * from + 7 * to); };
  auto value = [](int from, int to, int round, size_t i) {
    return 1e6 * from + 1e5 * to + 1e4 * round + (double)i;
  };
  std::vector<kit_link> links;
  for (int j = 0; j < size; ++j)
    if (j != rank) links.push_back(kit_link{j, len(rank, j), len(j, rank), 0, 0});
  const int n = (int)links.size();
  kit_exchange x;
  kit_exchange_init_links(&x, KIT_COMM_HOST, MPI_COMM_WORLD, n, links.data(), MPI_DOUBLE, sizeof(double), 1);
  long long sent = 0, bytes = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::vector<double>> out(n), in(n);
    std::vector<void *> send(n), recv(n);
    for (int k = 0; k < n; ++k) {
      const int j = links[k].rank;
      out[k].resize(len(rank, j));
      for (size_t i = 0; i < out[k].size(); ++i) out[k][i] = value(rank, j, round, i);
      in[k].assign(len(j, rank), -1.0);
      const bool skip = (rank + j + round) % 3 == 0;  // the same rule at both ends of the link
      send[k] = skip ? nullptr : out[k].data();
      recv[k] = skip ? nullptr : in[k].data();
      if (!skip) {
        sent += 1;
        bytes += (long long)(out[k].size() * sizeof(double));
      }
    }
    kit_exchange_run(&x, send.data(), recv.data(), nullptr);
    for (int k = 0; k < n; ++k) {
      const int j = links[k].rank;
      const bool skip = (rank + j + round) % 3 == 0;
      for (size_t i = 0; i < in[k].size(); ++i) ASSERT_EQ(in[k][i], skip ? -1.0 : value(j, rank, round, i));
    }
  }
  EXPECT_EQ(x.halo.messages, sent);
  EXPECT_EQ(x.halo.bytes, bytes);
  kit_exchange_free(&x);
}

// kit_exchange_buffers: the exchange's own message buffers, one each way for every link with a
// neighbour that the mask selects, sized by the link's counts; an exchange through them delivers
// what each neighbour packed (a link to every other rank, and one without a neighbour).
TEST(Exchange, OwnBuffersFollowTheMaskAndCarryTheMessages) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto len = [](int from, int to) { return (size_t)(5 + 2 * from + 3 * to); };
  std::vector<kit_link> links{kit_link{MPI_PROC_NULL, 4, 4, 0, 0}};  // an edge: no buffers
  for (int j = 0; j < size; ++j)
    if (j != rank) links.push_back(kit_link{j, len(rank, j), len(j, rank), 0, 0});
  const int n = (int)links.size();
  std::vector<char> use(n, 1);
  kit_exchange x;
  kit_exchange_init_links(&x, KIT_COMM_HOST, MPI_COMM_WORLD, n, links.data(), MPI_DOUBLE, sizeof(double), 1);
  kit_exchange_buffers(&x, use.data());
  EXPECT_EQ(x.buf_send[0], nullptr);
  EXPECT_EQ(x.buf_recv[0], nullptr);
  for (int k = 1; k < n; ++k) {
    ASSERT_NE(x.buf_send[k], nullptr);
    ASSERT_NE(x.buf_recv[k], nullptr);
    double *out = (double *)x.buf_send[k], *in = (double *)x.buf_recv[k];
    for (size_t i = 0; i < links[k].send_count; ++i) out[i] = 1e6 * rank + 1e3 * links[k].rank + (double)i;
    for (size_t i = 0; i < links[k].recv_count; ++i) in[i] = -1.0;
  }
  kit_exchange_run(&x, x.buf_send, x.buf_recv, nullptr);
  for (int k = 1; k < n; ++k) {
    const double *in = (const double *)x.buf_recv[k];
    for (size_t i = 0; i < links[k].recv_count; ++i)
      ASSERT_EQ(in[i], 1e6 * links[k].rank + 1e3 * rank + (double)i);
  }
  kit_exchange_free(&x);
  // A mask that leaves a link out gives it no buffers.
  kit_exchange y;
  kit_exchange_init_links(&y, KIT_COMM_HOST, MPI_COMM_WORLD, n, links.data(), MPI_DOUBLE, sizeof(double), 1);
  std::vector<char> none(n, 0);
  kit_exchange_buffers(&y, none.data());
  for (int k = 0; k < n; ++k) EXPECT_EQ(y.buf_send[k], nullptr);
  kit_exchange_free(&y);
}

// Split-phase: start posts, the host works, finish waits; the ghosts then hold exactly the
// neighbours' planes, as with kit_exchange_run, over several rounds on one exchange.
TEST(Exchange, StartAndFinishDeliverWhileTheHostWorks) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int down = rank > 0 ? rank - 1 : MPI_PROC_NULL, up = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  const size_t count = 513;
  kit_exchange x;
  kit_exchange_init(&x, KIT_COMM_HOST, MPI_COMM_WORLD, down, up, count, MPI_DOUBLE, sizeof(double), 1);
  Planes p;
  for (int round = 0; round < 3; ++round) {
    fill(p, rank, round, count);
    void *send[2] = {p.send[0].data(), p.send[1].data()}, *recv[2] = {p.recv[0].data(), p.recv[1].data()};
    kit_exchange_start(&x, send, recv, nullptr);
    EXPECT_EQ(x.pending, (down != MPI_PROC_NULL) * 2 + (up != MPI_PROC_NULL) * 2);
    volatile double work = 0.0;  // the bulk a rank computes meanwhile
    for (int i = 0; i < 100000; ++i) work = work + 1e-9 * i;
    kit_exchange_finish(&x);
    EXPECT_EQ(x.pending, 0);
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(p.recv[KIT_DOWN][i], rank > 0 ? 1e6 * (rank - 1) + 1e4 * round + 1e3 + (double)i : -1.0);
      ASSERT_EQ(p.recv[KIT_UP][i], rank < size - 1 ? 1e6 * (rank + 1) + 1e4 * round + (double)i : -1.0);
    }
  }
  kit_exchange_free(&x);
}

// Counts first, then the data: links set up with their largest messages, then each round's
// sizes set by kit_exchange_set_counts (the same rule at both ends), 0 meaning no message.
// Every receive holds exactly the round's message and nothing beyond it is written.
TEST(Exchange, CountsSetPerExchange) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t cap = 40;
  auto len = [](int from, int to, int round) { return (size_t)((5 * from + 3 * to + 11 * round) % 41); };
  auto value = [](int from, int to, int round, size_t i) {
    return 1e6 * from + 1e5 * to + 1e4 * round + (double)i;
  };
  std::vector<kit_link> links;
  for (int j = 0; j < size; ++j)
    if (j != rank) links.push_back(kit_link{j, cap, cap, 0, 0});
  const int n = (int)links.size();
  kit_exchange x;
  kit_exchange_init_links(&x, KIT_COMM_HOST, MPI_COMM_WORLD, n, links.data(), MPI_DOUBLE, sizeof(double), 1);
  long long sent = 0;
  for (int round = 0; round < 4; ++round) {
    std::vector<std::vector<double>> out(n), in(n);
    std::vector<void *> send(n), recv(n);
    std::vector<size_t> sc(n), rc(n);
    for (int k = 0; k < n; ++k) {
      const int j = links[k].rank;
      sc[k] = len(rank, j, round) % (cap + 1);
      rc[k] = len(j, rank, round) % (cap + 1);
      out[k].resize(cap);
      for (size_t i = 0; i < cap; ++i) out[k][i] = value(rank, j, round, i);
      in[k].assign(cap, -1.0);
      send[k] = out[k].data();
      recv[k] = in[k].data();
      sent += sc[k] > 0;
    }
    kit_exchange_set_counts(&x, sc.data(), rc.data());
    kit_exchange_run(&x, send.data(), recv.data(), nullptr);
    for (int k = 0; k < n; ++k) {
      const int j = links[k].rank;
      for (size_t i = 0; i < cap; ++i) ASSERT_EQ(in[k][i], i < rc[k] ? value(j, rank, round, i) : -1.0);
    }
  }
  EXPECT_EQ(x.halo.messages, sent);
  kit_exchange_free(&x);
}
