// test_input.cpp: the kit's input helpers (kit/input.h): kit_open_input refuses every
// non-regular file without blocking, kit_lines refuses over-long lines and NUL bytes and
// never cuts a line, kit_printable escapes what a terminal acts on, and the collective
// verdicts (kit_agree, kit_same_file, kit_same_command_line) give every rank the same answer.
// Run alone and under mpiexec -n 2 (tests/hostile/inputs.cmake): with two ranks the
// collectives are tested with one rank failing.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kit/check.h"
#include "kit/input.h"

namespace {

// A fresh folder per test process (and rank), removed with its files at the end.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/kit_input_XXXXXX";
    path = mkdtemp(tmpl) ? tmpl : "";
  }
  ~TempDir() {
    if (!path.empty()) (void)!system(("rm -rf '" + path + "'").c_str());
  }
  std::string file(const char *name, const std::string &bytes) const {
    const std::string p = path + "/" + name;
    FILE *f = fopen(p.c_str(), "wb");
    if (f) {
      fwrite(bytes.data(), 1, bytes.size(), f);
      fclose(f);
    }
    return p;
  }
};

kit_env world() {
  kit_env env;
  memset(&env, 0, sizeof env);
  MPI_Comm_rank(MPI_COMM_WORLD, &env.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &env.nranks);
  return env;
}

// Every line of a file read with bound `bound`: the lines joined with '|', then the verdict
// of the last call ("" at the end of the file, else the reason).
std::string read_all(const std::string &path, size_t bound) {
  char err[256];
  kit_lines r;
  if (kit_lines_open(&r, path.c_str(), bound, err, sizeof err) != 0) return std::string("open: ") + err;
  std::string out;
  int got;
  while ((got = kit_lines_next(&r)) > 0) {
    EXPECT_EQ(strlen(r.buf), r.len);
    out += std::string(r.buf) + "|";
  }
  out += got < 0 ? std::string(r.err) : std::string("");
  kit_lines_close(&r);
  return out;
}

}  // namespace

TEST(OpenInput, RegularFileOpens) {
  TempDir d;
  const std::string p = d.file("a.txt", "hello\n");
  char err[256] = "";
  FILE *f = kit_open_input(p.c_str(), err, sizeof err);
  ASSERT_NE(f, nullptr) << err;
  char buf[16] = "";
  ASSERT_NE(fgets(buf, sizeof buf, f), nullptr);
  EXPECT_STREQ(buf, "hello\n");
  fclose(f);
}

TEST(OpenInput, RefusesEveryNonRegularFile) {
  TempDir d;
  char err[256] = "";
  EXPECT_EQ(kit_open_input(d.path.c_str(), err, sizeof err), nullptr);
  EXPECT_STREQ(err, "is a directory");
  EXPECT_EQ(kit_open_input("/dev/null", err, sizeof err), nullptr);
  EXPECT_STREQ(err, "is not a regular file (a character device)");
  // A FIFO without a writer: a blocking open would never return.
  const std::string fifo = d.path + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(kit_open_input(fifo.c_str(), err, sizeof err), nullptr);
  EXPECT_STREQ(err, "is not a regular file (a FIFO)");
  EXPECT_EQ(kit_open_input((d.path + "/missing").c_str(), err, sizeof err), nullptr);
  EXPECT_STREQ(err, "cannot open: No such file or directory");
  EXPECT_EQ(kit_open_input("", err, sizeof err), nullptr);
  EXPECT_STREQ(err, "no file named (empty path)");
}

TEST(Lines, SplitsStripsAndCounts) {
  TempDir d;
  // CRLF and LF, an empty line, a last line without a newline.
  EXPECT_EQ(read_all(d.file("a", "one\r\ntwo\n\nthree"), 16), "one|two||three|");
  EXPECT_EQ(read_all(d.file("b", ""), 16), "");
  EXPECT_EQ(read_all(d.file("c", "\n"), 16), "|");
}

TEST(Lines, BoundIsExactAndNeverCuts) {
  TempDir d;
  const std::string eight(8, 'x');
  EXPECT_EQ(read_all(d.file("a", eight + "\n" + eight + "\r\n" + eight), 8),
            eight + "|" + eight + "|" + eight + "|");
  EXPECT_EQ(read_all(d.file("b", "ok\n" + eight + "y\nz\n"), 8),
            "ok|line 2: line too long (the limit is 8 bytes)");
  EXPECT_EQ(read_all(d.file("c", eight + "y"), 8), "line 1: line too long (the limit is 8 bytes)");
  EXPECT_EQ(read_all(d.file("d", eight + "\r\r\n"), 8), "line 1: line too long (the limit is 8 bytes)");
}

TEST(Lines, ARefusalIsFinal) {
  TempDir d;
  // The rest of a refused line must not come back as a line of its own.
  const std::string p = d.file("a", std::string(20, 'x') + "\nok\n");
  char err[256];
  kit_lines r;
  ASSERT_EQ(kit_lines_open(&r, p.c_str(), 8, err, sizeof err), 0) << err;
  EXPECT_EQ(kit_lines_next(&r), -1);
  EXPECT_EQ(kit_lines_next(&r), -1);
  EXPECT_STREQ(r.err, "line 1: line too long (the limit is 8 bytes)");
  kit_lines_close(&r);
}

TEST(Lines, RefusesNulBytes) {
  TempDir d;
  EXPECT_EQ(read_all(d.file("a", std::string("1 2\n3\0 4\n", 9)), 64), "1 2|line 2: contains a NUL byte");
  EXPECT_EQ(read_all(d.file("b", std::string(1000, '\0')), 64), "line 1: contains a NUL byte");
}

