/* fuzz_particles_input.c: libFuzzer harness for particles' --input reader (a count, the box,
 * then 'id x y z vx vy vz' per line: miniapps/particles/init.c). The input is written to a
 * file and read; the reader must never crash or read out of bounds, must give a reason
 * whenever it refuses, and whatever it accepts must be the promised count of particles with
 * ids 0..N-1 once each, inside the box. bash ci/fuzz.sh [SECONDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "particles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  if (fuzz_to_file(data, size, "particles", "txt", path, sizeof path) != 0) return 0;
  long long n = 0;
  double box[3];
  char err[512] = "";
  if (pt_read_header(path, &n, box, err, sizeof err) != 0) {
    remove(path);
    if (err[0] == '\0') abort();
    return 0;
  }
  pt_params p;
  memset(&p, 0, sizeof p);
  p.input = path;
  pt_particles out = {0};
  const int rc = pt_read_particles(&p, NULL, NULL, &out, err, sizeof err);
  remove(path);
  if (rc != 0) {
    if (err[0] == '\0') abort();
  } else {
    if (out.n != n) abort();
    unsigned char *seen = calloc((size_t)n + 1, 1);
    if (!seen) abort();
    for (long long i = 0; i < out.n; ++i) {
      if (out.id[i] < 0 || out.id[i] >= n || seen[out.id[i]]++) abort();
      for (int a = 0; a < 3; ++a)
        if (!(out.x[3 * i + a] >= 0.0 && out.x[3 * i + a] < box[a])) abort();
    }
    free(seen);
  }
  pt_particles_free(&out);
  return 0;
}
