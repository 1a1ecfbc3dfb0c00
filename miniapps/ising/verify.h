/* verify.h: observables and verification the driver calls (verify.c). */
#ifndef ISING_VERIFY_H
#define ISING_VERIFY_H
#include "ising.h"
#include "kit/report.h"

/* Gathers every rank's interior planes (layout order) and returns the whole lattice in
 * logical order, samples one after another, on rank 0 (NULL elsewhere). Collective. */
int8_t *ising_gather_logical(const ising_params *p, const ising_block *b, const int8_t *interior);
/* Energy and magnetisation per spin, mean and standard error over samples, from rank 0's
 * logical lattice, recorded on every rank; returns the mean magnetisation. Collective. */
double ising_observables(const ising_params *p, const kit_env *env, const int8_t *logical, kit_report *r);
/* Every check of README.md "Checks", recorded on every rank. Collective. */
void ising_verify(const ising_params *p, const kit_env *env, const int8_t *logical, double m_mean,
                  kit_report *r);
#endif
