// Unit tests of libkit's host pieces: option tables, block split, statistics, the
// hybrid model, the JSON writer and the result report.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "args.h"
#include "kit/boxsplit.h"
#include "kit/fastdiv.h"
#include "kit/hybrid.h"
#include "kit/json.h"
#include "kit/options.h"
#include "kit/report.h"
#include "kit/runtime.h"
#include "kit/slab.h"
#include "kit/stats.h"

namespace {
using kit_test::Args;

struct Parsed {
  kit_run run = kit_run_defaults();
  int size[3] = {8, 8, 8};
  double alpha = 0.0;
  const char *mode = "a";
  kit_option opts[KIT_RUN_NOPTS + 4];
  char err[256] = "";
  Parsed() {
    int n = kit_run_options(&run, opts);
    opts[n++] = {"size", KIT_OPT_CUSTOM, size, "N", "size", 1, 0, 0, nullptr, kit_parse_size3, nullptr};
    opts[n++] = {"alpha", KIT_OPT_DOUBLE, &alpha, "A", "alpha", -1, 1, 0, nullptr, nullptr, nullptr};
    opts[n++] = {"mode", KIT_OPT_STRING, &mode, "M", "mode", 1, 0, 0, "a|bb", nullptr, nullptr};
    opts[n].type = KIT_OPT_END;
  }
  // String options point into argv, as in a program: the Args must outlive the results.
  int parse(Args &a) { return kit_parse(a.argc(), a.argv(), opts, err, sizeof err); }
};
}  // namespace

TEST(Options, DefaultsAndValues) {
  Parsed p;
  Args a{"--iters", "7",           "--size", "3,4,5", "--alpha",        "0.5", "--mode",
         "bb",      "--no-verify", "--seed", "99",    "--cpu-fraction", "0.25"};
  ASSERT_EQ(p.parse(a), KIT_PARSE_OK) << p.err;
  EXPECT_EQ(p.run.iters, 7);
  EXPECT_EQ(p.size[0], 3);
  EXPECT_EQ(p.size[1], 4);
  EXPECT_EQ(p.size[2], 5);
  EXPECT_EQ(p.alpha, 0.5);
  EXPECT_STREQ(p.mode, "bb");
  EXPECT_EQ(p.run.verify, 0);
  EXPECT_EQ(p.run.seed, 99u);
  EXPECT_EQ(p.run.cpu_fraction, 0.25);
  EXPECT_EQ(p.run.cpu_fraction_given, 1);
  EXPECT_EQ(p.run.reps, 3);  // untouched default
}

TEST(Options, CubeAndAuto) {
  Parsed p;
  Args a{"--size", "6", "--cpu-fraction", "auto"};
  ASSERT_EQ(p.parse(a), KIT_PARSE_OK) << p.err;
  EXPECT_EQ(p.size[2], 6);
  EXPECT_LT(p.run.cpu_fraction, 0.0);
}

TEST(Options, RejectsBadInputWithOneLineNamingTheFlag) {
  const std::vector<std::pair<std::vector<const char *>, const char *>> bad = {
      {{"--bogus"}, "unknown option"},
      {{"--iters", "x"}, "--iters"},
      {{"--iters", "-2"}, "--iters"},
      {{"--size", "0"}, "--size"},
      {{"--size", "2,3"}, "--size"},
      {{"--size", "2,3,4,5"}, "--size"},
      {{"--size", "2,,3"}, "--size"},
      {{"--alpha", "2"}, "--alpha"},
      {{"--alpha", "nan"}, "--alpha"},
      {{"--mode", "c"}, "--mode"},
      {{"--cpu-fraction", "1"}, "--cpu-fraction"},
      {{"--seed", "-1"}, "--seed"},
      {{"--iters"}, "needs a value"},
      {{"stray"}, "unexpected argument"},
  };
  for (const auto &b : bad) {
    Parsed p;
    Args a(b.first);
    EXPECT_EQ(kit_parse(a.argc(), a.argv(), p.opts, p.err, sizeof p.err), KIT_PARSE_ERROR) << b.first[0];
    EXPECT_NE(std::strstr(p.err, b.second), nullptr) << p.err;
    EXPECT_EQ(std::strchr(p.err, '\n'), nullptr) << "one line";
  }
}

