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
  /** Told this program only, over the family's. */
  initializationOptions?: Record<string, unknown>;
  /** Its settings, over the family's; `pullsSettings` as the family's says. */
  settings?: Record<string, unknown>;
  pullsSettings?: true;
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
  /**
   * Run through rustup's proxies, which follow the project's rust-toolchain.toml (its `path` may
   * name a program of the project): the user's own toolchain is named instead.
   */
  userToolchain?: "rustup";
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
  /** Answered to workspace/configuration, and sent once after `initialized` (unless pulled). */
  settings?: Record<string, unknown>;
  /**
   * It asks for its settings (workspace/configuration) once initialized, and reloads its whole
   * configuration on a didChangeConfiguration: its settings are only answered, never sent
   * (pyright read its configuration twice, running the Python interpreter three more times,
   * about 1-2 s of a 7 s cold start in the sandbox).
   */
  pullsSettings?: true;
  /**
   * Its environment in every mode. A language server has no network in the sandbox: the tools
   * it runs are told so, and fail at once instead of retrying a download.
   */
  env?: Readonly<Record<string, string>>;
  readOnly?: ReadOnlyOptions;
  /**
   * Its answers wait until the project is loaded (they are never partial while it loads), so no
   * grace is waited for when it reports no progress.
   */
  waitsForProject?: true;
  /**
   * It checks the project after a save (rust-analyzer's cargo check), reporting progress titled
   * so: after a write, its diagnostics are those of the check.
   */
  checkOnSave?: string;
  /**
   * Titles of its progress that only warms caches once the project is loaded: answers given
   * meanwhile are complete (rust-analyzer's cache priming, "Indexing", of the standard library).
   */
  warmsCaches?: readonly string[];
  /**
   * What it logs (window/logMessage) once it knows the project's files, when it reports no
   * progress for that: until then an answer may hold only the open files (pyright answered
   * references with 1 of 41 places before it had listed the project).
   */
  loadedLog?: RegExp;
  /**
   * A request it has taken is never cancelled, only left unanswered past its time: after a
   * `$/cancelRequest` pyright answered every later references request with "this._token.cancel
   * is not a function" until it was restarted (5 of 10 runs on requests).
   */
  neverCancel?: true;
}

/**
 * Every use of a renamed declaration is renamed: by default tsserver and TypeScript 7 keep the
 * old name behind an alias where it is re-exported or destructured (`export { isInside as
 * isWithin }`: 2 edits in 2 files for a function with 33 uses in 17), which compiles but is
 * not what an agent asking for a rename expects.
 */
const NO_RENAME_ALIASES = { useAliasesForRenames: false };

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
      // Read only from workspace/configuration (section "js/ts"), not from initializationOptions.
      settings: { "js/ts": { preferences: NO_RENAME_ALIASES } },
      pullsSettings: true,
    },
    {
      label: "tsgo --lsp (TypeScript 7 preview)",
      command: "tsgo",
      args: ["--lsp", "--stdio"],
      settings: { "js/ts": { preferences: NO_RENAME_ALIASES } },
      pullsSettings: true,
    },
    {
      label: "typescript-language-server",
      command: "typescript-language-server",
      args: ["--stdio"],
      tsserver: true,
      initializationOptions: {
        // Every request to the full server: while the project loads, the syntax server answers
        // references from the open files only, an answer that looks complete and is not.
        tsserver: { useSyntaxServer: "never" },
        // Types are never downloaded (automatic type acquisition runs npm).
        disableAutomaticTypingAcquisition: true,
        // Passed to tsserver: TypeScript 5.9 reads the older name only, later ones either.
        preferences: { providePrefixAndSuffixTextForRename: false, ...NO_RENAME_ALIASES },
      },
    },
  ],
  install: "npm install --save-dev typescript-language-server typescript (in the project, or " +
    "-g), or TypeScript 7 (typescript@7 or @typescript/native-preview), whose `tsc --lsp` is used",
  waitsForProject: true,
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
  pullsSettings: true,
  waitsForProject: true,
  loadedLog: /^(Found \d+ source files?|No source files found)/,
  neverCancel: true,
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
  env: { GOPROXY: "off" },
  readOnly: { env: { GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" } },
  waitsForProject: true,
};

export const RUST: ServerFamily = {
  id: "rust",
  language: "Rust",
  markers: ["Cargo.toml"],
  programs: [{ label: "rust-analyzer", command: "rust-analyzer", args: [] }],
  install: "rustup component add rust-analyzer",
  // cargo check on save: the errors rustc finds beyond rust-analyzer's own.
  // No cache priming: on a loaded machine it competes with the first question (the first
  // references took 6.6 s while it ran, 2.7 s without it), which is what an agent waits for.
  initializationOptions: {
    checkOnSave: true,
    check: { command: "check" },
    cachePriming: { enable: false },
  },
  checkOnSave: "cargo check",
  // Its "Indexing" (cache priming, off above but a user may turn it on) runs once the crate
  // graph is built: answers given meanwhile are complete, only slower.
  warmsCaches: ["Indexing"],
  // Without it cargo metadata (the sysroot's) retries crates.io for a dozen seconds, twice.
  env: { CARGO_NET_OFFLINE: "true" },
  // Build scripts, procedural macros and cargo check all run the project's code; a rustc, a
  // rustc wrapper (.cargo/config.toml's build.rustc*: cargo metadata runs `rustc -vV`) or a
  // toolchain file of the project would run a program it names. The variables outrank both.
  readOnly: {
    initializationOptions: {
      checkOnSave: false,
      cargo: { buildScripts: { enable: false } },
      procMacro: { enable: false },
    },
    env: { RUSTC: "rustc", RUSTC_WRAPPER: "", RUSTC_WORKSPACE_WRAPPER: "" },
    userToolchain: "rustup",
  },
};
