/* fuzz_options.c: libFuzzer harness for the kit's command-line parsing (kit/options.h):
 * the input is split at NUL bytes into an argv and parsed against a table with every
 * option type (the common run flags, a size, a bounded double, a choice, a second name for
 * --iters). The parser must never crash, read out of bounds or leave a message of more
 * than one line.
 *   bash ci/fuzz.sh [SECONDS]          (builds with clang -fsanitize=fuzzer,address,undefined) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kit/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  /* Copy into NUL-separated strings: argv must be writable and terminated. */
  char *buf = malloc(size + 1);
  memcpy(buf, data, size);
  buf[size] = '\0';
  char *argv[64];
  int argc = 0;
  argv[argc++] = "fuzz";
  for (size_t i = 0; i < size && argc < 63;) {
    argv[argc++] = buf + i;
    i += strlen(buf + i) + 1;
  }
  argv[argc] = NULL;

  kit_run run = kit_run_defaults();
  int sz[3] = {8, 8, 8};
  double alpha = 0.0;
  const char *mode = "a";
  int flag = 0;
  kit_option opts[KIT_RUN_NOPTS + 6];
  int n = kit_run_options(&run, opts);
  const kit_option extra[] = {
      {"size", KIT_OPT_CUSTOM, sz, "N", "size", 1, 0, 0, NULL, kit_parse_size3, NULL},
      {"alpha", KIT_OPT_DOUBLE, &alpha, "A", "alpha", -1, 1, 0, NULL, NULL, NULL},
      {"mode", KIT_OPT_STRING, &mode, "M", "mode", 1, 0, 0, "a|bb|ccc", NULL, NULL},
      {"flag", KIT_OPT_FLAG, &flag, NULL, "flag", 1, 0, 7, NULL, NULL, NULL},
      /* Another name for --iters (as ising's old --sweeps): given with it, refused. */
      {"steps", KIT_OPT_INT, &run.iters, "N", "steps", 1, 1e9, 0, NULL, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof extra / sizeof *extra; ++i) opts[n++] = extra[i];
  opts[n].type = KIT_OPT_END;
  char err[512];
  err[0] = '\0';
  const int rc = kit_parse(argc, argv, opts, err, sizeof err);
  if (rc == KIT_PARSE_ERROR && (err[0] == '\0' || strchr(err, '\n'))) abort(); /* one line, never empty */
  if (rc == KIT_PARSE_OK && (sz[0] < 1 || sz[1] < 1 || sz[2] < 1 || run.iters < 1 || run.reps < 1 ||
                             alpha < -1 || alpha > 1 || run.cpu_fraction >= 1.0))
    abort(); /* accepted a value outside its rule */
  free(buf);
  return 0;
}
