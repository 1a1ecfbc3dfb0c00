/* lammps_io.c: the particles app and LAMMPS. --input takes a LAMMPS data file (what LAMMPS's
 * write_data writes for atom_style atomic in an orthogonal periodic box) besides the kit's own
 * text format, and --dump-lammps writes a LAMMPS text dump ("ITEM: TIMESTEP ...", what OVITO
 * and VMD read). The model is the kit's (README.md "The model": LJ with epsilon = sigma = m =
 * 1), so a data file that says otherwise (a mass, a pair coefficient, a triclinic box, bonds)
 * is refused with one line naming its line, as the kit's reader does (reader.h: the same line
 * reader, comments, line limits and number parsing). README.md, "LAMMPS interoperability". */
#include "lammps_io.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/input.h"
#include "reader.h"

#define LMP_SCAN_LINES 32 /* header lines pt_input_is_lammps looks at */
#define LMP_MAX_ID 1e12   /* as the kit format's count: ids stay exact in a double */
#define LMP_MAX_TYPES (1 << 30)

/* The file as LAMMPS reads it: the first line is a title, '#' starts a comment, whose text is
 * kept (the Atoms and Pair Coeffs sections name their style in it). */
typedef struct lmp_in {
  pt_reader r;
  char comment[64]; /* the current line's comment, trimmed (cut to fit) */
} lmp_in;

/* The next line with content into f->r.buf (its comment cut off, into f->comment): 1, 0 at the
 * end of the file, -1 with the reason in f->r.err. */
static int lmp_next(lmp_in *f) {
  int got;
  while ((got = kit_lines_next(&f->r.in)) > 0) {
    f->r.line = (long)f->r.in.lineno;
    f->r.buf = f->r.in.buf;
    f->comment[0] = '\0';
    char *hash = strchr(f->r.buf, '#');
    if (hash) {
      *hash = '\0';
      const char *c = hash + 1 + strspn(hash + 1, " \t\r");
      snprintf(f->comment, sizeof f->comment, "%s", c);
      size_t len = strlen(f->comment);
      while (len > 0 && strchr(" \t\r", f->comment[len - 1])) f->comment[--len] = '\0';
    }
    if (strspn(f->r.buf, " \t\r") < strlen(f->r.buf)) return 1;
  }
  if (got < 0) snprintf(f->r.err, sizeof f->r.err, "%s", f->r.in.err);
  return got;
}

/* Is the word at s (up to the next blank) one number? Its end in *end. */
static int is_number(const char *s, const char **end) {
  char *e = NULL;
  errno = 0;
  (void)strtod(s, &e);
  if (e == s || (*e && !strchr(" \t\r", *e))) return 0;
  *end = e;
  return 1;
}

/* A header or section line: the numbers it starts with and the words after them (the keyword,
 * single-spaced; numbers after the first word belong to it). */
typedef struct lmp_line {
  double v[4];
  int nv;      /* leading numbers (v holds the first 4) */
  char kw[64]; /* the words after them, cut with "..." when longer */
} lmp_line;

static void split_line(const char *s, lmp_line *l) {
  l->nv = 0;
  l->kw[0] = '\0';
  size_t kl = 0;
  const char *q = s + strspn(s, " \t\r");
  while (*q) {
    const char *end = NULL;
    if (kl == 0 && is_number(q, &end)) {
      if (l->nv < 4) l->v[l->nv] = strtod(q, NULL);
      l->nv++;
      q = end;
    } else {
      const size_t len = strcspn(q, " \t\r");
      if (kl + len + 2 < sizeof l->kw) {
        if (kl) l->kw[kl++] = ' ';
        memcpy(l->kw + kl, q, len);
        kl += len;
        l->kw[kl] = '\0';
      } else if (kl + 4 < sizeof l->kw) {
        memcpy(l->kw + kl, "...", 4);
        kl += 3;
      }
      q += len;
    }
    q += strspn(q, " \t\r");
  }
}

/* Fields (blank-separated words) on a line. */
static int count_fields(const char *s) {
  int n = 0;
  for (s += strspn(s, " \t\r"); *s; s += strspn(s, " \t\r")) {
    n++;
    s += strcspn(s, " \t\r");
  }
  return n;
}

static int starts_with_number(const char *s) {
  const char *end = NULL;
  return is_number(s + strspn(s, " \t\r"), &end);
}

static int is_int_in(double v, double lo, double hi) {
  return v == floor(v) && v >= lo && v <= hi;
}

