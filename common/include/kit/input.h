/* kit/input.h: the one way the kit reads a file the user names (mesh, graph, particle
 * input, domain mask, ceiling cache, checkpoint).
 * Hostile input (tests/hostile/inputs.cmake): a reader must never block on a FIFO, loop on
 * /dev/zero, grow memory without bound, cut a long line silently, drop what follows a NUL
 * byte, or put a file's control bytes on the terminal; and a file one rank cannot read must
 * end the whole job with one message, never leave the other ranks waiting. So:
 *   kit_open_input   opens regular files only, without blocking, with a one-line reason;
 *   kit_lines_*      reads lines of at most a bound, refusing longer ones and NUL bytes;
 *   kit_printable    escapes bytes a terminal would act on, for every echo of a file or path;
 *   kit_agree        one collective verdict: every rank exits 2 if any rank failed, with the
 *                    lowest failing rank's reason printed once;
 *   kit_same_file    refuses a file that one rank cannot read or reads differently;
 *   kit_same_command_line  refuses an MPMD launch whose ranks were given different arguments. */
#ifndef KIT_INPUT_H
#define KIT_INPUT_H
#include <stdio.h>
#include <sys/types.h>

#include "kit/runtime.h"
#ifdef __cplusplus
extern "C" {
#endif

/* What a file of this st_mode is, for a message: "a directory", "a symbolic link", "a FIFO",
 * "a socket", "a character device", "a block device" or "a regular file". One naming for the
 * input, output and checkpoint checks. */
const char *kit_file_kind(mode_t mode);

/* Opens a regular file for reading; NULL with a one-line reason in err ("is a directory",
 * "is not a regular file (a FIFO)", strerror of a failed open) otherwise. Never blocks on a
 * FIFO: the open is non-blocking and the file is checked with fstat before it is used. */
FILE *kit_open_input(const char *path, char *err, size_t errlen);

/* A bounded line reader over an open file (see kit_lines_open). */
typedef struct kit_lines {
  FILE *f;          /* the file being read */
  int owns;         /* 1 if kit_lines_close closes f */
  char *buf;        /* the current line, NUL-terminated, newline (and a CR before it) removed */
  size_t bound;     /* longest line accepted, in bytes without the newline */
  size_t len;       /* length of the current line */
  long long lineno; /* number of the current line, 1-based; 0 before the first */
  char err[160];    /* why kit_lines_next returned -1, with the line number */
} kit_lines;

/* Opens path with kit_open_input for lines of at most `bound` bytes; 0, or -1 with the reason
 * in err. */
int kit_lines_open(kit_lines *r, const char *path, size_t bound, char *err, size_t errlen);

/* Reads lines from an already open file (not closed by kit_lines_close). */
void kit_lines_attach(kit_lines *r, FILE *f, size_t bound);

/* Next line into r->buf / r->len: 1, 0 at the end of the file, -1 with r->err saying
 * "line N: line too long (the limit is B bytes)", "line N: contains a NUL byte" or
 * "line N: read error: ..."; after -1 it keeps returning -1. */
int kit_lines_next(kit_lines *r);

/* Frees the buffer and closes the file if kit_lines_open opened it. */
void kit_lines_close(kit_lines *r);

/* Copies s into buf (always NUL-terminated) with every byte a terminal could act on (control
 * characters, DEL, bytes >= 0x80) written as \xNN, cut with "..." if buf is too small;
 * returns buf, for use inside a printf argument list. */
const char *kit_printable(const char *s, char *buf, size_t buflen);

/* Collective verdict over MPI_COMM_WORLD: 0 if ok is nonzero on every rank; otherwise the
 * lowest failing rank's `why` is printed once (by that rank, one line on stderr) and every
 * rank returns KIT_EXIT_USAGE. */
int kit_agree(const kit_env *env, int ok, const char *why);

/* Collective, for a file every rank reads itself: 0 if every rank could open `path` with
 * kit_open_input and read the same bytes (a 64-bit hash compared in one Allreduce); otherwise
 * one line "<what>: <reason>" (the lowest failing rank's, or "the file differs between
 * ranks") and KIT_EXIT_USAGE on every rank. `what` names the flag and the file in the app's
 * own style, as "particles: --input in.txt" (escaped here). A file that is missing,
 * unreadable or different on one node then ends the job, not hangs it. */
int kit_same_file(const kit_env *env, const char *path, const char *what);

/* Collective: 0 if every rank runs the same app (`app`, not the program's path) with the same
 * arguments after the program name (a hash compared with one Allreduce); otherwise one line
 * naming the problem and KIT_EXIT_USAGE on every rank, so an MPMD launch with different
 * arguments or apps per rank cannot diverge. */
int kit_same_command_line(const kit_env *env, const char *app, int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
