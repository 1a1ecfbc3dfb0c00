/* checkpoint.c: checkpoint files (kit/checkpoint.h). */
#define _POSIX_C_SOURCE 200809L /* fsync, fileno, open, O_NOFOLLOW, lstat, clock_gettime */

#include "kit/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kit/check.h"
#include "kit/driver.h"
#include "kit/input.h"

static const char MAGIC[8] = {'K', 'I', 'T', 'C', 'K', 'P', 'T', '3'};

#define FNV_OFFSET 14695981039346656037ull

static uint64_t fnv_update(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t kit_fnv1a64(const void *data, size_t n) {
  return fnv_update(FNV_OFFSET, data, n);
}

/* The app name as the file holds it: 16 bytes, NUL-padded. */
static void padded_name(const char *app, char name[16]) {
  memset(name, 0, 16);
  strncpy(name, app, 15);
}

int kit_checkpoint_target_ok(const char *path, char *err, size_t errlen) {
  struct stat st;
  /* lstat: the name itself, not what a symlink names. Absent is fine (the first write
   * creates it); a folder that cannot be reached is the output-file check's to report. */
  if (lstat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
  snprintf(err, errlen, "is %s, not a regular file%s", kit_file_kind(st.st_mode),
           S_ISLNK(st.st_mode)
               ? " (the checkpoint, renamed over it, would replace the link, not write through it)"
               : "");
  return -1;
}

/* A reason "what: errno's text" in err; returns -1. */
static int fail(char *err, size_t errlen, const char *what, int e) {
  snprintf(err, errlen, "%s: %s", what, strerror(e ? e : EIO));
  return -1;
}

/* Creates a new file beside path, named path.tmp.XXXXXX with six characters no other
 * process can predict, exclusively (O_EXCL: never an existing file, a planted symlink or a
 * device node, nor another run's temporary file). Returns the stream with the name in tmp,
 * or NULL with errno set. */
static FILE *create_temporary(const char *path, char *tmp, size_t tmplen) {
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  static uint64_t calls = 0;
  struct timespec ts = {0, 0};
  clock_gettime(CLOCK_REALTIME, &ts);
  const uint64_t seed[4] = {(uint64_t)getpid(), (uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, ++calls};
  uint64_t x = kit_fnv1a64(seed, sizeof seed) ^ (uint64_t)(uintptr_t)&ts; /* the stack's address */
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[7];
    for (int i = 0; i < 6; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull; /* an LCG step; high bits used */
      suffix[i] = digits[(x >> 33) % (sizeof digits - 1)];
    }
    suffix[6] = '\0';
    if (snprintf(tmp, tmplen, "%s.tmp.%s", path, suffix) >= (int)tmplen) {
      errno = ENAMETOOLONG;
      return NULL;
    }
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      FILE *f = fdopen(fd, "wb");
      if (!f) {
        const int e = errno;
        close(fd);
        remove(tmp);
        errno = e;
      }
      return f;
    }
    if (errno != EEXIST) return NULL;
  }
  return NULL; /* errno is EEXIST */
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

/* A stream that sums what it writes and keeps the errno of its first failure. */
typedef struct summed_out {
  FILE *f;
  uint64_t sum;
  int err; /* 0 while every write succeeded */
} summed_out;

static void put(summed_out *o, const void *p, size_t n) {
  o->sum = fnv_update(o->sum, p, n);
  if (!o->err && fwrite(p, 1, n, o->f) != n) o->err = errno ? errno : EIO;
}

int kit_checkpoint_write(const char *path, const char *app, uint64_t step, const double *ident, int nident,
                         const void *data, size_t elem, uint64_t count, char *err, size_t errlen) {
  static int written = 0; /* checkpoints this process has written (for the kill fault) */
  if (kit_checkpoint_target_ok(path, err, errlen) != 0) return -1;
  char tmp[4096];
  errno = 0;
  summed_out o = {create_temporary(path, tmp, sizeof tmp), FNV_OFFSET, 0};
  if (!o.f) return fail(err, errlen, "cannot create its temporary file", errno);
  char name[16];
  padded_name(app, name);
  const uint64_t n = (uint64_t)nident, e = (uint64_t)elem, bytes = count * (uint64_t)elem;
  put(&o, MAGIC, 8);
  put(&o, name, 16);
  put(&o, &step, 8);
  put(&o, &n, 8);
  put(&o, ident, sizeof *ident * (size_t)nident);
  put(&o, &e, 8);
  put(&o, &count, 8);
  if (!o.err && written > 0 && kit_fault("checkpoint-kill")) {
    /* Half the data on disk, then the process dies without cleaning up. */
    put(&o, data, (size_t)bytes / 2);
    fflush(o.f);
    raise(SIGKILL);
  }
  put(&o, data, (size_t)bytes);
  const uint64_t sum = o.sum;
  put(&o, &sum, 8);
  /* On disk before the rename makes it the checkpoint; the first step that fails names it. */
  const char *what = "write";
  if (!o.err && fflush(o.f) != 0) o.err = errno;
  if (!o.err && fsync(fileno(o.f)) != 0) {
    o.err = errno;
    what = "fsync";
  }
  if (fclose(o.f) != 0 && !o.err) {
    o.err = errno;
    what = "close";
  }
  if (o.err) {
    remove(tmp);
    return fail(err, errlen, what, o.err);
  }
  /* Checked again: the path may have become a FIFO or a device since the run began. */
  if (kit_checkpoint_target_ok(path, err, errlen) != 0) {
    remove(tmp);
    return -1;
  }
  if (rename(tmp, path) != 0) {
    const int e = errno;
    remove(tmp);
    return fail(err, errlen, "rename", e);
  }
  sync_folder(path);
  ++written;
  return 0;
}

void kit_checkpoint_save(const char *path, const char *app, uint64_t step, const double *ident, int nident,
                         const void *data, size_t elem, uint64_t count) {
  char err[512], shown[1024];
  if (kit_checkpoint_write(path, app, step, ident, nident, data, elem, count, err, sizeof err) != 0)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "could not write checkpoint '%s': %s",
            kit_printable(path, shown, sizeof shown), err);
}

/* Reads `bytes` bytes from f into data, or (data NULL) through a small buffer, adding them
 * to the checksum *sum; -1 if the file ends early. */
static int read_summed(FILE *f, void *data, uint64_t bytes, uint64_t *sum) {
  if (data) {
    if (fread(data, 1, (size_t)bytes, f) != (size_t)bytes) return -1;
    *sum = fnv_update(*sum, data, (size_t)bytes);
    return 0;
  }
  unsigned char buf[1 << 16];
  while (bytes > 0) {
    const size_t want = bytes < sizeof buf ? (size_t)bytes : sizeof buf;
    if (fread(buf, 1, want, f) != want) return -1;
    *sum = fnv_update(*sum, buf, want);
    bytes -= want;
  }
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
  /* A FIFO or a device named by --restart is refused, never waited on. */
  FILE *f = kit_open_input(path, err, errlen);
  if (!f) return -1;
  char magic[8], name[16], want_name[16];
  padded_name(app, want_name);
  uint64_t n = 0, e = 0, c = 0, stored = 0;
  double id[KIT_CKPT_MAX_IDENT];
  int rc = -1;
  /* Every field read below, the data included, is added to `sum`. */
  uint64_t sum = FNV_OFFSET;
#define KIT_CKPT_GET(p, bytes) (read_summed(f, (p), (bytes), &sum) == 0)
  if (!KIT_CKPT_GET(magic, 8) || memcmp(magic, MAGIC, 7) != 0) {
    snprintf(err, errlen, "not a kit checkpoint (bad magic)");
  } else if (magic[7] != MAGIC[7]) {
    if (magic[7] >= '0' && magic[7] <= '9')
      snprintf(err, errlen, "checkpoint format version %c, this build reads version %c", magic[7], MAGIC[7]);
    else
      snprintf(err, errlen, "checkpoint format version byte 0x%02x, this build reads version %c",
               (unsigned)(unsigned char)magic[7], MAGIC[7]);
  } else if (!KIT_CKPT_GET(name, 16) || !KIT_CKPT_GET(step, 8) || !KIT_CKPT_GET(&n, 8)) {
    snprintf(err, errlen, "truncated header");
  } else if (strncmp(name, want_name, 16) != 0) {
    snprintf(err, errlen, "written by another app");
  } else if (memcmp(name, want_name, 16) != 0) {
    /* The name matches up to its NUL, but a padding byte after it is not 0. */
    snprintf(err, errlen, "corrupted header: bytes after the app name's NUL are not 0");
  } else if (n != (uint64_t)nident || n > KIT_CKPT_MAX_IDENT || !KIT_CKPT_GET(id, sizeof *id * n)) {
    snprintf(err, errlen, "truncated or foreign parameter block");
  } else if (memcmp(id, ident, (size_t)n * sizeof *id) != 0) {
    snprintf(err, errlen, "written for other problem parameters (size, init, seed or model differ)");
  } else if (!KIT_CKPT_GET(&e, 8) || !KIT_CKPT_GET(&c, 8)) {
    snprintf(err, errlen, "truncated header");
  } else if (e != (uint64_t)elem || c != count) {
    snprintf(err, errlen, "holds %llu values of %llu bytes, this problem has %llu of %llu",
             (unsigned long long)c, (unsigned long long)e, (unsigned long long)count,
             (unsigned long long)elem);
  } else if (!size_matches(f, count * (uint64_t)elem + 8)) {
    snprintf(err, errlen, "the file is not exactly one field long (truncated or trailing bytes)");
  } else if (!KIT_CKPT_GET(data, count * (uint64_t)elem)) {
    snprintf(err, errlen, "truncated field data");
  } else if (fread(&stored, 8, 1, f) != 1) {
    snprintf(err, errlen, "truncated checksum");
  } else if (stored != sum) {
    snprintf(err, errlen, "checksum mismatch: the file is corrupted");
  } else {
    rc = 0;
  }
#undef KIT_CKPT_GET
  fclose(f);
  return rc;
}
