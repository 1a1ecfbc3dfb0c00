// Named ranges: phase totals while profiling is on, nothing while it is off, and a Chrome
// trace file with the events; the host triad measurement behind the CPU ceiling.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "kit/ceiling.h"
#include "kit/ranges.h"

static double phase(const char *name) {
  const char **names = nullptr;
  double *secs = nullptr;
  const int n = kit_phases_reduce(MPI_COMM_SELF, 1.0, &names, &secs);
  for (int i = 0; i < n; ++i)
    if (std::strcmp(names[i], name) == 0) return secs[i];
  return -1.0;
}

TEST(Ranges, PhasesOnlyWhileProfiling) {
  kit_phases_reset();
  kit_profile_enable(0);
  KIT_RANGE_PUSH("ignored");
  usleep(1000);
  KIT_RANGE_POP();
  EXPECT_LT(phase("ignored"), 0.0) << "no phase recorded while profiling is off";

  kit_profile_enable(1);
  for (int i = 0; i < 3; ++i) {
    KIT_RANGE_PUSH("outer");
    KIT_RANGE_PUSH("inner");
    usleep(2000);
    KIT_RANGE_POP();
    KIT_RANGE_POP();
  }
  kit_ranges_collect();
  kit_profile_enable(0);
  const double outer = phase("outer"), inner = phase("inner");
  EXPECT_GE(inner, 3 * 0.0019);
  EXPECT_GE(outer, inner);  // nested: the outer range contains the inner one
  EXPECT_LT(outer, 1.0);
  EXPECT_EQ(kit_gpu_range_begin("gpu", nullptr), -1) << "no GPU events while profiling is off";
}

TEST(Ranges, TraceFileHasEveryEvent) {
  kit_phases_reset();
  kit_profile_enable(1);
  KIT_RANGE_PUSH("traced_range");
  KIT_RANGE_POP();
  kit_profile_enable(0);
  char path[] = "/tmp/kit_trace_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  kit_trace_write(path, MPI_COMM_SELF);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string t = ss.str();
  std::remove(path);
  EXPECT_EQ(t.rfind("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 0), 0u);
  EXPECT_NE(t.find("\"name\":\"traced_range\""), std::string::npos);
  EXPECT_NE(t.find("\"ph\":\"X\""), std::string::npos);
  EXPECT_NE(t.find("\"process_name\""), std::string::npos);
  EXPECT_EQ(t.substr(t.size() - 3), "]}\n");
}

TEST(Ceiling, HostTriadMeasuresSomething) {
  const double bw = kit_measure_host_triad((size_t)1 << 22, 3);
  EXPECT_GT(bw, 0.1);  // GB/s: any machine
  EXPECT_LT(bw, 10000.0);
}
