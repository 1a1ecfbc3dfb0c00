/* lammps_io.h: the particles app and LAMMPS (lammps_io.c). --input reads a LAMMPS data file
 * (atom_style atomic, orthogonal periodic box) as well as the kit's own text format, and
 * --dump-lammps writes a LAMMPS text dump that OVITO and VMD open. README.md in this folder,
 * "LAMMPS interoperability", gives the rules. */
#ifndef PARTICLES_LAMMPS_IO_H
#define PARTICLES_LAMMPS_IO_H
#include <stddef.h>
#include <stdio.h>

#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the header of a LAMMPS data file says. */
typedef struct pt_lammps_header {
  long long n;         /* atoms (>= 2) */
  int ntypes;          /* atom types (>= 1) */
  double lo[3], hi[3]; /* xlo xhi, ylo yhi, zlo zhi */
} pt_lammps_header;

/* Is path a LAMMPS data file? The rule (README.md): after the first line (LAMMPS's title,
 * whatever it holds), among the first 32 lines with content ('#' comments stripped) that begin
 * with a number, one reads "N atoms". Otherwise (or if the file cannot be opened: the kit
 * reader then says why) 0: the kit's own format. */
int pt_input_is_lammps(const char *path);

/* The header: 0, or -1 with "line L: reason" in err. */
int pt_lammps_read_header(const char *path, pt_lammps_header *h, char *err, size_t errlen);

/* The whole file p->input, validated (README.md: header, Atoms, Velocities, Masses, Pair
 * Coeffs, PairIJ Coeffs), each atom as kit id = LAMMPS id - 1 at x - xlo wrapped into [0, L)
 * with the velocity of its Velocities line (0 without that section). Keeps in out those
 * `keep` accepts (out may be NULL); types, when not NULL, gets each atom's type by kit id
 * (n entries). Returns 0, or -1 with "line L: reason" in err. */
int pt_lammps_read_particles(const pt_params *p, pt_keep_fn keep, const void *arg, pt_particles *out,
                             int *types, char *err, size_t errlen);

/* One frame of a LAMMPS text dump: the step, the box [origin, origin + box) (periodic "pp",
 * or "ff" with walls), and n records of fetch's layout (id x y z vx vy vz fx fy fz, sorted by
 * id) as "id type x y z vx vy vz", id + 1, type types[id] (1 when types is NULL), positions
 * plus origin, %.17g. */
void pt_lammps_write_frame(FILE *f, long long step, const double origin[3], const double box[3], int walls,
                           const double *rec, long long n, const int *types);

#ifdef __cplusplus
}
#endif
#endif
