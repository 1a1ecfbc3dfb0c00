// tetfv's exchange plan for kit/exchange.h (tetfv_links_build, exchange.c), the one naive and
// two-stream hand the layer on GPUs, checked where there is no GPU (label mpi; 1 to 4 ranks):
//  - for 2, 3 and 4 parts of the box and of the sphere (METIS), built side by side in one
//    process: every pair of parts agrees on its link (my send count is the neighbour's receive
//    count, the values I send are the cells its ghost range names, in order), the links' ghost
//    ranges tile the ghosts, and in four parts of the sphere a part has three neighbours;
//  - naive's schedule (all rows, pack the send lists, kit_exchange_run into the ghost ranges of
//    the new field, swap) with the host transport on host buffers, on this job's ranks, in the
//    local order and in two-stream's split order: bit for bit the serial oracle, the layer's
//    counters one message per link and step; with KIT_FAULT=stale-halo it must differ.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "params.h"
#include "tetfv.h"

namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// A mesh assembled with corrected fluxes and a tensor K (rows up to 16 wide: second-level
// neighbours cross the separator too), partitioned by rank 0 and broadcast (as problem.c does).
struct Problem {
  tetfv_mesh m;
  tetfv_matrix g;
  std::vector<double> u0;
  explicit Problem(const std::string &mesh) {
    std::memset(&m, 0, sizeof m);
    char err[256] = "";
    if (mesh.rfind("box:", 0) == 0)
      tetfv_mesh_box(&m, std::atoi(mesh.c_str() + 4), 0.3, 1, 7);
    else
      EXPECT_EQ(tetfv_read_msh(mesh.c_str(), &m, err, sizeof err), 0) << err;
    EXPECT_EQ(tetfv_mesh_connect(&m, err, sizeof err), 0) << err;
    tetfv_params p = tetfv_test_params("corrected", "neumann", 1.0, "random");
    tetfv_assembly_info info;
    tetfv_assemble(&p, &m, &g, &info);
    u0.resize((size_t)m.ncells);
    for (int c = 0; c < m.ncells; ++c) u0[(size_t)c] = std::sin(1.3 * c) + 0.1 * (c % 7);
  }
  ~Problem() {
    tetfv_matrix_free(&g);
    tetfv_mesh_free(&m);
  }
  std::vector<int> partition(int nparts) const {
    std::vector<int> part((size_t)m.ncells, 0);
    char err[256] = "";
    int rc = 0;
    if (world_rank() == 0) rc = tetfv_partition(&m, nparts, part.data(), err, sizeof err);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT_EQ(rc, 0) << err;
    MPI_Bcast(part.data(), m.ncells, MPI_INT, 0, MPI_COMM_WORLD);
    return part;
  }
};

const std::string kSphere = std::string(TETFV_TEST_DATA) + "/sphere_v41.msh";

// The link of `l` to `peer`, or -1.
int link_to(const tetfv_links &k, int peer) {
  for (int a = 0; a < k.n; ++a)
    if (k.link[a].rank == peer) return a;
  return -1;
}