int pt_input_is_lammps(const char *path) {
  lmp_in f;
  char err[200];
  memset(&f, 0, sizeof f);
  if (pt_reader_open(&f.r, path, err, sizeof err) != 0) return 0;
  int found = 0;
  if (kit_lines_next(&f.r.in) > 0) /* the title line, whatever it holds */
    for (int k = 0; k < LMP_SCAN_LINES && lmp_next(&f) > 0; ++k) {
      lmp_line l;
      split_line(f.r.buf, &l);
      if (l.nv == 0) break; /* a section (or not a header at all) */
      if (l.nv == 1 && strcmp(l.kw, "atoms") == 0) {
        found = 1;
        break;
      }
    }
  pt_reader_close(&f.r);
  return found;
}

/* Header keywords: those read, those that must be 0 (atom_style atomic has no bonds, no
 * extended particles), those of a triclinic box. */
enum { H_ATOMS, H_TYPES, H_XLO, H_YLO, H_ZLO, H_N };
static const char *const read_keys[H_N] = {"atoms", "atom types", "xlo xhi", "ylo yhi", "zlo zhi"};
static const char *const zero_keys[] = {"bonds",
                                        "angles",
                                        "dihedrals",
                                        "impropers",
                                        "bond types",
                                        "angle types",
                                        "dihedral types",
                                        "improper types",
                                        "extra bond per atom",
                                        "extra angle per atom",
                                        "extra dihedral per atom",
                                        "extra improper per atom",
                                        "extra special per atom",
                                        "ellipsoids",
                                        "lines",
                                        "triangles",
                                        "bodies",
                                        NULL};
static const char *const tilt_keys[] = {"xy xz yz", "avec", "bvec", "cvec", "abc origin", NULL};

static int in_list(const char *const *list, const char *kw) {
  for (int i = 0; list[i]; ++i)
    if (strcmp(list[i], kw) == 0) return 1;
  return 0;
}

/* One header line into h (seen[] marks the keywords read): 0, or -1 with the reason. */
static int header_line(const lmp_in *f, const lmp_line *l, pt_lammps_header *h, int seen[H_N], char *err,
                       size_t errlen) {
  const long line = f->r.line;
  char safe[100];
  if (l->kw[0] == '\0') {
    snprintf(err, errlen, "line %ld: a header line without a keyword (expected 'N atoms', 'xlo xhi', ...)",
             line);
    return -1;
  }
  if (in_list(tilt_keys, l->kw)) {
    snprintf(err, errlen, "line %ld: '%s': a triclinic box is not supported (orthogonal boxes only)", line,
             l->kw);
    return -1;
  }
  if (in_list(zero_keys, l->kw)) {
    if (l->nv == 1 && l->v[0] == 0.0) return 0;
    snprintf(err, errlen, "line %ld: '%s' must be one number, 0: only atom_style atomic is read", line,
             kit_printable(l->kw, safe, sizeof safe));
    return -1;
  }
  int k = 0;
  while (k < H_N && strcmp(read_keys[k], l->kw) != 0) ++k;
  if (k == H_N) {
    snprintf(err, errlen, "line %ld: unknown header keyword '%s'", line,
             kit_printable(l->kw, safe, sizeof safe));
    return -1;
  }
  if (seen[k]) {
    snprintf(err, errlen, "line %ld: a second '%s' line", line, read_keys[k]);
    return -1;
  }
  seen[k] = 1;
  if (k == H_ATOMS) {
    if (l->nv != 1 || !is_int_in(l->v[0], 2, LMP_MAX_ID)) {
      snprintf(err, errlen, "line %ld: the atom count must be one integer >= 2 ('N atoms')", line);
      return -1;
    }
    h->n = (long long)l->v[0];
    /* An atom line takes at least 10 bytes: a count above the file's size is a damaged
     * header, refused before the id bitmaps are sized by it (as the kit format's). */
    if (h->n > f->r.bytes) {
      snprintf(err, errlen, "line %ld: %lld atoms announced, more than a file of %lld bytes can hold", line,
               h->n, f->r.bytes);
      return -1;
    }
  } else if (k == H_TYPES) {
    if (l->nv != 1 || !is_int_in(l->v[0], 1, LMP_MAX_TYPES)) {
      snprintf(err, errlen, "line %ld: the atom type count must be one integer >= 1 ('N atom types')", line);
      return -1;
    }
    h->ntypes = (int)l->v[0];
  } else {
    const int a = k - H_XLO;
    if (l->nv != 2 || !(l->v[0] < l->v[1]) || !isfinite(l->v[1] - l->v[0])) {
      snprintf(err, errlen, "line %ld: '%s' needs two numbers %clo < %chi", line, read_keys[k],
               (char)('x' + a), (char)('x' + a));
      return -1;
    }
    h->lo[a] = l->v[0];
    h->hi[a] = l->v[1];
  }
  return 0;
}

