/* reader.h: the line reader of the particles app's text inputs (init.c): --input particle
 * files and --domain voxel masks (geometry.c) share it, so both strip comments, skip blank
 * lines, refuse over-long lines and NUL bytes (kit_lines, kit/input.h), parse numbers the
 * same way and name the line they fail on. */
#ifndef PARTICLES_READER_H
#define PARTICLES_READER_H
#include <stddef.h>
#include <stdio.h>

#include "kit/input.h"

#define PT_LINE_MAX 4095 /* longest line accepted, in bytes */

typedef struct pt_reader {
  kit_lines in;    /* the kit's bounded line reader: regular files only, no NUL bytes */
  long long bytes; /* the file's size (LLONG_MAX where it cannot seek) */
  long line;       /* number of the line in buf */
  char *buf;       /* the current line, its '#' comment removed */
  char err[160];   /* why pt_reader_next returned -1, with the line number */
} pt_reader;

/* Opens path (kit_open_input: a regular file); -1 with the reason in err. */
int pt_reader_open(pt_reader *r, const char *path, char *err, size_t errlen);
/* The next line with content ('#' comments stripped) into r->buf; 0 at the end of the file,
 * -1 with r->err set when a line is longer than PT_LINE_MAX, holds a NUL byte or cannot be
 * read. */
int pt_reader_next(pt_reader *r);
/* Closes the file. */
void pt_reader_close(pt_reader *r);
/* Parses exactly n finite numbers from s; -1 on a missing, malformed or extra field, with
 * the reason in *why. */
int pt_parse_numbers(const char *s, double *v, int n, const char **why);
#endif