// Every pair of parts agrees on its link; the ghost ranges tile the ghosts. *most: the most
// links a part has.
void check_pairs(const std::vector<tetfv_local> &l, const char *what, int *most_links) {
  const int n = (int)l.size();
  std::vector<tetfv_links> k((size_t)n);
  int most = 0;
  *most_links = -1;
  for (int r = 0; r < n; ++r) tetfv_links_build(&l[(size_t)r], &k[(size_t)r]);
  for (int r = 0; r < n; ++r) {
    const tetfv_local &me = l[(size_t)r];
    const tetfv_links &mine = k[(size_t)r];
    if (mine.n > most) most = mine.n;
    int ghost = 0;
    for (int a = 0; a < mine.n; ++a) {
      const kit_link &e = mine.link[a];
      SCOPED_TRACE(std::string(what) + ": part " + std::to_string(r) + " link " + std::to_string(a));
      EXPECT_NE(e.rank, r);
      if (a > 0) {
        EXPECT_GT(e.rank, mine.link[a - 1].rank) << "one link per neighbour, by rank";
      }
      EXPECT_EQ(e.send_tag, 0);
      EXPECT_EQ(e.recv_tag, 0);
      // The face adjacency is symmetric: a neighbour gets a message both ways.
      EXPECT_GT(e.send_count, 0u);
      EXPECT_GT(e.recv_count, 0u);
      EXPECT_EQ(mine.recv_at[a], ghost) << "ghost ranges in link order, back to back";
      ghost += (int)e.recv_count;
      const int b = link_to(k[(size_t)e.rank], r);
      EXPECT_GE(b, 0) << "the neighbour has no link back";
      if (b < 0) continue;
      const kit_link &back = k[(size_t)e.rank].link[b];
      const tetfv_local &them = l[(size_t)e.rank];
      EXPECT_EQ(e.send_count, back.recv_count);
      EXPECT_EQ(e.recv_count, back.send_count);
      EXPECT_LE(mine.send_at[a] + (int)e.send_count, me.send_off[me.nsend]);
      if (e.send_count != back.recv_count || mine.send_at[a] + (int)e.send_count > me.send_off[me.nsend])
        continue;
      int wrong = 0;  // sent cells that are not the receiver's ghost cells, in order
      for (size_t i = 0; i < e.send_count; ++i) {
        const int row = me.send_idx[(size_t)mine.send_at[a] + i];
        wrong += row >= me.nown ||
                 me.gid[row] != them.gid[(size_t)them.nown + (size_t)k[(size_t)e.rank].recv_at[b] + i];
      }
      EXPECT_EQ(wrong, 0);
    }
    EXPECT_EQ(ghost, me.nghost) << what << ": part " << r;
  }
  for (auto &x : k) tetfv_links_free(&x);
  *most_links = most;
}

}  // namespace

TEST(tetfvLinks, EveryPairOfPartsAgreesOnItsLink) {
  int sphere4 = 0;
  for (const std::string &mesh : {std::string("box:5"), kSphere}) {
    Problem pr(mesh);
    for (int nparts = 2; nparts <= 4; ++nparts) {
      const std::vector<int> part = pr.partition(nparts);
      std::vector<tetfv_local> l((size_t)nparts);
      for (int r = 0; r < nparts; ++r) tetfv_local_build(&pr.g, part.data(), r, "rcm", 512, &l[(size_t)r]);
      const std::string what = mesh + " in " + std::to_string(nparts);
      int most = 0, most_split = 0;
      check_pairs(l, what.c_str(), &most);
      EXPECT_LE(most, nparts - 1);
      // Two-stream's numbering (one device): rows renumbered, the lists follow them.
      std::vector<tetfv_split> sp((size_t)nparts);
      std::vector<tetfv_local> sl((size_t)nparts);
      for (int r = 0; r < nparts; ++r) {
        std::vector<int> dev((size_t)l[(size_t)r].nown + 1, 0);
        tetfv_split_build(&l[(size_t)r], 1, dev.data(), &sp[(size_t)r]);
        sl[(size_t)r] = sp[(size_t)r].l;
      }
      check_pairs(sl, (what + " split").c_str(), &most_split);
      EXPECT_EQ(most_split, most);
      if (nparts == 4 && mesh == kSphere) sphere4 = most;
      for (auto &s : sp) tetfv_split_free(&s);
      for (auto &x : l) tetfv_local_free(&x);
    }
  }
  // The plan is a list, not a slab's two sides: in four parts of the sphere (the GPU tests'
  // tetfv_*_sphere_np4) a part has three neighbours.
  EXPECT_GE(sphere4, 3);
}