/* Opens the file and reads its header: 1 with the first section line in f->r.buf, 0 at the end
 * of the file (no section), -1 with the reason in err (the file is closed then). */
static int open_header(lmp_in *f, const char *path, pt_lammps_header *h, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  memset(h, 0, sizeof *h);
  if (pt_reader_open(&f->r, path, err, errlen) != 0) return -1;
  int seen[H_N] = {0}, got = kit_lines_next(&f->r.in); /* the title: LAMMPS skips line 1 */
  int rc = 0;
  if (got < 0) {
    snprintf(err, errlen, "%s", f->r.in.err);
    rc = -1;
  }
  while (rc == 0 && (got = lmp_next(f)) > 0) {
    lmp_line l;
    split_line(f->r.buf, &l);
    if (l.nv == 0) {
      rc = 1; /* the first section */
      break;
    }
    if (header_line(f, &l, h, seen, err, errlen) != 0) rc = -1;
  }
  if (rc == 0 && got < 0) {
    snprintf(err, errlen, "%s", f->r.err);
    rc = -1;
  }
  if (rc >= 0) {
    const long line = rc == 1 ? f->r.line : (long)f->r.in.lineno + 1;
    for (int k = 0; k < H_N; ++k)
      if (!seen[k]) {
        snprintf(err, errlen, "line %ld: the header has no '%s%s' line", line, k < H_XLO ? "N " : "",
                 read_keys[k]);
        rc = -1;
        break;
      }
  }
  if (rc < 0) pt_reader_close(&f->r);
  return rc;
}

int pt_lammps_read_header(const char *path, pt_lammps_header *h, char *err, size_t errlen) {
  lmp_in f;
  const int rc = open_header(&f, path, h, err, errlen);
  if (rc < 0) return -1;
  pt_reader_close(&f.r);
  return 0;
}

/* The next data line of a section (k of its count read so far): 0, or -1 with the reason
 * (the file ends, or a section keyword comes before the count is full). */
static int data_line(lmp_in *f, const char *section, long long k, long long count, const char *counted,
                     char *err, size_t errlen) {
  const int got = lmp_next(f);
  if (got < 0) {
    snprintf(err, errlen, "%s", f->r.err);
    return -1;
  }
  if (got == 0) {
    snprintf(err, errlen, "line %lld: the file ends after %lld of the %lld lines of the %s section (%s)",
             f->r.in.lineno + 1, k, count, section, counted);
    return -1;
  }
  if (!starts_with_number(f->r.buf)) {
    snprintf(err, errlen, "line %ld: the %s section ends after %lld of its %lld lines (%s)", f->r.line,
             section, k, count, counted);
    return -1;
  }
  return 0;
}

/* Marks bit i of a bitmap: 1 if it was already set. */
static int mark(unsigned char *bits, long long i) {
  const int was = (bits[i / 8] >> (i % 8)) & 1;
  bits[i / 8] |= (unsigned char)(1u << (i % 8));
  return was;
}

static unsigned char *bitmap(long long n) {
  unsigned char *b = calloc((size_t)(n + 8) / 8, 1);
  if (!b) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of memory for %lld LAMMPS ids", n);
  return b;
}

/* A position x of the data file in the kit's frame: x - lo, wrapped into [0, L) (LAMMPS wraps
 * periodic coordinates outside the box the same way; the image flags only count crossings). */
static double wrap(double x, double lo, double len) {
  double u = fmod(x - lo, len); /* exact */
  if (u < 0.0) u += len;
  if (!(u < len)) u = nextafter(len, 0.0); /* -tiny + L rounds to L: the largest double below */
  return u >= 0.0 ? u : 0.0;
}

/* kit id -> index in out, for the Velocities section. */
typedef struct id_slot {
  int64_t id;
  long long at;
} id_slot;
static int cmp_slot(const void *a, const void *b) {
  const int64_t x = ((const id_slot *)a)->id, y = ((const id_slot *)b)->id;
  return x < y ? -1 : x > y;
}

