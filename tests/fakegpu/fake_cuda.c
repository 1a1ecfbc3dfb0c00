/* fake_cuda.c: a stand-in for the CUDA runtime calls the GPU variants and libkit make, for
 * CPU-only machines (particles_fakegpu_*, tests/particles; lbm_fakegpu_*, tests/lbm). Linked
 * into a test binary only, beside an app's host versions of its kernels (the app's
 * fakegpu/fake_kernels.c); its definitions take the place of libcudart's.
 * What it models, to catch the bugs a real GPU would show only sometimes:
 *  - Streams are queues that run LAZILY: nothing queued runs until the host synchronises the
 *    stream (or the device, or an event behind it), or another stream's queued wait needs it.
 *    A host read of a pinned buffer before its stream is synchronised sees stale data, a
 *    kernel on one stream that reads what another stream writes without an event between
 *    them sees the old values, a host write into a pinned buffer that a queued copy still
 *    reads changes what the copy moves; each shows up as a difference from the cpu oracle.
 *  - Copies follow the runtime's rules: host-to-device from pageable memory takes the source
 *    at the call, device-to-host into pageable memory returns when done, pinned memory is
 *    read and written when the copy runs. Directions and bounds are checked against the
 *    allocations (device, pinned), and cudaFree/cudaFreeHost of memory that queued work
 *    touches aborts.
 *  - New device memory is filled with 0xFF bytes (NaN doubles, -1 ints), so a read of
 *    memory never written shows.
 *  - A cycle of stream waits is reported as a deadlock.
 * What it cannot model: two streams really running at once (a data race between kernels
 * that are correctly ordered by nothing but luck still shows only as an order difference),
 * and the device's arithmetic (the fake kernels call the app's own physics functions, lj.h,
 * d3q19.h, on the host).
 * All entry points hold one recursive lock, so the multi-thread variant's threads may call
 * it at once. The device count is $KIT_FAKE_GPUS (default 1); the device is named
 * "kit-fake-gpu". */
#define _GNU_SOURCE /* PTHREAD_MUTEX_RECURSIVE under -std=c11 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"

#define MAX_TOUCH 16

typedef struct fk_op {
  void (*fn)(void *);
  void *arg;
  struct CUstream_st *wait_stream; /* a wait: run that stream up to wait_pos */
  long long wait_pos;
  const void *touch[MAX_TOUCH];
  int ntouch;
  const char *what;
} fk_op;

struct CUstream_st {
  int device;
  fk_op *ops;
  long long base, count, done; /* absolute index of ops[0]; queued; run (relative) */
  long long cap;
  int running;
};

struct CUevent_st {
  struct CUstream_st *s; /* NULL: never recorded */
  long long pos;
};

typedef struct fk_alloc {
  char *base;
  size_t size;
  int kind;       /* 1 device, 2 pinned */
  int registered; /* pinned by cudaHostRegister: the caller's memory, not freed here */
} fk_alloc;

static pthread_mutex_t lock;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static fk_alloc *allocs;
static int nallocs, capallocs;
static struct CUstream_st **streams;
static int nstreams, capstreams;
static struct CUstream_st *defaults[64];
static _Thread_local int current_device = 0;

static void init_lock(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&lock, &a);
}
static void enter(void) {
  pthread_once(&once, init_lock);
  pthread_mutex_lock(&lock);
}
static void leave(void) {
  pthread_mutex_unlock(&lock);
}

void fk_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fake_cuda: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  fflush(stderr);
  abort();
}

static int ndevices(void) {
  const char *e = getenv("KIT_FAKE_GPUS");
  const int n = e ? atoi(e) : 1;
  return n < 1 ? 1 : (n > 64 ? 64 : n);
}

/* ---- allocations ------------------------------------------------------------------- */
static fk_alloc *find_alloc(const void *p) {
  const char *c = p;
  for (int i = 0; i < nallocs; ++i)
    if (c >= allocs[i].base && c < allocs[i].base + allocs[i].size) return &allocs[i];
  return NULL;
}

static void add_alloc(void *p, size_t size, int kind) {
  if (nallocs == capallocs) {
    capallocs = capallocs ? 2 * capallocs : 256;
    allocs = realloc(allocs, (size_t)capallocs * sizeof *allocs);
    if (!allocs) fk_fail("out of memory");
  }
  allocs[nallocs].base = p;
  allocs[nallocs].size = size;
  allocs[nallocs].kind = kind;
  allocs[nallocs].registered = 0;
  nallocs++;
}

