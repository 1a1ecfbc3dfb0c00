/* fuzz_checkpoint.c: libFuzzer harness for the checkpoint reader (kit/checkpoint.h). The
 * input is written to a file and read back as a laplace checkpoint of a 3 x 2 x 2 problem;
 * the reader must never crash or read out of bounds, and must accept only a well-formed
 * file. An accepted input must be refused again after any one of its bits is flipped: the
 * checksum of format 3 covers every byte but itself (the replay of corpus/checkpoint/valid
 * tries all 1792 flips). bash ci/fuzz.sh [SECONDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "kit/checkpoint.h"

/* The reader's verdict on these bytes: 0 accepted, -1 refused (with a reason), 1 skipped. */
static int read_bytes(const uint8_t *data, size_t size) {
  char path[64];
  if (fuzz_to_file(data, size, "ckpt", "bin", path, sizeof path) != 0) return 1;
  const double ident[8] = {3, 2, 2, 0, 1.0 / 6.0, 1, 42, 0};
  double field[12];
  uint64_t step = 0;
  char err[256] = "";
  const int rc =
      kit_checkpoint_read(path, "laplace", ident, 8, sizeof(double), 12, &step, field, err, sizeof err);
  remove(path);
  if (rc != 0 && err[0] == '\0') abort();
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (read_bytes(data, size) != 0) return 0;
  /* Accepted only at the exact size of a header plus 12 doubles and the checksum. */
  if (size != KIT_CKPT_HEADER_BYTES(8) + 12 * 8) abort();
  uint8_t copy[KIT_CKPT_HEADER_BYTES(8) + 12 * 8];
  for (size_t i = 0; i < size; ++i)
    for (int bit = 0; bit < 8; ++bit) {
      memcpy(copy, data, size);
      copy[i] ^= (uint8_t)(1u << bit);
      if (read_bytes(copy, size) == 0) abort();
    }
  return 0;
}
