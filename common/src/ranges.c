/* ranges.c: NVTX ranges mirrored into phase timers and a Chrome trace (kit/ranges.h). */
#include "kit/ranges.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/json.h"

#if defined(KIT_NVTX_ENABLED)
#include <nvtx3/nvToolsExt.h>
#endif

#define MAX_PHASES 48
#define MAX_DEPTH 32
#define MAX_STREAMS 64

typedef struct trace_event {
  const char *name; /* range names are string literals */
  int tid;          /* host thread id, or 1000 + stream index */
  double ts, dur;   /* microseconds since the profiling origin */
} trace_event;

typedef struct gpu_range {
  const char *name;
  void *stream;
  int device;
#ifdef KIT_HAVE_CUDA
  cudaEvent_t begin, end;
#endif
} gpu_range;

static int profiling = 0;
static double origin = -1.0;
static const char *phase_name[MAX_PHASES];
static double phase_sec[MAX_PHASES];
static int nphase = 0;
static trace_event *events = NULL;
static size_t nevents = 0, capevents = 0;
static gpu_range *granges = NULL;
static int ngranges = 0, capgranges = 0;
static void *stream_key[MAX_STREAMS];
static int stream_dev[MAX_STREAMS];
static int nstreams = 0;
static int next_tid = 0;

static _Thread_local int my_tid = -1;
static _Thread_local int depth = 0;
static _Thread_local const char *stack_name[MAX_DEPTH];
static _Thread_local double stack_t0[MAX_DEPTH];

static double now_us(void) {
  return (omp_get_wtime() - origin) * 1e6;
}

static int thread_id(void) {
  if (my_tid < 0) {
#pragma omp atomic capture
    my_tid = next_tid++;
  }
  return my_tid;
}

/* Callers hold the kit_ranges critical section. */
static void add_phase(const char *name, double sec) {
  int i = 0;
  for (; i < nphase; ++i)
    if (phase_name[i] == name || strcmp(phase_name[i], name) == 0) break;
  if (i == nphase) {
    if (nphase == MAX_PHASES) return;
    phase_name[nphase++] = name;
    phase_sec[i] = 0.0;
  }
  phase_sec[i] += sec;
}

static void add_event(const char *name, int tid, double ts, double dur) {
  if (nevents == capevents) {
    capevents = capevents ? 2 * capevents : 1024;
    events = realloc(events, capevents * sizeof *events);
    if (!events) kit_die(3, __FILE__, __LINE__, "out of memory recording trace events");
  }
  events[nevents].name = name;
  events[nevents].tid = tid;
  events[nevents].ts = ts;
  events[nevents].dur = dur;
  nevents++;
}

void kit_profile_enable(int on) {
  if (origin < 0.0) origin = omp_get_wtime();
  profiling = on;
}
int kit_profile_enabled(void) {
  return profiling;
}

void kit_range_push(const char *name) {
#if defined(KIT_NVTX_ENABLED)
  nvtxRangePushA(name);
#endif
  if (!profiling) return;
  if (depth < MAX_DEPTH) {
    stack_name[depth] = name;
    stack_t0[depth] = now_us();
  }
  depth++;
}

void kit_range_pop(void) {
#if defined(KIT_NVTX_ENABLED)
  nvtxRangePop();
#endif
  if (!profiling || depth == 0) return;
  depth--;
  if (depth >= MAX_DEPTH) return;
  const double t1 = now_us(), t0 = stack_t0[depth];
  const int tid = thread_id();
#pragma omp critical(kit_ranges)
  {
    add_phase(stack_name[depth], (t1 - t0) * 1e-6);
    add_event(stack_name[depth], tid, t0, t1 - t0);
  }
}

int kit_gpu_range_begin(const char *name, void *stream) {
#ifdef KIT_HAVE_CUDA
  if (!profiling) return -1;
  int dev = 0;
  KIT_CUDA_CHECK(cudaGetDevice(&dev));
  cudaEvent_t b, e;
  KIT_CUDA_CHECK(cudaEventCreate(&b));
  KIT_CUDA_CHECK(cudaEventCreate(&e));
  KIT_CUDA_CHECK(cudaEventRecord(b, (cudaStream_t)stream));
  int h = -1;
#pragma omp critical(kit_ranges)
  {
    if (ngranges == capgranges) {
      capgranges = capgranges ? 2 * capgranges : 256;
      granges = realloc(granges, (size_t)capgranges * sizeof *granges);
      if (!granges) kit_die(3, __FILE__, __LINE__, "out of memory recording GPU ranges");
    }
    h = ngranges++;
    granges[h].name = name;
    granges[h].stream = stream;
    granges[h].device = dev;
    granges[h].begin = b;
    granges[h].end = e;
  }
  return h;
#else
  (void)name;
  (void)stream;
  return -1;
#endif
}

