/* fake_kernels.c: host versions of the lbm kernels (miniapps/lbm/kernels.h), for the fake-GPU
 * test binary (tests/fakegpu/fake_cuda.c). Each launcher queues its work on the stream; the
 * work runs when the stream is forced, like a kernel. Every cell and message element is
 * computed by the functions kernels.cu calls (d3q19.h, box.h), in the kernel's own branches,
 * and every array a kernel touches is checked against its device allocation (fk_extent), so
 * the variants' host code (streams, events, the exchange, the slab and box paths) is tested
 * on a machine without a GPU. Test code only. */
#include <stdlib.h>

#include "box.h"
#include "d3q19.h"
#include "fake_gpu.h"
#include "kernels.h"

/* ---- the slab update (lbm_update_kernel) ----------------------------------------------- */
typedef struct {
  lbm_geom g;
  const double *f;
  double *fn;
  int l0, l1;
  double omega, Fx, Fy, Fz;
} update_arg;
static void update_run(void *p) {
  update_arg *a = p;
  const lbm_geom *g = &a->g;
  fk_need_doubles(a->f, LBM_Q * g->qs, "lbm_update f");
  fk_need_doubles(a->fn, LBM_Q * g->qs, "lbm_update fn");
  for (int l = a->l0; l < a->l1; ++l)
    for (int j = 0; j < g->ny; ++j)
      for (int i = 0; i < g->nx; ++i) {
        if (lbm_row_is_bulk(g, j, l) && g->nx >= 3 && i >= 1 && i <= g->nx - 2) {
          const size_t c = (size_t)l * g->plane + (size_t)j * (size_t)g->nx + (size_t)i;
          double q[LBM_Q];
          lbm_pull_bulk(a->f, g, c, q);
          lbm_collide_store(q, a->fn, g, c, a->omega, a->Fx, a->Fy, a->Fz);
        } else {
          lbm_update_cell(a->f, a->fn, g, i, j, l, a->omega, a->Fx, a->Fy, a->Fz);
        }
      }
}
void launch_lbm_update(const lbm_geom *g, const double *f, double *fn, int l0, int l1, double omega,
                       double Fx, double Fy, double Fz, cudaStream_t stream) {
  if (l1 <= l0) return;
  FK_ARG(update_arg);
  *a = (update_arg){*g, f, fn, l0, l1, omega, Fx, Fy, Fz};
  const void *touch[] = {f, fn};
  fk_enqueue(stream, "lbm_update", update_run, a, touch, 2);
}

/* ---- a z-face's five populations (lbm_pack_kernel, lbm_unpack_kernel) ------------------ */
typedef struct {
  double *f, *buf;
  size_t plane, qs;
  int l, up, to_buf;
} face_arg;
static void face_run(void *p) {
  face_arg *a = p;
  fk_need_doubles(a->buf, (size_t)LBM_ZQ * a->plane, "lbm face buffer");
  for (int m = 0; m < LBM_ZQ; ++m)
    for (size_t c = 0; c < a->plane; ++c) {
      const size_t at = lbm_face_offset(a->plane, a->qs, a->l, a->up, m, c);
      fk_need_doubles(a->f, at + 1, "lbm face lattice");
      if (a->to_buf)
        a->buf[(size_t)m * a->plane + c] = a->f[at];
      else
        a->f[at] = a->buf[(size_t)m * a->plane + c];
    }
}
static void face(double *f, double *buf, size_t plane, size_t qs, int l, int up, int to_buf, cudaStream_t s) {
  if (plane == 0) return;
  FK_ARG(face_arg);
  *a = (face_arg){f, buf, plane, qs, l, up, to_buf};
  const void *touch[] = {f, buf};
  fk_enqueue(s, to_buf ? "lbm_pack" : "lbm_unpack", face_run, a, touch, 2);
}
void launch_lbm_pack(const double *f, double *buf, size_t plane, size_t qs, int l, int up,
                     cudaStream_t stream) {
  face((double *)f, buf, plane, qs, l, up, 1, stream);
}
void launch_lbm_unpack(double *f, const double *buf, size_t plane, size_t qs, int l, int up,
                       cudaStream_t stream) {
  face(f, (double *)buf, plane, qs, l, up, 0, stream);
}

/* ---- a box's cells (lbm_box_update_kernel) ---------------------------------------------- */
typedef struct {
  lbm_box b;
  const double *f;
  double *fn;
  int lo[3], hi[3];
  double omega, Fx, Fy, Fz;
} box_arg;
static void box_run(void *p) {
  box_arg *a = p;
  const lbm_box *b = &a->b;
  const lbm_geom g = lbm_box_geom(b);
  fk_need_doubles(a->f, b->total, "lbm_box_update f");
  fk_need_doubles(a->fn, b->total, "lbm_box_update fn");
  for (int l = a->lo[2]; l < a->hi[2]; ++l)
    for (int j = a->lo[1]; j < a->hi[1]; ++j)
      for (int i = a->lo[0]; i < a->hi[0]; ++i) {
        const int gi = b->i0 - 1 + i, gj = b->j0 - 1 + j, k = b->k0 - 1 + l;
        const size_t c = (size_t)l * b->sz + (size_t)j * b->sy + (size_t)i;
        double q[LBM_Q];
        if (gi >= 1 && gi <= b->NX - 2 && gj >= 1 && gj <= b->NY - 2 && k >= 2 && k <= b->NZ - 1)
          lbm_pull_bulk(a->f, &g, c, q);
        else
          lbm_box_pull(a->f, b, i, j, l, q);
        lbm_collide_store(q, a->fn, &g, c, a->omega, a->Fx, a->Fy, a->Fz);
      }
}
void launch_lbm_box_update(const lbm_box *b, const double *f, double *fn, const int lo[3], const int hi[3],
                           double omega, double Fx, double Fy, double Fz, cudaStream_t stream) {
  if (hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]) return;
  FK_ARG(box_arg);
  *a = (box_arg){*b, f, fn, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, omega, Fx, Fy, Fz};
  const void *touch[] = {f, fn};
  fk_enqueue(stream, "lbm_box_update", box_run, a, touch, 2);
}

/* ---- a box's link message (lbm_box_link_kernel) ----------------------------------------- */
typedef struct {
  lbm_box b;
  double *f, *buf;
  int n, ghost, to_buf;
} link_arg;
static void link_run(void *p) {
  link_arg *a = p;
  const size_t cells = lbm_box_link_cells(&a->b, a->n);
  const int pops = lbm_link_pops(a->n);
  fk_need_doubles(a->buf, (size_t)pops * cells, "lbm link buffer");
  fk_need_doubles(a->f, a->b.total, "lbm link lattice");
  for (int m = 0; m < pops; ++m)
    for (size_t c = 0; c < cells; ++c) {
      const size_t at = lbm_box_link_offset(&a->b, a->n, a->ghost, m, c);
      if (a->to_buf)
        a->buf[(size_t)m * cells + c] = a->f[at];
      else
        a->f[at] = a->buf[(size_t)m * cells + c];
    }
}
void launch_lbm_box_link_copy(const lbm_box *b, double *f, int n, int ghost, double *buf, int to_buf,
                              cudaStream_t stream) {
  if (lbm_box_link_cells(b, n) == 0) return;
  FK_ARG(link_arg);
  *a = (link_arg){*b, f, buf, n, ghost, to_buf};
  const void *touch[] = {f, buf};
  fk_enqueue(stream, to_buf ? "lbm_box_pack" : "lbm_box_unpack", link_run, a, touch, 2);
}
