; seragen call-graph query for Go. Capture vocabulary: docs/CALLGRAPH.md.

(package_clause (package_identifier) @name) @package

; ---- definitions --------------------------------------------------------
(function_declaration name: (identifier) @name) @function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      name: (identifier)? @self
      type: [(type_identifier) @qualifier
             (pointer_type (type_identifier) @qualifier)
             (generic_type type: (type_identifier) @qualifier)
             (pointer_type (generic_type type: (type_identifier) @qualifier))]))
  name: (field_identifier) @name) @function

; ---- call sites ---------------------------------------------------------
(call_expression function: (identifier) @name) @call

(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @call

; ---- imports ------------------------------------------------------------
(import_spec
  name: [(package_identifier) (dot) (blank_identifier)]? @alias
  path: [(interpreted_string_literal) (raw_string_literal)] @module) @import
