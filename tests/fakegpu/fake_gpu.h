/* fake_gpu.h: a CUDA runtime stand-in for machines without a GPU (fake_cuda.c), and what an
 * app's host versions of its kernels (tests/<app>/fakegpu/fake_kernels.c) use to queue their
 * work, so the GPU variants' host logic runs and is checked against the oracle in CPU-only CI.
 * See fake_cuda.c for what it can and cannot catch. Test code only: never linked into
 * build/bin. */
#ifndef KIT_FAKE_GPU_H
#define KIT_FAKE_GPU_H
#include <cuda_runtime_api.h>
#include <stddef.h>

/* Queues fn(arg) on `stream`, to run when the stream is forced (a synchronisation, or another
 * stream waiting on an event behind it). `arg` is malloc'd by the caller and freed after the
 * run. `touch`: the device (or pinned) allocations the work reads or writes, so freeing one
 * while the work is pending is reported. */
void fk_enqueue(cudaStream_t stream, const char *what, void (*fn)(void *), void *arg,
                const void *const *touch, int ntouch);
/* Bytes from p to the end of the device allocation holding p; aborts when p is not device
 * memory (a kernel handed a host pointer). */
size_t fk_extent(const void *p, const char *what);
/* Aborts with a message (a fake kernel found an out-of-bounds index). */
void fk_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Aborts unless `bytes` bytes from p lie in one device allocation. */
void fk_need_bytes(const void *p, size_t bytes, const char *what);
/* The same for `elems` doubles, and for `count` elements of ptr's type. */
void fk_need_doubles(const double *p, size_t elems, const char *what);
#define FK_NEED(ptr, count, what) fk_need_bytes((ptr), (size_t)(count) * sizeof *(ptr), (what))
/* A fake launcher's argument block, `a`, zeroed (fk_enqueue frees it after the run). */
#define FK_ARG(type)              \
  type *a = calloc(1, sizeof *a); \
  if (!a) fk_fail("out of memory")
#endif