void kit_gpu_range_end(int handle, void *stream) {
#ifdef KIT_HAVE_CUDA
  if (handle < 0) return;
  cudaEvent_t e;
#pragma omp critical(kit_ranges)
  e = granges[handle].end;
  KIT_CUDA_CHECK(cudaEventRecord(e, (cudaStream_t)stream));
#else
  (void)handle;
  (void)stream;
#endif
}

#ifdef KIT_HAVE_CUDA
static int stream_track(void *stream, int dev) {
  for (int i = 0; i < nstreams; ++i)
    if (stream_key[i] == stream && stream_dev[i] == dev) return i;
  if (nstreams == MAX_STREAMS) return MAX_STREAMS - 1;
  stream_key[nstreams] = stream;
  stream_dev[nstreams] = dev;
  return nstreams++;
}
#endif

void kit_ranges_collect(void) {
#ifdef KIT_HAVE_CUDA
  if (ngranges == 0) return;
  int saved = 0;
  KIT_CUDA_CHECK(cudaGetDevice(&saved));
  /* Anchor each device's event clock to the host clock with one synchronised event. */
  int ndev = 0;
  KIT_CUDA_CHECK(cudaGetDeviceCount(&ndev));
  for (int d = 0; d < ndev; ++d) {
    int used = 0;
    for (int i = 0; i < ngranges && !used; ++i) used = granges[i].device == d;
    if (!used) continue;
    KIT_CUDA_CHECK(cudaSetDevice(d));
    KIT_CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t anchor;
    KIT_CUDA_CHECK(cudaEventCreate(&anchor));
    KIT_CUDA_CHECK(cudaEventRecord(anchor, 0));
    KIT_CUDA_CHECK(cudaEventSynchronize(anchor));
    const double anchor_us = now_us();
    for (int i = 0; i < ngranges; ++i) {
      gpu_range *g = &granges[i];
      if (g->device != d) continue;
      float ms = 0.f, since_begin = 0.f;
      KIT_CUDA_CHECK(cudaEventElapsedTime(&ms, g->begin, g->end));
      KIT_CUDA_CHECK(cudaEventElapsedTime(&since_begin, g->begin, anchor));
      const double ts = anchor_us - 1e3 * since_begin;
      add_phase(g->name, 1e-3 * ms);
      add_event(g->name, 1000 + stream_track(g->stream, d), ts, 1e3 * ms);
      KIT_CUDA_CHECK(cudaEventDestroy(g->begin));
      KIT_CUDA_CHECK(cudaEventDestroy(g->end));
    }
    KIT_CUDA_CHECK(cudaEventDestroy(anchor));
  }
  ngranges = 0;
  KIT_CUDA_CHECK(cudaSetDevice(saved));
#endif
}

void kit_phases_reset(void) {
#pragma omp critical(kit_ranges)
  nphase = 0;
}

int kit_phases_reduce(MPI_Comm comm, double steps, const char ***names, double **secs) {
  static double out[MAX_PHASES];
  static const char *out_names[MAX_PHASES];
  /* Ranks may know different phases (edge ranks skip some); reduce over rank 0's list,
   * which every variant's symmetric ranges make complete enough for a report. */
  int n = nphase;
  KIT_MPI_CHECK(MPI_Bcast(&n, 1, MPI_INT, 0, comm));
  int rank = 0;
  KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  char buf[MAX_PHASES][48];
  memset(buf, 0, sizeof buf);
  if (rank == 0)
    for (int i = 0; i < n; ++i) snprintf(buf[i], sizeof buf[i], "%s", phase_name[i]);
  KIT_MPI_CHECK(MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, 0, comm));
  double mine[MAX_PHASES];
  for (int i = 0; i < n; ++i) {
    mine[i] = 0.0;
    for (int k = 0; k < nphase; ++k)
      if (strcmp(phase_name[k], buf[i]) == 0) mine[i] = phase_sec[k] / (steps > 0 ? steps : 1.0);
  }
  KIT_MPI_CHECK(MPI_Allreduce(mine, out, n, MPI_DOUBLE, MPI_MAX, comm));
  static char keep[MAX_PHASES][48];
  for (int i = 0; i < n; ++i) {
    memcpy(keep[i], buf[i], sizeof keep[i]);
    out_names[i] = keep[i];
  }
  *names = out_names;
  *secs = out;
  return n;
}