/* The style named in a Pair Coeffs comment: none, or LJ cut (LAMMPS write_data's "lj/cut", its
 * accelerated versions). */
static int lj_cut_style(const char *comment) {
  static const char *const ok[] = {"lj/cut",    "lj/cut/omp", "lj/cut/opt",
                                   "lj/cut/kk", "lj/cut/gpu", "lj/cut/intel"};
  if (!comment[0]) return 1;
  const size_t len = strcspn(comment, " \t");
  for (size_t i = 0; i < sizeof ok / sizeof *ok; ++i)
    if (strlen(ok[i]) == len && strncmp(ok[i], comment, len) == 0) return 1;
  return 0;
}

/* What every section reader shares. */
typedef struct lmp_read {
  lmp_in f;
  pt_lammps_header h;
  const pt_params *p;
  char *err;
  size_t errlen;
} lmp_read;

static int read_atoms(lmp_read *s, pt_keep_fn keep, const void *arg, pt_particles *out, int *types) {
  lmp_in *f = &s->f;
  const pt_lammps_header *h = &s->h;
  char *err = s->err;
  const size_t errlen = s->errlen;
  if (f->comment[0] && (strncmp(f->comment, "atomic", 6) != 0 || strcspn(f->comment, " \t") != 6)) {
    char safe[80];
    snprintf(err, errlen, "line %ld: the Atoms section is atom_style '%s': only atomic is read", f->r.line,
             kit_printable(f->comment, safe, sizeof safe));
    return -1;
  }
  unsigned char *seen = bitmap(h->n);
  char counted[64];
  snprintf(counted, sizeof counted, "the header's %lld atoms", h->n);
  int rc = 0;
  for (long long k = 0; rc == 0 && k < h->n; ++k) {
    if (data_line(f, "Atoms", k, h->n, counted, err, errlen) != 0) {
      rc = -1;
      break;
    }
    const long line = f->r.line;
    const int nf = count_fields(f->r.buf);
    double v[8];
    const char *why = NULL;
    if (nf != 5 && nf != 8) {
      snprintf(err, errlen,
               "line %ld: expected 'id type x y z' or 'id type x y z ix iy iz' (atom_style atomic), found %d "
               "fields",
               line, nf);
      rc = -1;
    } else if (pt_parse_numbers(f->r.buf, v, nf, &why) != 0) {
      snprintf(err, errlen, "line %ld: expected 'id type x y z [ix iy iz]': %s", line, why);
      rc = -1;
    } else if (!is_int_in(v[0], 1, (double)h->n)) {
      snprintf(err, errlen,
               "line %ld: atom id %g is not an integer in [1, %lld] (LAMMPS ids 1..N, the kit's 0..N-1)",
               line, v[0], h->n);
      rc = -1;
    } else if (mark(seen, (long long)v[0] - 1)) {
      snprintf(err, errlen, "line %ld: atom id %lld appears twice", line, (long long)v[0]);
      rc = -1;
    } else if (!is_int_in(v[1], 1, h->ntypes)) {
      snprintf(err, errlen,
               "line %ld: atom %lld: type %g is not an integer in [1, %d] (the header's atom types)", line,
               (long long)v[0], v[1], h->ntypes);
      rc = -1;
    } else if (nf == 8 && (v[5] != floor(v[5]) || v[6] != floor(v[6]) || v[7] != floor(v[7]))) {
      snprintf(err, errlen, "line %ld: atom %lld: the image flags ix iy iz must be integers", line,
               (long long)v[0]);
      rc = -1;
    }
    if (rc) break;
    const long long id = (long long)v[0] - 1;
    double x[3];
    const double zero[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < 3; ++a) x[a] = wrap(v[2 + a], h->lo[a], h->hi[a] - h->lo[a]);
    if (types) types[id] = (int)v[1];
    if (out && (!keep || keep(arg, x))) pt_particles_push(out, id, x, zero);
  }
  free(seen);
  return rc;
}

