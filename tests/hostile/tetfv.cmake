# tetfv, hostile input round two (miniapps/tetfv/README.md "Stability" and "Refused
# meshes"): a coarse torus on which the full flux correction grows is limited and passes,
# and with the limiter off the energy check catches the growth; the same element twice and
# overlapping tetrahedra are refused with exit 2 naming both; box:1 and box:2 run and say why
# the mode-decay check does not apply.
set(TD ${CMAKE_SOURCE_DIR}/tests/tetfv/data)
set(TORUS ${TD}/torus_coarse_v22.msh)
add_test(NAME tetfv_hostile_torus_limited
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tetfv_stability.sh ${TORUS} $<TARGET_FILE:tetfv>)
add_test(NAME tetfv_hostile_torus_regenerated
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tetfv_stability.sh - $<TARGET_FILE:tetfv> regen ${TD}/torus_coarse.geo)
set_tests_properties(tetfv_hostile_torus_limited tetfv_hostile_torus_regenerated PROPERTIES
  LABELS cpu TIMEOUT 60 SKIP_RETURN_CODE 77
  ENVIRONMENT "KIT_CEILING_CACHE=${CMAKE_BINARY_DIR}/ceilings.cache;OMP_NUM_THREADS=1")
# The limited scheme with u = 0 on the boundary, and two-point fluxes (monotone: the maximum
# principle applies too) on the same mesh.
kit_add_app_test(tetfv_hostile_torus_dirichlet APP tetfv LABELS cpu EXPECT_OUTPUT "^check energy: +PASSED  sum V u\\^2"
  ARGS --variant cpu --mesh ${TORUS} --bc dirichlet --iters 20 --reps 1 --init random)
kit_add_app_test(tetfv_hostile_torus_two_point APP tetfv LABELS cpu EXPECT_OUTPUT "^check max_principle: +PASSED"
  ARGS --variant cpu --mesh ${TORUS} --flux two-point --iters 20 --reps 1 --init random)
kit_add_app_test(tetfv_hostile_torus_np2 APP tetfv NP 2 LABELS mpi EXPECT_OUTPUT "^check energy: +PASSED"
  ARGS --variant cpu --mesh ${TORUS} --iters 12 --reps 1 --init random)
kit_add_app_test(tetfv_hostile_duplicate_tets APP tetfv LABELS cpu EXPECT_EXIT 2
  EXPECT_OUTPUT "bad_duplicate_tets.msh': the tetrahedra of lines 13 and 14 are the same element"
  ARGS --mesh ${TD}/bad_duplicate_tets.msh)
kit_add_app_test(tetfv_hostile_overlapping_tets APP tetfv LABELS cpu EXPECT_EXIT 2
  EXPECT_OUTPUT "bad_overlap_tets.msh': the tetrahedra of lines 14 and 15 overlap \\(both lie on the same side of their shared face\\)"
  ARGS --mesh ${TD}/bad_overlap_tets.msh)
foreach(n 1 2)
  kit_add_app_test(tetfv_hostile_box${n} APP tetfv LABELS cpu
    EXPECT_OUTPUT "^check mode_decay: +SKIPPED  not applicable: needs box:N with N >= 3"
    ARGS --variant cpu --mesh box:${n} --reps 1)
  kit_add_app_test(tetfv_hostile_box${n}_dirichlet APP tetfv LABELS cpu
    EXPECT_OUTPUT "^check mode_decay: +SKIPPED  not applicable: needs box:N with N >= 3"
    ARGS --variant cpu --mesh box:${n} --bc dirichlet --reps 1)
endforeach()
# The proven scheme (KIT_FAULT=always-limit skips the probe) at the largest step it allows
# (--safety 1): the energy bound must hold on other meshes too, Neumann and Dirichlet.
foreach(case "box;--mesh;box:4;--jitter;0.5;--shuffle" "sphere;--mesh;${TD}/sphere_v41.msh"
        "cylinder_dirichlet;--mesh;${TD}/cylinder_v22.msh;--bc;dirichlet;--aniso;3")
  list(POP_FRONT case tag)
  kit_add_app_test(tetfv_hostile_proven_${tag} APP tetfv LABELS cpu EXPECT_OUTPUT "^check energy: +PASSED"
    ARGS --variant cpu ${case} --safety 1 --init random --iters 30 --reps 1)
  set_property(TEST tetfv_hostile_proven_${tag} APPEND PROPERTY ENVIRONMENT "KIT_FAULT=always-limit")
endforeach()
# Strong anisotropy on the coarse torus: the correction grows and a face is K-obtuse, so no
# limit of it is provably dissipative: refused, both cells named.
kit_add_app_test(tetfv_hostile_torus_k_obtuse APP tetfv LABELS cpu EXPECT_EXIT 2
  EXPECT_OUTPUT "torus_coarse_v22.msh': cell 7 \\(line 993\\) and cell 175 \\(line 1161\\): K S . d <= 0 across their face"
  ARGS --variant cpu --mesh ${TORUS} --aniso 20)
