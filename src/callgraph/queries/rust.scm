; seragen call-graph query for Rust. Capture vocabulary: docs/CALLGRAPH.md.

; ---- definitions --------------------------------------------------------
(function_item name: (identifier) @name) @function

(impl_item
  type: [(type_identifier) @name
         (generic_type type: (type_identifier) @name)
         (scoped_type_identifier name: (type_identifier) @name)
         (generic_type type: (scoped_type_identifier name: (type_identifier) @name))]) @class

(trait_item name: (type_identifier) @name) @class

(mod_item name: (identifier) @name body: (declaration_list)) @namespace

; ---- call sites ---------------------------------------------------------
(call_expression function: (identifier) @name) @call

(call_expression
  function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @call

(call_expression
  function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @call

(call_expression
  function: (generic_function function: (identifier) @name)) @call

(call_expression
  function: (generic_function
    function: (scoped_identifier path: (_) @receiver name: (identifier) @name))) @call

(call_expression
  function: (generic_function
    function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @call

; ---- imports ------------------------------------------------------------
(use_declaration argument: (_) @usetree) @import

; Calls inside macro arguments (println!("{}", f(x)), vec![g()]) are token
; trees, not expressions: an identifier followed by a parenthesised group.
(token_tree (identifier) @name @call . (token_tree))
(token_tree (identifier) @receiver . "." . (identifier) @name @call . (token_tree))
