/* input.c: opening and reading the files a user names (kit/input.h), and the collective
 * verdicts that keep one rank's bad file or bad command line from hanging the others. */
#define _POSIX_C_SOURCE 200809L /* fdopen, getc_unlocked, O_CLOEXEC */

#include "kit/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit/check.h"

const char *kit_file_kind(mode_t m) {
  if (S_ISREG(m)) return "a regular file";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a plain file";
}

FILE *kit_open_input(const char *path, char *err, size_t errlen) {
  if (!path || !*path) {
    snprintf(err, errlen, "no file named (empty path)");
    return NULL;
  }
  /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer for ever. */
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "cannot open: %s", strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    snprintf(err, errlen, "cannot stat: %s", strerror(errno));
    close(fd);
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode))
      snprintf(err, errlen, "is a directory");
    else
      snprintf(err, errlen, "is not a regular file (%s)", kit_file_kind(st.st_mode));
    close(fd);
    return NULL;
  }
  /* A regular file never blocks, but stdio should see ordinary blocking reads. */
  const int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    snprintf(err, errlen, "cannot open: %s", strerror(errno));
    close(fd);
    return NULL;
  }
  FILE *f = fdopen(fd, "r");
  if (!f) {
    snprintf(err, errlen, "cannot open: %s", strerror(errno));
    close(fd);
  }
  return f;
}

void kit_lines_attach(kit_lines *r, FILE *f, size_t bound) {
  memset(r, 0, sizeof *r);
  r->f = f;
  r->bound = bound;
  /* bound + 1 bytes of line (a CR before the newline is kept until the line ends) + NUL. */
  r->buf = kit_malloc(bound + 2, "line buffer");
  r->buf[0] = '\0';
}

int kit_lines_open(kit_lines *r, const char *path, size_t bound, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  FILE *f = kit_open_input(path, err, errlen);
  if (!f) return -1;
  kit_lines_attach(r, f, bound);
  r->owns = 1;
  return 0;
}

int kit_lines_next(kit_lines *r) {
  size_t len = 0;
  int c = EOF;
  r->buf[0] = '\0';
  r->len = 0;
  if (r->err[0]) return -1; /* sticky: the rest of a refused line is not a line */
  /* Byte by byte so a NUL is seen (fgets and getline would hide it) and a line without end
   * (/dev/zero-like content, a huge one-line file) stops at the bound. */
  while ((c = getc_unlocked(r->f)) != EOF && c != '\n') {
    if (c == '\0') {
      snprintf(r->err, sizeof r->err, "line %lld: contains a NUL byte", r->lineno + 1);
      return -1;
    }
    if (len == r->bound + 1) {
      snprintf(r->err, sizeof r->err, "line %lld: line too long (the limit is %zu bytes)", r->lineno + 1,
               r->bound);
      return -1;
    }
    r->buf[len++] = (char)c;
  }
  if (c == EOF) {
    if (ferror(r->f)) {
      snprintf(r->err, sizeof r->err, "line %lld: read error: %s", r->lineno + 1, strerror(errno));
      return -1;
    }
    if (len == 0) return 0;
  }
  if (len > 0 && r->buf[len - 1] == '\r') len--;
  if (len > r->bound) {
    snprintf(r->err, sizeof r->err, "line %lld: line too long (the limit is %zu bytes)", r->lineno + 1,
             r->bound);
    return -1;
  }
  r->buf[len] = '\0';
  r->len = len;
  r->lineno++;
  return 1;
}

void kit_lines_close(kit_lines *r) {
  free(r->buf);
  r->buf = NULL;
  if (r->owns && r->f) fclose(r->f);
  r->f = NULL;
}

