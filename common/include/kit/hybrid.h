/* kit/hybrid.h: the static CPU+GPU workload model of Sourouri Paper II, Sec. 4.
 * A memory-bound update runs at a speed proportional to the bandwidth each device
 * sustains, so the CPU share is r = B_cpu / (B_cpu + B_gpu), with both bandwidths from
 * STREAM-like triads measured on the machine (kit/ceiling.h). Paper II found that
 * overestimating the CPU hurts far more than underestimating it, so the model's share is
 * multiplied by a derating factor below one. */
#ifndef KIT_HYBRID_H
#define KIT_HYBRID_H
#ifdef __cplusplus
extern "C" {
#endif
/* Derating applied to the bandwidth model's CPU share (Paper II: "give the CPU a
 * slightly smaller" share than predicted). Half: the CPU stencil sustains well under the
 * host triad (about 70 of 123 GB/s in the 2026-11-22 sweep on the H200 machine, with large
 * run-to-run jitter), and past the break-even share the step time grows steeply
 * (docs/hybrid.md). */
#define KIT_HYBRID_DERATE 0.5
/* CPU share in [0,1) from the two triad bandwidths and the derating factor. */
double kit_cpu_share(double bw_cpu, double bw_gpu, double derate);
#ifdef __cplusplus
}
#endif
#endif