TEST(Options, Help) {
  Parsed p;
  Args a{"--help"};
  EXPECT_EQ(p.parse(a), KIT_PARSE_HELP);
}

// The option rows say which variants a flag applies to (kit_option.variants): the parser's
// table makes both the refusals and --help, so they cannot drift apart.
TEST(Options, VariantMasksRefuseOutsideTheirVariants) {
  struct Case {
    std::vector<const char *> args;
    const char *variant;
    const char *said;  // nullptr: the flags apply
  };
  const std::vector<Case> cases = {
      {{"--cpu-fraction", "0.1"}, "hybrid", nullptr},
      {{"--cpu-fraction", "0.1"}, "two-stream", "app: --cpu-fraction applies only to --variant hybrid"},
      {{"--gpus", "1"}, "naive", nullptr},
      {{"--gpus", "1"}, "cpu", "app: --gpus does not apply to --variant cpu"},
      {{"--mode", "bb"}, "naive", nullptr},
      {{"--mode", "bb"},
       "multi-thread",
       "app: --mode applies only to --variant naive, two-stream and hybrid"},
      {{"--alpha", "0.5"}, "cpu", "app: --alpha does not apply to app"},
      {{}, "cpu", nullptr},  // nothing given: nothing refused, whatever the rows say
  };
  for (const auto &c : cases) {
    Parsed p;
    kit_option_named(p.opts, "mode")->variants = "naive|two-stream|hybrid";
    kit_option_named(p.opts, "alpha")->variants = "";
    Args a(c.args);
    ASSERT_EQ(kit_parse(a.argc(), a.argv(), p.opts, p.err, sizeof p.err), KIT_PARSE_OK) << p.err;
    char err[256] = "";
    EXPECT_EQ(kit_option_applies(p.opts, "app", c.variant, err, sizeof err), c.said ? -1 : 0)
        << c.variant << err;
    if (c.said) {
      EXPECT_STREQ(err, c.said);
    }
  }
}

TEST(Options, HelpShowsWhereAFlagApplies) {
  Parsed p;
  kit_option_named(p.opts, "mode")->variants = "naive|two-stream|hybrid";
  kit_option_named(p.opts, "alpha")->variants = "";
  char *text = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ASSERT_NE(f, nullptr);
  kit_print_help(f, "app", "a test table", p.opts);
  fclose(f);
  const std::string help(text, len);
  free(text);
  EXPECT_NE(help.find("--cpu-fraction F|auto"), std::string::npos) << help;
  EXPECT_NE(help.find("{hybrid only}"), std::string::npos) << help;
  EXPECT_NE(help.find("{not cpu}"), std::string::npos) << help;
  EXPECT_NE(help.find("{naive, two-stream and hybrid only}"), std::string::npos) << help;
  EXPECT_EQ(help.find("--alpha"), std::string::npos) << "a flag of no variant is not shown";
  EXPECT_EQ(help.find("--iters N"), help.rfind("--iters N")) << "each flag once";
}

TEST(Slab, SplitCoversEverythingOnceAndBalances) {
  for (int n = 1; n < 40; ++n)
    for (int parts = 1; parts <= n; ++parts) {
      int next = 0, lo = n, hi = 0;
      for (int r = 0; r < parts; ++r) {
        const kit_block b = kit_block_split(n, parts, r);
        EXPECT_EQ(b.begin, next);
        next += b.count;
        lo = std::min(lo, b.count);
        hi = std::max(hi, b.count);
      }
      EXPECT_EQ(next, n);
      EXPECT_LE(hi - lo, 1);
      EXPECT_GE(lo, 1);
    }
}

TEST(Slab, CpuPlanesKeepsOneGpuPlane) {
  EXPECT_EQ(kit_cpu_planes(100, 0.0), 0);
  EXPECT_EQ(kit_cpu_planes(100, 0.104), 10);
  EXPECT_EQ(kit_cpu_planes(100, 0.106), 11);
  EXPECT_EQ(kit_cpu_planes(4, 0.99), 3);
  EXPECT_EQ(kit_cpu_planes(1, 0.5), 0);
}