TEST(Lines, OpenRefusalsComeThrough) {
  TempDir d;
  EXPECT_EQ(read_all(d.path, 64), "open: is a directory");
  EXPECT_EQ(read_all("/dev/zero", 64), "open: is not a regular file (a character device)");
}

TEST(Printable, EscapesWhatATerminalActsOn) {
  char buf[64];
  EXPECT_STREQ(kit_printable("plain text/path.msh", buf, sizeof buf), "plain text/path.msh");
  EXPECT_STREQ(kit_printable("a\x1b[31mb\n\x7f", buf, sizeof buf), "a\\x1B[31mb\\x0A\\x7F");
  EXPECT_STREQ(kit_printable("\xc3\xa9\x9b", buf, sizeof buf), "\\xC3\\xA9\\x9B");
  EXPECT_STREQ(kit_printable(nullptr, buf, sizeof buf), "(null)");
}

TEST(Printable, CutsWithAnEllipsisNeverMidEscape) {
  char buf[8];
  EXPECT_STREQ(kit_printable("1234567", buf, sizeof buf), "1234567");
  EXPECT_STREQ(kit_printable("12345678", buf, sizeof buf), "1234...");
  EXPECT_STREQ(kit_printable("12\x01\x02", buf, sizeof buf), "12...");
  char tiny[3];
  EXPECT_STREQ(kit_printable("abcdef", tiny, sizeof tiny), "");
  EXPECT_STREQ(kit_printable("ab", tiny, sizeof tiny), "ab");
  char one[1];
  EXPECT_STREQ(kit_printable("abc", one, sizeof one), "");
}

TEST(Collective, AgreeIsUnanimous) {
  const kit_env env = world();
  EXPECT_EQ(kit_agree(&env, 1, "unused"), 0);
  testing::internal::CaptureStderr();
  EXPECT_EQ(kit_agree(&env, 0, "bad \x1b input"), KIT_EXIT_USAGE);
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said, env.rank == 0 ? "bad \\x1B input\n" : "");
  // Only the last rank fails: every rank returns 2, and the failing rank alone speaks.
  testing::internal::CaptureStderr();
  EXPECT_EQ(kit_agree(&env, env.rank != env.nranks - 1, "last rank"), KIT_EXIT_USAGE);
  said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said, env.rank == env.nranks - 1 ? "last rank\n" : "");
}

TEST(Collective, SameFile) {
  const kit_env env = world();
  TempDir d;
  const std::string p = d.file("m.txt", "4 4 1 1\n");
  EXPECT_EQ(kit_same_file(&env, p.c_str(), "app: --input m.txt"), 0);
  testing::internal::CaptureStderr();
  EXPECT_EQ(kit_same_file(&env, "/dev/zero", "app: --input /dev/zero"), KIT_EXIT_USAGE);
  std::string said = testing::internal::GetCapturedStderr();
  if (env.rank == 0) {
    EXPECT_EQ(said.rfind("app: --input /dev/zero: is not a regular file (a character device)", 0), 0u)
        << said;
  }
  if (env.nranks < 2) return;
  // Rank 1 cannot read it: everyone refuses, rank 1 says why.
  testing::internal::CaptureStderr();
  EXPECT_EQ(kit_same_file(&env, env.rank == 1 ? "/nonexistent/m.txt" : p.c_str(), "app: --input m.txt"),
            KIT_EXIT_USAGE);
  said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said,
            env.rank == 1 ? "app: --input m.txt: cannot open: No such file or directory (on rank 1)\n" : "");
  // Rank 1 reads other bytes (a node-local copy that changed).
  const std::string q = d.file("m2.txt", env.rank == 1 ? "4 4 1 2\n" : "4 4 1 1\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(kit_same_file(&env, q.c_str(), "app: --input m2.txt"), KIT_EXIT_USAGE);
  said = testing::internal::GetCapturedStderr();
  if (env.rank == 0) {
    EXPECT_NE(said.find("the file differs between ranks"), std::string::npos) << said;
  }
}

TEST(Collective, SameCommandLine) {
  const kit_env env = world();
  char prog[] = "app", a[] = "--size", b[] = "8", c[] = "9", ab[] = "--size8";
  char *same[] = {prog, a, b, nullptr};
  EXPECT_EQ(kit_same_command_line(&env, "app", 3, same), 0);
  if (env.nranks < 2) return;
  // Rank 1 got another value, or the same bytes split differently.
  char *other[] = {prog, a, env.rank == 1 ? c : b, nullptr};
  testing::internal::CaptureStderr();
  EXPECT_EQ(kit_same_command_line(&env, "app", 3, other), KIT_EXIT_USAGE);
  const std::string said = testing::internal::GetCapturedStderr();
  if (env.rank == 0) {
    EXPECT_NE(said.find("different command-line arguments"), std::string::npos) << said;
  }
  char *joined[] = {prog, ab, nullptr};
  EXPECT_EQ(kit_same_command_line(&env, "app", env.rank == 1 ? 2 : 3, env.rank == 1 ? joined : same),
            KIT_EXIT_USAGE);
  // Two apps launched together with the same arguments.
  EXPECT_EQ(kit_same_command_line(&env, env.rank == 1 ? "ising" : "app", 3, same), KIT_EXIT_USAGE);
  // The program's path does not count.
  char prog2[] = "/other/path/app";
  char *renamed[] = {env.rank == 1 ? prog2 : prog, a, b, nullptr};
  EXPECT_EQ(kit_same_command_line(&env, "app", 3, renamed), 0);
}
