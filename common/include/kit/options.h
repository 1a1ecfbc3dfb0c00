/* kit/options.h: declarative command-line option tables on getopt_long.
 * One table per app lists every flag once: its name, type, destination, bounds and help
 * text. The same table drives parsing, the rejection of bad input (one line naming the
 * flag and the rule, exit 2) and --help. Pattern: CoMD src-mpi/mycommand.c.
 * The flags every app shares (DESIGN.md Sec. 4) live in struct kit_run and come from
 * kit_run_options(). */
#ifndef KIT_OPTIONS_H
#define KIT_OPTIONS_H
#include <stdint.h>
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum kit_opt_type {
  KIT_OPT_END = 0, /* terminates a table */
  KIT_OPT_FLAG,    /* no argument: stores `flag_value` into an int */
  KIT_OPT_INT,     /* integer within [min, max] */
  KIT_OPT_U64,     /* unsigned 64-bit integer (seeds) */
  KIT_OPT_DOUBLE,  /* finite double within [min, max] */
  KIT_OPT_STRING,  /* any string (file names, enumerations checked by `choices`) */
  KIT_OPT_CUSTOM   /* parsed by `parse` */
} kit_opt_type;

/* A custom parser: returns 0 and fills *dest, or returns -1 with a reason in err. */
typedef int (*kit_opt_parser)(const char *arg, void *dest, char *err, size_t errlen);

typedef struct kit_option {
  const char *name;     /* long name without the dashes */
  kit_opt_type type;    /* how the argument is read */
  void *dest;           /* where the value goes */
  const char *metavar;  /* argument name shown in --help (NULL for flags) */
  const char *help;     /* one line for --help; the default is appended */
  double min, max;      /* bounds for INT and DOUBLE (min > max: unbounded) */
  int flag_value;       /* value a FLAG stores */
  const char *choices;  /* STRING: allowed values separated by '|', or NULL */
  kit_opt_parser parse; /* CUSTOM parser */
  int *given;           /* set to 1 when the flag appears (may be NULL) */
  /* The variants the flag applies to (kit_option_applies): NULL every one; "hybrid" or
   * "naive|two-stream|hybrid" only those; "!cpu" every one but those; "" none of this app's
   * (a shared flag the app does not take: hidden from --help, refused when given). */
  const char *variants;
  int seen; /* set by kit_parse when the flag appears */
} kit_option;

/* Flags common to every app (DESIGN.md Sec. 4). */
typedef struct kit_run {
  const char *variant;    /* --variant NAME (or "list") */
  int iters;              /* --iters: time steps per repetition */
  int warmup;             /* --warmup: untimed steps before the first repetition */
  int reps;               /* --reps: timed repetitions; min/median/max over them */
  int gpus;               /* --gpus: GPUs a node uses (0: all visible) */
  int gpus_given;         /* set when --gpus appears */
  double cpu_fraction;    /* --cpu-fraction F (hybrid only); <0 means auto */
  int cpu_fraction_given; /* set when --cpu-fraction appears */
  int verify;             /* --verify / --no-verify */
  const char *json;       /* --json FILE or "-" */
  const char *trace;      /* --trace FILE: Chrome trace-event timeline */
  uint64_t seed;          /* --seed */
  int measure_ceilings;   /* --measure-ceilings: re-measure instead of the cache */
  const char *checkpoint; /* --checkpoint FILE: write the state (time-stepping apps) */
  int checkpoint_every;   /* --checkpoint-every N: every N steps of the last repetition */
  const char *restart;    /* --restart FILE: start from a checkpoint */
  int quiet;              /* --quiet: no progress lines on stderr */
  int help;               /* --help */
} kit_run;

/* Defaults every app starts from; the app may change them before parsing. */
kit_run kit_run_defaults(void);

/* Writes the common options into `out` (room for at least KIT_RUN_NOPTS entries)
 * and returns how many were written. */
#define KIT_RUN_NOPTS 18
int kit_run_options(kit_run *run, kit_option *out);

/* The row of `name` in a table, to change what an app's use of a shared flag means (its
 * `variants`, as bfs's "" for --iters); NULL if there is none. */
kit_option *kit_option_named(kit_option *opts, const char *name);

enum { KIT_PARSE_OK = 0, KIT_PARSE_HELP = 1, KIT_PARSE_ERROR = 2 };

/* Parses argv against `opts` (terminated by KIT_OPT_END). On error writes one line
 * "<prog>: <reason>" into err and returns KIT_PARSE_ERROR; on --help returns KIT_PARSE_HELP. */
int kit_parse(int argc, char **argv, kit_option *opts, char *err, size_t errlen);

/* After kit_parse, once the variant is known: 0 if every flag given applies to `variant`
 * (the rows' `variants`); otherwise -1 with one line in err, "<app>: --no-p2p applies only
 * to --variant multi-thread", "--gpus does not apply to --variant cpu" or "--iters does not
 * apply to bfs", so the table that makes --help also makes the refusals. */
int kit_option_applies(const kit_option *opts, const char *app, const char *variant, char *err,
                       size_t errlen);

/* 1 if `variant` is among `variants` (a row's mask: NULL all, "a|b" those, "!a" all but). */
int kit_variant_in(const char *variants, const char *variant);

/* Prints usage generated from the table: rows that apply to no variant are left out, rows
 * that apply to some say which ("hybrid only", "not cpu"). */
void kit_print_help(FILE *f, const char *prog, const char *summary, const kit_option *opts);

/* Parsers shared by apps: "N" or "NX,NY,NZ" into int[3] with every entry >= 1. */
int kit_parse_size3(const char *arg, void *dest, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