/* [p, p + bytes) must lie in one allocation of `kind` (0: any, or none for pageable). */
static int kind_of(const void *p, size_t bytes, const char *what) {
  const fk_alloc *a = find_alloc(p);
  if (!a) return 0;
  if ((const char *)p + bytes > a->base + a->size)
    fk_fail("%s: %zu bytes at offset %zu overrun a %s allocation of %zu bytes", what, bytes,
            (size_t)((const char *)p - a->base), a->kind == 1 ? "device" : "pinned", a->size);
  return a->kind;
}

size_t fk_extent(const void *p, const char *what) {
  enter();
  const fk_alloc *a = find_alloc(p);
  if (!a || a->kind != 1) fk_fail("%s: %p is not device memory", what, p);
  const size_t e = (size_t)(a->base + a->size - (const char *)p);
  leave();
  return e;
}

void fk_need_bytes(const void *p, size_t bytes, const char *what) {
  if (bytes > fk_extent(p, what)) fk_fail("%s: %zu bytes overrun the allocation", what, bytes);
}

void fk_need_doubles(const double *p, size_t elems, const char *what) {
  if (elems * sizeof(double) > fk_extent(p, what))
    fk_fail("%s: %llu doubles overrun the allocation", what, (unsigned long long)elems);
}

/* Aborts if queued work on any stream touches [base, base + size). */
static void check_unused(const fk_alloc *a, const char *what) {
  for (int i = 0; i < nstreams; ++i) {
    const struct CUstream_st *s = streams[i];
    for (long long k = s->done; k < s->count; ++k)
      for (int t = 0; t < s->ops[k].ntouch; ++t) {
        const char *p = s->ops[k].touch[t];
        if (p >= a->base && p < a->base + a->size)
          fk_fail("%s of memory that queued work ('%s') still uses", what, s->ops[k].what);
      }
  }
}

/* ---- streams ----------------------------------------------------------------------- */
static struct CUstream_st *new_stream(int device) {
  struct CUstream_st *s = calloc(1, sizeof *s);
  if (!s) fk_fail("out of memory");
  s->device = device;
  if (nstreams == capstreams) {
    capstreams = capstreams ? 2 * capstreams : 64;
    streams = realloc(streams, (size_t)capstreams * sizeof *streams);
    if (!streams) fk_fail("out of memory");
  }
  streams[nstreams++] = s;
  return s;
}

static struct CUstream_st *resolve(cudaStream_t s) {
  if (s) return s;
  const int d = current_device;
  if (!defaults[d]) defaults[d] = new_stream(d);
  return defaults[d];
}

static void run_stream(struct CUstream_st *s, long long upto);

static void run_op(fk_op *op) {
  if (op->wait_stream) run_stream(op->wait_stream, op->wait_pos);
  if (op->fn) op->fn(op->arg);
  free(op->arg);
  op->arg = NULL;
}

/* Runs s until its absolute position reaches `upto`. */
static void run_stream(struct CUstream_st *s, long long upto) {
  if (s->base + s->done >= upto) return;
  if (s->running) fk_fail("deadlock: a stream waits for its own later work (a cycle of events)");
  s->running = 1;
  while (s->base + s->done < upto && s->done < s->count) {
    run_op(&s->ops[s->done]);
    s->done++;
  }
  s->running = 0;
  if (s->done == s->count) { /* all run: restart the queue, positions stay absolute */
    s->base += s->count;
    s->count = s->done = 0;
  }
}

static void run_all(void) {
  for (int again = 1; again;) {
    again = 0;
    for (int i = 0; i < nstreams; ++i)
      if (streams[i]->done < streams[i]->count) {
        run_stream(streams[i], streams[i]->base + streams[i]->count);
        again = 1;
      }
  }
}

static fk_op *push(struct CUstream_st *s, const char *what) {
  if (s->count == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->ops = realloc(s->ops, (size_t)s->cap * sizeof *s->ops);
    if (!s->ops) fk_fail("out of memory");
  }
  fk_op *op = &s->ops[s->count++];
  memset(op, 0, sizeof *op);
  op->what = what;
  return op;
}

