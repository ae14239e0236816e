/**
 * The tier-1 languages: which file extensions each covers, which grammar (an npm package's
 * .wasm) parses it, and which syntax nodes are the symbols an outline shows. Plain data, shared
 * by the main thread (which language a file is) and the parse worker (what a symbol is).
 */

export type LanguageId =
  | "typescript"
  | "tsx"
  | "javascript"
  | "python"
  | "go"
  | "rust"
  | "java"
  | "c"
  | "cpp"
  | "php";

/** Where a grammar's wasm lies: its npm package and the file's name in it (without `.wasm`). */
export interface GrammarFile {
  pkg: string;
  stem: string;
}

export const GRAMMARS: Record<LanguageId, GrammarFile> = {
  typescript: { pkg: "tree-sitter-typescript", stem: "tree-sitter-typescript" },
  tsx: { pkg: "tree-sitter-typescript", stem: "tree-sitter-tsx" },
  javascript: { pkg: "tree-sitter-javascript", stem: "tree-sitter-javascript" },
  python: { pkg: "tree-sitter-python", stem: "tree-sitter-python" },
  go: { pkg: "tree-sitter-go", stem: "tree-sitter-go" },
  rust: { pkg: "tree-sitter-rust", stem: "tree-sitter-rust" },
  java: { pkg: "tree-sitter-java", stem: "tree-sitter-java" },
  c: { pkg: "tree-sitter-c", stem: "tree-sitter-c" },
  cpp: { pkg: "tree-sitter-cpp", stem: "tree-sitter-cpp" },
  php: { pkg: "tree-sitter-php", stem: "tree-sitter-php" },
};

/** The runtime's own wasm, beside web-tree-sitter.js. */
export const RUNTIME: GrammarFile = { pkg: "web-tree-sitter", stem: "web-tree-sitter" };

const EXTENSIONS: Record<string, LanguageId> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".py": "python",
  ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
  ".java": "java",
  ".c": "c",
  ".h": "c",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".c++": "cpp",
  ".hh": "cpp",
  ".hpp": "cpp",
  ".hxx": "cpp",
  ".php": "php",
};

/** The language of a file by its name, or undefined when tier 1 has none for it. */
export function languageOf(path: string): LanguageId | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"))) return undefined;
  return EXTENSIONS[path.slice(dot).toLowerCase()];
}

/** The extensions tier 1 reads, for messages and docs. */
export const KNOWN_EXTENSIONS = Object.keys(EXTENSIONS);

/** What kind of symbol a syntax node is; `container`: its members are symbols too. */
export interface SymbolRule {
  kind: string;
  container?: boolean;
}

const TS_RULES: Record<string, SymbolRule> = {
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

const C_RULES: Record<string, SymbolRule> = {
  function_definition: { kind: "function" },
  struct_specifier: { kind: "struct", container: true },
  union_specifier: { kind: "union", container: true },
  enum_specifier: { kind: "enum" },
  type_definition: { kind: "type" },
};

/** The symbol nodes of each language. */
export const RULES: Record<LanguageId, Record<string, SymbolRule>> = {
  typescript: TS_RULES,
  tsx: TS_RULES,
  javascript: TS_RULES,
  python: {
    class_definition: { kind: "class", container: true },
    function_definition: { kind: "function" },
  },
  go: {
    function_declaration: { kind: "function" },
    method_declaration: { kind: "method" },
    type_spec: { kind: "type", container: true },
    type_alias: { kind: "type" },
    method_elem: { kind: "method" },
    const_spec: { kind: "constant" },
  },
  rust: {
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
  },
  java: {
    class_declaration: { kind: "class", container: true },
    interface_declaration: { kind: "interface", container: true },
    enum_declaration: { kind: "enum", container: true },
    record_declaration: { kind: "record", container: true },
    annotation_type_declaration: { kind: "annotation", container: true },
    method_declaration: { kind: "method" },
    constructor_declaration: { kind: "constructor" },
    field_declaration: { kind: "field" },
  },
  c: C_RULES,
  cpp: {
    ...C_RULES,
    class_specifier: { kind: "class", container: true },
    namespace_definition: { kind: "namespace", container: true },
    field_declaration: { kind: "field" },
  },
  php: {
    class_declaration: { kind: "class", container: true },
    interface_declaration: { kind: "interface", container: true },
    trait_declaration: { kind: "trait", container: true },
    enum_declaration: { kind: "enum", container: true },
    function_definition: { kind: "function" },
    method_declaration: { kind: "method" },
    namespace_definition: { kind: "namespace", container: true },
  },
};

/**
 * Nodes that wrap a definition and belong to it (`export`, Python's decorators, a C++
 * template): the definition's text starts where they do.
 */
export const WRAPPERS = new Set([
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
export const DECORATIONS = new Set([
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
export const COMMENTS = new Set(["comment", "line_comment", "block_comment"]);
