/* images.h: the periodic box's two coordinate rules, written once for C and CUDA.
 * Bernaschi et al. Sec. 3.2.1-3.2.2 on a periodic box: a connection k names a neighbouring
 * rank and the image its cells are seen in (pt_conn.shift); what crosses it moves by
 * -shift * L into the receiver's frame. A frontier copy moves exactly so; a migrant too, but
 * x + L may round up to L itself, which belongs to no cell of [0, L), and then becomes the
 * largest double below L. cpu.c (its own exchange), frontier.c (the GPU variants' host
 * staging) and kernels.cu (one rank's own images made on the device, gpu_tile.c) all call
 * these, so a copy or a migrant has the same bits whichever path made it.
 * No MPI: includable from kernels.cu. See README.md in this folder. */
#ifndef PARTICLES_IMAGES_H
#define PARTICLES_IMAGES_H
#include <math.h>

#include "binning.h"
#include "kit/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A frontier copy's coordinate along an axis of edge `box`, seen over shift `sh`. */
static inline KIT_HD double pt_image_coord(double x, int sh, double box) {
  return x - sh * box;
}

/* A migrant's coordinate: the copy's, kept inside [0, L) where x + L rounds up to L. */
static inline KIT_HD double pt_migrant_coord(double x, int sh, double box) {
  double y = x - sh * box;
  if (sh < 0 && y >= box) y = nextafter(box, 0.0);
  return y;
}

/* One rank's own images on the device (gpu_tile.c). Every connection of a rank alone in the
 * periodic box is to itself, so what the host path would pack, send to itself, filter and
 * sort can be made where the particles are. The per-particle halves, for kernels.cu and the
 * fake GPU of the tests:
 * a particle that drifted into external cell e, whose connection is this rank with shift
 * `sh`, is the migrant the host path would send and take back: its position wrapped
 * (pt_migrant_coord) and binned again; the owned cell it lands in, or -1 (then it takes the
 * host path, whose membership test decides); */
static inline KIT_HD int pt_wrap_migrant(const pt_binner *b, const int sh[3], int first_external,
                                         double x[3]) {
  double y[3];
  for (int a = 0; a < 3; ++a) y[a] = pt_migrant_coord(x[a], sh[a], b->box[a]);
  const int c = pt_bin(b, y);
  if (c < 0 || c >= first_external) return -1;
  for (int a = 0; a < 3; ++a) x[a] = y[a];
  return c;
}

/* the copy of a frontier particle at x seen over shift `sh`: its position y
 * (pt_image_coord) and the external cell it falls in, counted from first_external, or -1
 * when the receive filter of Sec. 3.2.1 drops it (no external cell of this rank). */
static inline KIT_HD int pt_image_of(const pt_binner *b, const int sh[3], int first_external,
                                     const double x[3], double y[3]) {
  for (int a = 0; a < 3; ++a) y[a] = pt_image_coord(x[a], sh[a], b->box[a]);
  const int c = pt_bin(b, y);
  return c >= first_external ? c - first_external : -1;
}

#ifdef __cplusplus
}
#endif
#endif
