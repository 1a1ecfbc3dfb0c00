/* fuzz_bfs_graph.c: libFuzzer harness for bfs's graph readers (--graph: Matrix Market and
 * edge lists, miniapps/bfs/graph_io.c). The input is written to a file, named .mtx or .el
 * by its first byte, and read; the reader must never crash or read out of bounds, must give
 * a reason whenever it refuses, and every graph it accepts must have edges whose endpoints
 * are vertices of it. bash ci/fuzz.sh [SECONDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bfs.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  const int mtx = size > 0 && (data[0] & 1);
  if (fuzz_to_file(data, size, "graph", mtx ? "mtx" : "el", path, sizeof path) != 0) return 0;
  bfs_edges e;
  char err[256] = "";
  const int rc = bfs_read_graph(path, &e, err, sizeof err);
  remove(path);
  if (rc != 0) {
    if (err[0] == '\0') abort(); /* refused without a reason */
    return 0;
  }
  if (e.m <= 0 || e.n <= 0) abort();
  for (int64_t i = 0; i < 2 * e.m; ++i)
    if (e.uv[i] < 0 || e.uv[i] >= e.n) abort();
  bfs_edges_free(&e);
  return 0;
}
