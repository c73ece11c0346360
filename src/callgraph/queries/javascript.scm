; seragen call-graph query for JavaScript (and JSX): what only its grammar has;
; the build puts ecmascript.scm (shared with TypeScript) first. Capture
; vocabulary: docs/CALLGRAPH.md.

; ---- definitions --------------------------------------------------------
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @function

(class_declaration name: (identifier) @name) @class
(class_declaration
  name: (identifier) @name
  (class_heritage [(identifier) (member_expression)] @base)) @class
(class name: (identifier) @name) @class

; ---- imports and exports ------------------------------------------------
((variable_declarator
   name: (object_pattern
     (pair_pattern key: (property_identifier) @member value: (identifier) @alias))
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . (string (string_fragment) @module)))) @import
 (#eq? @_require "require"))

(export_statement
  "default"
  declaration: [(function_declaration name: (identifier) @name)
                (generator_function_declaration name: (identifier) @name)
                (class_declaration name: (identifier) @name)]) @export_default

((assignment_expression
   left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
   right: (identifier) @name) @export_default
 (#eq? @_module "module")
 (#eq? @_exports "exports"))