void fk_enqueue(cudaStream_t stream, const char *what, void (*fn)(void *), void *arg,
                const void *const *touch, int ntouch) {
  enter();
  struct CUstream_st *s = resolve(stream);
  fk_op *op = push(s, what);
  op->fn = fn;
  op->arg = arg;
  if (ntouch > MAX_TOUCH) fk_fail("too many touched arrays");
  for (int i = 0; i < ntouch; ++i) op->touch[i] = touch[i];
  op->ntouch = ntouch;
  leave();
}

/* ---- copies ------------------------------------------------------------------------ */
typedef struct copy_arg {
  void *dst;
  const void *src;
  size_t n;
  void *owned; /* a snapshot of pageable source memory */
  int memset_value, is_memset;
} copy_arg;

static void do_copy(void *a_) {
  copy_arg *a = a_;
  if (a->is_memset)
    memset(a->dst, a->memset_value, a->n);
  else if (a->n)
    memcpy(a->dst, a->owned ? a->owned : a->src, a->n);
  free(a->owned);
}

static cudaError_t copy_async(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                              cudaStream_t stream) {
  struct CUstream_st *s = resolve(stream);
  const int kd = kind_of(dst, n, "cudaMemcpyAsync dst"), ks = kind_of(src, n, "cudaMemcpyAsync src");
  if (kind == cudaMemcpyDefault)
    kind = kd == 1 ? (ks == 1 ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                   : (ks == 1 ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  const int dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const int src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if ((kd == 1) != dst_dev)
    fk_fail("cudaMemcpyAsync: kind %d but the destination is %s memory", kind, kd == 1 ? "device" : "host");
  if ((ks == 1) != src_dev)
    fk_fail("cudaMemcpyAsync: kind %d but the source is %s memory", kind, ks == 1 ? "device" : "host");
  copy_arg *a = calloc(1, sizeof *a);
  if (!a) fk_fail("out of memory");
  a->dst = dst;
  a->src = src;
  a->n = n;
  if (!src_dev && ks != 2 && n) { /* pageable source: staged at the call */
    a->owned = malloc(n);
    if (!a->owned) fk_fail("out of memory");
    memcpy(a->owned, src, n);
  }
  fk_op *op = push(s, "cudaMemcpyAsync");
  op->fn = do_copy;
  op->arg = a;
  op->touch[op->ntouch++] = dst;
  op->touch[op->ntouch++] = src;
  /* Into pageable memory: the call returns when the copy is done. */
  if (!dst_dev && kd != 2) run_stream(s, s->base + s->count);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  enter();
  const cudaError_t e = copy_async(dst, src, count, kind, stream);
  leave();
  return e;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  enter();
  /* The legacy default stream: it does not order with the non-blocking streams the kit
   * creates, so a real race would show here too. */
  struct CUstream_st *s = resolve(NULL);
  copy_async(dst, src, count, kind, NULL);
  run_stream(s, s->base + s->count);
  leave();
  return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream) {
  (void)dstDevice, (void)srcDevice;
  return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
  enter();
  if (kind_of(devPtr, count, "cudaMemsetAsync") != 1) fk_fail("cudaMemsetAsync of host memory");
  copy_arg *a = calloc(1, sizeof *a);
  if (!a) fk_fail("out of memory");
  a->dst = devPtr;
  a->n = count;
  a->is_memset = 1;
  a->memset_value = value;
  fk_op *op = push(resolve(stream), "cudaMemsetAsync");
  op->fn = do_copy;
  op->arg = a;
  op->touch[op->ntouch++] = devPtr;
  leave();
  return cudaSuccess;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  cudaMemsetAsync(devPtr, value, count, NULL);
  enter();
  struct CUstream_st *s = resolve(NULL);
  run_stream(s, s->base + s->count);
  leave();
  return cudaSuccess;
}

/* ---- memory ------------------------------------------------------------------------ */
cudaError_t cudaMalloc(void **devPtr, size_t size) {
  enter();
  void *p = malloc(size ? size : 1);
  if (!p) fk_fail("cudaMalloc(%zu) failed", size);
  memset(p, 0xFF, size); /* never-written memory reads as NaN / -1 */
  add_alloc(p, size ? size : 1, 1);
  *devPtr = p;
  leave();
  return cudaSuccess;
}

static cudaError_t free_kind(void *p, int kind, const char *what) {
  if (!p) return cudaSuccess;
  enter();
  fk_alloc *a = find_alloc(p);
  if (!a || a->base != p || a->kind != kind || a->registered)
    fk_fail("%s(%p): not the start of such an allocation", what, p);
  check_unused(a, what);
  free(a->base);
  *a = allocs[--nallocs];
  leave();
  return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr) {
  return free_kind(devPtr, 1, "cudaFree");
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
  enter();
  void *p = malloc(size ? size : 1);
  if (!p) fk_fail("cudaMallocHost(%zu) failed", size);
  add_alloc(p, size ? size : 1, 2);
  *ptr = p;
  leave();
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr) {
  return free_kind(ptr, 2, "cudaFreeHost");
}

/* Page-locks the caller's memory: from now on copies treat it as pinned (read and written when
 * they run, not at the call). */
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
  (void)flags;
  enter();
  if (find_alloc(ptr)) fk_fail("cudaHostRegister(%p): already registered or allocated", ptr);
  add_alloc(ptr, size ? size : 1, 2);
  allocs[nallocs - 1].registered = 1;
  leave();
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr) {
  enter();
  fk_alloc *a = find_alloc(ptr);
  if (!a || a->base != ptr || !a->registered) fk_fail("cudaHostUnregister(%p): not registered", ptr);
  check_unused(a, "cudaHostUnregister");
  *a = allocs[--nallocs];
  leave();
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total) {
  *free_b = (size_t)64 << 30;
  *total = (size_t)80 << 30;
  return cudaSuccess;
}

/* ---- streams and events ------------------------------------------------------------ */
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority) {
  (void)flags, (void)priority;
  enter();
  *pStream = new_stream(current_device);
  leave();
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
  return cudaStreamCreateWithPriority(pStream, flags, 0);
}
cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
  return cudaStreamCreateWithPriority(pStream, 0, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  enter();
  struct CUstream_st *s = stream;
  run_stream(s, s->base + s->count); /* the runtime lets queued work finish */
  for (int i = 0; i < nstreams; ++i)
    if (streams[i] == s) {
      streams[i] = streams[--nstreams];
      break;
    }
  free(s->ops);
  free(s);
  leave();
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  enter();
  struct CUstream_st *s = resolve(stream);
  run_stream(s, s->base + s->count);
  leave();
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  (void)flags;
  *event = calloc(1, sizeof(struct CUevent_st));
  if (!*event) fk_fail("out of memory");
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return cudaEventCreateWithFlags(event, 0);
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  free(event);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  enter();
  struct CUstream_st *s = resolve(stream);
  event->s = s;
  event->pos = s->base + s->count; /* complete once everything queued so far has run */
  leave();
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  (void)flags;
  enter();
  if (event->s) { /* the most recent record, as at this call */
    fk_op *op = push(resolve(stream), "cudaStreamWaitEvent");
    op->wait_stream = event->s;
    op->wait_pos = event->pos;
  }
  leave();
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  enter();
  if (event->s) run_stream(event->s, event->pos);
  leave();
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  (void)start, (void)end;
  *ms = 0.001f;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  enter();
  run_all();
  leave();
  return cudaSuccess;
}

