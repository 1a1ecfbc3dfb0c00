/* reader.h: the line reader of the particles app's text inputs (init.c): --input particle
 * files and --domain voxel masks (geometry.c) share it, so both strip comments, skip blank
 * lines, refuse over-long lines and parse numbers the same way and name the line they fail on. */
#ifndef PARTICLES_READER_H
#define PARTICLES_READER_H
#include <stddef.h>
#include <stdio.h>

typedef struct pt_reader {
  FILE *f;
  long long bytes; /* the file's size (LLONG_MAX where it cannot seek) */
  long line;       /* number of the line in buf */
  char buf[4096];
} pt_reader;

/* Opens path; -1 with "cannot open 'path': reason" in err. */
int pt_reader_open(pt_reader *r, const char *path, char *err, size_t errlen);
/* The next line with content ('#' comments stripped) into r->buf; 0 at the end of the file,
 * -1 when a line is longer than the buffer. */
int pt_reader_next(pt_reader *r);
/* Parses exactly n finite numbers from s; -1 on a missing, malformed or extra field, with
 * the reason in *why. */
int pt_parse_numbers(const char *s, double *v, int n, const char **why);
#endif
