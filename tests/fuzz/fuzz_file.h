/* fuzz_file.h: for the harnesses whose reader takes a path, not bytes (fuzz_*.c): writes the
 * fuzzer's input to /tmp/kit_fuzz_STEM_PID.EXT (one file per process, so parallel fuzzers do
 * not share it) and gives its path; the harness reads it and removes it. Returns 0, or -1
 * when the file cannot be written (the harness then skips the input). */
#ifndef KIT_FUZZ_FILE_H
#define KIT_FUZZ_FILE_H
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static inline int fuzz_to_file(const uint8_t *data, size_t size, const char *stem, const char *ext,
                               char *path, size_t pathlen) {
  snprintf(path, pathlen, "/tmp/kit_fuzz_%s_%d.%s", stem, (int)getpid(), ext);
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  const int ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok ? 0 : -1;
}
#endif
