; seragen call-graph query for Python. Capture vocabulary: docs/CALLGRAPH.md.

; ---- definitions --------------------------------------------------------
(function_definition name: (identifier) @name) @function

(expression_statement
  (assignment left: (identifier) @name right: (lambda)) @function)

(class_definition name: (identifier) @name) @class

(class_definition
  name: (identifier) @name
  superclasses: (argument_list [(identifier) (attribute)] @base)) @class

(function_definition
  body: (block . (expression_statement (string)))) @documented

(class_definition
  body: (block . (expression_statement (string)))) @documented

; ---- call sites ---------------------------------------------------------
(call function: (identifier) @name) @call

(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @call

; ---- imports ------------------------------------------------------------
(import_statement name: (dotted_name) @module) @import

(import_statement
  name: (aliased_import name: (dotted_name) @module alias: (identifier) @alias)) @import

(import_from_statement
  module_name: (_) @module
  name: (dotted_name) @member) @import

(import_from_statement
  module_name: (_) @module
  name: (aliased_import name: (dotted_name) @member alias: (identifier) @alias)) @import

(import_from_statement
  module_name: (_) @module
  (wildcard_import) @wildcard) @import

; ---- type hints: x = Foo(...), self.x = mod.Foo(...) --------------------
(assignment
  left: (identifier) @name
  right: (call function: [(identifier) (attribute)] @qualifier)) @assign_type

(assignment
  left: (attribute object: (identifier) @receiver attribute: (identifier) @name)
  right: (call function: [(identifier) (attribute)] @qualifier)) @assign_type