TEST(Stats, MinMedianMax) {
  const double odd[] = {3, 1, 2};
  kit_stats s = kit_stats_of(odd, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.median, 2);
  EXPECT_EQ(s.max, 3);
  const double even[] = {4, 1, 3, 2};
  s = kit_stats_of(even, 4);
  EXPECT_EQ(s.median, 2.5);
}

TEST(Hybrid, BandwidthRatioModel) {
  // Paper II: r = B_cpu / (B_cpu + B_gpu), then derated.
  EXPECT_DOUBLE_EQ(kit_cpu_share(76, 4103, 1.0), 76.0 / (76.0 + 4103.0));
  EXPECT_DOUBLE_EQ(kit_cpu_share(100, 300, 0.8), 0.8 * 0.25);
  EXPECT_EQ(kit_cpu_share(0, 300, 0.8), 0.0);
  EXPECT_LT(kit_cpu_share(1e9, 1, 1.0), 1.0);
}

TEST(Json, WritesValidNestedText) {
  kit_json j;
  kit_json_init(&j);
  kit_json_begin_object(&j, nullptr);
  kit_json_string(&j, "s", "a\"b\\c\n");
  kit_json_number(&j, "x", 0.5);
  kit_json_number(&j, "nan", NAN);
  kit_json_int(&j, "i", -3);
  kit_json_begin_array(&j, "a");
  kit_json_bool(&j, nullptr, 1);
  kit_json_bool(&j, nullptr, 0);
  kit_json_end_array(&j);
  kit_json_begin_object(&j, "o");
  kit_json_end_object(&j);
  kit_json_end_object(&j);
  EXPECT_STREQ(j.buf,
               "{\"s\":\"a\\\"b\\\\c\\u000a\",\"x\":0.5,\"nan\":null,\"i\":-3,\"a\":[true,false],\"o\":{}}");
  kit_json_free(&j);
}

TEST(Report, FailedCheckFailsTheRun) {
  kit_report r;
  kit_report_init(&r, "app", "v");
  EXPECT_EQ(r.verify, KIT_VERIFY_SKIPPED);
  kit_report_check(&r, "a", KIT_VERIFY_PASSED, 0, 0, "ok");
  EXPECT_EQ(kit_report_exit_code(&r), 0);
  kit_report_check(&r, "b", KIT_VERIFY_SKIPPED, 0, 0, "n/a");
  EXPECT_EQ(r.verify, KIT_VERIFY_PASSED);
  kit_report_check(&r, "c", KIT_VERIFY_FAILED, 1, 0, "bad");
  kit_report_check(&r, "d", KIT_VERIFY_PASSED, 0, 0, "ok");
  EXPECT_EQ(r.verify, KIT_VERIFY_FAILED);
  EXPECT_EQ(kit_report_exit_code(&r), 1);
  kit_report_free(&r);
}

// kit/fastdiv.h against the / and % operators: every divisor 1..4096 and the powers of two
// up to 2^30, at the ends of the range (n < 2^31), around multiples of d and at random n.
TEST(KitFastdiv, MatchesTheDivisionOperator) {
  std::mt19937 rng(3);
  std::vector<uint32_t> ds;
  for (uint32_t d = 1; d <= 4096; ++d) ds.push_back(d);
  for (int s = 12; s <= 30; ++s) ds.insert(ds.end(), {(1u << s) - 1, 1u << s, (1u << s) + 1});
  for (uint32_t d : ds) {
    const kit_fastdiv f = kit_fastdiv_make(d);
    std::vector<uint32_t> ns = {0, 1, d - 1, d, d + 1, 0x7fffffffu, 0x7ffffffeu, 0x7fffffffu - d};
    for (int i = 0; i < 64; ++i) {
      const uint32_t n = rng() & 0x7fffffffu;
      ns.insert(ns.end(), {n, n - n % d, n - n % d - 1});
    }
    for (uint32_t n : ns) {
      n &= 0x7fffffffu;
      uint32_t r;
      ASSERT_EQ(kit_fastdiv_qr(f, n, &r), n / d) << n << " / " << d;
      ASSERT_EQ(r, n % d) << n << " % " << d;
    }
  }
}

