// test_outputs.cpp: hostile outputs and options (tests/hostile/outputs.cmake, options.cmake):
// the --json line is appended whole or not at all (a file size limit cuts a real regular
// file short after N bytes: EFBIG, as a full disk gives ENOSPC), a torn line from an older
// build is not glued to, any byte string escapes to valid JSON, numbers with spaces or a
// sign an unsigned option cannot take, ambiguous abbreviations, two spellings of one
// setting, and KIT_FAULT's syntax.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "kit/check.h"
#include "kit/json.h"
#include "kit/options.h"
#include "kit/report.h"

namespace {
std::string temp_path(const char *tag) {
  const char *dir = std::getenv("TMPDIR");
  std::string p =
      std::string(dir && *dir ? dir : "/tmp") + "/kit_test_outputs_" + tag + "_" + std::to_string(getpid());
  std::remove(p.c_str());
  return p;
}

std::string slurp(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void spit(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
}

// A file size limit of `bytes` for this process while in scope, with SIGXFSZ ignored so a
// write past it fails with EFBIG instead of killing the test.
struct FileSizeLimit {
  struct rlimit old;
  void (*old_handler)(int);
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old);
    old_handler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = old;
    lim.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
  }
};

std::string escaped(const char *s) {
  kit_json j;
  kit_json_init(&j);
  kit_json_escape(&j, s);
  std::string out = j.buf;
  kit_json_free(&j);
  return out;
}
}  // namespace

TEST(AppendLine, WholeLineOrNothingWhenTheFileCannotGrow) {
  const std::string path = temp_path("efbig");
  spit(path, "{\"first\":1}\n");
  const std::string line(200, 'x');
  int rc = 0, err = 0;
  {
    FileSizeLimit limit(12 + 50);  // room for 50 of the 201 bytes: the write is cut short
    rc = kit_append_line(path.c_str(), line.c_str());
    err = errno;
  }
  EXPECT_EQ(rc, -1);
  EXPECT_EQ(err, EFBIG) << std::strerror(err);
  EXPECT_EQ(slurp(path), "{\"first\":1}\n");  // the 50 bytes were cut off again
  // The next run appends a whole line after the whole first one: nothing lost, nothing glued.
  ASSERT_EQ(kit_append_line(path.c_str(), "{\"second\":2}"), 0) << std::strerror(errno);
  EXPECT_EQ(slurp(path), "{\"first\":1}\n{\"second\":2}\n");
  std::remove(path.c_str());
}

TEST(AppendLine, NothingAtAllWhenNoByteFits) {
  const std::string path = temp_path("full");
  spit(path, "{\"first\":1}\n");
  int rc = 0;
  {
    FileSizeLimit limit(12);
    rc = kit_append_line(path.c_str(), "{\"second\":2}");
  }
  EXPECT_EQ(rc, -1);
  EXPECT_EQ(slurp(path), "{\"first\":1}\n");
  std::remove(path.c_str());
}

TEST(AppendLine, StartsOnANewLineAfterATornOne) {
  const std::string path = temp_path("torn");
  spit(path, "{\"a\":1}\n{\"torn");  // an older build's partial line
  ASSERT_EQ(kit_append_line(path.c_str(), "{\"b\":2}"), 0);
  EXPECT_EQ(slurp(path), "{\"a\":1}\n{\"torn\n{\"b\":2}\n");
  std::remove(path.c_str());
}

TEST(AppendLine, CreatesANewFileAndReportsAFullDevice) {
  const std::string path = temp_path("new");
  ASSERT_EQ(kit_append_line(path.c_str(), "{}"), 0);
  EXPECT_EQ(slurp(path), "{}\n");
  std::remove(path.c_str());
  struct stat st;
  if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
    EXPECT_EQ(kit_append_line("/dev/full", "{}"), -1);
    EXPECT_EQ(errno, ENOSPC);
  }
}

