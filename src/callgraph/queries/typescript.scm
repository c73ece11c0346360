; seragen call-graph query for TypeScript and TSX (one grammar family, same node
; names): what only their grammar has; the build puts ecmascript.scm (shared
; with JavaScript) first. Capture vocabulary: docs/CALLGRAPH.md.

; ---- definitions --------------------------------------------------------
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @function

(class_declaration name: (type_identifier) @name) @class
(abstract_class_declaration name: (type_identifier) @name) @class
(class_declaration
  name: (type_identifier) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @base))) @class
(abstract_class_declaration
  name: (type_identifier) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @base))) @class
(class name: (type_identifier) @name) @class
(internal_module name: [(identifier) (nested_identifier)] @name) @namespace

; ---- imports and exports ------------------------------------------------
(import_statement
  (import_require_clause (identifier) @alias source: (string (string_fragment) @module))) @import

(export_statement
  "default"
  declaration: [(function_declaration name: (identifier) @name)
                (generator_function_declaration name: (identifier) @name)
                (class_declaration name: (type_identifier) @name)]) @export_default

; ---- type hints: annotated parameters, variables and fields -------------
(required_parameter
  pattern: (identifier) @name
  type: (type_annotation (type_identifier) @qualifier)) @assign_type

(variable_declarator
  name: (identifier) @name
  type: (type_annotation (type_identifier) @qualifier)) @assign_type

(public_field_definition
  name: (property_identifier) @name
  type: (type_annotation (type_identifier) @qualifier)) @assign_type
