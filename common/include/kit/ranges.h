/* kit/ranges.h: named ranges, the one instrument for profiling.
 * KIT_RANGE_PUSH/POP mark a host range: it goes to NVTX (visible in Nsight Systems and
 * `ncu --nvtx`; compiled out with -DKIT_NVTX=OFF) and, while profiling is on, to the
 * per-phase timers and the Chrome trace-event timeline (--trace, viewable in Perfetto).
 * kit_gpu_range_begin/end bracket work queued on a CUDA stream with two events, so a
 * trace shows GPU time on one track per stream (Bernaschi Sec. 2.2).
 * Profiling is switched on only for a dedicated pass of steps, so the timed repetitions
 * pay for nothing but NVTX. Phases count the time of the thread that opens the range:
 * variants open each named range on one thread only (a group's master, say), so a phase
 * is that thread's time, not a sum over threads. GPU ranges of the same name on several
 * devices (multi-thread) add up. */
#ifndef KIT_RANGES_H
#define KIT_RANGES_H
#include <mpi.h>
#ifdef __cplusplus
extern "C" {
#endif

void kit_range_push(const char *name);
void kit_range_pop(void);
#define KIT_RANGE_PUSH(name) kit_range_push(name)
#define KIT_RANGE_POP() kit_range_pop()

/* Turns phase timing, GPU events and trace recording on or off. */
void kit_profile_enable(int on);
int kit_profile_enabled(void);

/* Brackets stream work with CUDA events; returns a handle, or -1 when profiling is off. */
int kit_gpu_range_begin(const char *name, void *stream);
void kit_gpu_range_end(int handle, void *stream);

/* After the device work is complete: turn recorded GPU events into phase time and trace
 * events. Call from one thread after synchronising every device used. */
void kit_ranges_collect(void);

/* Zero the phase totals. */
void kit_phases_reset(void);
/* Phase totals (seconds), max over the ranks of comm, divided by `steps`.
 * Returns the number of phases; names and values stay valid until the next reset. */
int kit_phases_reduce(MPI_Comm comm, double steps, const char ***names, double **secs);

/* Gather every rank's recorded events and write one Chrome trace-event JSON file on
 * rank 0 (one process track per rank, one thread track per host thread and stream). */
void kit_trace_write(const char *path, MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif
