/* kit/report.h: the result of one run, printed as `key: value` lines on stdout and
 * appended as one JSON object (schema kit.result/1, docs/output-schema.md) to --json.
 * The driver fills it; variants never report. */
#ifndef KIT_REPORT_H
#define KIT_REPORT_H
#include <stdio.h>

#include "kit/json.h"
#include "kit/stats.h"
#ifdef __cplusplus
extern "C" {
#endif

enum { KIT_VERIFY_SKIPPED = 0, KIT_VERIFY_PASSED = 1, KIT_VERIFY_FAILED = 2 };
#define KIT_MAX_CHECKS 16
#define KIT_MAX_RESULTS 32

typedef struct kit_check {
  char name[48];    /* short identifier, e.g. "oracle_bitwise" */
  int status;       /* KIT_VERIFY_* */
  double value;     /* measured quantity */
  double limit;     /* what it is compared with */
  char detail[160]; /* one line for humans */
} kit_check;

typedef struct kit_result_kv {
  char key[40];
  double value;
  char unit[16];
} kit_result_kv;

typedef struct kit_report {
  const char *app, *variant;
  kit_json params; /* the app writes every problem parameter here (object members) */
  int ranks, threads, gpus;
  char device[256];
  double cpu_fraction; /* < 0: not applicable */
  kit_stats time;      /* seconds per repetition (max over ranks) */
  int reps, iters;
  const char *fom_name, *fom_unit;
  double fom;         /* from the median time */
  double bytes_model; /* bytes one step must move */
  double bandwidth_GBs, ceiling_GBs, fraction_of_ceiling;
  const char *ceiling_source;               /* "device triad", "host triad", ... */
  double messages_per_step, bytes_per_step; /* MPI, summed over ranks */
  int nphases;
  const char **phase_names;
  double *phase_secs;    /* per step */
  int verify;            /* KIT_VERIFY_* (overall) */
  const char *reference; /* what the result was compared with */
  double max_abs_diff, max_rel_diff;
  int nchecks;
  kit_check checks[KIT_MAX_CHECKS];
  int nresults;
  kit_result_kv results[KIT_MAX_RESULTS];
} kit_report;

void kit_report_init(kit_report *r, const char *app, const char *variant);
void kit_report_free(kit_report *r);
/* Adds a named check; updates the overall status (a failed check fails the run). */
void kit_report_check(kit_report *r, const char *name, int status, double value, double limit,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Adds an app result (e.g. "l2_norm"). */
void kit_report_result(kit_report *r, const char *key, double value, const char *unit);
/* Human-readable `key: value` lines ending with verification and the figure of merit. */
void kit_report_print(const kit_report *r, FILE *f);
/* Appends one JSON line to path ("-" = stdout) by kit_append_line. Returns 0, or -1 with
 * errno set on I/O failure. */
int kit_report_json(const kit_report *r, const char *path);
/* Appends text and a newline to path ("-": stdout) as a whole line or not at all: one
 * O_APPEND write, and a partial one (full disk, file size limit) cut off again with
 * ftruncate; a file that does not end in a newline (torn by an older build) gets one first,
 * so the line is not glued to the torn one. Returns 0, or -1 with errno set. */
int kit_append_line(const char *path, const char *text);
/* Process exit code for the run's verification status. */
int kit_report_exit_code(const kit_report *r);

#ifdef __cplusplus
}
#endif
#endif
