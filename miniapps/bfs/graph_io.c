/* graph_io.c: --graph FILE. Real graphs in two plain formats, read on one rank:
 *   Matrix Market: "%%MatrixMarket matrix coordinate pattern|real|integer general|symmetric",
 *     '%' comment lines, a "rows cols entries" line (square), then one "i j [value]" line per
 *     entry, 1-based; the value is ignored.
 *   Edge list: one "u v" or "u v weight" line per edge, 0-based, '#' starts a comment.
 * Both are read as undirected graphs. Malformed input is refused with the line number and
 * the reason (the driver prints it and exits 2): a run never starts on half a graph. Lines
 * come from kit_lines (kit/input.h): regular files only, lines of at most BFS_LINE_MAX bytes,
 * no NUL bytes; the file's bytes are escaped in every message. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bfs.h"
#include "kit/check.h"
#include "kit/input.h"

/* Largest vertex number accepted: local indices are 32-bit, labels fit 44 bits of a key. */
#define BFS_MAX_VERTEX ((int64_t)1 << 40)
/* Longest line accepted: the Matrix Market limit (1024 characters), for edge lists too. */
#define BFS_LINE_MAX 1024

typedef struct reader {
  kit_lines in;     /* the kit's bounded line reader: regular files only, no NUL bytes */
  char *line;       /* the current line (in.buf), newline stripped */
  long long lineno; /* its number */
  int bad;          /* 1 once a line could not be read (in.err says why) */
  char *err;
  size_t errlen;
} reader;

/* The file's bytes in a message are escaped (kit_printable): they reach a terminal. */
static int fail(reader *r, const char *fmt, const char *tok) {
  char why[256], safe[128];
  snprintf(why, sizeof why, fmt, tok ? kit_printable(tok, safe, sizeof safe) : "");
  snprintf(r->err, r->errlen, "line %lld: %s", r->lineno, why);
  return -1;
}

/* Next line into r->line (newline stripped); 0 at end of file or when it cannot be read
 * (r->bad set: the caller's own message is then replaced by in.err). */
static int next_line(reader *r) {
  const int got = kit_lines_next(&r->in);
  if (got < 0) r->bad = 1;
  if (got <= 0) return 0;
  r->line = r->in.buf;
  r->lineno = r->in.lineno;
  return 1;
}

/* Splits s into at most max whitespace-separated tokens; returns how many there were. */
static int tokens(char *s, char **tok, int max) {
  int n = 0;
  for (char *t = strtok(s, " \t\r\v\f"); t; t = strtok(NULL, " \t\r\v\f")) {
    if (n < max) tok[n] = t;
    n++;
  }
  return n;
}

static int parse_int(const char *s, long long lo, long long hi, long long *out) {
  char *end = NULL;
  errno = 0;
  const long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int parse_number(const char *s) {
  char *end = NULL;
  errno = 0;
  (void)strtod(s, &end);
  return (end == s || *end) ? -1 : 0;
}

/* Appends edge (u, v) to a growing list. */
static void push(bfs_edges *e, int64_t *cap, int64_t u, int64_t v) {
  if (e->m == *cap) {
    *cap = *cap ? 2 * *cap : 1024;
    int64_t *uv = realloc(e->uv, (size_t)(2 * *cap) * sizeof *uv);
    if (!uv)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory reading a graph of %lld edges",
              (long long)e->m);
    e->uv = uv;
  }
  e->uv[2 * e->m] = u;
  e->uv[2 * e->m + 1] = v;
  e->m++;
}

