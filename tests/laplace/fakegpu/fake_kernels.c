/* fake_kernels.c: host versions of the laplace kernels (miniapps/laplace/kernels.h), for the
 * fake-GPU test binary (tests/fakegpu/fake_cuda.c). Each launcher queues its work on the
 * stream; the work runs when the stream is forced, like a kernel. Every point is
 * laplace_update (stencil.h) of the same seven values the kernel reads, every face element is
 * laplace_face_at's, and every array a kernel touches is checked against its device
 * allocation (fk_extent), so the GPU variants' host code runs on a machine without a GPU.
 * Test code only. */
#include <stdlib.h>

#include "fake_gpu.h"
#include "kernels.h"
#include "stencil.h"

typedef struct {
  laplace_block b;
  const double *u;
  double *un;
  int r[6];
  double alpha, beta;
} sweep_arg;
static void sweep_run(void *p) {
  sweep_arg *a = p;
  const laplace_block *b = &a->b;
  /* The highest point read: the plane above the last one swept. */
  fk_need_doubles(a->u, (size_t)(a->r[5] + 1) * b->sz, "laplace_sweep u");
  fk_need_doubles(a->un, (size_t)a->r[5] * b->sz, "laplace_sweep un");
  for (int l = a->r[4]; l < a->r[5]; ++l)
    for (int j = a->r[2]; j < a->r[3]; ++j)
      for (int i = a->r[0]; i < a->r[1]; ++i) {
        const size_t c = (size_t)l * b->sz + (size_t)j * b->sy + (size_t)i;
        const double *u = a->u;
        a->un[c] = laplace_update(u[c], u[c + 1], u[c + b->sy], u[c + b->sz], u[c - 1], u[c - b->sy],
                                  u[c - b->sz], a->alpha, a->beta);
      }
}
void launch_laplace_sweep_box(const laplace_block *b, const double *u, double *un, const int r[6],
                              double alpha, double beta, cudaStream_t stream) {
  if (r[1] <= r[0] || r[3] <= r[2] || r[5] <= r[4]) return;
  FK_ARG(sweep_arg);
  *a = (sweep_arg){*b, u, un, {r[0], r[1], r[2], r[3], r[4], r[5]}, alpha, beta};
  const void *touch[] = {u, un};
  fk_enqueue(stream, "laplace_sweep", sweep_run, a, touch, 2);
}
void launch_laplace_sweep(const laplace_block *b, const double *u, double *un, int l0, int l1, double alpha,
                          double beta, cudaStream_t stream) {
  const int r[6] = {1, b->nx + 1, 1, b->ny + 1, l0, l1};
  launch_laplace_sweep_box(b, u, un, r, alpha, beta, stream);
}

typedef struct {
  laplace_face_shape f;
  double *u, *buf;
  int to_buf;
} face_arg;
static void face_run(void *p) {
  face_arg *a = p;
  const laplace_face_shape *f = &a->f;
  fk_need_doubles(a->buf, (size_t)f->n1 * (size_t)f->n2, "laplace face buffer");
  fk_need_doubles(a->u, laplace_face_at(f, f->n1 - 1, f->n2 - 1) + 1, "laplace face field");
  for (int l = 0; l < f->n2; ++l)
    for (int i = 0; i < f->n1; ++i) {
      const size_t n = (size_t)l * (size_t)f->n1 + (size_t)i;
      if (a->to_buf)
        a->buf[n] = a->u[laplace_face_at(f, i, l)];
      else
        a->u[laplace_face_at(f, i, l)] = a->buf[n];
    }
}
void launch_laplace_face_copy(const laplace_block *b, double *u, int face, int ghost, double *buf, int to_buf,
                              cudaStream_t stream) {
  const laplace_face_shape f = laplace_face_shape_of(b, face, ghost);
  if (f.n1 == 0 || f.n2 == 0) return;
  FK_ARG(face_arg);
  *a = (face_arg){f, u, buf, to_buf};
  const void *touch[] = {u, buf};
  fk_enqueue(stream, to_buf ? "laplace_face_pack" : "laplace_face_unpack", face_run, a, touch, 2);
}