namespace {

// naive's schedule on host buffers over this job's ranks: `steps` steps of part l from its
// slice of u0 (split: in two-stream's order), each step all rows, the send lists packed, the
// exchange into the ghost ranges of the new field. Returns the owned values in l's local order.
std::vector<double> run_on_plan(const tetfv_local &l, const std::vector<double> &ulocal, int steps,
                                kit_halo *counters, int *nlinks, long long *per_step_bytes) {
  tetfv_links k;
  tetfv_links_build(&l, &k);
  kit_exchange x;
  kit_exchange_init_links(&x, KIT_COMM_HOST, MPI_COMM_WORLD, k.n, k.link, MPI_DOUBLE, sizeof(double), 1);
  const size_t n = (size_t)l.nown + (size_t)l.nghost;
  std::vector<double> u(ulocal), un(ulocal), sbuf((size_t)l.send_off[l.nsend] + 1);
  std::vector<void *> send((size_t)k.n + 1), recv((size_t)k.n + 1);
  EXPECT_EQ(u.size(), n);
  for (int t = 0; t < steps; ++t) {
    tetfv_rows(&l.m, u.data(), un.data(), 0, l.nown);
    for (int i = 0; i < l.send_off[l.nsend]; ++i) sbuf[(size_t)i] = un[(size_t)l.send_idx[i]];
    for (int a = 0; a < k.n; ++a) {
      send[(size_t)a] = sbuf.data() + k.send_at[a];
      recv[(size_t)a] = un.data() + l.nown + k.recv_at[a];
    }
    kit_exchange_run(&x, send.data(), recv.data(), nullptr);
    u.swap(un);
  }
  *counters = x.halo;
  *nlinks = k.n;
  *per_step_bytes = 0;
  for (int a = 0; a < k.n; ++a) *per_step_bytes += (long long)(k.link[a].send_count * sizeof(double));
  kit_exchange_free(&x);
  tetfv_links_free(&k);
  u.resize((size_t)l.nown);
  return u;
}

// Runs the schedule on this job's ranks (local order, then split order) and counts the owned
// values that differ from the oracle, over all ranks; checks the counters on the way.
long long mismatches(const Problem &pr, const tetfv_local &l, int steps, bool expect_messages) {
  std::vector<double> ref((size_t)pr.m.ncells);
  tetfv_reference(&pr.g, pr.u0.data(), steps, ref.data(), nullptr);
  std::vector<double> ulocal((size_t)l.nown + (size_t)l.nghost);
  for (size_t a = 0; a < ulocal.size(); ++a) ulocal[a] = pr.u0[(size_t)l.gid[a]];
  long long bad = 0;
  for (int split = 0; split < 2; ++split) {
    tetfv_split sp;
    std::memset(&sp, 0, sizeof sp);
    const tetfv_local *part = &l;
    std::vector<double> start(ulocal);
    if (split) {
      std::vector<int> dev((size_t)l.nown + 1, 0);
      tetfv_split_build(&l, 1, dev.data(), &sp);
      tetfv_split_permute(&sp, ulocal.data(), start.data());
      part = &sp.l;
    }
    kit_halo h;
    int nlinks = 0;
    long long bytes = 0;
    std::vector<double> out = run_on_plan(*part, start, steps, &h, &nlinks, &bytes);
    if (split) {
      std::vector<double> back((size_t)l.nown);
      tetfv_split_unpermute(&sp, out.data(), back.data());
      out.swap(back);
      tetfv_split_free(&sp);
    }
    for (int a = 0; a < l.nown; ++a) bad += !(out[(size_t)a] == ref[(size_t)l.gid[a]]);
    EXPECT_EQ(nlinks, l.nsend);
    EXPECT_EQ(h.messages, expect_messages ? (long long)steps * nlinks : 0);
    EXPECT_EQ(h.bytes, expect_messages ? steps * bytes : 0);
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return bad;
}

}  // namespace

TEST(tetfvLinks, NaiveScheduleOnTheHostTransportMatchesTheOracle) {
  for (const std::string &mesh : {std::string("box:5"), kSphere}) {
    Problem pr(mesh);
    const std::vector<int> part = pr.partition(world_size());
    tetfv_local l;
    tetfv_local_build(&pr.g, part.data(), world_rank(), "rcm", 512, &l);
    EXPECT_EQ(mismatches(pr, l, 7, true), 0) << mesh;
    tetfv_local_free(&l);
  }
}

TEST(tetfvLinks, StaleHaloFaultIsSeen) {
  if (world_size() < 2) GTEST_SKIP() << "one rank: no ghosts";
  Problem pr("box:5");
  const std::vector<int> part = pr.partition(world_size());
  tetfv_local l;
  tetfv_local_build(&pr.g, part.data(), world_rank(), "rcm", 512, &l);
  setenv("KIT_FAULT", "stale-halo", 1);
  const long long bad = mismatches(pr, l, 5, false);
  unsetenv("KIT_FAULT");
  EXPECT_GT(bad, 0) << "ghosts never exchanged must change the answer";
  tetfv_local_free(&l);
}
