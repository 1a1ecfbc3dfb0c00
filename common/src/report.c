/* report.c: `key: value` lines and the kit.result/1 JSON line (kit/report.h,
 * docs/output-schema.md). */
/* pread, ftruncate, O_CLOEXEC are POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "kit/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit/check.h"
#include "kit/version.h"

static const char *status_word(int s) {
  return s == KIT_VERIFY_PASSED ? "PASSED" : s == KIT_VERIFY_FAILED ? "FAILED" : "SKIPPED";
}

void kit_report_init(kit_report *r, const char *app, const char *variant) {
  memset(r, 0, sizeof *r);
  r->app = app;
  r->variant = variant;
  r->cpu_fraction = -1.0;
  r->verify = KIT_VERIFY_SKIPPED;
  r->reference = "none";
  kit_json_init(&r->params);
  kit_json_begin_object(&r->params, NULL);
}

void kit_report_free(kit_report *r) {
  kit_json_free(&r->params);
}

void kit_report_check(kit_report *r, const char *name, int status, double value, double limit,
                      const char *fmt, ...) {
  if (r->nchecks == KIT_MAX_CHECKS) return;
  kit_check *c = &r->checks[r->nchecks++];
  snprintf(c->name, sizeof c->name, "%s", name);
  c->status = status;
  c->value = value;
  c->limit = limit;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->detail, sizeof c->detail, fmt, ap);
  va_end(ap);
  if (status == KIT_VERIFY_FAILED)
    r->verify = KIT_VERIFY_FAILED;
  else if (status == KIT_VERIFY_PASSED && r->verify == KIT_VERIFY_SKIPPED)
    r->verify = KIT_VERIFY_PASSED;
}

void kit_report_result(kit_report *r, const char *key, double value, const char *unit) {
  /* A result that does not fit is a bug in the app, not in its input: say so, rather than
   * drop it or cut its name or unit short in the report and the JSON line. */
  if (!unit) unit = "";
  if (r->nresults == KIT_MAX_RESULTS)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "report: more than %d results (at '%s')", KIT_MAX_RESULTS,
            key);
  kit_result_kv *kv = &r->results[r->nresults];
  if (strlen(key) >= sizeof kv->key || strlen(unit) >= sizeof kv->unit)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "report: result '%s' [%s]: name or unit too long (at most %zu and %zu characters)", key, unit,
            sizeof kv->key - 1, sizeof kv->unit - 1);
  r->nresults++;
  snprintf(kv->key, sizeof kv->key, "%s", key);
  snprintf(kv->unit, sizeof kv->unit, "%s", unit);
  kv->value = value;
}

void kit_report_print(const kit_report *r, FILE *f) {
  fprintf(f, "%-28s %s\n", "app:", r->app);
  fprintf(f, "%-28s %s\n", "variant:", r->variant);
  fprintf(f, "%-28s %d x %d threads, %d GPUs\n", "ranks:", r->ranks, r->threads, r->gpus);
  fprintf(f, "%-28s %s\n", "device:", r->device);
  if (r->cpu_fraction >= 0.0) fprintf(f, "%-28s %.4f\n", "cpu_fraction:", r->cpu_fraction);
  fprintf(f, "%-28s min %.6g  median %.6g  max %.6g  (%d reps x %d steps)\n", "time_s:", r->time.min,
          r->time.median, r->time.max, r->reps, r->iters);
  for (int i = 0; i < r->nresults; ++i) {
    char k[48];
    snprintf(k, sizeof k, "%s:", r->results[i].key);
    fprintf(f, "%-28s %.10g %s\n", k, r->results[i].value, r->results[i].unit);
  }
  fprintf(f, "%-28s %.6g GB/s of %.6g GB/s %s = %.1f%%\n", "bandwidth:", r->bandwidth_GBs, r->ceiling_GBs,
          r->ceiling_source ? r->ceiling_source : "", 100.0 * r->fraction_of_ceiling);
  if (r->messages_per_step > 0)
    fprintf(f, "%-28s %.6g messages, %.6g bytes per step\n", "mpi:", r->messages_per_step, r->bytes_per_step);
  for (int i = 0; i < r->nchecks; ++i) {
    char k[64];
    snprintf(k, sizeof k, "check %s:", r->checks[i].name);
    fprintf(f, "%-28s %s  %s\n", k, status_word(r->checks[i].status), r->checks[i].detail);
  }
  if (r->verify != KIT_VERIFY_SKIPPED)
    fprintf(f, "%-28s %.6g (max_rel_diff %.6g) vs %s\n", "max_abs_diff:", r->max_abs_diff, r->max_rel_diff,
            r->reference);
  fprintf(f, "%-28s %s\n", "verification:", status_word(r->verify));
  fprintf(f, "%-28s %.6g %s\n", "fom:", r->fom, r->fom_unit ? r->fom_unit : "");
  fflush(f);
}

