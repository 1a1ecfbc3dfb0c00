/* kit/checkpoint.h: checkpoint files of time-stepping apps (--checkpoint, --restart).
 * A file holds a header and one global field, written by rank 0:
 *   "KITCKPT2" | app name (16 bytes, NUL-padded) | step (u64) | n_ident (u64) |
 *   ident[n_ident] (doubles: the problem parameters the field belongs to) |
 *   elem (u64: bytes per value, 8 for doubles, 1 for int8 spins) | count (u64) |
 *   checksum (u64: FNV-1a over the data bytes) | data[count]
 * all in the machine's byte order (little-endian on x86). "2" is the format version.
 * Writing goes to path.tmp, which is flushed and fsync'ed before it is renamed over path
 * (and the folder fsync'ed), so a crash at any moment leaves either the previous checkpoint
 * or the new one, whole. A restart checks every header field against the run it starts and
 * the checksum against the data, so a checkpoint of another problem, a truncated file or a
 * corrupted one is refused (exit 2) with the reason. */
#ifndef KIT_CHECKPOINT_H
#define KIT_CHECKPOINT_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define KIT_CKPT_MAX_IDENT 32
/* Bytes before the data: magic, name, step, n_ident, ident, elem, count, checksum. */
#define KIT_CKPT_HEADER_BYTES(nident) (8 + 16 + 8 + 8 + 8 * (size_t)(nident) + 8 + 8 + 8)

/* Writes path (via path.tmp, fsync and rename). Returns 0, or -1 with errno set.
 * KIT_FAULT=checkpoint-kill (tests only) kills the process half-way through writing the
 * data of every checkpoint after the first, as a crash or a node failure would. */
int kit_checkpoint_write(const char *path, const char *app, uint64_t step, const double *ident, int nident,
                         const void *data, size_t elem, uint64_t count);
/* Checks the header of path against app, ident, elem and count, and the data against the
 * checksum, and returns its step in *step; with data != NULL the field is kept there.
 * Returns 0, or -1 with a one-line reason in err. */
int kit_checkpoint_read(const char *path, const char *app, const double *ident, int nident, size_t elem,
                        uint64_t count, uint64_t *step, void *data, char *err, size_t errlen);
/* FNV-1a, 64 bits, of n bytes (the checksum above). */
uint64_t kit_fnv1a64(const void *data, size_t n);

#ifdef __cplusplus
}
#endif
#endif
