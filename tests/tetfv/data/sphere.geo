// sphere.geo: a unit-radius ball for tetfv's gmsh reader tests (tests/tetfv/CMakeLists.txt).
// Regenerate both formats (gmsh 4.8.4, Debian):
//   gmsh -3 sphere.geo -format msh22 -o sphere_v22.msh
//   gmsh -3 sphere.geo -format msh41 -o sphere_v41.msh
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Mesh.MeshSizeMin = 0.35;
Mesh.MeshSizeMax = 0.35;
Mesh.RandomSeed = 1;
