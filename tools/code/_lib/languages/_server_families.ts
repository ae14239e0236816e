/**
 * The language servers toolhost knows, as data: for each, the files that mark a project root,
 * the programs that may answer (in order of preference), how to install one, and what it is
 * told. Which one runs for a file, and where its program is found, is the lsp package's.
 */

/** One program that can be the server. */
export interface ServerProgram {
  /** As replies name it: "typescript-language-server", "tsc --lsp (TypeScript 7)". */
  label: string;
  command: string;
  args: readonly string[];
  /**
   * A check the program must pass to be chosen: "typescript7", the `tsc` of a TypeScript of
   * version 7 or later (earlier ones have no `--lsp`).
   */
  requires?: "typescript7";
  /**
   * "typescript-language-server": told which tsserver to run, the one beside it rather than the
   * project's (under read-only, where no program of the project may run).
   */
  tsserver?: true;
}

/** Set on a family that runs only in some projects (Deno's beside TypeScript's). */
export interface OnlyWhere {
  /** One of these marks the project... */
  markers: readonly string[];
  /** ...unless one of these is nearer the file. */
  unlessNearer: readonly string[];
}

/** What a server is told when no program of the project may run (read-only). */
export interface ReadOnlyOptions {
  initializationOptions?: Record<string, unknown>;
  env?: Readonly<Record<string, string>>;
}

export interface ServerFamily {
  /** "typescript", "deno", "python", "clangd", "go", "rust": a running server's key. */
  id: string;
  /** The language as a missing server is named: "TypeScript/JavaScript". */
  language: string;
  /** Files marking a project's root: the nearest directory holding one. */
  markers: readonly string[];
  onlyWhere?: OnlyWhere;
  programs: readonly ServerProgram[];
  /** How to install one, as the end of a sentence. */
  install: string;
  initializationOptions?: Record<string, unknown>;
  /** Answered to workspace/configuration, and sent once after `initialized`. */
  settings?: Record<string, unknown>;
  readOnly?: ReadOnlyOptions;
}

export const TYPESCRIPT: ServerFamily = {
  id: "typescript",
  language: "TypeScript/JavaScript",
  markers: ["tsconfig.json", "jsconfig.json", "package.json"],
  programs: [
    // TypeScript 7's native compiler has a language server of its own.
    {
      label: "tsc --lsp (TypeScript 7)",
      command: "tsc",
      args: ["--lsp", "--stdio"],
      requires: "typescript7",
    },
    {
      label: "tsgo --lsp (TypeScript 7 preview)",
      command: "tsgo",
      args: ["--lsp", "--stdio"],
    },
    {
      label: "typescript-language-server",
      command: "typescript-language-server",
      args: ["--stdio"],
      tsserver: true,
    },
  ],
  install: "npm install --save-dev typescript-language-server typescript (in the project, or " +
    "-g), or TypeScript 7 (typescript@7 or @typescript/native-preview), whose `tsc --lsp` is used",
  // Types are never downloaded (automatic type acquisition runs npm).
  initializationOptions: { disableAutomaticTypingAcquisition: true },
};

export const DENO: ServerFamily = {
  id: "deno",
  language: "TypeScript/JavaScript (Deno project)",
  markers: ["deno.json", "deno.jsonc"],
  onlyWhere: {
    markers: ["deno.json", "deno.jsonc"],
    unlessNearer: ["tsconfig.json", "jsconfig.json"],
  },
  programs: [{ label: "deno lsp", command: "deno", args: ["lsp"] }],
  install: "install Deno (https://deno.com) so that `deno` is on PATH",
  initializationOptions: { enable: true, lint: false },
  settings: { deno: { enable: true, lint: false } },
};

export const PYTHON: ServerFamily = {
  id: "python",
  language: "Python",
  markers: ["pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg", "requirements.txt"],
  programs: [
    { label: "basedpyright", command: "basedpyright-langserver", args: ["--stdio"] },
    { label: "pyright", command: "pyright-langserver", args: ["--stdio"] },
  ],
  install: "npm install --save-dev pyright (or pip install pyright, or basedpyright)",
  settings: { python: { analysis: { diagnosticMode: "openFilesOnly" } } },
};

export const CLANGD: ServerFamily = {
  id: "clangd",
  language: "C/C++",
  markers: ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt"],
  programs: [{ label: "clangd", command: "clangd", args: [] }],
  install: "install clangd (apt install clangd, brew install llvm, or LLVM's releases)",
};

export const GO: ServerFamily = {
  id: "go",
  language: "Go",
  markers: ["go.work", "go.mod"],
  programs: [{ label: "gopls", command: "gopls", args: [] }],
  install: "go install golang.org/x/tools/gopls@latest",
  // A go.mod asking for a newer Go would download one, and cgo runs the C compiler with flags
  // the project gives.
  readOnly: { env: { GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" } },
};

export const RUST: ServerFamily = {
  id: "rust",
  language: "Rust",
  markers: ["Cargo.toml"],
  programs: [{ label: "rust-analyzer", command: "rust-analyzer", args: [] }],
  install: "rustup component add rust-analyzer",
  // cargo check on save: the errors rustc finds beyond rust-analyzer's own.
  initializationOptions: { checkOnSave: true, check: { command: "check" } },
  // Build scripts, procedural macros and cargo check all run the project's code; a rustc
  // wrapper or a toolchain file of the project would run a program it names.
  readOnly: {
    initializationOptions: {
      checkOnSave: false,
      cargo: { buildScripts: { enable: false } },
      procMacro: { enable: false },
    },
    env: { RUSTC_WRAPPER: "", RUSTC_WORKSPACE_WRAPPER: "" },
  },
};
