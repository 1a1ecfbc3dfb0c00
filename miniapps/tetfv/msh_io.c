/* msh_io.c: --mesh FILE.msh, gmsh's ASCII mesh format, versions 2.2 (2.0 and 2.1 read the
 * same) and 4.1 (https://gmsh.info/doc/texinfo/gmsh.html, "MSH file format"). Tetrahedra
 * (element type 4) are the cells; elements of other types (points, lines, triangles, which
 * gmsh writes for the boundary) are skipped and counted. Sections other than $MeshFormat,
 * $Nodes and $Elements ($Entities, $PhysicalNames, ...) are skipped. Malformed or
 * inconsistent input is refused with "line L: reason" (problem.c prints it and exits 2):
 * counts that do not add up, node tags that are not defined, a missing section end, a
 * version or a binary file this reader does not read, no tetrahedra. Degenerate and inverted
 * tetrahedra are refused by tetfv_mesh_connect with the line of the element. Paper III Sec. 4
 * reads tetgen's output; gmsh is what Debian packages.
 *   gmsh -3 tests/tetfv/data/sphere.geo -format msh41 -o sphere.msh
 *   build/bin/tetfv --mesh sphere.msh */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/input.h"
#include "tetfv.h"

/* Longest line accepted. gmsh writes short lines except in $Entities (bounding boxes and
 * lists of bounding entities), which stay far below this; a longer line is refused with its
 * number, never cut (a cut number would read as another number). */
#define MSH_LINE_MAX 65535

typedef struct reader {
  kit_lines in; /* the kit's bounded line reader: regular files only, no NUL bytes */
  long bytes;   /* the file's size: a count no file of this size can hold is refused */
  long lineno;
  int bad; /* 1 once a line could not be read (in.err says why) */
  char *err;
  size_t errlen;
  char *tok[32]; /* tokens of the current line, in in.buf */
  int ntok;
} reader;

