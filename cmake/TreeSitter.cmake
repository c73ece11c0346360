# tree-sitter runtime (vendored C of the npm `tree-sitter` package) and grammar
# sources (npm grammar packages). scripts/setup runs `npm ci`; we only build.
set(TS_NPM_DIR ${PROJECT_SOURCE_DIR}/third_party/tree-sitter)
set(TS_NODE_MODULES ${TS_NPM_DIR}/node_modules)
set(TS_LIB ${TS_NODE_MODULES}/tree-sitter/vendor/tree-sitter/lib)
if(NOT EXISTS ${TS_LIB}/src/lib.c)
  message(FATAL_ERROR
    "tree-sitter sources are missing (${TS_LIB}/src/lib.c).\n"
    "Run scripts/setup (it runs `npm ci` in third_party/tree-sitter).")
endif()

add_library(ts_runtime STATIC ${TS_LIB}/src/lib.c)
target_include_directories(ts_runtime SYSTEM PUBLIC ${TS_LIB}/include PRIVATE ${TS_LIB}/src)
target_compile_definitions(ts_runtime PRIVATE _POSIX_C_SOURCE=200112L _DEFAULT_SOURCE)
# -O3: parsing and query matching are most of `seragen graph`'s time, and -O3
# runs them ~10-20% faster than -O2 on our Python benchmark tree.
target_compile_options(ts_runtime PRIVATE -O3 -g0 -w)
set_target_properties(ts_runtime PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)

# ts_add_grammar(<name> <srcdir>): library ts_grammar_<name> exporting tree_sitter_<name>().
function(ts_add_grammar name srcdir)
  set(_srcs ${srcdir}/parser.c)
  if(EXISTS ${srcdir}/scanner.c)
    list(APPEND _srcs ${srcdir}/scanner.c)
  endif()
  add_library(ts_grammar_${name} STATIC ${_srcs})
  target_include_directories(ts_grammar_${name} PRIVATE ${srcdir})
  # parser.c is mostly tables: no debug info. -O2 compiled as fast as -O1 here
  # (python 0.84 s vs 1.10 s, cpp 2.5 s vs 3.2 s) and lexed ~25% faster; -O3
  # (with the runtime, above) is faster again.
  target_compile_options(ts_grammar_${name} PRIVATE -O3 -g0 -w)
  set_target_properties(ts_grammar_${name} PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(ts_grammar_${name} PUBLIC ts_runtime)
endfunction()

ts_add_grammar(python     ${TS_NODE_MODULES}/tree-sitter-python/src)
ts_add_grammar(javascript ${TS_NODE_MODULES}/tree-sitter-javascript/src)
ts_add_grammar(typescript ${TS_NODE_MODULES}/tree-sitter-typescript/typescript/src)
ts_add_grammar(tsx        ${TS_NODE_MODULES}/tree-sitter-typescript/tsx/src)
ts_add_grammar(go         ${TS_NODE_MODULES}/tree-sitter-go/src)
ts_add_grammar(rust       ${TS_NODE_MODULES}/tree-sitter-rust/src)
ts_add_grammar(java       ${TS_NODE_MODULES}/tree-sitter-java/src)
ts_add_grammar(c          ${TS_NODE_MODULES}/tree-sitter-c/src)
ts_add_grammar(cpp        ${TS_NODE_MODULES}/tree-sitter-cpp/src)

add_library(ts_grammars INTERFACE)
target_link_libraries(ts_grammars INTERFACE
  ts_grammar_python ts_grammar_javascript ts_grammar_typescript ts_grammar_tsx
  ts_grammar_go ts_grammar_rust ts_grammar_java ts_grammar_c ts_grammar_cpp)
