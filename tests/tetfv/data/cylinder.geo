// cylinder.geo: a cylinder of radius 0.5 and height 2 along z for tetfv's gmsh reader tests.
// Regenerate both formats (gmsh 4.8.4, Debian):
//   gmsh -3 cylinder.geo -format msh22 -o cylinder_v22.msh
//   gmsh -3 cylinder.geo -format msh41 -o cylinder_v41.msh
SetFactory("OpenCASCADE");
Cylinder(1) = {0, 0, 0, 0, 0, 2, 0.5};
Mesh.MeshSizeMin = 0.25;
Mesh.MeshSizeMax = 0.25;
Mesh.RandomSeed = 1;
