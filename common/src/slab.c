/* slab.c: block decomposition and the hybrid plane split (kit/slab.h). */
#include "kit/slab.h"

#include <math.h>

kit_block kit_block_split(int n, int parts, int part) {
  kit_block b;
  const int base = n / parts, extra = n % parts;
  b.count = base + (part < extra ? 1 : 0);
  b.begin = part * base + (part < extra ? part : extra);
  return b;
}

int kit_cpu_planes(int n, double f) {
  if (f <= 0.0) return 0;
  int c = (int)floor(f * n + 0.5);
  if (c > n - 1) c = n - 1;
  return c < 0 ? 0 : c;
}
