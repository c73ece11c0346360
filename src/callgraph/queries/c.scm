; seragen call-graph query for C. Capture vocabulary: docs/CALLGRAPH.md.

; ---- definitions --------------------------------------------------------
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @function

; ---- call sites ---------------------------------------------------------
(call_expression function: (identifier) @name) @call

; ---- includes -----------------------------------------------------------
(preproc_include path: [(string_literal) (system_lib_string)] @module) @include