static int read_velocities(lmp_read *s, pt_particles *out, long long base) {
  lmp_in *f = &s->f;
  const pt_lammps_header *h = &s->h;
  char *err = s->err;
  const size_t errlen = s->errlen;
  /* The particles this reader kept, by id. */
  const long long kept = out ? out->n - base : 0;
  id_slot *slot = kept > 0 ? malloc((size_t)kept * sizeof *slot) : NULL;
  if (kept > 0 && !slot) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of memory for %lld ids", kept);
  for (long long i = 0; i < kept; ++i) slot[i] = (id_slot){out->id[base + i], base + i};
  if (kept > 0) qsort(slot, (size_t)kept, sizeof *slot, cmp_slot);
  unsigned char *seen = bitmap(h->n);
  char counted[64];
  snprintf(counted, sizeof counted, "the header's %lld atoms", h->n);
  int rc = 0;
  for (long long k = 0; k < h->n; ++k) {
    if (data_line(f, "Velocities", k, h->n, counted, err, errlen) != 0) {
      rc = -1;
      break;
    }
    const long line = f->r.line;
    double v[4];
    const char *why = NULL;
    if (pt_parse_numbers(f->r.buf, v, 4, &why) != 0) {
      snprintf(err, errlen, "line %ld: expected 'id vx vy vz': %s", line, why);
      rc = -1;
    } else if (!is_int_in(v[0], 1, (double)h->n)) {
      snprintf(err, errlen, "line %ld: atom id %g is not an integer in [1, %lld]", line, v[0], h->n);
      rc = -1;
    } else if (mark(seen, (long long)v[0] - 1)) {
      snprintf(err, errlen, "line %ld: the velocity of atom %lld appears twice", line, (long long)v[0]);
      rc = -1;
    }
    if (rc) break;
    const id_slot key = {(int64_t)v[0] - 1, 0};
    const id_slot *at = kept > 0 ? bsearch(&key, slot, (size_t)kept, sizeof *slot, cmp_slot) : NULL;
    if (at) memcpy(out->v + 3 * at->at, v + 1, 3 * sizeof(double));
  }
  free(seen);
  free(slot);
  return rc;
}

/* Masses (type mass), Pair Coeffs (type epsilon sigma) and PairIJ Coeffs (i j epsilon sigma
 * [cutoff]): the kit's model, m = epsilon = sigma = 1 and the cutoff --rc, or a refusal. */
static int read_coeffs(lmp_read *s, const char *section) {
  lmp_in *f = &s->f;
  const int ntypes = s->h.ntypes, ij = strcmp(section, "PairIJ Coeffs") == 0,
            mass = strcmp(section, "Masses") == 0;
  char *err = s->err;
  const size_t errlen = s->errlen;
  char safe[80];
  if (!mass && !lj_cut_style(f->comment)) {
    snprintf(err, errlen, "line %ld: %s of pair style '%s': the kit's model is lj/cut", f->r.line, section,
             kit_printable(f->comment, safe, sizeof safe));
    return -1;
  }
  const long long count = ij ? (long long)ntypes * (ntypes + 1) / 2 : ntypes;
  if (count > f->r.bytes) {
    snprintf(err, errlen,
             "line %ld: %s for %d atom types need %lld lines, more than a file of %lld bytes holds",
             f->r.line, section, ntypes, count, f->r.bytes);
    return -1;
  }
  unsigned char *seen = ij ? NULL : bitmap(ntypes);
  char counted[64];
  snprintf(counted, sizeof counted, "the header's %d atom types", ntypes);
  int rc = 0;
  for (long long k = 0; rc == 0 && k < count; ++k) {
    if (data_line(f, section, k, count, counted, err, errlen) != 0) {
      rc = -1;
      break;
    }
    const long line = f->r.line;
    const int nf = count_fields(f->r.buf), want = mass ? 2 : ij ? (nf == 5 ? 5 : 4) : 3;
    double v[5];
    const char *why = NULL;
    const char *form = mass ? "type mass" : ij ? "i j epsilon sigma [cutoff]" : "type epsilon sigma";
    if (pt_parse_numbers(f->r.buf, v, want, &why) != 0) {
      snprintf(err, errlen, "line %ld: expected '%s': %s", line, form, why);
      rc = -1;
    } else if (!is_int_in(v[0], 1, ntypes) || (ij && !is_int_in(v[1], v[0], ntypes))) {
      snprintf(err, errlen, "line %ld: %s: not a type in [1, %d]%s", line, form, ntypes,
               ij ? " with i <= j" : "");
      rc = -1;
    } else if (!ij && mark(seen, (long long)v[0] - 1)) {
      snprintf(err, errlen, "line %ld: type %d appears twice in %s", line, (int)v[0], section);
      rc = -1;
    } else if (mass && v[1] != 1.0) {
      snprintf(err, errlen, "line %ld: type %d has mass %.17g; the kit's model has m = 1 for every atom",
               line, (int)v[0], v[1]);
      rc = -1;
    } else if (!mass && (v[ij + 1] != 1.0 || v[ij + 2] != 1.0)) {
      snprintf(err, errlen, "line %ld: epsilon %.17g, sigma %.17g; the kit's model has epsilon = sigma = 1",
               line, v[ij + 1], v[ij + 2]);
      rc = -1;
    } else if (ij && want == 5 && v[4] != s->p->rc) {
      snprintf(err, errlen, "line %ld: pair %d %d has cutoff %.17g, the run's --rc is %.17g", line, (int)v[0],
               (int)v[1], v[4], s->p->rc);
      rc = -1;
    }
  }
  free(seen);
  return rc;
}

