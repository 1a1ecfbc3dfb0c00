/* kit/checkpoint.h: checkpoint files of time-stepping apps (--checkpoint, --restart).
 * A file holds a header, one global field and a checksum, written by rank 0:
 *   "KITCKPT3" | app name (16 bytes, NUL-padded: every byte after the name is 0) |
 *   step (u64) | n_ident (u64) | ident[n_ident] (doubles: the problem parameters the field
 *   belongs to) | elem (u64: bytes per value, 8 for doubles, 1 for int8 spins) |
 *   count (u64) | data[count] | checksum (u64)
 * all in the machine's byte order (little-endian on x86). "3" is the format version. The
 * checksum, last, is FNV-1a over every byte before it, magic and step included, so one
 * flipped bit anywhere (format 2 left the step and the name's padding outside it) is
 * refused rather than restarting from a wrong step; it is last so that writer and reader
 * each pass over the file once. A reader of format 3 refuses other versions by name.
 * Writing goes to a new file beside path, path.tmp.XXXXXX (six unpredictable characters,
 * created with O_EXCL, so neither a planted symlink nor another run's file is ever opened),
 * which is flushed and fsync'ed before it is renamed over path (and the folder fsync'ed): a
 * crash at any moment leaves either the previous checkpoint or the new one, whole, and two
 * runs sharing a path each leave a whole checkpoint. A path that exists and is not a
 * regular file (a directory, FIFO, device, socket or symbolic link: the rename would
 * replace the link, not write through it) is refused. A restart checks every header field against
 * the run it starts and the checksum against the whole file, so a checkpoint of another
 * problem, a truncated file or a corrupted one is refused (exit 2) with the reason. */
#ifndef KIT_CHECKPOINT_H
#define KIT_CHECKPOINT_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define KIT_CKPT_MAX_IDENT 32
/* Bytes besides the data: magic, name, step, n_ident, ident, elem, count, then checksum. */
#define KIT_CKPT_HEADER_BYTES(nident) (8 + 16 + 8 + 8 + 8 * (size_t)(nident) + 8 + 8 + 8)

/* Writes path (via a new path.tmp.XXXXXX, fsync and rename). Returns 0, or -1 with a
 * one-line reason in err (the step that failed and errno's text).
 * KIT_FAULT=checkpoint-kill (tests only) kills the process half-way through writing the
 * data of every checkpoint after the first, as a crash or a node failure would. */
int kit_checkpoint_write(const char *path, const char *app, uint64_t step, const double *ident, int nident,
                         const void *data, size_t elem, uint64_t count, char *err, size_t errlen);
/* kit_checkpoint_write, or the end of the job (exit 3) with the path and the reason. */
void kit_checkpoint_save(const char *path, const char *app, uint64_t step, const double *ident, int nident,
                         const void *data, size_t elem, uint64_t count);
/* 0 if path may become a checkpoint: it does not exist or is a regular file; otherwise -1
 * with what it is in err ("is a FIFO, not a regular file"). Checked before the run (through
 * kit_check_output_file's --checkpoint rule) and again just before the rename. */
int kit_checkpoint_target_ok(const char *path, char *err, size_t errlen);
/* Checks the header of path against app, ident, elem and count, and the whole file against
 * the checksum, and returns its step in *step; with data != NULL the field is kept there.
 * Returns 0, or -1 with a one-line reason in err. */
int kit_checkpoint_read(const char *path, const char *app, const double *ident, int nident, size_t elem,
                        uint64_t count, uint64_t *step, void *data, char *err, size_t errlen);
/* FNV-1a, 64 bits, of n bytes (the checksum above). */
uint64_t kit_fnv1a64(const void *data, size_t n);

#ifdef __cplusplus
}
#endif
#endif
