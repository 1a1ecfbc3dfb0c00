/* kit/hd.h: one spelling for functions shared by host C and CUDA device code.
 * The physics of one update is written once as a `static inline KIT_HD` function in
 * an app header, so the CPU reference, the hybrid CPU part and the GPU kernels compute
 * the same expression in the same order (DESIGN.md Sec. 2, Sec. 6). */
#ifndef KIT_HD_H
#define KIT_HD_H
#if defined(__CUDACC__)
#define KIT_HD __host__ __device__
#else
#define KIT_HD
#endif
#endif