int kit_report_json(const kit_report *r, const char *path) {
  kit_json j;
  kit_json_init(&j);
  kit_json_begin_object(&j, NULL);
  kit_json_string(&j, "schema", "kit.result/1");
  kit_json_string(&j, "app", r->app);
  kit_json_string(&j, "variant", r->variant);
  kit_json_string(&j, "version", KIT_VERSION);
  kit_json_string(&j, "git", KIT_GIT);
  kit_json_raw(&j, "params", r->params.buf); /* closed by the driver */
  kit_json_int(&j, "ranks", r->ranks);
  kit_json_int(&j, "threads", r->threads);
  kit_json_int(&j, "gpus", r->gpus);
  kit_json_string(&j, "device", r->device);
  if (r->cpu_fraction >= 0.0)
    kit_json_number(&j, "cpu_fraction", r->cpu_fraction);
  else
    kit_json_raw(&j, "cpu_fraction", "null");
  kit_json_begin_object(&j, "time_s");
  kit_json_number(&j, "min", r->time.min);
  kit_json_number(&j, "median", r->time.median);
  kit_json_number(&j, "max", r->time.max);
  kit_json_int(&j, "reps", r->reps);
  kit_json_int(&j, "steps", r->iters);
  kit_json_end_object(&j);
  kit_json_begin_object(&j, "fom");
  kit_json_string(&j, "name", r->fom_name);
  kit_json_number(&j, "value", r->fom);
  kit_json_string(&j, "unit", r->fom_unit);
  kit_json_end_object(&j);
  kit_json_number(&j, "bytes_model", r->bytes_model);
  kit_json_number(&j, "bandwidth_GBs", r->bandwidth_GBs);
  kit_json_number(&j, "ceiling_GBs", r->ceiling_GBs);
  kit_json_string(&j, "ceiling_source", r->ceiling_source);
  kit_json_number(&j, "fraction_of_ceiling", r->fraction_of_ceiling);
  kit_json_begin_object(&j, "phases");
  for (int i = 0; i < r->nphases; ++i) kit_json_number(&j, r->phase_names[i], r->phase_secs[i]);
  kit_json_end_object(&j);
  kit_json_begin_object(&j, "messages");
  kit_json_number(&j, "per_step", r->messages_per_step);
  kit_json_number(&j, "bytes_per_step", r->bytes_per_step);
  kit_json_end_object(&j);
  kit_json_begin_object(&j, "results");
  for (int i = 0; i < r->nresults; ++i) kit_json_number(&j, r->results[i].key, r->results[i].value);
  kit_json_end_object(&j);
  kit_json_begin_object(&j, "verify");
  kit_json_string(&j, "status", status_word(r->verify));
  kit_json_string(&j, "reference", r->reference);
  kit_json_number(&j, "max_abs_diff", r->max_abs_diff);
  kit_json_number(&j, "max_rel_diff", r->max_rel_diff);
  kit_json_begin_array(&j, "checks");
  for (int i = 0; i < r->nchecks; ++i) {
    const kit_check *c = &r->checks[i];
    kit_json_begin_object(&j, NULL);
    kit_json_string(&j, "name", c->name);
    kit_json_string(&j, "status", status_word(c->status));
    kit_json_number(&j, "value", c->value);
    kit_json_number(&j, "limit", c->limit);
    kit_json_string(&j, "detail", c->detail);
    kit_json_end_object(&j);
  }
  kit_json_end_array(&j);
  kit_json_end_object(&j);
  kit_json_end_object(&j);
  const int rc = kit_append_line(path, j.buf);
  const int e = errno;
  kit_json_free(&j);
  errno = e;
  return rc;
}

/* write() until all of buf is out; returns the bytes written, with errno set when short. */
static size_t write_all(int fd, const char *buf, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t w = write(fd, buf + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      break;
    }
    done += (size_t)w;
  }
  return done;
}

int kit_append_line(const char *path, const char *text) {
  const size_t n = strlen(text);
  /* Whatever stdout holds goes first, so that "-" or /dev/stdout keep the order. */
  if (fflush(stdout) != 0) return -1;
  if (strcmp(path, "-") == 0) {
    if (fwrite(text, 1, n, stdout) != n || fputc('\n', stdout) == EOF || fflush(stdout) != 0) return -1;
    return 0;
  }
  /* O_RDWR to read the last byte; O_WRONLY where the file may be written but not read. */
  int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  const int readable = fd >= 0;
  if (fd < 0) fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  const int regular = S_ISREG(st.st_mode);
  /* A line torn by an older build (no newline at the end): start on a line of our own. */
  char last = '\n';
  if (regular && readable && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1) last = '\n';
  const size_t lead = last != '\n';
  char *line = malloc(n + 2);
  if (!line) {
    close(fd);
    errno = ENOMEM;
    return -1;
  }
  line[0] = '\n';
  memcpy(line + lead, text, n);
  line[lead + n] = '\n';
  const size_t len = lead + n + 1;
  /* One write of the whole line: with O_APPEND it lands at the end as one piece. */
  const size_t done = write_all(fd, line, len);
  int e = errno, rc = 0;
  if (done < len) {
    rc = -1;
    /* Cut a partial line off again, unless another writer has appended after it. */
    struct stat now;
    const off_t end = lseek(fd, 0, SEEK_CUR);
    if (regular && done > 0 && end >= (off_t)done && fstat(fd, &now) == 0 && now.st_size == end)
      (void)ftruncate(fd, end - (off_t)done);
  }
  if (close(fd) != 0 && rc == 0) {
    rc = -1;
    e = errno;
  }
  free(line);
  errno = e;
  return rc;
}

int kit_report_exit_code(const kit_report *r) {
  return r->verify == KIT_VERIFY_FAILED ? 1 : 0;
}
