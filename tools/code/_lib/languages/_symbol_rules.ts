/**
 * Which syntax nodes of each grammar are the definitions an outline shows, and the nodes around
 * a definition that belong to it (export, decorators, doc comments). Plain data: the parse
 * worker reads it.
 */

/** What kind of symbol a syntax node is; `container`: its members are symbols too. */
export interface SymbolRule {
  kind: string;
  container?: boolean;
}

export type SymbolRules = Readonly<Record<string, SymbolRule>>;

export const TS_RULES: SymbolRules = {
  class_declaration: { kind: "class", container: true },
  abstract_class_declaration: { kind: "class", container: true },
  interface_declaration: { kind: "interface", container: true },
  enum_declaration: { kind: "enum" },
  type_alias_declaration: { kind: "type" },
  function_declaration: { kind: "function" },
  generator_function_declaration: { kind: "function" },
  function_signature: { kind: "function" },
  method_definition: { kind: "method" },
  method_signature: { kind: "method" },
  abstract_method_signature: { kind: "method" },
  public_field_definition: { kind: "field" },
  field_definition: { kind: "field" },
  property_signature: { kind: "field" },
  internal_module: { kind: "namespace", container: true },
  module: { kind: "namespace", container: true },
  variable_declarator: { kind: "variable" },
};

export const PYTHON_RULES: SymbolRules = {
  class_definition: { kind: "class", container: true },
  function_definition: { kind: "function" },
};

export const GO_RULES: SymbolRules = {
  function_declaration: { kind: "function" },
  method_declaration: { kind: "method" },
  type_spec: { kind: "type", container: true },
  type_alias: { kind: "type" },
  method_elem: { kind: "method" },
  const_spec: { kind: "constant" },
};

export const RUST_RULES: SymbolRules = {
  function_item: { kind: "function" },
  function_signature_item: { kind: "function" },
  struct_item: { kind: "struct" },
  enum_item: { kind: "enum" },
  union_item: { kind: "union" },
  trait_item: { kind: "trait", container: true },
  impl_item: { kind: "impl", container: true },
  mod_item: { kind: "module", container: true },
  const_item: { kind: "constant" },
  static_item: { kind: "constant" },
  type_item: { kind: "type" },
  macro_definition: { kind: "macro" },
};

export const JAVA_RULES: SymbolRules = {
  class_declaration: { kind: "class", container: true },
  interface_declaration: { kind: "interface", container: true },
  enum_declaration: { kind: "enum", container: true },
  record_declaration: { kind: "record", container: true },
  annotation_type_declaration: { kind: "annotation", container: true },
  method_declaration: { kind: "method" },
  constructor_declaration: { kind: "constructor" },
  field_declaration: { kind: "field" },
};

export const C_RULES: SymbolRules = {
  function_definition: { kind: "function" },
  struct_specifier: { kind: "struct", container: true },
  union_specifier: { kind: "union", container: true },
  enum_specifier: { kind: "enum" },
  type_definition: { kind: "type" },
};

export const CPP_RULES: SymbolRules = {
  ...C_RULES,
  class_specifier: { kind: "class", container: true },
  namespace_definition: { kind: "namespace", container: true },
  field_declaration: { kind: "field" },
};

export const PHP_RULES: SymbolRules = {
  class_declaration: { kind: "class", container: true },
  interface_declaration: { kind: "interface", container: true },
  trait_declaration: { kind: "trait", container: true },
  enum_declaration: { kind: "enum", container: true },
  function_definition: { kind: "function" },
  method_declaration: { kind: "method" },
  namespace_definition: { kind: "namespace", container: true },
};

/**
 * Nodes that wrap a definition and belong to it (`export`, Python's decorators, a C++
 * template): the definition's text starts where they do.
 */
export const WRAPPERS: ReadonlySet<string> = new Set([
  "export_statement",
  "ambient_declaration",
  "decorated_definition",
  "template_declaration",
  "lexical_declaration",
  "variable_declaration",
  "type_declaration",
  "const_declaration",
]);

/** Decorators, annotations and attributes: kept by replace_definition unless the new text has its own. */
export const DECORATIONS: ReadonlySet<string> = new Set([
  "decorator",
  "annotation",
  "marker_annotation",
  "attribute_item",
  "inner_attribute_item",
  "attribute_declaration",
  "attribute_list",
  "attribute",
]);

/** Comments: a doc comment directly above a definition belongs to it. */
export const COMMENTS: ReadonlySet<string> = new Set(["comment", "line_comment", "block_comment"]);
