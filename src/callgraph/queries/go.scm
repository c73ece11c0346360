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

; ---- types and type hints -----------------------------------------------
; Struct and interface types are scopes, so `T.Method` resolves through T.
(type_spec name: (type_identifier) @name type: [(struct_type) (interface_type)]) @class

; x := &T{...} / x := T{...} / var x T / func f(x *T)
(short_var_declaration
  left: (expression_list . (identifier) @name)
  right: (expression_list . [(composite_literal type: (type_identifier) @qualifier)
                             (unary_expression operand: (composite_literal type: (type_identifier) @qualifier))])) @assign_type

(var_spec
  name: (identifier) @name
  type: [(type_identifier) @qualifier (pointer_type (type_identifier) @qualifier)]) @assign_type

(parameter_declaration
  name: (identifier) @name
  type: [(type_identifier) @qualifier (pointer_type (type_identifier) @qualifier)]) @assign_type
