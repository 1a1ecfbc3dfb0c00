/* checkpoint.c: checkpoint files (kit/checkpoint.h). */
#define _POSIX_C_SOURCE 200809L /* fsync, fileno, open */

#include "kit/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kit/check.h"

static const char MAGIC[8] = {'K', 'I', 'T', 'C', 'K', 'P', 'T', '2'};

#define FNV_OFFSET 14695981039346656037ull

static uint64_t fnv_update(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t kit_fnv1a64(const void *data, size_t n) { return fnv_update(FNV_OFFSET, data, n); }

/* Reads `bytes` bytes from f into data, or (data NULL) through a small buffer, and returns
 * 0 with their checksum in *sum, or -1 if the file ends early. */
static int read_summed(FILE *f, void *data, uint64_t bytes, uint64_t *sum) {
  if (data) {
    if (fread(data, 1, (size_t)bytes, f) != (size_t)bytes) return -1;
    *sum = kit_fnv1a64(data, (size_t)bytes);
    return 0;
  }
  unsigned char buf[1 << 16];
  uint64_t h = FNV_OFFSET;
  while (bytes > 0) {
    const size_t want = bytes < sizeof buf ? (size_t)bytes : sizeof buf;
    if (fread(buf, 1, want, f) != want) return -1;
    h = fnv_update(h, buf, want);
    bytes -= want;
  }
  *sum = h;
  return 0;
}

/* The folder holding path, fsync'ed so that the rename itself is on disk. */
static void sync_folder(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash) {
    strcpy(dir, ".");
  } else {
    const size_t n = (size_t)(slash - path);
    if (n >= sizeof dir) return;
    memcpy(dir, path, n);
    dir[n ? n : 1] = '\0';
    if (n == 0) dir[0] = '/';
  }
  const int fd = open(dir, O_RDONLY);
  if (fd >= 0) {
    (void)fsync(fd); /* best effort: some file systems refuse fsync on folders */
    close(fd);
  }
}

int kit_checkpoint_write(const char *path, const char *app, uint64_t step, const double *ident, int nident,
                         const void *data, size_t elem, uint64_t count) {
  static int written = 0; /* checkpoints this process has written (for the kill fault) */
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
    errno = ENAMETOOLONG;
    return -1;
  }
  FILE *f = fopen(tmp, "wb");
  if (!f) return -1;
  char name[16] = {0};
  strncpy(name, app, sizeof name - 1);
  const uint64_t n = (uint64_t)nident, e = (uint64_t)elem, bytes = count * (uint64_t)elem;
  const uint64_t sum = kit_fnv1a64(data, (size_t)bytes);
  int ok = fwrite(MAGIC, 1, 8, f) == 8 && fwrite(name, 1, 16, f) == 16 && fwrite(&step, 8, 1, f) == 1 &&
           fwrite(&n, 8, 1, f) == 1 && fwrite(ident, sizeof *ident, (size_t)nident, f) == (size_t)nident &&
           fwrite(&e, 8, 1, f) == 1 && fwrite(&count, 8, 1, f) == 1 && fwrite(&sum, 8, 1, f) == 1;
  if (ok && written > 0 && kit_fault("checkpoint-kill")) {
    /* Half the data on disk, then the process dies without cleaning up. */
    (void)fwrite(data, 1, (size_t)bytes / 2, f);
    fflush(f);
    raise(SIGKILL);
  }
  ok = ok && fwrite(data, 1, (size_t)bytes, f) == (size_t)bytes;
  /* On disk before the rename makes it the checkpoint. */
  ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    const int err = errno;
    remove(tmp);
    errno = err ? err : EIO;
    return -1;
  }
  sync_folder(path);
  ++written;
  return 0;
}

/* The rest of the file, from the current position, is exactly `bytes` long. */
static int size_matches(FILE *f, uint64_t bytes) {
  const long here = ftell(f);
  if (here < 0 || fseek(f, 0, SEEK_END) != 0) return 0;
  const long end = ftell(f);
  if (end < 0 || fseek(f, here, SEEK_SET) != 0) return 0;
  return (uint64_t)(end - here) == bytes;
}

int kit_checkpoint_read(const char *path, const char *app, const double *ident, int nident, size_t elem,
                        uint64_t count, uint64_t *step, void *data, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "cannot open: %s", strerror(errno));
    return -1;
  }
  char magic[8], name[16];
  uint64_t n = 0, e = 0, c = 0, sum = 0, got = 0;
  double id[KIT_CKPT_MAX_IDENT];
  int rc = -1;
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, MAGIC, 7) != 0) {
    snprintf(err, errlen, "not a kit checkpoint (bad magic)");
  } else if (magic[7] != MAGIC[7]) {
    snprintf(err, errlen, "checkpoint format version %c, this build reads version %c", magic[7], MAGIC[7]);
  } else if (fread(name, 1, 16, f) != 16 || fread(step, 8, 1, f) != 1 || fread(&n, 8, 1, f) != 1) {
    snprintf(err, errlen, "truncated header");
  } else if (name[15] != '\0' || strcmp(name, app) != 0) {
    snprintf(err, errlen, "written by another app");
  } else if (n != (uint64_t)nident || n > KIT_CKPT_MAX_IDENT || fread(id, sizeof *id, (size_t)n, f) != (size_t)n) {
    snprintf(err, errlen, "truncated or foreign parameter block");
  } else if (memcmp(id, ident, (size_t)n * sizeof *id) != 0) {
    snprintf(err, errlen, "written for other problem parameters (size, init, seed or model differ)");
  } else if (fread(&e, 8, 1, f) != 1 || fread(&c, 8, 1, f) != 1 || fread(&sum, 8, 1, f) != 1) {
    snprintf(err, errlen, "truncated header");
  } else if (e != (uint64_t)elem || c != count) {
    snprintf(err, errlen, "holds %llu values of %llu bytes, this problem has %llu of %llu", (unsigned long long)c,
             (unsigned long long)e, (unsigned long long)count, (unsigned long long)elem);
  } else if (!size_matches(f, count * (uint64_t)elem)) {
    snprintf(err, errlen, "the file is not exactly one field long (truncated or trailing bytes)");
  } else if (read_summed(f, data, count * (uint64_t)elem, &got) != 0) {
    snprintf(err, errlen, "truncated field data");
  } else if (got != sum) {
    snprintf(err, errlen, "checksum mismatch: the field data is corrupted");
  } else {
    rc = 0;
  }
  fclose(f);
  return rc;
}
