/**
 * Which language server answers for a file: the built-in table (found on PATH or in the
 * project's node_modules/.bin, never downloaded) and the servers the user configured
 * (`code.language_servers`), and the project root each one is started for: the nearest
 * directory, up to the allowed root, that holds what marks a project of that language.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { delimiter, dirname, extname, join } from "node:path";
import process from "node:process";
import type { LanguageServerSpec } from "../../../../config/settings.ts";
import { isWithin } from "../../../_lib/sandbox/mod.ts";

/** A server ready to start for one project root. */
export interface ServerChoice {
  /** The table's or the configuration's name: "typescript", "deno", "python", "my-lsp". */
  id: string;
  /** What answered, as replies name it: "typescript-language-server", "deno lsp". */
  label: string;
  command: string;
  args: string[];
  root: string;
  languageId: string;
  env?: Record<string, string>;
  initializationOptions?: unknown;
  settings?: unknown;
}

/** A language toolhost knows but whose server is not installed: what to say, once. */
export interface Missing {
  language: string;
  install: string;
}

interface Builtin {
  id: string;
  language: string;
  extensions: Record<string, string>;
  markers: string[];
  /** Candidates in order of preference: the first found is used. */
  programs: { label: string; command: string; args: string[]; when?: (bin: string) => boolean }[];
  install: string;
  initializationOptions?: unknown;
  settings?: unknown;
}

const TS_EXTENSIONS = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
};

const BUILTINS: Builtin[] = [
  {
    id: "typescript",
    language: "TypeScript/JavaScript",
    extensions: TS_EXTENSIONS,
    markers: ["tsconfig.json", "jsconfig.json", "package.json"],
    programs: [
      // TypeScript 7's native compiler has a language server of its own.
      {
        label: "tsc --lsp (TypeScript 7)",
        command: "tsc",
        args: ["--lsp", "--stdio"],
        when: isTs7,
      },
      {
        label: "typescript-language-server",
        command: "typescript-language-server",
        args: ["--stdio"],
      },
    ],
    install:
      "npm install --save-dev typescript-language-server typescript (in the project, or -g), " +
      "or TypeScript 7, whose `tsc --lsp` is used",
  },
  {
    id: "deno",
    language: "TypeScript/JavaScript (Deno project)",
    extensions: TS_EXTENSIONS,
    markers: ["deno.json", "deno.jsonc"],
    programs: [{ label: "deno lsp", command: "deno", args: ["lsp"] }],
    install: "install Deno (https://deno.com) so that `deno` is on PATH",
    initializationOptions: { enable: true, lint: false },
    settings: { deno: { enable: true, lint: false } },
  },
  {
    id: "python",
    language: "Python",
    extensions: { ".py": "python", ".pyi": "python" },
    markers: ["pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg", "requirements.txt"],
    programs: [
      { label: "basedpyright", command: "basedpyright-langserver", args: ["--stdio"] },
      { label: "pyright", command: "pyright-langserver", args: ["--stdio"] },
    ],
    install: "npm install --save-dev pyright (or pip install pyright, or basedpyright)",
    settings: { python: { analysis: { diagnosticMode: "openFilesOnly" } } },
  },
  {
    id: "clangd",
    language: "C/C++",
    extensions: {
      ".c": "c",
      ".h": "c",
      ".cc": "cpp",
      ".cpp": "cpp",
      ".cxx": "cpp",
      ".hpp": "cpp",
      ".hh": "cpp",
    },
    markers: ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt"],
    programs: [{ label: "clangd", command: "clangd", args: [] }],
    install: "install clangd (apt install clangd, brew install llvm, or LLVM's releases)",
  },
  {
    id: "go",
    language: "Go",
    extensions: { ".go": "go" },
    markers: ["go.work", "go.mod"],
    programs: [{ label: "gopls", command: "gopls", args: [] }],
    install: "go install golang.org/x/tools/gopls@latest",
  },
  {
    id: "rust",
    language: "Rust",
    extensions: { ".rs": "rust" },
    markers: ["Cargo.toml"],
    programs: [{ label: "rust-analyzer", command: "rust-analyzer", args: [] }],
    install: "rustup component add rust-analyzer",
  },
];

/** Whether the `tsc` beside this bin directory's TypeScript is version 7 or later. */
function isTs7(bin: string): boolean {
  try {
    const manifest = join(dirname(dirname(bin)), "typescript", "package.json");
    const version = JSON.parse(readFileSync(manifest, "utf8")).version as string;
    return Number(version.split(".")[0]) >= 7;
  } catch {
    return false;
  }
}