const char *kit_printable(const char *s, char *buf, size_t buflen) {
  if (!buf || buflen == 0) return "";
  if (!s) s = "(null)";
  size_t o = 0, keep = 0; /* keep: end of the last whole byte that leaves room for "..." */
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    const int plain = *p >= 0x20 && *p < 0x7f;
    if (o + (plain ? 1 : 4) + 1 > buflen) {
      o = keep;
      if (buflen >= 4) {
        memcpy(buf + o, "...", 3);
        o += 3;
      }
      break;
    }
    if (plain)
      buf[o++] = (char)*p;
    else
      o += (size_t)snprintf(buf + o, 5, "\\x%02X", *p);
    if (o + 4 <= buflen) keep = o;
  }
  buf[o] = '\0';
  return buf;
}

int kit_agree(const kit_env *env, int ok, const char *why) {
  /* The lowest failing rank, or nranks if none failed: one Allreduce decides for all. */
  int mine = ok ? env->nranks : env->rank, first = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  if (first == env->nranks) return 0;
  if (env->rank == first) {
    /* The reason may carry bytes of a path or a file: escaped here once for every caller. */
    char safe[1024];
    fprintf(stderr, "%s\n", kit_printable(why ? why : "input refused", safe, sizeof safe));
    fflush(stderr);
  }
  return KIT_EXIT_USAGE;
}

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

int kit_same_file(const kit_env *env, const char *path, const char *what) {
  char why[256] = "";
  uint64_t h = FNV_OFFSET;
  FILE *f = kit_open_input(path, why, sizeof why);
  if (f) {
    unsigned char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
      for (size_t i = 0; i < n; ++i) h = (h ^ chunk[i]) * FNV_PRIME;
    if (ferror(f)) snprintf(why, sizeof why, "read error: %s", strerror(errno));
    fclose(f);
  }
  const int ok = why[0] == '\0';
  /* One Allreduce (MIN) decides both: the lowest failing rank (nranks if none), and min(h)
   * with min(~h) = ~max(h), equal exactly when every rank hashed the same bytes. */
  uint64_t mine[3] = {ok ? (uint64_t)env->nranks : (uint64_t)env->rank, h, ~h}, all[3];
  KIT_MPI_CHECK(MPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD));
  char safe[512];
  if (all[0] != (uint64_t)env->nranks) {
    if ((uint64_t)env->rank == all[0]) {
      fprintf(stderr, "%s: %s", kit_printable(what, safe, sizeof safe), why);
      if (env->nranks > 1) fprintf(stderr, " (on rank %d)", env->rank);
      fputc('\n', stderr);
      fflush(stderr);
    }
    return KIT_EXIT_USAGE;
  }
  if (all[1] != ~all[2]) {
    if (env->rank == 0)
      fprintf(stderr, "%s: the file differs between ranks (every rank must read the same file)\n",
              kit_printable(what, safe, sizeof safe));
    return KIT_EXIT_USAGE;
  }
  return 0;
}

/* FNV-1a over the bytes of the app's name and of every argument after the program's path,
 * each with its NUL, so "ab c" and "a bc" differ, and so do two apps launched together. */
static uint64_t argv_hash(const char *app, int argc, char **argv) {
  uint64_t h = FNV_OFFSET;
  for (int i = 0; i < (argc > 1 ? argc : 1); ++i) {
    const unsigned char *p = (const unsigned char *)(i == 0 ? (app ? app : "") : argv[i]);
    do {
      h ^= *p;
      h *= FNV_PRIME;
    } while (*p++);
  }
  return h;
}

int kit_same_command_line(const kit_env *env, const char *app, int argc, char **argv) {
  /* min(h) and min(~h) = ~max(h) in one Allreduce: the hashes agree iff min == max. */
  const uint64_t h = argv_hash(app, argc, argv);
  uint64_t mine[2] = {h, ~h}, all[2] = {0, 0};
  KIT_MPI_CHECK(MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD));
  if (all[0] == ~all[1]) return 0;
  if (env->rank == 0)
    fprintf(stderr,
            "%s: the ranks were given different command-line arguments (or programs); every rank "
            "of a job (an MPMD launch too) must run the same app with the same arguments\n",
            app);
  return KIT_EXIT_USAGE;
}
