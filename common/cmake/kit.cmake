# kit.cmake: the helpers that register apps and tests, so no build file is copied.
#   kit_compile_options(target)         warnings, exactness flags, CUDA/NVTX defines
#   kit_add_miniapp(NAME SOURCES ... CUDA_SOURCES ... GPU_SOURCES ...)
#   kit_add_gtest(NAME SOURCES ... LIBS ... LABELS ...)
#   kit_add_app_test(NAME APP app NP n LABELS ... ARGS ... [EXPECT_EXIT c] [EXPECT_OUTPUT regex] [FAKE_GPUS n])
#   kit_add_restart_test(NAME APP app FROM a TO b LABELS ... ARGS "flags")
#   kit_add_fakegpu_app(app)            <app>_fakegpu: the app's host code on the fake GPU
include_guard(GLOBAL)

# The fake GPU's ceilings (tests/fakegpu): its device triad is not measured (that would launch a
# real kernel) but seeded here, once, for every fake-GPU test (kit_add_app_test FAKE_GPUS).
set(KIT_FAKE_CEILING_CACHE ${CMAKE_BINARY_DIR}/fake_ceilings.cache)
file(WRITE ${KIT_FAKE_CEILING_CACHE} "device-triad:kit-fake-gpu\t1000.000\n")

function(kit_compile_options target)
  # -Wno-missing-field-initializers: an option row names the fields it needs and leaves the
  # trailing ones (which variants it applies to, whether it was seen) zero, as C defines.
  # -Wpointer-arith: arithmetic on a void * (the contract's fetch buffer) counts bytes in GNU
  # C, not elements; it must be cast to its type first.
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wpointer-arith>
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>)
  if(KIT_EXACT)
    # Same expressions, same order, no fused multiply-add: CPU and GPU agree bit for bit.
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:C>:-ffp-contract=off>
      $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>
      $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false>)
  else()
    target_compile_definitions(${target} PRIVATE KIT_EXACT_OFF=1)
  endif()
  if(KIT_HAVE_CUDA)
    target_compile_definitions(${target} PRIVATE KIT_HAVE_CUDA=1)
  endif()
endfunction()

# A mini-app: host C sources always, GPU host code (variants) and .cu kernels
# only when CUDA is available. The app binary lands in build/bin/<name>.
function(kit_add_miniapp name)
  cmake_parse_arguments(A "" "" "SOURCES;GPU_SOURCES;CUDA_SOURCES" ${ARGN})
  set(srcs ${A_SOURCES})
  if(KIT_HAVE_CUDA)
    list(APPEND srcs ${A_GPU_SOURCES} ${A_CUDA_SOURCES})
  endif()
  # Everything but main.c goes into a library so tests can call the app's functions.
  list(FILTER srcs EXCLUDE REGEX "main\\.c$")
  add_library(${name}_lib STATIC ${srcs})
  target_include_directories(${name}_lib PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name}_lib PUBLIC kit)
  kit_compile_options(${name}_lib)
  add_executable(${name} main.c)
  target_link_libraries(${name} PRIVATE ${name}_lib)
  kit_compile_options(${name})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  set_property(GLOBAL APPEND PROPERTY KIT_APPS ${name})
  # The host sources, the GPU variants' among them, for the app's fake-GPU binary.
  set(host ${A_SOURCES} ${A_GPU_SOURCES})
  list(TRANSFORM host PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  set_property(GLOBAL PROPERTY KIT_${name}_HOST_SOURCES ${host})
  set_property(GLOBAL PROPERTY KIT_${name}_DIR ${CMAKE_CURRENT_SOURCE_DIR})
endfunction()

# The app's GPU variants on the fake GPU (tests/fakegpu/fake_cuda.c, a stand-in CUDA runtime):
# every host source of the app (kit_add_miniapp's SOURCES and GPU_SOURCES) with the host
# versions of its kernels, fakegpu/fake_kernels.c in the calling test directory. The binary is
# <app>_fakegpu (its tests: kit_add_app_test ... APP <app>_fakegpu FAKE_GPUS n). Only with
# CUDA, whose headers the variants include; never installed in build/bin.
function(kit_add_fakegpu_app app)
  get_property(srcs GLOBAL PROPERTY KIT_${app}_HOST_SOURCES)
  get_property(dir GLOBAL PROPERTY KIT_${app}_DIR)
  set(t ${app}_fakegpu)
  add_executable(${t} ${srcs} ${CMAKE_SOURCE_DIR}/tests/fakegpu/fake_cuda.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/fakegpu/fake_kernels.c)
  target_include_directories(${t} PRIVATE ${dir} ${CMAKE_CURRENT_SOURCE_DIR}/fakegpu
                             ${CMAKE_SOURCE_DIR}/tests/fakegpu)
  find_package(Threads REQUIRED)
  target_link_libraries(${t} PRIVATE kit Threads::Threads)
  kit_compile_options(${t})
endfunction()

function(kit_add_gtest name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ${A_LIBS} kit_gtest_main)
  kit_compile_options(${name})
  # PRE_TEST: discovery runs when the tests run, so building never starts a GPU binary.
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS "${A_LABELS}" SKIP_RETURN_CODE 77
               ENVIRONMENT "KIT_CEILING_CACHE=${CMAKE_BINARY_DIR}/ceilings.cache;OMP_NUM_THREADS=2")
