/* kit/ceiling.h: the machine's own bandwidth ceilings (DESIGN.md Sec. 7).
 * A device triad a = b + s*c (double, 3 x 2 GiB arrays) and an OpenMP host triad, each the
 * best of several runs, counting 3 x 8 bytes per element. Results are cached in a small
 * text file keyed by device name (or CPU model and thread count): $KIT_CEILING_CACHE, else
 * $XDG_CACHE_HOME/kit/ceilings, else ~/.cache/kit/ceilings. --measure-ceilings forces a
 * new measurement. Rank 0 measures, everyone receives the value. */
#ifndef KIT_CEILING_H
#define KIT_CEILING_H
#include "kit/runtime.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Host triad GB/s of the job: one node's triad with (threads x ranks on the node) threads,
 * times the number of nodes (collective). */
double kit_host_triad_ceiling(const kit_env *env, int force);
/* Device triad GB/s of the current device of rank 0 (collective). */
double kit_device_triad_ceiling(const kit_env *env, int force);
/* The measurements themselves (no cache): host triad with n doubles per array, and the
 * device triad on the current device (implemented in triad.cu). */
double kit_measure_host_triad(size_t n, int reps);
double kit_measure_device_triad(size_t n, int reps);
#ifdef __cplusplus
}
#endif
#endif
