# Helpers that keep every module's CMakeLists.txt to a few lines.

set(SERAGEN_WARNINGS -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
if(SERAGEN_WERROR)
  list(APPEND SERAGEN_WARNINGS -Werror)
endif()

# Modules whose own CPU time users wait for (parsing whole repositories,
# diffing and restoring working copies, scoring patches, hashing, scanning
# exported text for secrets) build at -O2.
# The rest orchestrate work that waits on model servers, sandboxes and disks;
# they build at -O1, which compiles ~20% faster and changes their benchmarks by
# a few percent (docs/BUILD.md has the figures).
set(SERAGEN_COMPUTE_MODULES base repo callgraph verify secrets)

# seragen_orchestration_flags(<target>): -O1 in optimised builds, for code
# outside SERAGEN_COMPUTE_MODULES (modules, and the cli front end).
function(seragen_orchestration_flags target)
  target_compile_options(${target} PRIVATE $<$<CONFIG:RelWithDebInfo,Release,MinSizeRel>:-O1>)
endfunction()

# seragen_module(<name> SOURCES a.cc b.cc PUBLIC_DEPS ... PRIVATE_DEPS ...)
# Defines static library seragen_<name> with include/ as its public include root.
function(seragen_module name)
  cmake_parse_arguments(M "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(seragen_${name} STATIC ${M_SOURCES})
  target_include_directories(seragen_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include
                             PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(seragen_${name} PRIVATE ${SERAGEN_WARNINGS})
  if(NOT name IN_LIST SERAGEN_COMPUTE_MODULES)
    seragen_orchestration_flags(seragen_${name})
  endif()
  target_link_libraries(seragen_${name} PUBLIC ${M_PUBLIC_DEPS} PRIVATE ${M_PRIVATE_DEPS})
endfunction()

# seragen_module_sources(<out-var> <module>): the absolute paths of the sources
# of seragen_<module>, for targets that build a module's code again with other
# flags (the sanitizer test executables).
function(seragen_module_sources out module)
  get_target_property(_sources seragen_${module} SOURCES)
  get_target_property(_dir seragen_${module} SOURCE_DIR)
  set(_abs)
  foreach(s IN LISTS _sources)
    cmake_path(ABSOLUTE_PATH s BASE_DIRECTORY ${_dir} OUTPUT_VARIABLE _p)
    list(APPEND _abs ${_p})
  endforeach()
  set(${out} ${_abs} PARENT_SCOPE)
endfunction()

# seragen_test_cost(<out-var> <labels>): the ctest COST estimate of a test
# from its labels (slow > browser > integration > unit); real cost data, once
# a build directory has run ctest, takes over from it.
function(seragen_test_cost out labels)
  set(_c 1)
  if("integration" IN_LIST labels)
    set(_c 100)
  endif()
  if("browser" IN_LIST labels)
    set(_c 500)
  endif()
  if("slow" IN_LIST labels)
    set(_c 1000)
  endif()
  set(${out} ${_c} PARENT_SCOPE)
endfunction()

# Test support library shared by all test executables (fakes, temp dirs, fixtures).
# seragen_test(<module> SOURCES x_test.cc ... DEPS ...)
# One Catch2 executable per module; each TEST_CASE becomes one ctest test.
function(seragen_test module)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  set(exe ${module}_tests)
  add_executable(${exe} ${T_SOURCES})
  target_include_directories(${exe} PRIVATE ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_options(${exe} PRIVATE ${SERAGEN_WARNINGS})
  target_link_libraries(${exe} PRIVATE ${T_DEPS} seragen_testing Catch2::Catch2WithMain)
  if(TARGET seragen_test_pch)
    target_precompile_headers(${exe} REUSE_FROM seragen_test_pch)
  endif()
  set(_labels unit ${module} ${T_LABELS})
  catch_discover_tests(${exe} TEST_PREFIX "${module}." TEST_LIST ${exe}_TESTS
                       WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  # Catch2 v2 flattens list-valued PROPERTIES (only the first label would
  # survive), so label the discovered tests afterwards.
  # COST: a fresh clone has no ctest cost data and would start tests in
  # definition order, leaving the slowest (integration, defined last) as the
  # tail of a 2-core run; the estimate starts them first instead.
  seragen_test_cost(_cost "${_labels}")
  set(_label_script ${CMAKE_CURRENT_BINARY_DIR}/${exe}_labels.cmake)
  file(WRITE ${_label_script}
    "foreach(_t IN LISTS ${exe}_TESTS)\n  set_tests_properties(\"\${_t}\" PROPERTIES LABELS \"${_labels}\" COST ${_cost})\nendforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${_label_script})
endfunction()

# seragen_bench(<name> SOURCES ... DEPS ...): a benchmark program under bench/;
# benchmarks print their figures and are never part of ctest timing checks.
# The checkout's paths come from seragen_testing (testing/source_paths.h).
function(seragen_bench name)
  cmake_parse_arguments(B "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(bench_${name} ${B_SOURCES})
  target_include_directories(bench_${name} PRIVATE ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/bench)
  target_compile_options(bench_${name} PRIVATE ${SERAGEN_WARNINGS})
  target_link_libraries(bench_${name} PRIVATE ${B_DEPS} seragen_testing)
endfunction()
