/* fake_kernels.c: host versions of the tetfv kernels (miniapps/tetfv/kernels.h), for the
 * fake-GPU test binary (tests/fakegpu/fake_cuda.c). Each launcher queues its work on the
 * stream; the work runs when the stream is forced, like a kernel. A row is tetfv_row_at
 * (row.h) over the same slots the kernels read: a full block's rows with their slots
 * TETFV_GPU_B apart (the blocked kernel), the remainder's contiguous (the row-major one). Every
 * array is checked against its device allocation (fk_need_doubles), so the GPU variants' host
 * code runs on a machine without a GPU. Test code only. */
#include <stdlib.h>

#include "fake_gpu.h"
#include "kernels.h"
#include "row.h"

/* Aborts unless every column index of `n` rows (slots `stride` apart from I) and every row i
 * lies inside u's allocation, and un's row range inside un's. */
static void need_rows(const int *I, int n, int stride, const double *u, const double *un, int i1) {
  int top = i1 - 1;
  for (int r = 0; r < n; ++r)
    for (int j = 0; j < TETFV_W; ++j) {
      const int c =
          I[(size_t)(r / stride * stride) * TETFV_W + (size_t)j * (size_t)stride + (size_t)(r % stride)];
      if (c < 0) fk_fail("tetfv_rows: a negative column index");
      if (c > top) top = c;
    }
  fk_need_doubles(u, (size_t)top + 1, "tetfv_rows u");
  fk_need_doubles(un, (size_t)i1, "tetfv_rows un");
}

typedef struct {
  tetfv_dev_rows s;
  const double *u;
  double *un;
} rows_arg;
static void rows_run(void *p) {
  rows_arg *a = p;
  const tetfv_dev_rows *s = &a->s;
  const int B = TETFV_GPU_B, n = s->r1 - s->r0, full = s->nblk * B;
  fk_need_doubles(s->D, (size_t)n, "tetfv_rows D");
  fk_need_doubles(s->A, (size_t)n * TETFV_W, "tetfv_rows A");
  FK_NEED(s->I, (size_t)n * TETFV_W, "tetfv_rows I");
  if (full > 0) need_rows(s->I, full, B, a->u, a->un, s->r0 + full);
  if (n > full) need_rows(s->I + (size_t)full * TETFV_W, n - full, 1, a->u, a->un, s->r1);
  for (int b = 0; b < s->nblk; ++b) /* tetfv_blocked_kernel: block b, thread r */
    for (int r = 0; r < B; ++r) {
      const size_t slot0 = (size_t)b * (size_t)(TETFV_W * B) + (size_t)r;
      const int i = s->r0 + b * B + r;
      a->un[i] = tetfv_row_at(s->D[(size_t)b * B + (size_t)r], s->A + slot0, s->I + slot0, B, a->u, i);
    }
  for (int r = 0; r < n - full; ++r) { /* tetfv_rowmajor_kernel over the remainder */
    const size_t k = (size_t)full + (size_t)r;
    a->un[s->r0 + full + r] =
        tetfv_row_at(s->D[k], s->A + k * TETFV_W, s->I + k * TETFV_W, 1, a->u, s->r0 + full + r);
  }
}
void launch_tetfv_rows(const tetfv_dev_rows *s, const double *u, double *un, cudaStream_t stream) {
  if (s->r1 <= s->r0) return;
  FK_ARG(rows_arg);
  *a = (rows_arg){*s, u, un};
  const void *touch[] = {s->D, s->A, s->I, u, un};
  fk_enqueue(stream, "tetfv_rows", rows_run, a, touch, 5);
}

typedef struct {
  const int *idx;
  int n;
  const double *u;
  double *buf;
} pack_arg;
static void pack_run(void *p) {
  pack_arg *a = p;
  FK_NEED(a->idx, a->n, "tetfv_pack idx");
  fk_need_doubles(a->buf, (size_t)a->n, "tetfv_pack buf");
  int top = 0;
  for (int k = 0; k < a->n; ++k) {
    if (a->idx[k] < 0) fk_fail("tetfv_pack: a negative index");
    if (a->idx[k] > top) top = a->idx[k];
  }
  fk_need_doubles(a->u, (size_t)top + 1, "tetfv_pack u");
  for (int k = 0; k < a->n; ++k) a->buf[k] = a->u[a->idx[k]];
}
void launch_tetfv_pack(const int *idx, int n, const double *u, double *buf, cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(pack_arg);
  *a = (pack_arg){idx, n, u, buf};
  const void *touch[] = {idx, u, buf};
  fk_enqueue(stream, "tetfv_pack", pack_run, a, touch, 3);
}