TEST(JsonEscape, AnyBytesGiveValidJson) {
  EXPECT_EQ(escaped("plain"), "\"plain\"");
  EXPECT_EQ(escaped("q\"b\\c\n"), "\"q\\\"b\\\\c\\u000a\"");
  // Valid UTF-8 (2, 3 and 4 bytes) is kept as it is.
  EXPECT_EQ(escaped("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
  // A lone byte, a truncated sequence, an overlong form, a surrogate, above U+10FFFF: each
  // byte that is not part of valid UTF-8 becomes \u00XX.
  EXPECT_EQ(escaped((std::string("a\xff") + "b").c_str()), "\"a\\u00ffb\"");
  EXPECT_EQ(escaped("\xc3"), "\"\\u00c3\"");
  EXPECT_EQ(escaped("\xe2\x82"), "\"\\u00e2\\u0082\"");
  EXPECT_EQ(escaped("\xc0\x80"), "\"\\u00c0\\u0080\"");
  EXPECT_EQ(escaped("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");
  EXPECT_EQ(escaped("\xf4\x90\x80\x80"), "\"\\u00f4\\u0090\\u0080\\u0080\"");
  // Every byte value in ascending order holds no valid multi-byte sequence: the output is
  // ASCII, with every byte from 0x80 up escaped.
  std::string all;
  for (int c = 1; c < 256; ++c) all += (char)c;
  const std::string out = escaped(all.c_str());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_LT((unsigned char)out[i], 0x80) << "at " << i;
  for (int c = 0x80; c < 256; ++c) {
    char esc[8];
    std::snprintf(esc, sizeof esc, "\\u%04x", c);
    EXPECT_NE(out.find(esc), std::string::npos) << esc;
  }
}

namespace {
using kit_test::Args;

struct Table {
  kit_run run = kit_run_defaults();
  int size[3] = {8, 8, 8};
  double alpha = 0.0;
  const char *init = "zero";
  kit_option opts[KIT_RUN_NOPTS + 4];
  char err[512] = "";
  Table() {
    int n = kit_run_options(&run, opts);
    opts[n++] = {"size", KIT_OPT_CUSTOM, size, "N", "size", 1, 0, 0, nullptr, kit_parse_size3, nullptr};
    opts[n++] = {"alpha", KIT_OPT_DOUBLE, &alpha, "A", "alpha", -1, 1, 0, nullptr, nullptr, nullptr};
    opts[n++] = {"init", KIT_OPT_STRING, &init, "KIND", "init", 1, 0, 0, "zero|random", nullptr, nullptr};
    // A second name for --iters (the same destination), as ising's --sweeps was.
    opts[n++] = {"sweeps", KIT_OPT_INT, &run.iters, "N", "sweeps", 0, 1e9, 0, nullptr, nullptr, nullptr};
    opts[n].type = KIT_OPT_END;
  }
  int parse(Args &a) { return kit_parse(a.argc(), a.argv(), opts, err, sizeof err); }
};
}  // namespace

TEST(HostileOptions, NumbersStartWithADigit) {
  const std::vector<std::vector<const char *>> bad = {
      {"--seed", " -1"},   {"--seed", "-1"},      {"--seed", "+1"}, {"--seed", " 1"},    {"--iters", " 5"},
      {"--alpha", " 0.5"}, {"--alpha", "0x1p-2"}, {"--size", " 4"}, {"--size", "4, 4,4"}};
  for (const auto &b : bad) {
    Table t;
    Args a{b[0], b[1]};
    EXPECT_EQ(t.parse(a), KIT_PARSE_ERROR) << b[0] << " '" << b[1] << "'";
    EXPECT_NE(std::string(t.err).find(b[0]), std::string::npos) << t.err;
  }
  Table t;
  Args a{"--seed", "18446744073709551615", "--alpha", "-.5", "--iters", "+3"};
  ASSERT_EQ(t.parse(a), KIT_PARSE_OK) << t.err;
  EXPECT_EQ(t.run.seed, 18446744073709551615ull);
  EXPECT_EQ(t.alpha, -0.5);
  EXPECT_EQ(t.run.iters, 3);
}

TEST(HostileOptions, AmbiguousAbbreviationListsTheCandidates) {
  Table t;
  Args a{"--i", "5"};
  ASSERT_EQ(t.parse(a), KIT_PARSE_ERROR);
  EXPECT_STREQ(t.err, "prog: ambiguous option '--i' (could be --iters, --init)");
  Table u;
  Args b{"--it", "5"};  // unambiguous: still --iters
  ASSERT_EQ(u.parse(b), KIT_PARSE_OK) << u.err;
  EXPECT_EQ(u.run.iters, 5);
  Table w;
  Args c{"--zzz"};
  ASSERT_EQ(w.parse(c), KIT_PARSE_ERROR);
  EXPECT_NE(std::string(w.err).find("unknown option '--zzz'"), std::string::npos) << w.err;
}

TEST(HostileOptions, TwoSpellingsOfOneSettingAreRefused) {
  Table t;
  Args a{"--sweeps", "5", "--iters", "7"};
  ASSERT_EQ(t.parse(a), KIT_PARSE_ERROR);
  EXPECT_STREQ(t.err, "prog: --sweeps and --iters set the same thing; give one of them");
  // Repeating one option is an override (scripts append to flags they were handed), and
  // so is --verify ... --no-verify.
  Table u;
  Args b{"--iters", "5", "--iters", "7", "--no-verify", "--verify"};
  ASSERT_EQ(u.parse(b), KIT_PARSE_OK) << u.err;
  EXPECT_EQ(u.run.iters, 7);
  EXPECT_EQ(u.run.verify, 1);
}

TEST(HostileOptions, KitFaultSyntax) {
  char why[256];
  for (const char *ok : {"", "alloc", "alloc@1", "stale-halo", "MPI_Allreduce@0", "cudaMalloc@12"})
    EXPECT_EQ(kit_fault_parse(ok, why, sizeof why), 0) << ok;
  EXPECT_EQ(kit_fault_parse(nullptr, why, sizeof why), 0);
  for (const char *bad : {"alloc@abc", "alloc@", "alloc@-1", "alloc@1x", "alloc@ 1", " alloc", "@1", "al loc",
                          "alloc@1@2", "1alloc", "alloc@12345678901"}) {
    EXPECT_EQ(kit_fault_parse(bad, why, sizeof why), -1) << bad;
    EXPECT_NE(std::string(why).find("KIT_FAULT"), std::string::npos) << why;
  }
}
