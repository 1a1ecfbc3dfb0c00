/* options.c: declarative option tables on getopt_long (kit/options.h). */
#include "kit/options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

kit_run kit_run_defaults(void) {
  kit_run r;
  memset(&r, 0, sizeof r);
  r.variant = "cpu";
  r.iters = 10;
  r.warmup = 2;
  r.reps = 3;
  r.gpus = 0;
  r.cpu_fraction = -1.0;
  r.verify = 1;
  r.seed = 42;
  return r;
}

static int parse_cpu_fraction(const char *arg, void *dest, char *err, size_t n) {
  double *f = dest;
  if (strcmp(arg, "auto") == 0) {
    *f = -1.0;
    return 0;
  }
  char *end = NULL;
  errno = 0;
  const double v = strtod(arg, &end);
  if (errno || end == arg || *end || !isfinite(v) || v < 0.0 || v >= 1.0) {
    snprintf(err, n, "'%s' is not 'auto' or a number in [0, 1)", arg);
    return -1;
  }
  *f = v;
  return 0;
}

int kit_run_options(kit_run *r, kit_option *o) {
  const kit_option opts[KIT_RUN_NOPTS] = {
      {"variant", KIT_OPT_STRING, &r->variant, "NAME", "variant to run, or 'list'", 1, 0, 0, NULL, NULL,
       NULL},
      {"iters", KIT_OPT_INT, &r->iters, "N", "time steps per timed repetition", 1, 1e9, 0, NULL, NULL, NULL},
      {"warmup", KIT_OPT_INT, &r->warmup, "N", "untimed steps before timing", 0, 1e9, 0, NULL, NULL, NULL},
      {"reps", KIT_OPT_INT, &r->reps, "N", "timed repetitions (min/median/max reported)", 1, 1e6, 0, NULL,
       NULL, NULL},
      {"gpus", KIT_OPT_INT, &r->gpus, "N", "GPUs used per node (0: all visible)", 0, 1024, 0, NULL, NULL,
       &r->gpus_given, "!cpu"},
      {"cpu-fraction", KIT_OPT_CUSTOM, &r->cpu_fraction, "F|auto",
       "CPU share of each rank's work (auto: from the measured triads)", 1, 0, 0, NULL, parse_cpu_fraction,
       &r->cpu_fraction_given, "hybrid"},
      {"verify", KIT_OPT_FLAG, &r->verify, NULL, "check the result (default)", 1, 0, 1, NULL, NULL, NULL},
      {"no-verify", KIT_OPT_FLAG, &r->verify, NULL, "skip the check", 1, 0, 0, NULL, NULL, NULL},
      {"json", KIT_OPT_STRING, &r->json, "FILE", "append one JSON result line to FILE ('-': stdout)", 1, 0, 0,
       NULL, NULL, NULL},
      {"trace", KIT_OPT_STRING, &r->trace, "FILE",
       "write a Chrome trace-event timeline of the profiled steps", 1, 0, 0, NULL, NULL, NULL},
      {"seed", KIT_OPT_U64, &r->seed, "S", "random seed (Philox key)", 1, 0, 0, NULL, NULL, NULL},
      {"measure-ceilings", KIT_OPT_FLAG, &r->measure_ceilings, NULL, "re-measure the bandwidth ceilings", 1,
       0, 1, NULL, NULL, NULL},
      {"checkpoint", KIT_OPT_STRING, &r->checkpoint, "FILE",
       "write the state to FILE (at the end, or see --checkpoint-every)", 1, 0, 0, NULL, NULL, NULL},
      {"checkpoint-every", KIT_OPT_INT, &r->checkpoint_every, "N",
       "with --checkpoint: every N steps of the last repetition", 1, 1e9, 0, NULL, NULL, NULL},
      {"restart", KIT_OPT_STRING, &r->restart, "FILE",
       "start from a checkpoint and run up to --iters steps in all", 1, 0, 0, NULL, NULL, NULL},
      {"quiet", KIT_OPT_FLAG, &r->quiet, NULL,
       "no progress lines on stderr (a long run prints one every 10 s)", 1, 0, 1, NULL, NULL, NULL},
      {"help", KIT_OPT_FLAG, &r->help, NULL, "print this help", 1, 0, 1, NULL, NULL, NULL},
      {NULL, KIT_OPT_END, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  int n = 0;
  for (; opts[n].type != KIT_OPT_END; ++n) o[n] = opts[n];
  return n;
}

kit_option *kit_option_named(kit_option *opts, const char *name) {
  for (int i = 0; opts[i].type != KIT_OPT_END; ++i)
    if (strcmp(opts[i].name, name) == 0) return &opts[i];
  return NULL;
}

static int count_opts(const kit_option *opts) {
  int n = 0;
  while (opts[n].type != KIT_OPT_END) n++;
  return n;
}

static int bounded(const kit_option *o) {
  return o->min <= o->max;
}

/* strtoll, strtoull and strtod skip leading spaces, and strtoull takes a minus sign and
 * wraps (" -1" would be 2^64-1): a number must start with a digit, after a sign where
 * `sign` allows one (not for unsigned values) and a '.' where `point` does (".5"). */
static int starts_number(const char *arg, int sign, int point) {
  if (sign && (*arg == '-' || *arg == '+')) arg++;
  if (point && *arg == '.') arg++;
  return *arg >= '0' && *arg <= '9';
}

static int set_value(kit_option *o, const char *arg, char *err, size_t n) {
  char *end = NULL;
  errno = 0;
  switch (o->type) {
    case KIT_OPT_FLAG:
      *(int *)o->dest = o->flag_value;
      return 0;
    case KIT_OPT_INT: {
      if (!starts_number(arg, 1, 0)) {
        snprintf(err, n, "--%s: '%s' is not an integer", o->name, arg);
        return -1;
      }
      const long long v = strtoll(arg, &end, 10);
      if (errno || end == arg || *end) {
        snprintf(err, n, "--%s: '%s' is not an integer", o->name, arg);
        return -1;
      }
      if (bounded(o) && (v < o->min || v > o->max)) {
        snprintf(err, n, "--%s: %lld is out of range [%.0f, %.0f]", o->name, v, o->min, o->max);
        return -1;
      }
      *(int *)o->dest = (int)v;
      return 0;
    }
    case KIT_OPT_U64: {
      if (!starts_number(arg, 0, 0)) {
        snprintf(err, n, "--%s: '%s' is not a non-negative integer", o->name, arg);
        return -1;
      }
      const unsigned long long v = strtoull(arg, &end, 10);
      if (errno || end == arg || *end) {
        snprintf(err, n, "--%s: '%s' is not a non-negative integer", o->name, arg);
        return -1;
      }
      *(uint64_t *)o->dest = (uint64_t)v;
      return 0;
    }
    case KIT_OPT_DOUBLE: {
      /* A leading '.' is a number too (".5"); spaces, "inf", "nan" and hex are not. */
      const double v = strtod(arg, &end);
      if (!starts_number(arg, 1, 1) || errno || end == arg || *end || !isfinite(v) || strpbrk(arg, "xX")) {
        snprintf(err, n, "--%s: '%s' is not a finite number", o->name, arg);
        return -1;
      }
      if (bounded(o) && (v < o->min || v > o->max)) {
        snprintf(err, n, "--%s: %g is out of range [%g, %g]", o->name, v, o->min, o->max);
        return -1;
      }
      *(double *)o->dest = v;
      return 0;
    }
    case KIT_OPT_STRING:
      if (o->choices) {
        const size_t len = strlen(arg);
        const char *c = o->choices;
        int ok = 0;
        while (*c) {
          const size_t clen = strcspn(c, "|");
          if (clen == len && strncmp(c, arg, len) == 0) ok = 1;
          c += clen;
          if (*c == '|') c++;
        }
        if (!ok) {
          snprintf(err, n, "--%s: '%s' is not one of %s", o->name, arg, o->choices);
          return -1;
        }
      }
      *(const char **)o->dest = arg;
      return 0;
    case KIT_OPT_CUSTOM: {
      char why[200] = "invalid value";
      if (o->parse(arg, o->dest, why, sizeof why) != 0) {
        snprintf(err, n, "--%s: %s", o->name, why);
        return -1;
      }
      return 0;
    }
    default:
      return -1;
  }
}

/* getopt_long takes any unambiguous prefix ("--it" for --iters) and says only '?' for an
 * ambiguous one: list the options `arg` ("--i" or "--i=5") could abbreviate, comma-separated,
 * into out; returns how many there are. */
static int prefix_candidates(const kit_option *opts, int n, const char *arg, char *out, size_t outlen) {
  out[0] = '\0';
  if (strncmp(arg, "--", 2) != 0) return 0;
  const char *name = arg + 2;
  const size_t len = strcspn(name, "=");
  if (len == 0) return 0;
  int count = 0;
  size_t used = 0;
  for (int i = 0; i < n; ++i) {
    if (strncmp(opts[i].name, name, len) != 0) continue;
    const int w = snprintf(out + used, outlen - used, "%s--%s", count ? ", " : "", opts[i].name);
    if (w > 0 && used + (size_t)w < outlen) used += (size_t)w;
    count++;
  }
  return count;
}

/* Two spellings of one setting (two rows with the same destination, as ising's --sweeps and
 * --iters were) given together would silently keep the last: the option already given that shares option i's
 * destination under another name, or NULL. Flags are exempt (--verify ... --no-verify is
 * an override), and so is repeating the very same option, as scripts do to override a
 * default they were handed. */
static const kit_option *same_setting(const kit_option *opts, int n, const char *seen, int i) {
  if (opts[i].type == KIT_OPT_FLAG) return NULL;
  for (int k = 0; k < n; ++k)
    if (k != i && seen[k] && opts[k].type != KIT_OPT_FLAG && opts[k].dest == opts[i].dest) return &opts[k];
  return NULL;
}

int kit_parse(int argc, char **argv, kit_option *opts, char *err, size_t errlen) {
  const int n = count_opts(opts);
  struct option *lo = calloc((size_t)n + 1, sizeof *lo);
  char *seen = calloc((size_t)n + 1, 1); /* options given so far */
  if (!lo || !seen) {
    free(lo);
    free(seen);
    snprintf(err, errlen, "%s: out of memory parsing the options", argv[0]);
    return KIT_PARSE_ERROR;
  }
  for (int i = 0; i < n; ++i) {
    opts[i].seen = 0;
    lo[i].name = opts[i].name;
    lo[i].has_arg = opts[i].type == KIT_OPT_FLAG ? no_argument : required_argument;
    lo[i].flag = NULL;
    lo[i].val = 256 + i;
  }
  const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  int rc = KIT_PARSE_OK;
  opterr = 0; /* our own one-line messages instead of getopt's */
#ifdef __GLIBC__
  optind = 0; /* glibc: a full reset, also of the position inside a cluster of short options */
#else
  optind = 1;
#endif
  for (;;) {
    int idx = -1;
    const int c = getopt_long(argc, argv, ":", lo, &idx);
    if (c == -1) break;
    if (c == '?') {
      const char *bad = argv[optind - 1];
      char cands[256];
      if (optopt >= 256 && optopt < 256 + n)
        snprintf(err, errlen, "%s: option '--%s' takes no value", prog, opts[optopt - 256].name);
      else if (optopt > 0 && optopt < 128)
        snprintf(err, errlen, "%s: unknown option '-%c' (see --help)", prog, optopt);
      else if (prefix_candidates(opts, n, bad, cands, sizeof cands) > 1)
        snprintf(err, errlen, "%s: ambiguous option '%s' (could be %s)", prog, bad, cands);
      else
        snprintf(err, errlen, "%s: unknown option '%s' (see --help)", prog, bad);
      rc = KIT_PARSE_ERROR;
      break;
    }
    if (c == ':') {
      snprintf(err, errlen, "%s: option '%s' needs a value", prog, argv[optind - 1]);
      rc = KIT_PARSE_ERROR;
      break;
    }
    kit_option *o = &opts[c - 256];
    const kit_option *twin = same_setting(opts, n, seen, c - 256);
    if (twin) {
      snprintf(err, errlen, "%s: --%s and --%s set the same thing; give one of them", prog, twin->name,
               o->name);
      rc = KIT_PARSE_ERROR;
      break;
    }
    seen[c - 256] = 1;
    o->seen = 1;
    char why[300];
    if (set_value(o, optarg, why, sizeof why) != 0) {
      snprintf(err, errlen, "%s: %s", prog, why);
      rc = KIT_PARSE_ERROR;
      break;
    }
    if (o->given) *o->given = 1;
    if (strcmp(o->name, "help") == 0) rc = KIT_PARSE_HELP;
  }
  if (rc == KIT_PARSE_OK && optind < argc) {
    snprintf(err, errlen, "%s: unexpected argument '%s' (see --help)", prog, argv[optind]);
    rc = KIT_PARSE_ERROR;
  }
  free(lo);
  free(seen);
  /* The message echoes what the user typed: keep it one printable line whatever that was
   * (found by tests/fuzz/fuzz_options.c). */
  if (rc == KIT_PARSE_ERROR)
    for (char *c = err; *c; ++c)
      if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f) *c = '?';
  return rc;
}

static void print_default(FILE *f, const kit_option *o) {
  /* A row whose help ends in "[...]" states its default itself (lbm's --re: it depends on
   * the case), so the destination's starting value would say something else. */
  const size_t len = strlen(o->help);
  if (len > 0 && o->help[len - 1] == ']') return;
  switch (o->type) {
    case KIT_OPT_INT:
      fprintf(f, " [%d]", *(const int *)o->dest);
      break;
    case KIT_OPT_U64:
      fprintf(f, " [%llu]", (unsigned long long)*(const uint64_t *)o->dest);
      break;
    case KIT_OPT_DOUBLE:
      fprintf(f, " [%g]", *(const double *)o->dest);
      break;
    case KIT_OPT_STRING:
      if (*(const char *const *)o->dest) fprintf(f, " [%s]", *(const char *const *)o->dest);
      break;
    default:
      break;
  }
}

/* Whether `variant` is in the '|'-separated list `names`. */
static int listed(const char *names, const char *variant) {
  const size_t len = strlen(variant);
  for (const char *c = names; *c;) {
    const size_t clen = strcspn(c, "|");
    if (clen == len && strncmp(c, variant, len) == 0) return 1;
    c += clen;
    if (*c == '|') c++;
  }
  return 0;
}

/* Whether a row with this `variants` value applies to `variant` (NULL: every one). */
int kit_variant_in(const char *variants, const char *variant) {
  if (!variants) return 1;
  if (variants[0] == '!') return !listed(variants + 1, variant);
  return listed(variants, variant);
}

/* The list "a|b|c" as "a, b and c" into out. */
static void spoken_list(const char *names, char *out, size_t n) {
  size_t used = 0;
  out[0] = '\0';
  for (const char *c = names; *c;) {
    const size_t clen = strcspn(c, "|");
    const char *next = c + clen + (c[clen] == '|');
    const char *sep = used == 0 ? "" : (*next ? ", " : " and ");
    const int w = snprintf(out + used, n - used, "%s%.*s", sep, (int)clen, c);
    if (w < 0 || used + (size_t)w >= n) break;
    used += (size_t)w;
    c = next;
  }
}

int kit_option_applies(const kit_option *opts, const char *app, const char *variant, char *err,
                       size_t errlen) {
  for (int i = 0; opts[i].type != KIT_OPT_END; ++i) {
    const kit_option *o = &opts[i];
    if (!o->seen || kit_variant_in(o->variants, variant)) continue;
    char names[256];
    if (o->variants[0] == '\0') {
      snprintf(err, errlen, "%s: --%s does not apply to %s", app, o->name, app);
    } else if (o->variants[0] == '!') {
      spoken_list(o->variants + 1, names, sizeof names);
      snprintf(err, errlen, "%s: --%s does not apply to --variant %s", app, o->name, names);
    } else {
      spoken_list(o->variants, names, sizeof names);
      snprintf(err, errlen, "%s: --%s applies only to --variant %s", app, o->name, names);
    }
    return -1;
  }
  return 0;
}

void kit_print_help(FILE *f, const char *prog, const char *summary, const kit_option *opts) {
  fprintf(f, "usage: %s [options]\n%s\n\noptions:\n", prog, summary);
  for (int i = 0; opts[i].type != KIT_OPT_END; ++i) {
    const kit_option *o = &opts[i];
    if (o->variants && o->variants[0] == '\0') continue; /* not one of this app's flags */
    char lhs[64];
    snprintf(lhs, sizeof lhs, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
    fprintf(f, "  %-24s %s", lhs, o->help);
    if (o->choices) fprintf(f, " (%s)", o->choices);
    print_default(f, o);
    if (o->variants) {
      char names[256];
      spoken_list(o->variants + (o->variants[0] == '!'), names, sizeof names);
      fprintf(f, o->variants[0] == '!' ? " {not %s}" : " {%s only}", names);
    }
    fputc('\n', f);
  }
}

int kit_parse_size3(const char *arg, void *dest, char *err, size_t n) {
  int *s = dest;
  long v[3];
  int k = 0;
  const char *p = arg;
  while (k < 3) {
    char *end = NULL;
    errno = 0;
    v[k] = strtol(p, &end, 10);
    if (!starts_number(p, 1, 0) || errno || end == p || (*end && *end != ',')) {
      snprintf(err, n, "'%s' is not N or NX,NY,NZ with positive integers", arg);
      return -1;
    }
    if (v[k] < 1 || v[k] > 1000000) {
      snprintf(err, n, "'%s': every size must be in [1, 1000000]", arg);
      return -1;
    }
    k++;
    if (!*end) break;
    p = end + 1;
  }
  if (k == 1) v[1] = v[2] = v[0];
  if (k == 2) {
    snprintf(err, n, "'%s' is not N or NX,NY,NZ", arg);
    return -1;
  }
  /* Anything after the third number? */
  {
    int commas = 0;
    for (const char *c = arg; *c; ++c) commas += *c == ',';
    if (commas != 0 && commas != 2) {
      snprintf(err, n, "'%s' is not N or NX,NY,NZ", arg);
      return -1;
    }
  }
  s[0] = (int)v[0];
  s[1] = (int)v[1];
  s[2] = (int)v[2];
  return 0;
}
