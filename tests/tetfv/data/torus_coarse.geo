// torus_coarse.geo: a coarse torus (R = 1, r = 0.5) on which the full least-squares flux
// correction grows (an eigenvalue of V^-1 L with positive real part): tetfv's limiter and
// energy check are tested on it (tests/hostile/tetfv.cmake). Regenerate (gmsh 4.8.4, Debian):
//   gmsh -3 torus_coarse.geo -format msh22 -o torus_coarse_v22.msh
SetFactory("OpenCASCADE");
Torus(1) = {0, 0, 0, 1, 0.5};
Mesh.CharacteristicLengthMax = 0.3;
