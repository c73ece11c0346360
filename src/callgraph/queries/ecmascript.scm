; seragen call-graph query: the part JavaScript (and JSX) and TypeScript (and
; TSX) share. The build puts it before javascript.scm or typescript.scm, which
; add what only their grammar has. Capture vocabulary: docs/CALLGRAPH.md.

; ---- definitions --------------------------------------------------------
(function_declaration name: (identifier) @name) @function
(generator_function_declaration name: (identifier) @name) @function
(function_expression name: (identifier) @name) @function

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @function

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @function

; obj.method = function () {}, Foo.prototype.m = ..., exports.f = ... (the
; extractor drops "prototype" and module-export objects from the qualifier).
(assignment_expression
  left: (member_expression object: (_) @qualifier property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]) @function

(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @function

; ---- call sites ---------------------------------------------------------
(call_expression function: (identifier) @name) @call

(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @call

(new_expression constructor: (identifier) @name) @new

(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @new

; ---- imports and exports ------------------------------------------------
(import_statement
  (import_clause (identifier) @default)
  source: (string (string_fragment) @module)) @import

(import_statement
  (import_clause (namespace_import (identifier) @alias))
  source: (string (string_fragment) @module)) @import

(import_statement
  (import_clause
    (named_imports
      (import_specifier name: (identifier) @member alias: (identifier)? @alias)))
  source: (string (string_fragment) @module)) @import

((variable_declarator
   name: (identifier) @alias
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . (string (string_fragment) @module)))) @import
 (#eq? @_require "require"))

((variable_declarator
   name: (object_pattern (shorthand_property_identifier_pattern) @member)
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . (string (string_fragment) @module)))) @import
 (#eq? @_require "require"))

(export_statement "default" value: (identifier) @name) @export_default

; ---- type hints: const x = new Foo(), this.x = new ns.Foo() -------------
(variable_declarator
  name: (identifier) @name
  value: (new_expression constructor: [(identifier) (member_expression)] @qualifier)) @assign_type

(assignment_expression
  left: (member_expression object: (this) @receiver property: (property_identifier) @name)
  right: (new_expression constructor: [(identifier) (member_expression)] @qualifier)) @assign_type