int pt_lammps_read_particles(const pt_params *p, pt_keep_fn keep, const void *arg, pt_particles *out,
                             int *types, char *err, size_t errlen) {
  lmp_read s = {.p = p, .err = err, .errlen = errlen};
  int got = open_header(&s.f, p->input, &s.h, err, errlen);
  if (got < 0) return -1;
  lmp_in *f = &s.f;
  const long long base = out ? out->n : 0;
  enum { S_ATOMS, S_VEL, S_MASS, S_PAIR, S_PAIRIJ, S_N };
  static const char *const names[S_N] = {"Atoms", "Velocities", "Masses", "Pair Coeffs", "PairIJ Coeffs"};
  int have[S_N] = {0}, rc = 0;
  while (rc == 0 && got == 1) {
    lmp_line l;
    split_line(f->r.buf, &l);
    int k = 0;
    while (k < S_N && strcmp(names[k], l.kw) != 0) ++k;
    char safe[100];
    if (k == S_N) {
      snprintf(err, errlen,
               "line %ld: section '%s' is not read: an atom_style atomic file has Atoms, Velocities, Masses, "
               "Pair Coeffs, PairIJ Coeffs",
               f->r.line, kit_printable(l.kw, safe, sizeof safe));
      rc = -1;
    } else if (have[k]) {
      snprintf(err, errlen, "line %ld: a second %s section", f->r.line, names[k]);
      rc = -1;
    } else if (k == S_VEL && !have[S_ATOMS]) {
      snprintf(err, errlen, "line %ld: the Velocities section comes before the Atoms section", f->r.line);
      rc = -1;
    } else if ((k == S_PAIR && have[S_PAIRIJ]) || (k == S_PAIRIJ && have[S_PAIR])) {
      snprintf(err, errlen, "line %ld: both Pair Coeffs and PairIJ Coeffs", f->r.line);
      rc = -1;
    }
    if (rc) break;
    have[k] = 1;
    if (k == S_ATOMS)
      rc = read_atoms(&s, keep, arg, out, types);
    else if (k == S_VEL)
      rc = read_velocities(&s, out, base);
    else
      rc = read_coeffs(&s, names[k]);
    if (rc) break;
    /* After a section's count of lines: another section, or the end of the file. */
    got = lmp_next(f);
    if (got < 0) {
      snprintf(err, errlen, "%s", f->r.err);
      rc = -1;
    } else if (got == 1 && starts_with_number(f->r.buf)) {
      snprintf(err, errlen, "line %ld: more lines in the %s section than the header gives", f->r.line,
               names[k]);
      rc = -1;
    }
  }
  if (rc == 0 && !have[S_ATOMS]) {
    snprintf(err, errlen, "line %lld: no Atoms section", f->r.in.lineno + 1);
    rc = -1;
  }
  pt_reader_close(&f->r);
  return rc;
}

void pt_lammps_write_frame(FILE *f, long long step, const double origin[3], const double box[3], int walls,
                           const double *rec, long long n, const int *types) {
  const char *b = walls ? "ff" : "pp";
  fprintf(f, "ITEM: TIMESTEP\n%lld\nITEM: NUMBER OF ATOMS\n%lld\nITEM: BOX BOUNDS %s %s %s\n", step, n, b, b,
          b);
  for (int a = 0; a < 3; ++a) fprintf(f, "%.17g %.17g\n", origin[a], origin[a] + box[a]);
  fprintf(f, "ITEM: ATOMS id type x y z vx vy vz\n");
  for (long long i = 0; i < n; ++i) {
    const double *r = rec + 10 * i;
    const long long id = (long long)r[0];
    fprintf(f, "%lld %d %.17g %.17g %.17g %.17g %.17g %.17g\n", id + 1, types ? types[id] : 1,
            r[1] + origin[0], r[2] + origin[1], r[3] + origin[2], r[4], r[5], r[6]);
  }
}
