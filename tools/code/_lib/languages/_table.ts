/**
 * The one table of languages both tiers read: for each, its file extensions (and the language
 * id a server is told for each), the tree-sitter grammar that parses it, the syntax nodes that
 * are its symbols, and the language servers that may answer for it. Plain data: the parse
 * worker imports it too.
 */
import {
  C_RULES,
  CPP_RULES,
  GO_RULES,
  JAVA_RULES,
  PHP_RULES,
  PYTHON_RULES,
  RUST_RULES,
  type SymbolRules,
  TS_RULES,
} from "./_symbol_rules.ts";
import {
  CLANGD,
  DENO,
  GO,
  PYTHON,
  RUST,
  type ServerFamily,
  TYPESCRIPT,
} from "./_server_families.ts";

/** A language tier 1 parses, named by its grammar. */
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

export interface Language {
  id: LanguageId;
  /** As people name it: "TypeScript", "C++". */
  name: string;
  /** Each extension (lower case, with its dot) and the LSP language id of such a file. */
  extensions: Readonly<Record<string, string>>;
  grammar: GrammarFile;
  symbols: SymbolRules;
  /**
   * The servers that may answer, in order: the first whose `onlyWhere` holds (or that has none).
   * Empty: no server is known; tier 1 answers, and code.language_servers may add one.
   */
  servers: readonly ServerFamily[];
}

/** Deno's server where deno.json is nearer than a tsconfig.json, else TypeScript's. */
const TS_SERVERS = [DENO, TYPESCRIPT];

const grammar = (pkg: string, stem = pkg): GrammarFile => ({ pkg, stem });

export const LANGUAGES: readonly Language[] = [
  {
    id: "typescript",
    name: "TypeScript",
    extensions: { ".ts": "typescript", ".mts": "typescript", ".cts": "typescript" },
    grammar: grammar("tree-sitter-typescript"),
    symbols: TS_RULES,
    servers: TS_SERVERS,
  },
  {
    id: "tsx",
    name: "TypeScript (TSX)",
    extensions: { ".tsx": "typescriptreact" },
    grammar: grammar("tree-sitter-typescript", "tree-sitter-tsx"),
    symbols: TS_RULES,
    servers: TS_SERVERS,
  },
  {
    id: "javascript",
    name: "JavaScript",
    extensions: {
      ".js": "javascript",
      ".mjs": "javascript",
      ".cjs": "javascript",
      ".jsx": "javascriptreact",
    },
    grammar: grammar("tree-sitter-javascript"),
    symbols: TS_RULES,
    servers: TS_SERVERS,
  },
  {
    id: "python",
    name: "Python",
    extensions: { ".py": "python", ".pyi": "python" },
    grammar: grammar("tree-sitter-python"),
    symbols: PYTHON_RULES,
    servers: [PYTHON],
  },
  {
    id: "go",
    name: "Go",
    extensions: { ".go": "go" },
    grammar: grammar("tree-sitter-go"),
    symbols: GO_RULES,
    servers: [GO],
  },
  {
    id: "rust",
    name: "Rust",
    extensions: { ".rs": "rust" },
    grammar: grammar("tree-sitter-rust"),
    symbols: RUST_RULES,
    servers: [RUST],
  },
  {
    id: "java",
    name: "Java",
    extensions: { ".java": "java" },
    grammar: grammar("tree-sitter-java"),
    symbols: JAVA_RULES,
    servers: [],
  },
  {
    id: "c",
    name: "C",
    // A .h file is read as C.
    extensions: { ".c": "c", ".h": "c" },
    grammar: grammar("tree-sitter-c"),
    symbols: C_RULES,
    servers: [CLANGD],
  },
  {
    id: "cpp",
    name: "C++",
    extensions: {
      ".cc": "cpp",
      ".cpp": "cpp",
      ".cxx": "cpp",
      ".c++": "cpp",
      ".hh": "cpp",
      ".hpp": "cpp",
      ".hxx": "cpp",
    },
    grammar: grammar("tree-sitter-cpp"),
    symbols: CPP_RULES,
    servers: [CLANGD],
  },
  {
    id: "php",
    name: "PHP",
    extensions: { ".php": "php" },
    grammar: grammar("tree-sitter-php", "tree-sitter-php"),
    symbols: PHP_RULES,
    servers: [],
  },
];