static int read_mtx(reader *r, bfs_edges *e) {
  char *tok[8];
  /* Header: the banner was line 1 (lines are at most BFS_LINE_MAX long). */
  char banner[BFS_LINE_MAX + 1];
  snprintf(banner, sizeof banner, "%s", r->line);
  const int nt = tokens(banner, tok, 8);
  if (nt != 5 || strcasecmp(tok[1], "matrix") != 0)
    return fail(r, "expected '%%%%MatrixMarket matrix coordinate <field> <symmetry>'%s", NULL);
  if (strcasecmp(tok[2], "coordinate") != 0)
    return fail(r, "'%s' format: only coordinate (sparse) matrices are graphs", tok[2]);
  int has_value;
  if (strcasecmp(tok[3], "pattern") == 0)
    has_value = 0;
  else if (strcasecmp(tok[3], "real") == 0 || strcasecmp(tok[3], "integer") == 0)
    has_value = 1;
  else
    return fail(r, "field '%s': only pattern, real and integer are read", tok[3]);
  if (strcasecmp(tok[4], "general") != 0 && strcasecmp(tok[4], "symmetric") != 0)
    return fail(r, "symmetry '%s': only general and symmetric are read", tok[4]);
  /* Comments, then the size line. */
  for (;;) {
    if (!next_line(r)) return fail(r, "end of file before the 'rows cols entries' line%s", NULL);
    const char *s = r->line + strspn(r->line, " \t");
    if (*s != '%' && *s != '\0') break;
  }
  long long rows, cols, nnz;
  const int ns = tokens(r->line, tok, 8);
  if (ns != 3 || parse_int(tok[0], 1, BFS_MAX_VERTEX, &rows) || parse_int(tok[1], 1, BFS_MAX_VERTEX, &cols) ||
      parse_int(tok[2], 0, (long long)1 << 46, &nnz))
    return fail(r, "expected 'rows cols entries' with positive integers%s", NULL);
  if (rows != cols) {
    char why[96];
    snprintf(why, sizeof why, "the matrix is %lld x %lld; a graph needs a square one", rows, cols);
    return fail(r, "%s", why);
  }
  e->n = rows;
  int64_t cap = 0;
  while (next_line(r)) {
    const char *s = r->line + strspn(r->line, " \t");
    if (*s == '%' || *s == '\0') continue;
    if (e->m == nnz) {
      char why[96];
      snprintf(why, sizeof why, "more entries than the %lld announced on the size line", nnz);
      return fail(r, "%s", why);
    }
    const int n = tokens(r->line, tok, 8);
    const int want = has_value ? 3 : 2;
    if (n != want)
      return fail(r, has_value ? "expected 'i j value'%s" : "expected 'i j' (pattern matrix)%s", NULL);
    long long u, v;
    if (parse_int(tok[0], 1, rows, &u)) return fail(r, "row '%s' is not an integer in [1, rows]", tok[0]);
    if (parse_int(tok[1], 1, cols, &v)) return fail(r, "column '%s' is not an integer in [1, cols]", tok[1]);
    if (has_value && parse_number(tok[2])) return fail(r, "value '%s' is not a number", tok[2]);
    push(e, &cap, u - 1, v - 1);
  }
  if (e->m < nnz) {
    char why[96];
    snprintf(why, sizeof why, "end of file after %lld of %lld entries", (long long)e->m, nnz);
    return fail(r, "%s", why);
  }
  return 0;
}

static int read_el(reader *r, bfs_edges *e) {
  char *tok[8];
  int64_t cap = 0, maxv = -1;
  int have = 1; /* r->line holds the first line already */
  while (have) {
    char *hash = strchr(r->line, '#');
    if (hash) *hash = '\0';
    const int n = tokens(r->line, tok, 8);
    if (n != 0) {
      if (n != 2 && n != 3) return fail(r, "expected 'u v' or 'u v weight'%s", NULL);
      long long u, v;
      if (parse_int(tok[0], 0, BFS_MAX_VERTEX - 1, &u))
        return fail(r, "'%s' is not a vertex number (0-based, non-negative)", tok[0]);
      if (parse_int(tok[1], 0, BFS_MAX_VERTEX - 1, &v))
        return fail(r, "'%s' is not a vertex number (0-based, non-negative)", tok[1]);
      if (n == 3 && parse_number(tok[2])) return fail(r, "weight '%s' is not a number", tok[2]);
      push(e, &cap, u, v);
      if (u > maxv) maxv = u;
      if (v > maxv) maxv = v;
    }
    have = next_line(r);
  }
  e->n = maxv + 1;
  return 0;
}

int bfs_read_graph(const char *path, bfs_edges *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  reader r = {.err = err, .errlen = errlen};
  if (kit_lines_open(&r.in, path, BFS_LINE_MAX, err, errlen) != 0) return -1;
  int rc;
  if (!next_line(&r)) {
    snprintf(err, errlen, "empty file");
    rc = -1;
  } else if (strncasecmp(r.line, "%%MatrixMarket", 14) == 0) {
    rc = read_mtx(&r, out);
  } else {
    const size_t len = strlen(path);
    if (len > 4 && strcasecmp(path + len - 4, ".mtx") == 0)
      rc = fail(&r, "a .mtx file must start with '%%%%MatrixMarket'%s", NULL);
    else
      rc = read_el(&r, out);
  }
  /* A line that could not be read ends the file early for the parsers; its reason (too
   * long, a NUL byte, a read error) is the one to report. */
  if (r.bad) {
    snprintf(err, errlen, "%s", r.in.err);
    rc = -1;
  }
  if (rc == 0 && out->m == 0) {
    snprintf(err, errlen, "no edges");
    rc = -1;
  }
  kit_lines_close(&r.in);
  if (rc != 0) bfs_edges_free(out);
  out->m_total = out->m;
  out->first = 0;
  return rc;
}