/* The message may quote the file's bytes: escaped (kit_printable), it reaches a terminal. */
__attribute__((format(printf, 2, 3))) static int fail(reader *r, const char *fmt, ...) {
  char why[300], safe[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  if (r->bad)
    snprintf(r->err, r->errlen, "%s", r->in.err); /* the line that could not be read */
  else
    snprintf(r->err, r->errlen, "line %ld: %s", r->lineno, kit_printable(why, safe, sizeof safe));
  return -1;
}

/* Next line (newline stripped) tokenised into r->tok; 0 at end of file, and when a line
 * cannot be read (too long, a NUL byte, a read error): r->bad is then set, and fail()
 * reports that reason instead of the caller's. */
static int next_line(reader *r) {
  const int got = kit_lines_next(&r->in);
  if (got < 0) r->bad = 1;
  if (got <= 0) return 0;
  r->lineno = (long)r->in.lineno;
  r->ntok = 0;
  for (char *t = strtok(r->in.buf, " \t\r\n\v\f"); t; t = strtok(NULL, " \t\r\n\v\f")) {
    if (r->ntok < 32) r->tok[r->ntok] = t;
    r->ntok++;
  }
  return 1;
}

/* Next non-blank line, or a failure naming what was expected. */
static int need_line(reader *r, const char *what) {
  do {
    if (!next_line(r)) {
      fail(r, "end of file where %s was expected", what);
      return 0;
    }
  } while (r->ntok == 0);
  return 1;
}

static int to_long(const char *s, long lo, long hi, long *out) {
  char *end = NULL;
  errno = 0;
  const long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int to_double(const char *s, double *out) {
  char *end = NULL;
  errno = 0;
  const double v = strtod(s, &end);
  if (end == s || *end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

/* Nodes as read: tag, coordinates, and the line they came from (for duplicate tags). */
typedef struct node_rec {
  long tag;
  long line;
  double x[3];
} node_rec;

static int cmp_node(const void *a, const void *b) {
  const node_rec *x = a, *y = b;
  return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* Index of node `tag` in the sorted array, -1 if absent. */
static int find_node(const node_rec *n, int count, long tag) {
  int lo = 0, hi = count - 1;
  while (lo <= hi) {
    const int mid = lo + (hi - lo) / 2;
    if (n[mid].tag == tag) return mid;
    if (n[mid].tag < tag)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Nodes per element of gmsh's element types 1..19 (0: not a type gmsh defines). */
static int nodes_of_type(long type) {
  static const int n[20] = {0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1, 8, 20, 15, 13};
  return type >= 1 && type <= 19 ? n[type] : 0;
}

#define MAX_COUNT 1000000000L

typedef struct msh_state {
  int version; /* 2 or 4 */
  node_rec *nodes;
  int nnodes;
  int have_nodes, have_elements;
  int *tet; /* indices into the sorted node array */
  long *line;
  int ntet, cap;
  int skipped;
} msh_state;

static int add_tet(reader *r, msh_state *s, char **tok) {
  if (s->ntet == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1024;
    s->tet = realloc(s->tet, (size_t)s->cap * 4 * sizeof(int));
    s->line = realloc(s->line, (size_t)s->cap * sizeof(long));
    if (!s->tet || !s->line)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory reading a mesh");
  }
  for (int a = 0; a < 4; ++a) {
    long tag;
    if (to_long(tok[a], 1, MAX_COUNT * 10, &tag))
      return fail(r, "node tag '%s' is not a positive integer", tok[a]);
    const int k = find_node(s->nodes, s->nnodes, tag);
    if (k < 0) return fail(r, "node %ld is not defined in $Nodes (out of range)", tag);
    s->tet[4 * (size_t)s->ntet + a] = k;
  }
  s->line[s->ntet++] = r->lineno;
  return 0;
}

/* Sorts the nodes by tag and refuses duplicates. */
static int finish_nodes(reader *r, msh_state *s) {
  qsort(s->nodes, (size_t)s->nnodes, sizeof *s->nodes, cmp_node);
  for (int i = 1; i < s->nnodes; ++i)
    if (s->nodes[i].tag == s->nodes[i - 1].tag) {
      const long l = s->nodes[i].line > s->nodes[i - 1].line ? s->nodes[i].line : s->nodes[i - 1].line;
      r->lineno = l;
      return fail(r, "node tag %ld defined twice", s->nodes[i].tag);
    }
  s->have_nodes = 1;
  return 0;
}

static int end_of(reader *r, const char *section, const char *counted) {
  if (!need_line(r, section)) return -1;
  if (r->ntok != 1 || strcmp(r->tok[0], section) != 0)
    return fail(r, "expected %s after %s, got '%s'", section, counted, r->tok[0]);
  return 0;
}

/* Every node of a file takes at least 8 bytes ("1 0 0 0\n"; in format 4.1 a tag line and a
 * coordinate line), so a count above the file's size in bytes is a damaged header: refused
 * before the node array is sized by it (a 300-byte file once asked for 31 GB). A file that
 * merely lacks some lines still gets "after K of the N nodes announced". */
static int count_fits(reader *r, long n, const char *what) {
  if (n <= r->bytes) return 0;
  return fail(r, "%ld %s announced, more than a file of %ld bytes can hold", n, what, r->bytes);
}

static int read_nodes_v2(reader *r, msh_state *s) {
  long n;
  if (!need_line(r, "the node count")) return -1;
  if (r->ntok != 1 || to_long(r->tok[0], 0, MAX_COUNT, &n)) return fail(r, "expected the number of nodes");
  if (count_fits(r, n, "nodes")) return -1;
  s->nodes = kit_malloc((size_t)(n > 0 ? n : 1) * sizeof *s->nodes, "mesh nodes");
  for (long i = 0; i < n; ++i) {
    if (!need_line(r, "a node")) return -1;
    if (r->tok[0][0] == '$') return fail(r, "%s after %ld of the %ld nodes announced", r->tok[0], i, n);
    node_rec *q = s->nodes + i;
    if (r->ntok != 4) return fail(r, "expected 'tag x y z'");
    if (to_long(r->tok[0], 1, MAX_COUNT * 10, &q->tag))
      return fail(r, "node tag '%s' is not a positive integer", r->tok[0]);
    for (int a = 0; a < 3; ++a)
      if (to_double(r->tok[1 + a], &q->x[a]))
        return fail(r, "coordinate '%s' is not a finite number", r->tok[1 + a]);
    q->line = r->lineno;
  }
  s->nnodes = (int)n;
  char counted[64];
  snprintf(counted, sizeof counted, "the %ld nodes announced", n);
  if (end_of(r, "$EndNodes", counted)) return -1;
  return finish_nodes(r, s);
}

static int read_elements_v2(reader *r, msh_state *s) {
  long n;
  if (!need_line(r, "the element count")) return -1;
  if (r->ntok != 1 || to_long(r->tok[0], 0, MAX_COUNT, &n)) return fail(r, "expected the number of elements");
  for (long i = 0; i < n; ++i) {
    if (!need_line(r, "an element")) return -1;
    if (r->tok[0][0] == '$') return fail(r, "%s after %ld of the %ld elements announced", r->tok[0], i, n);
    long tag, type, ntags;
    if (r->ntok < 3 || to_long(r->tok[0], 1, MAX_COUNT * 10, &tag) || to_long(r->tok[1], 1, 1000, &type) ||
        to_long(r->tok[2], 0, 20, &ntags))
      return fail(r, "expected 'tag type ntags tags... nodes...'");
    const int nn = nodes_of_type(type);
    if (nn == 0) return fail(r, "element type %ld is not a gmsh element type this reader knows", type);
    if (r->ntok != 3 + ntags + nn)
      return fail(r, "element type %ld with %ld tags needs %ld fields, the line has %d", type, ntags,
                  3 + ntags + nn, r->ntok);
    if (type != 4) {
      s->skipped++;
      continue;
    }
    if (add_tet(r, s, r->tok + 3 + ntags)) return -1;
  }
  char counted[64];
  snprintf(counted, sizeof counted, "the %ld elements announced", n);
  return end_of(r, "$EndElements", counted);
}

static int read_nodes_v4(reader *r, msh_state *s) {
  long nb, n, lo, hi;
  if (!need_line(r, "the $Nodes header")) return -1;
  if (r->ntok != 4 || to_long(r->tok[0], 0, MAX_COUNT, &nb) || to_long(r->tok[1], 0, MAX_COUNT, &n) ||
      to_long(r->tok[2], 0, MAX_COUNT * 10, &lo) || to_long(r->tok[3], 0, MAX_COUNT * 10, &hi))
    return fail(r, "expected 'numEntityBlocks numNodes minNodeTag maxNodeTag'");
  if (count_fits(r, n, "nodes") || count_fits(r, nb, "node blocks")) return -1;
  s->nodes = kit_malloc((size_t)(n > 0 ? n : 1) * sizeof *s->nodes, "mesh nodes");
  long done = 0;
  for (long b = 0; b < nb; ++b) {
    long dim, ent, param, m;
    if (!need_line(r, "a node block header")) return -1;
    if (r->ntok != 4 || to_long(r->tok[0], 0, 3, &dim) || to_long(r->tok[1], -MAX_COUNT, MAX_COUNT, &ent) ||
        to_long(r->tok[2], 0, 1, &param) || to_long(r->tok[3], 0, MAX_COUNT, &m))
      return fail(r, "expected 'entityDim entityTag parametric numNodesInBlock' (block %ld of %ld)", b + 1,
                  nb);
    if (done + m > n) return fail(r, "node blocks hold more than the %ld nodes announced", n);
    for (long i = 0; i < m; ++i) {
      if (!need_line(r, "a node tag")) return -1;
      node_rec *q = s->nodes + done + i;
      if (r->ntok != 1 || to_long(r->tok[0], 1, MAX_COUNT * 10, &q->tag))
        return fail(r, "expected a node tag (positive integer), %ld of %ld in this block", i + 1, m);
      if (q->tag < lo || q->tag > hi)
        return fail(r, "node tag %ld outside [%ld, %ld] of the header", q->tag, lo, hi);
      q->line = r->lineno;
    }
    const int want = 3 + (param ? (int)dim : 0);
    for (long i = 0; i < m; ++i) {
      if (!need_line(r, "node coordinates")) return -1;
      node_rec *q = s->nodes + done + i;
      if (r->ntok != want)
        return fail(r, "expected %d numbers (x y z%s), got %d", want, param ? " and parameters" : "",
                    r->ntok);
      for (int a = 0; a < 3; ++a)
        if (to_double(r->tok[a], &q->x[a]))
          return fail(r, "coordinate '%s' is not a finite number", r->tok[a]);
    }
    done += m;
  }
  if (done != n) return fail(r, "node blocks hold %ld nodes, the header announced %ld", done, n);
  s->nnodes = (int)n;
  char counted[64];
  snprintf(counted, sizeof counted, "the %ld node blocks announced", nb);
  if (end_of(r, "$EndNodes", counted)) return -1;
  return finish_nodes(r, s);
}

static int read_elements_v4(reader *r, msh_state *s) {
  long nb, n, lo, hi;
  if (!need_line(r, "the $Elements header")) return -1;
  if (r->ntok != 4 || to_long(r->tok[0], 0, MAX_COUNT, &nb) || to_long(r->tok[1], 0, MAX_COUNT, &n) ||
      to_long(r->tok[2], 0, MAX_COUNT * 10, &lo) || to_long(r->tok[3], 0, MAX_COUNT * 10, &hi))
    return fail(r, "expected 'numEntityBlocks numElements minElementTag maxElementTag'");
  long done = 0;
  for (long b = 0; b < nb; ++b) {
    long dim, ent, type, m;
    if (!need_line(r, "an element block header")) return -1;
    if (r->ntok != 4 || to_long(r->tok[0], 0, 3, &dim) || to_long(r->tok[1], -MAX_COUNT, MAX_COUNT, &ent) ||
        to_long(r->tok[2], 1, 1000, &type) || to_long(r->tok[3], 0, MAX_COUNT, &m))
      return fail(r, "expected 'entityDim entityTag elementType numElementsInBlock' (block %ld of %ld)",
                  b + 1, nb);
    const int nn = nodes_of_type(type);
    if (nn == 0) return fail(r, "element type %ld is not a gmsh element type this reader knows", type);
    if (done + m > n) return fail(r, "element blocks hold more than the %ld elements announced", n);
    for (long i = 0; i < m; ++i) {
      if (!need_line(r, "an element")) return -1;
      long tag;
      if (r->tok[0][0] == '$')
        return fail(r, "%s after %ld of the %ld elements of this block", r->tok[0], i, m);
      if (r->ntok != 1 + nn)
        return fail(r, "element type %ld needs a tag and %d nodes, the line has %d fields", type, nn,
                    r->ntok);
      if (to_long(r->tok[0], 1, MAX_COUNT * 10, &tag))
        return fail(r, "element tag '%s' is not a positive integer", r->tok[0]);
      if (type != 4) {
        s->skipped++;
        continue;
      }
      if (add_tet(r, s, r->tok + 1)) return -1;
    }
    done += m;
  }
  if (done != n) return fail(r, "element blocks hold %ld elements, the header announced %ld", done, n);
  char counted[64];
  snprintf(counted, sizeof counted, "the %ld element blocks announced", nb);
  return end_of(r, "$EndElements", counted);
}

static int read_all(reader *r, msh_state *s) {
  if (!need_line(r, "$MeshFormat")) return -1;
  if (strcmp(r->tok[0], "$MeshFormat") != 0)
    return fail(r, "a .msh file starts with $MeshFormat, not '%s'", r->tok[0]);
  if (!need_line(r, "'version file-type data-size'")) return -1;
  if (r->ntok != 3) return fail(r, "expected 'version file-type data-size'");
  if (strcmp(r->tok[1], "0") != 0)
    return fail(r,
                "binary .msh files are not read (save as ASCII: gmsh -format msh41 or msh22, without -bin)");
  if (strcmp(r->tok[0], "2.2") == 0 || strcmp(r->tok[0], "2.1") == 0 || strcmp(r->tok[0], "2") == 0 ||
      strcmp(r->tok[0], "2.0") == 0)
    s->version = 2;
  else if (strcmp(r->tok[0], "4.1") == 0)
    s->version = 4;
  else
    return fail(r, "format version %s is not read (2.2 and 4.1 are: gmsh -format msh22 or msh41)", r->tok[0]);
  if (end_of(r, "$EndMeshFormat", "the format line")) return -1;
  while (next_line(r)) {
    if (r->ntok == 0) continue;
    const char *sec = r->tok[0];
    if (sec[0] != '$' || r->ntok != 1) return fail(r, "expected a section ($Name), got '%s'", sec);
    if (strcmp(sec, "$Nodes") == 0) {
      if (s->have_nodes) return fail(r, "a second $Nodes section");
      if ((s->version == 2 ? read_nodes_v2 : read_nodes_v4)(r, s)) return -1;
    } else if (strcmp(sec, "$Elements") == 0) {
      if (!s->have_nodes) return fail(r, "$Elements before $Nodes");
      if (s->have_elements) return fail(r, "a second $Elements section");
      if ((s->version == 2 ? read_elements_v2 : read_elements_v4)(r, s)) return -1;
      s->have_elements = 1;
    } else if (strncmp(sec, "$End", 4) == 0) {
      return fail(r, "%s without its section", sec);
    } else {
      /* A section this reader does not need: skip to its end. */
      char name[96], end[100]; /* copies: the line buffer is reused while skipping */
      /* A cut name would look for another end marker: refused instead. */
      if (strlen(sec) >= sizeof name) return fail(r, "a section name longer than %zu bytes", sizeof name - 1);
      snprintf(name, sizeof name, "%s", sec);
      snprintf(end, sizeof end, "$End%s", name + 1);
      const long start = r->lineno;
      int found = 0;
      while (!found && next_line(r)) found = r->ntok == 1 && strcmp(r->tok[0], end) == 0;
      if (!found) {
        r->lineno = start;
        return fail(r, "%s has no %s", name, end);
      }
    }
  }
  if (!s->have_nodes) return fail(r, "end of file without a $Nodes section");
  if (!s->have_elements) return fail(r, "end of file without an $Elements section");
  if (s->ntet == 0)
    return fail(r, "no tetrahedra (element type 4) in the mesh (%d elements of other types)", s->skipped);
  return 0;
}

int tetfv_read_msh(const char *path, tetfv_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  reader r;
  memset(&r, 0, sizeof r);
  r.err = err;
  r.errlen = errlen;
  if (kit_lines_open(&r.in, path, MSH_LINE_MAX, err, errlen) != 0) return -1;
  r.bytes = LONG_MAX;
  if (fseek(r.in.f, 0, SEEK_END) == 0) {
    r.bytes = ftell(r.in.f);
    rewind(r.in.f);
  }
  msh_state s;
  memset(&s, 0, sizeof s);
  int rc = read_all(&r, &s);
  /* A line that could not be read ends the file early for the parsers; its reason is the
   * one to report, whatever they concluded. */
  if (r.bad) rc = fail(&r, "%s", "");
  kit_lines_close(&r.in);
  if (rc == 0) {
    m->nnodes = s.nnodes;
    m->ncells = s.ntet;
    m->xyz = kit_malloc((size_t)s.nnodes * 3 * sizeof(double), "mesh nodes");
    for (int i = 0; i < s.nnodes; ++i)
      for (int a = 0; a < 3; ++a) m->xyz[3 * i + a] = s.nodes[i].x[a];
    m->tet = s.tet;
    m->line = s.line;
    m->skipped = s.skipped;
  } else {
    free(s.tet);
    free(s.line);
  }
  free(s.nodes);
  return rc;
}
