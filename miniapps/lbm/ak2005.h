/* ak2005.h: the published reference for the cubic lid-driven cavity at Re = 1000.
 * S. Albensoeder and H. C. Kuhlmann, "Accurate three-dimensional lid-driven cavity flow",
 * J. Comput. Phys. 206 (2005) 536-558, Table 5 (v along the x axis) and Table 6 (u along the
 * y axis), cube with rigid end walls, Chebyshev-collocation solution. Velocities are in units
 * of the lid speed.
 * Transcribed from the open transcription in tum-pbs/PICT, tests/validations.py, commit
 * a95d7f9d0713262a1bff2bd9e2be5a203ee69208, function lid_driven_cavity_3D, key
 * (1000, 1, 1, False) — not from the paper itself (which was not available to us); a second
 * stored copy derived from that file carries the same 34 numbers. Check them against the
 * paper before relying on the fourth decimal.
 *
 * Their frame: cavity [-1/2, 1/2]^3, lid at x = -1/2 moving in +y. Ours: cavity [0, 1]^3
 * (cell centres at (i + 1/2) / n), lid at z = 1 moving in +x. So
 *   Table 5: our z = 1/2 - x_AK, our ux / U = v_AK   (vertical centre line, x = y = 1/2)
 *   Table 6: our x = y_AK + 1/2, our uz / U = -u_AK  (horizontal centre line, y = z = 1/2)
 * The arrays below hold the published values in their own frame; ak2005_map() converts. */
#ifndef LBM_AK2005_H
#define LBM_AK2005_H

#define AK2005_N 17

/* Table 5: x_AK and v_AK / U along (y, z) = (0, 0). */
static const double ak2005_t5_x[AK2005_N] = {0.5000,  0.4453,  0.4375,  0.4297,  0.3984,  0.3281,
                                             0.2187,  0.0469,  0.0000,  -0.1172, -0.2344, -0.3516,
                                             -0.4531, -0.4609, -0.4688, -0.4766, -0.5000};
static const double ak2005_t5_v[AK2005_N] = {0.00000,  -0.20623, -0.22283, -0.23696, -0.27293, -0.25160,
                                             -0.10999, -0.00612, 0.00802,  0.03905,  0.07334,  0.12183,
                                             0.33171,  0.39821,  0.48443,  0.58964,  1.00000};
/* Table 6: y_AK and u_AK / U along (x, z) = (0, 0). */
static const double ak2005_t6_y[AK2005_N] = {-0.5000, -0.4375, -0.4297, -0.4219, -0.4062, -0.3437,
                                             -0.2734, -0.2656, 0.0000,  0.3047,  0.3594,  0.4063,
                                             0.4453,  0.4531,  0.4609,  0.4688,  0.5000};
static const double ak2005_t6_u[AK2005_N] = {0.00000,  -0.21738, -0.22746, -0.23503, -0.24407, -0.22924,
                                             -0.17580, -0.16987, -0.03674, 0.15223,  0.31117,  0.43423,
                                             0.33511,  0.29032,  0.24095,  0.18864,  0.00000};

/* Point n of profile `which` (0: ux(z) from Table 5, 1: uz(x) from Table 6) in our frame:
 * position s in [0, 1] along the line and velocity / U. */
static inline void ak2005_map(int which, int n, double *s, double *v) {
  if (which == 0) {
    *s = 0.5 - ak2005_t5_x[n];
    *v = ak2005_t5_v[n];
  } else {
    *s = ak2005_t6_y[n] + 0.5;
    *v = -ak2005_t6_u[n];
  }
}
#endif