/** The nearest directory from `dir` up to `top` holding one of `markers`. */
function nearest(dir: string, top: string, markers: string[]): string | undefined {
  for (let at = dir;; at = dirname(at)) {
    if (markers.some((marker) => existsSync(join(at, marker)))) return at;
    if (at === top || dirname(at) === at || !isWithin(top, at)) return undefined;
  }
}

/** An executable named `command`: in a node_modules/.bin from `root` up to `top`, else on PATH. */
export function findProgram(command: string, root: string, top: string): string | undefined {
  if (command.includes("/")) return isExecutable(command) ? command : undefined;
  for (let at = root;; at = dirname(at)) {
    const local = join(at, "node_modules", ".bin", command);
    if (isExecutable(local)) return local;
    if (at === top || dirname(at) === at || !isWithin(top, at)) break;
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && isExecutable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    const info = statSync(path);
    return info.isFile() && (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * The server for `file` (a real path inside the allowed root `top`), or what is missing. A
 * configured server wins for its extensions; a TypeScript file in a Deno project (deno.json
 * nearer than any tsconfig.json) goes to `deno lsp`.
 *
 * @example
 * chooseServer("/p/src/a.ts", "/p", {}); // { id: "typescript", root: "/p", ... } or a Missing
 */
export function chooseServer(
  file: string,
  top: string,
  configured: Record<string, LanguageServerSpec>,
): ServerChoice | Missing | undefined {
  // Looked up again after CHOICE_TTL_MS: a server installed meanwhile is found then.
  let known = choices.get(configured);
  if (!known) choices.set(configured, known = new Map());
  const key = `${dirname(file)}\0${extname(file).toLowerCase()}\0${top}`;
  const hit = known.get(key);
  if (hit && Date.now() - hit.at < CHOICE_TTL_MS) return hit.choice;
  const choice = lookUp(file, top, configured);
  if (known.size >= 1000) known.clear();
  known.set(key, { at: Date.now(), choice });
  return choice;
}

/** How long a directory's choice of server is kept (every query asks). */
const CHOICE_TTL_MS = 10_000;
const choices = new WeakMap<
  object,
  Map<string, { at: number; choice: ServerChoice | Missing | undefined }>
>();

function lookUp(
  file: string,
  top: string,
  configured: Record<string, LanguageServerSpec>,
): ServerChoice | Missing | undefined {
  const extension = extname(file).toLowerCase();
  const dir = dirname(file);
  for (const [id, spec] of Object.entries(configured)) {
    const matches = spec.extensions.map((e) => (e.startsWith(".") ? e : `.${e}`).toLowerCase());
    if (!matches.includes(extension)) continue;
    const root = nearest(dir, top, spec.root_markers ?? []) ?? top;
    const [command, ...args] = spec.command;
    const found = findProgram(command, root, top);
    if (!found) {
      return {
        language: `${id} (configured)`,
        install: `install ${command} or correct code.language_servers.${id}.command`,
      };
    }
    return {
      id,
      label: id,
      command: found,
      args,
      root,
      languageId: spec.language_id ?? extension.slice(1),
      env: spec.env,
      initializationOptions: spec.initialization_options,
      settings: spec.settings,
    };
  }
  const candidates = BUILTINS.filter((b) => extension in b.extensions);
  if (candidates.length === 0) return undefined;
  let builtin = candidates[0];
  if (builtin.id === "typescript") builtin = typescriptFlavour(dir, top);
  const root = nearest(dir, top, builtin.markers) ?? top;
  for (const program of builtin.programs) {
    const found = findProgram(program.command, root, top);
    if (!found || (program.when && !program.when(found))) continue;
    return {
      id: builtin.id,
      label: program.label,
      command: found,
      args: program.args,
      root,
      languageId: builtin.extensions[extension],
      initializationOptions: builtin.initializationOptions,
      settings: builtin.settings,
    };
  }
  return { language: builtin.language, install: builtin.install };
}

/** A Deno project (deno.json nearer than a tsconfig.json or jsconfig.json) or a TypeScript one. */
function typescriptFlavour(dir: string, top: string): Builtin {
  const [typescript, deno] = BUILTINS;
  const denoRoot = nearest(dir, top, deno.markers);
  if (!denoRoot) return typescript;
  const tsRoot = nearest(dir, top, ["tsconfig.json", "jsconfig.json"]);
  return tsRoot && tsRoot.length > denoRoot.length ? typescript : deno;
}

/** Every extension some server may answer for. */
export function knownExtension(file: string, configured: Record<string, LanguageServerSpec>) {
  const extension = extname(file).toLowerCase();
  return BUILTINS.some((b) => extension in b.extensions) ||
    Object.values(configured).some((s) =>
      s.extensions.some((e) => (e.startsWith(".") ? e : `.${e}`).toLowerCase() === extension)
    );
}