/* ---- devices and errors ------------------------------------------------------------ */
cudaError_t cudaGetDeviceCount(int *count) {
  *count = ndevices();
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= ndevices()) fk_fail("cudaSetDevice(%d) of %d devices", device, ndevices());
  current_device = device;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int *device) {
  *device = current_device;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
  (void)device;
  memset(prop, 0, sizeof *prop);
  snprintf(prop->name, sizeof prop->name, "kit-fake-gpu");
  prop->totalGlobalMem = (size_t)80 << 30;
  prop->multiProcessorCount = 132;
  prop->major = 9;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
  (void)device;
  /* An H100's shared memory per block (opted in): the particles list build sizes by it. */
  *value = attr == cudaDevAttrMaxSharedMemoryPerBlockOptin ? 227 * 1024 : 1;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  *leastPriority = 0;
  *greatestPriority = -1;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice) {
  (void)device, (void)peerDevice;
  *canAccessPeer = 1;
  return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  (void)peerDevice, (void)flags;
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) {
  return cudaSuccess;
}
cudaError_t cudaPeekAtLastError(void) {
  return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t error) {
  return error == cudaSuccess ? "no error" : "fake error";
}
const char *cudaGetErrorName(cudaError_t error) {
  return error == cudaSuccess ? "cudaSuccess" : "cudaErrorFake";
}
