// params.h: the tetfv parameters the unit tests assemble their problems with (anisotropic
// rotating fibres, Neumann walls, ten steps), so each test names only what it varies.
#ifndef TETFV_TEST_PARAMS_H
#define TETFV_TEST_PARAMS_H
#include <cstring>

#include "tetfv.h"

inline tetfv_params tetfv_test_params(const char *flux, const char *bc, double aniso, const char *init) {
  tetfv_params p;
  std::memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.run.iters = 10;
  p.kappa = 1.0;
  p.aniso = aniso;
  p.fibres = "rotating";
  p.flux = flux;
  p.bc = bc;
  p.safety = 0.9;
  p.init = init;
  return p;
}
#endif
