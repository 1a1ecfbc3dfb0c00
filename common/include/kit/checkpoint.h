/* kit/checkpoint.h: checkpoint files of time-stepping apps (--checkpoint, --restart).
 * A file holds a header and one global field, written by rank 0 and renamed into place so a
 * crash never leaves half a checkpoint:
 *   "KITCKPT1" | app name (16 bytes, NUL-padded) | step (u64) | n_ident (u64) |
 *   ident[n_ident] (doubles: the problem parameters the field belongs to) |
 *   count (u64) | data[count] (doubles)
 * all in the machine's byte order (little-endian on x86). A restart checks every header
 * field against the run it starts, so a checkpoint of another problem is refused (exit 2). */
#ifndef KIT_CHECKPOINT_H
#define KIT_CHECKPOINT_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define KIT_CKPT_MAX_IDENT 32

/* Writes path (via path.tmp and rename). Returns 0, or -1 with errno set. */
int kit_checkpoint_write(const char *path, const char *app, uint64_t step, const double *ident, int nident,
                         const double *data, uint64_t count);
/* Checks the header of path against app, ident and count and returns its step in *step.
 * With data != NULL also reads the field. Returns 0, or -1 with a one-line reason in err. */
int kit_checkpoint_read(const char *path, const char *app, const double *ident, int nident, uint64_t count,
                        uint64_t *step, double *data, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