void kit_trace_write(const char *path, MPI_Comm comm) {
  int rank = 0, size = 1;
  KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  KIT_MPI_CHECK(MPI_Comm_size(comm, &size));
  kit_json j;
  kit_json_init(&j);
  kit_json_begin_array(&j, NULL);
  char label[64];
  /* Metadata: name the process track and each thread/stream track. */
  kit_json_begin_object(&j, NULL);
  kit_json_string(&j, "name", "process_name");
  kit_json_string(&j, "ph", "M");
  kit_json_int(&j, "pid", rank);
  kit_json_begin_object(&j, "args");
  snprintf(label, sizeof label, "rank %d", rank);
  kit_json_string(&j, "name", label);
  kit_json_end_object(&j);
  kit_json_end_object(&j);
  for (int t = 0; t < next_tid + nstreams; ++t) {
    const int tid = t < next_tid ? t : 1000 + (t - next_tid);
    if (t < next_tid)
      snprintf(label, sizeof label, "host thread %d", t);
    else
      snprintf(label, sizeof label, "GPU %d stream %d", stream_dev[t - next_tid], t - next_tid);
    kit_json_begin_object(&j, NULL);
    kit_json_string(&j, "name", "thread_name");
    kit_json_string(&j, "ph", "M");
    kit_json_int(&j, "pid", rank);
    kit_json_int(&j, "tid", tid);
    kit_json_begin_object(&j, "args");
    kit_json_string(&j, "name", label);
    kit_json_end_object(&j);
    kit_json_end_object(&j);
  }
  for (size_t i = 0; i < nevents; ++i) {
    kit_json_begin_object(&j, NULL);
    kit_json_string(&j, "name", events[i].name);
    kit_json_string(&j, "cat", events[i].tid >= 1000 ? "gpu" : "host");
    kit_json_string(&j, "ph", "X");
    kit_json_int(&j, "pid", rank);
    kit_json_int(&j, "tid", events[i].tid);
    kit_json_number(&j, "ts", events[i].ts);
    kit_json_number(&j, "dur", events[i].dur);
    kit_json_end_object(&j);
  }
  kit_json_end_array(&j);
  /* Strip the brackets: rank 0 concatenates every rank's members into one array. */
  const int len = (int)j.len - 2;
  int *lens = NULL, *displs = NULL;
  char *all = NULL;
  if (rank == 0) {
    lens = malloc((size_t)size * sizeof *lens);
    displs = malloc((size_t)size * sizeof *displs);
  }
  KIT_MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm));
  long long total = 0;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      displs[r] = (int)total;
      total += lens[r];
    }
    all = malloc((size_t)total + 1);
  }
  KIT_MPI_CHECK(MPI_Gatherv(j.buf + 1, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, comm));
  if (rank == 0) {
    /* A trace that could not be written is a failed run (exit 3 with the reason), never a
     * run that ends 0 without it: every write is checked, and the close. */
    FILE *f = fopen(path, "w");
    if (!f)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--trace: cannot write '%s': %s", path, strerror(errno));
    errno = 0;
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", f);
    for (int r = 0; r < size; ++r) {
      if (r > 0 && lens[r] > 0) fputc(',', f);
      fwrite(all + displs[r], 1, (size_t)lens[r], f);
    }
    fputs("]}\n", f);
    const int before = errno, failed = ferror(f); /* errno: the failed write's reason */
    errno = 0;
    const int closed = fclose(f) == 0;
    if (!closed || failed)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--trace: could not write '%s': %s", path,
              !closed && errno ? strerror(errno)
              : before         ? strerror(before)
                               : "write error");
    free(lens);
    free(displs);
    free(all);
  }
  kit_json_free(&j);
}