endfunction()

# An end-to-end run of an app binary, under mpiexec when NP > 0.
# Exit 77 (variant not available here, e.g. no GPU) marks the test skipped.
function(kit_add_app_test name)
  cmake_parse_arguments(A "" "APP;NP;EXPECT_EXIT;EXPECT_OUTPUT;THREADS;FAKE_GPUS" "ARGS;LABELS" ${ARGN})
  if(NOT A_EXPECT_EXIT)
    set(A_EXPECT_EXIT 0)
  endif()
  if(NOT A_THREADS)
    set(A_THREADS 1)
  endif()
  # FAKE_GPUS N: APP is an app's fake-GPU test binary (tests/fakegpu) with N fake devices and the
  # fake's seeded ceilings.
  set(cache ${CMAKE_BINARY_DIR}/ceilings.cache)
  set(fake "")
  if(A_FAKE_GPUS)
    set(cache ${KIT_FAKE_CEILING_CACHE})
    set(fake ";KIT_FAKE_GPUS=${A_FAKE_GPUS}")
  endif()
  set(cmd $<TARGET_FILE:${A_APP}> ${A_ARGS})
  if(A_NP)
    set(cmd ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${A_NP} ${KIT_MPIEXEC_FLAGS} ${cmd})
  endif()
  add_test(NAME ${name}
    COMMAND ${CMAKE_SOURCE_DIR}/tests/expect.sh ${A_EXPECT_EXIT} "${A_EXPECT_OUTPUT}" ${cmd})
  set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}" SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "KIT_CEILING_CACHE=${cache};OMP_NUM_THREADS=${A_THREADS}${fake}")
  if(A_NP)
    set_property(TEST ${name} PROPERTY PROCESSORS ${A_NP})
  endif()
endfunction()

# Checkpoint on FROM ranks, restart on TO ranks: the result must equal the uninterrupted
# run byte for byte (tests/restart_test.sh). ARGS is one string of the app's flags.
function(kit_add_restart_test name)
  cmake_parse_arguments(A "" "APP;FROM;TO;ARGS" "LABELS" ${ARGN})
  add_test(NAME ${name}
    COMMAND ${CMAKE_SOURCE_DIR}/tests/restart_test.sh ${CMAKE_CURRENT_BINARY_DIR}/${name} ${A_FROM} ${A_TO}
            ${MPIEXEC_EXECUTABLE} ${KIT_MPIEXEC_FLAGS} ${MPIEXEC_NUMPROC_FLAG})
  set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}" SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "KIT_APP_BIN=$<TARGET_FILE:${A_APP}>;KIT_APP_ARGS=${A_ARGS};OMP_NUM_THREADS=1;KIT_CEILING_CACHE=${CMAKE_BINARY_DIR}/ceilings.cache")
endfunction()
