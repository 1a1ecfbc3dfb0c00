/* replay_main.c: runs a libFuzzer harness over files without libFuzzer, so the seed corpus
 * and every input that once crashed are replayed by the ordinary test suite (gcc, no
 * clang needed). Usage: replay FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "replay: cannot open %s\n", argv[i]);
      return 1;
    }
    static uint8_t buf[1 << 16];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
  }
  printf("replayed %d inputs\n", argc - 1);
  return 0;
}
