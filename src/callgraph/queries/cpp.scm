; seragen call-graph query for C++. Capture vocabulary: docs/CALLGRAPH.md.
; A @name whose text contains "::" is split: the last segment is the name, the
; rest qualifies it (out-of-line member definitions, qualified calls).

; ---- definitions --------------------------------------------------------
(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name)
                 (operator_name)] @name)) @function

(function_definition
  declarator: (_
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))) @function

(function_definition
  declarator: (_
    (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))) @function

(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @class
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @class
(class_specifier
  name: (type_identifier) @name
  (base_class_clause [(type_identifier) (qualified_identifier)] @base)
  body: (field_declaration_list)) @class
(struct_specifier
  name: (type_identifier) @name
  (base_class_clause [(type_identifier) (qualified_identifier)] @base)
  body: (field_declaration_list)) @class
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @namespace

; ---- call sites ---------------------------------------------------------
(call_expression function: [(identifier) (qualified_identifier)] @name) @call

(call_expression function: (template_function name: (identifier) @name)) @call

(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @call

(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: (template_method name: (field_identifier) @name))) @call

(new_expression type: [(type_identifier) (qualified_identifier)] @name) @new

; ---- includes -----------------------------------------------------------
(preproc_include path: [(string_literal) (system_lib_string)] @module) @include

; ---- type hints: Foo x; Foo* x; void f(const Foo& x); Foo field_; -------
(declaration
  type: [(type_identifier) (qualified_identifier)] @qualifier
  declarator: [(identifier) @name
               (init_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (identifier) @name)
               (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
               (reference_declarator (identifier) @name)]) @assign_type

(parameter_declaration
  type: [(type_identifier) (qualified_identifier)] @qualifier
  declarator: [(identifier) @name
               (pointer_declarator declarator: (identifier) @name)
               (reference_declarator (identifier) @name)]) @assign_type

(field_declaration
  type: [(type_identifier) (qualified_identifier)] @qualifier
  declarator: [(field_identifier) @name
               (pointer_declarator declarator: (field_identifier) @name)]) @assign_type
