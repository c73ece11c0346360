# Third-party packages, all from Debian 12 (installed by scripts/setup).
# Which modules may use each one (an adapter, or any module for vocabulary
# libraries such as nlohmann_json and fmt) is in docs/layering.txt, checked by
# scripts/check-layering.
find_package(Threads REQUIRED)
find_package(CURL 7.88 REQUIRED)                 # CURL::libcurl            (http)
find_package(nlohmann_json 3.11 REQUIRED)        # nlohmann_json::nlohmann_json
find_package(Boost 1.81 REQUIRED)                # Boost::headers: Asio (loop, http), Beast (teacher)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBGIT2 REQUIRED IMPORTED_TARGET libgit2>=1.5)   # PkgConfig::LIBGIT2 (repo)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)         # PkgConfig::RE2 (secrets)
find_package(ZLIB REQUIRED)                       # ZLIB::ZLIB               (env: layer bounds)
find_package(yaml-cpp 0.7 REQUIRED)              # yaml-cpp                 (config)
find_package(CLI11 2 REQUIRED)                   # CLI11::CLI11             (cli)
find_package(fmt 9 REQUIRED)                     # fmt::fmt (std::format stand-in; libstdc++ 12 has none)
find_package(spdlog 1.10 REQUIRED)               # spdlog::spdlog           (base/log.cc only)
find_package(simdjson 3 REQUIRED)               # simdjson::simdjson       (agent/trajectory_decode.cc only)
find_package(OpenSSL 3 REQUIRED)                 # OpenSSL::Crypto          (base/hash.cc: SHA-256)
find_package(Catch2 2.13 REQUIRED)               # Catch2::Catch2WithMain   (tests)
include(Catch)

# Asio's non-template code compiled once (src/loop/asio_impl.cc) rather than in
# every including source: a clean build is ~10% faster. Beast's likewise
# (teacher/beast_impl.cc), in a library of its own linked only by the
# teacher and the tests' replay server, so loop and http carry Asio alone.
add_library(seragen_asio STATIC ${PROJECT_SOURCE_DIR}/src/loop/asio_impl.cc)
target_link_libraries(seragen_asio PUBLIC Boost::headers Threads::Threads)
target_compile_definitions(seragen_asio PUBLIC BOOST_ASIO_NO_DEPRECATED BOOST_ASIO_SEPARATE_COMPILATION)
add_library(seragen_beast STATIC ${PROJECT_SOURCE_DIR}/teacher/beast_impl.cc)
target_link_libraries(seragen_beast PUBLIC seragen_asio)
target_compile_definitions(seragen_beast PUBLIC BOOST_BEAST_SEPARATE_COMPILATION)

# mimalloc replaces malloc in the programs that parse whole repositories
# (seragen, bench_callgraph): tree-sitter allocates a node at a time, and
# glibc's allocator cost ~10% of `seragen graph`. Not with sanitizers, which
# bring their own allocator.
find_package(mimalloc 2.0 REQUIRED)               # mimalloc                 (executables only)
function(seragen_use_mimalloc target)
  if(NOT SERAGEN_SANITIZE)
    target_link_libraries(${target} PRIVATE mimalloc)
  endif()
endfunction()
