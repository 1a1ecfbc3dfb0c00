/* reference.c: the serial oracle. The lattice in logical order (s = x + LX (y + LY z)),
 * one plain array of spins and three of bonds, neighbours found by periodic wrap: nothing
 * of the layouts, the decomposition or the coupling bytes, so it checks all of them.
 * Colour 0 then colour 1 per sweep (Bernaschi Sec. 3.1); the sites of one colour are
 * independent, so OpenMP threads share a half-sweep without changing any result. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ising.h"
#include "kit/check.h"
#include "kit/driver.h"

/* J of the bond from s to its +d neighbour, +1 or -1, for every site and direction. */
static int8_t *make_bonds(const ising_rules *r, int k, int threads) {
  const int LX = r->L[0], LY = r->L[1], LZ = r->L[2];
  const size_t N = (size_t)LX * LY * LZ;
  int8_t *J = kit_malloc(3 * N, "oracle bonds");
#pragma omp parallel for collapse(2) num_threads(threads)
  for (int z = 0; z < LZ; ++z)
    for (int y = 0; y < LY; ++y)
      for (int x = 0; x < LX; ++x)
        for (int d = 0; d < 3; ++d)
          J[3 * ising_site(r, x, y, z) + d] = (int8_t)(ising_bond_negative(r, k, x, y, z, d) ? -1 : 1);
  return J;
}

/* The +d and -d neighbours of site (x, y, z). */
static void neighbours(const ising_rules *r, int x, int y, int z, uint32_t plus[3], uint32_t minus[3]) {
  const int c[3] = {x, y, z};
  for (int d = 0; d < 3; ++d) {
    int up[3] = {c[0], c[1], c[2]}, dn[3] = {c[0], c[1], c[2]};
    up[d] = (c[d] + 1) % r->L[d];
    dn[d] = (c[d] + r->L[d] - 1) % r->L[d];
    plus[d] = ising_site(r, up[0], up[1], up[2]);
    minus[d] = ising_site(r, dn[0], dn[1], dn[2]);
  }
}

static long long energy_of(const ising_rules *r, const int8_t *J, const int8_t *s, int threads) {
  long long e = 0;
#pragma omp parallel for collapse(2) reduction(+ : e) num_threads(threads)
  for (int z = 0; z < r->L[2]; ++z)
    for (int y = 0; y < r->L[1]; ++y)
      for (int x = 0; x < r->L[0]; ++x) {
        uint32_t plus[3], minus[3];
        neighbours(r, x, y, z, plus, minus);
        const uint32_t i = ising_site(r, x, y, z);
        for (int d = 0; d < 3; ++d) e -= (long long)J[3 * i + d] * s[i] * s[plus[d]];
      }
  return e;
}

long long ising_energy(const ising_params *p, int sample, const int8_t *spins) {
  const ising_rules r = ising_rules_of(p);
  int8_t *J = make_bonds(&r, sample, omp_get_max_threads());
  const long long e = energy_of(&r, J, spins, omp_get_max_threads());
  free(J);
  return e;
}

long long ising_magnetisation(const ising_params *p, const int8_t *spins) {
  const size_t N = (size_t)p->size[0] * p->size[1] * p->size[2];
  long long m = 0;
  for (size_t i = 0; i < N; ++i) m += spins[i];
  return m;
}

long long ising_reference(const ising_params *p, int ferro_gauge, int8_t *spins, long long *energy,
                          int threads) {
  const ising_rules model = ising_rules_of(p);
  ising_rules r = model;
  if (ferro_gauge) { /* the ferromagnet the Mattis model is gauge-equivalent to */
    r.mattis = 0;
    r.p = 0.0;
  }
  const int LX = r.L[0], LY = r.L[1], LZ = r.L[2];
  const size_t N = (size_t)LX * LY * LZ;
  const int sweeps = p->run.iters;
  long long worst = 0;
  kit_progress pr = kit_progress_start(&p->run);
  for (int k = 0; k < p->samples; ++k) {
    int8_t *s = spins + (size_t)k * N;
    for (uint32_t i = 0; i < N; ++i)
      s[i] = (int8_t)(ising_initial_spin(&model, k, i) * (ferro_gauge ? ising_gauge(&model, k, i) : 1));
    int8_t *J = make_bonds(&r, k, threads);
    long long e = energy_of(&r, J, s, threads);
    long long *traj = energy + (size_t)k * (sweeps + 1);
    traj[0] = e;
    for (int t = 0; t < sweeps; ++t) {
      for (int c = 0; c < 2; ++c) {
        long long de = 0;
#pragma omp parallel for collapse(2) reduction(+ : de) num_threads(threads)
        for (int z = 0; z < LZ; ++z)
          for (int y = 0; y < LY; ++y)
            for (int x = (c + y + z) & 1; x < LX; x += 2) {
              uint32_t plus[3], minus[3];
              neighbours(&r, x, y, z, plus, minus);
              const uint32_t i = ising_site(&r, x, y, z);
              int h = 0;
              for (int d = 0; d < 3; ++d) h += J[3 * i + d] * s[plus[d]] + J[3 * minus[d] + d] * s[minus[d]];
              const int8_t next = ising_metropolis(&r, k, i, c, (uint32_t)t, s[i], h);
              if (next != s[i]) de += 2 * s[i] * h; /* E changes by dE = 2 s h on a flip */
              s[i] = next;
            }
        e += de;
      }
      /* The energy tracked flip by flip against the energy recomputed from the spins. */
      const long long scratch = energy_of(&r, J, s, threads);
      const long long diff = llabs(scratch - e);
      if (diff > worst) worst = diff;
      traj[t + 1] = scratch;
      kit_progress_loop(&pr, "oracle sweep", k * sweeps + t + 1, p->samples * sweeps);
    }
    free(J);
  }
  return worst;
}
