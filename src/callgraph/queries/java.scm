; seragen call-graph query for Java. Capture vocabulary: docs/CALLGRAPH.md.

(package_declaration [(identifier) (scoped_identifier)] @name) @package

; ---- definitions --------------------------------------------------------
(class_declaration name: (identifier) @name) @class
(class_declaration
  name: (identifier) @name
  superclass: (superclass [(type_identifier) (scoped_type_identifier)] @base)) @class
(class_declaration
  name: (identifier) @name
  superclass: (superclass (generic_type [(type_identifier) (scoped_type_identifier)] @base))) @class
(interface_declaration name: (identifier) @name) @class
(enum_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class

(method_declaration name: (identifier) @name) @function
(constructor_declaration name: (identifier) @name) @function
(compact_constructor_declaration name: (identifier) @name) @function

; ---- call sites ---------------------------------------------------------
(method_invocation !object name: (identifier) @name) @call
(method_invocation object: (_) @receiver name: (identifier) @name) @call

(object_creation_expression type: (type_identifier) @name) @new
(object_creation_expression type: (generic_type (type_identifier) @name)) @new
(object_creation_expression type: (scoped_type_identifier) @name) @new

; ---- imports ------------------------------------------------------------
(import_declaration [(identifier) (scoped_identifier)] @module) @import
(import_declaration [(identifier) (scoped_identifier)] @module (asterisk) @wildcard) @import

; ---- type hints: Foo x = ...; void f(Foo x); private Foo field; ---------
(local_variable_declaration
  type: [(type_identifier) (scoped_type_identifier)] @qualifier
  declarator: (variable_declarator name: (identifier) @name)) @assign_type

(formal_parameter
  type: [(type_identifier) (scoped_type_identifier)] @qualifier
  name: (identifier) @name) @assign_type

(field_declaration
  type: [(type_identifier) (scoped_type_identifier)] @qualifier
  declarator: (variable_declarator name: (identifier) @name)) @assign_type
