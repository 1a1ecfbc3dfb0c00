/* checkpoint.c: checkpoint files (kit/checkpoint.h). */
#include "kit/checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char MAGIC[8] = {'K', 'I', 'T', 'C', 'K', 'P', 'T', '1'};

int kit_checkpoint_write(const char *path, const char *app, uint64_t step, const double *ident, int nident,
                         const double *data, uint64_t count) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
    errno = ENAMETOOLONG;
    return -1;
  }
  FILE *f = fopen(tmp, "wb");
  if (!f) return -1;
  char name[16] = {0};
  strncpy(name, app, sizeof name - 1);
  const uint64_t n = (uint64_t)nident;
  int ok = fwrite(MAGIC, 1, 8, f) == 8 && fwrite(name, 1, 16, f) == 16 && fwrite(&step, 8, 1, f) == 1 &&
           fwrite(&n, 8, 1, f) == 1 && fwrite(ident, sizeof *ident, (size_t)nident, f) == (size_t)nident &&
           fwrite(&count, 8, 1, f) == 1 && fwrite(data, sizeof *data, (size_t)count, f) == (size_t)count;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    const int e = errno;
    remove(tmp);
    errno = e ? e : EIO;
    return -1;
  }
  return 0;
}

/* The rest of the file, from the current position, is exactly count doubles. */
static int size_matches(FILE *f, uint64_t count) {
  const long here = ftell(f);
  if (here < 0 || fseek(f, 0, SEEK_END) != 0) return 0;
  const long end = ftell(f);
  if (end < 0 || fseek(f, here, SEEK_SET) != 0) return 0;
  return (uint64_t)(end - here) == count * sizeof(double);
}

int kit_checkpoint_read(const char *path, const char *app, const double *ident, int nident, uint64_t count,
                        uint64_t *step, double *data, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "cannot open: %s", strerror(errno));
    return -1;
  }
  char magic[8], name[16];
  uint64_t n = 0, c = 0;
  double id[KIT_CKPT_MAX_IDENT];
  int rc = -1;
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, MAGIC, 8) != 0) {
    snprintf(err, errlen, "not a kit checkpoint (bad magic)");
  } else if (fread(name, 1, 16, f) != 16 || fread(step, 8, 1, f) != 1 || fread(&n, 8, 1, f) != 1) {
    snprintf(err, errlen, "truncated header");
  } else if (name[15] != '\0' || strcmp(name, app) != 0) {
    snprintf(err, errlen, "written by another app");
  } else if (n != (uint64_t)nident || n > KIT_CKPT_MAX_IDENT || fread(id, sizeof *id, (size_t)n, f) != (size_t)n) {
    snprintf(err, errlen, "truncated or foreign parameter block");
  } else if (memcmp(id, ident, (size_t)n * sizeof *id) != 0) {
    snprintf(err, errlen, "written for other problem parameters (size, weights, init or seed differ)");
  } else if (fread(&c, 8, 1, f) != 1 || c != count) {
    snprintf(err, errlen, "holds %llu values, this problem has %llu", (unsigned long long)c,
             (unsigned long long)count);
  } else if (!size_matches(f, count)) {
    snprintf(err, errlen, "the file is not exactly one field long (truncated or trailing bytes)");
  } else if (data && fread(data, sizeof *data, (size_t)count, f) != (size_t)count) {
    snprintf(err, errlen, "truncated field data");
  } else if (data && fgetc(f) != EOF) {
    snprintf(err, errlen, "trailing bytes after the field");
  } else {
    rc = 0;
  }
  fclose(f);
  return rc;
}