// kit_threads_rule: the node's cores shared by its ranks when OMP_NUM_THREADS is unset, the
// user's count otherwise, and whether ranks x threads exceed the cores.
TEST(Threads, RuleSharesTheNodeAndFlagsOversubscription) {
  int over = -1;
  EXPECT_EQ(kit_threads_rule(2, 1, 0, &over), 2);
  EXPECT_EQ(over, 0);
  EXPECT_EQ(kit_threads_rule(2, 2, 0, &over), 1);
  EXPECT_EQ(over, 0);
  EXPECT_EQ(kit_threads_rule(64, 4, 0, &over), 16);
  EXPECT_EQ(over, 0);
  EXPECT_EQ(kit_threads_rule(65, 4, 0, &over), 16);  // the remainder idles rather than oversubscribe
  EXPECT_EQ(over, 0);
  EXPECT_EQ(kit_threads_rule(2, 4, 0, &over), 1);  // more ranks than cores: one each, still too many
  EXPECT_EQ(over, 1);
  EXPECT_EQ(kit_threads_rule(2, 2, 2, &over), 2);  // the user's count is kept, and flagged
  EXPECT_EQ(over, 1);
  EXPECT_EQ(kit_threads_rule(16, 4, 4, &over), 4);
  EXPECT_EQ(over, 0);
  EXPECT_EQ(kit_threads_rule(0, 0, 0, &over), 1);  // nothing known: one thread
  EXPECT_EQ(over, 0);
}

// kit_box_split_make against its definition, written here independently: for every set of
// sides, every axis order and boxes of 1, 2, 3 and 5 cells along each axis, the layer's six
// parts and the inner box hold every cell exactly once; a cell is in the layer when it is the
// first or last cell along an axis whose face there has a neighbour; and a layer cell is in the
// part of the first such axis in the order (below before above), so a part is empty where its
// face has no neighbour.
TEST(BoxSplit, PartitionsTheBoxAsDefined) {
  const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int lens[4] = {1, 2, 3, 5};
  for (int sides = 0; sides < 64; ++sides)
    for (const auto &order : orders)
      for (int nx : lens)
        for (int ny : lens)
          for (int nz : lens) {
            const int n[3] = {nx, ny, nz};
            int side[6];
            for (int f = 0; f < 6; ++f) side[f] = (sides >> f) & 1;
            const kit_box_split r = kit_box_split_make(n, side, order);
            for (int l = 1; l <= nz; ++l)
              for (int j = 1; j <= ny; ++j)
                for (int i = 1; i <= nx; ++i) {
                  const int c[3] = {i, j, l};
                  int want = -1; /* the face whose part holds the cell, -1: the inner box */
                  for (int k = 0; k < 3 && want < 0; ++k) {
                    const int a = order[k];
                    if (c[a] == 1 && side[2 * a])
                      want = 2 * a;
                    else if (c[a] == n[a] && side[2 * a + 1])
                      want = 2 * a + 1;
                  }
                  int holders = 0, got = -2;
                  for (int f = 0; f < 6; ++f) {
                    bool in = true;
                    for (int d = 0; d < 3; ++d) in = in && c[d] >= r.lo[f][d] && c[d] < r.hi[f][d];
                    if (in) holders++, got = f;
                  }
                  bool inner = true;
                  for (int d = 0; d < 3; ++d) inner = inner && c[d] >= r.in_lo[d] && c[d] < r.in_hi[d];
                  if (inner) holders++, got = -1;
                  ASSERT_EQ(holders, 1) << "sides " << sides << " n " << nx << "x" << ny << "x" << nz
                                        << " cell " << i << "," << j << "," << l;
                  ASSERT_EQ(got, want)
                      << "sides " << sides << " order " << order[0] << order[1] << order[2] << " n " << nx
                      << "x" << ny << "x" << nz << " cell " << i << "," << j << "," << l;
                }
          }
}
