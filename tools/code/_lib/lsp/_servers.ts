/**
 * Which language server answers for a file: the table of languages (tools/code/_lib/languages)
 * and the servers the user configured (`code.language_servers`), and the project root each one
 * is started for: the nearest directory, up to the allowed root, that holds what marks a
 * project of that language. Where no program of the project may run (read-only), the server is
 * found on PATH only and told to run none of the project's code.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { LanguageServerSpec } from "../../../../config/settings.ts";
import { isWithin } from "../../../_lib/sandbox/mod.ts";
import {
  extensionOf,
  languageFor,
  type ServerFamily,
  type ServerProgram,
} from "../languages/mod.ts";
import { findProgram, isTypeScript7, pathOutside, tsserverBeside } from "./_programs.ts";
import { userRustToolchain } from "./_rustup_toolchain.ts";

/** A server ready to start for one project root. */
export interface ServerChoice {
  /** The family's or the configuration's name: "typescript", "deno", "python", "my-lsp". */
  id: string;
  /** What answered, as replies name it: "typescript-language-server", "deno lsp". */
  label: string;
  command: string;
  args: readonly string[];
  root: string;
  languageId: string;
  env?: Readonly<Record<string, string>>;
  initializationOptions?: unknown;
  settings?: unknown;
  /** The server asks for `settings` itself: they are not sent after `initialized`. */
  pullsSettings?: boolean;
  /** False where no program of the project may run (read-only): its options say so too. */
  projectPrograms: boolean;
  /** Its answers wait for the project to load (the table's `waitsForProject`). */
  waitsForProject?: boolean;
  /** The title of its check after a save ("cargo check"), when it runs one. */
  checkOnSave?: string;
  /** Titles of its progress that only warm caches (the table's `warmsCaches`). */
  warmsCaches?: readonly string[];
  /** What it logs once it knows the project's files (the table's `loadedLog`). */
  loadedLog?: RegExp;
  /** Its requests are left unanswered, never cancelled (the table's `neverCancel`). */
  neverCancel?: boolean;
  /** From the table: it gives diagnostics (a configured one may not). */
  builtin?: boolean;
}

/** A language toolhost knows but whose server is not installed: what to say, once. */
export interface Missing {
  language: string;
  install: string;
}

/** What decides a choice beside the file: the user's servers, and whether project code may run. */
export interface ChoiceRules {
  configured: Readonly<Record<string, LanguageServerSpec>>;
  projectPrograms: boolean;
}

/** The nearest directory from `dir` up to `top` holding one of `markers`. */
function nearest(dir: string, top: string, markers: readonly string[]): string | undefined {
  for (let at = dir;; at = dirname(at)) {
    if (markers.some((marker) => existsSync(join(at, marker)))) return at;
    if (at === top || dirname(at) === at || !isWithin(top, at)) return undefined;
  }
}

/**
 * The server for `file` (a real path inside the allowed root `top`), or what is missing, or
 * undefined when no server handles its extension. A configured server wins for its
 * extensions; a TypeScript file in a Deno project (deno.json nearer than any tsconfig.json)
 * goes to `deno lsp`.
 *
 * @example
 * chooseServer("/p/src/a.ts", "/p", { configured: {}, projectPrograms: true });
 * // { id: "typescript", root: "/p", ... } or a Missing
 */
export function chooseServer(
  file: string,
  top: string,
  rules: ChoiceRules,
): ServerChoice | Missing | undefined {
  // Looked up again after CHOICE_TTL_MS: a server installed meanwhile is found then.
  let known = choices.get(rules.configured);
  if (!known) choices.set(rules.configured, known = new Map());
  const key = `${dirname(file)}\0${extensionOf(file)}\0${top}\0${rules.projectPrograms}`;
  const hit = known.get(key);
  if (hit && Date.now() - hit.at < CHOICE_TTL_MS) return hit.choice;
  const choice = lookUp(file, top, rules);
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
  rules: ChoiceRules,
): ServerChoice | Missing | undefined {
  const extension = extensionOf(file);
  const dir = dirname(file);
  for (const [id, spec] of Object.entries(rules.configured)) {
    const matches = spec.extensions.map((e) => (e.startsWith(".") ? e : `.${e}`).toLowerCase());
    if (!matches.includes(extension)) continue;
    const root = nearest(dir, top, spec.root_markers ?? []) ?? top;
    const [command, ...args] = spec.command;
    // The user's own program: theirs to trust, as their shell is.
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
      projectPrograms: rules.projectPrograms,
    };
  }
  const language = languageFor(file);
  if (!language) return undefined;
  const family = familyFor(language.servers, dir, top);
  if (!family) return undefined;
  const root = nearest(dir, top, family.markers) ?? top;
  for (const program of family.programs) {
    const found = findProgram(program.command, root, top, rules.projectPrograms);
    if (!found || (program.requires === "typescript7" && !isTypeScript7(found))) continue;
    // Read-only: typescript-language-server runs only with a tsserver of its own installation.
    if (!rules.projectPrograms && program.tsserver && !tsserverBeside(found)) continue;
    return made(family, program, found, root, language.extensions[extension], rules, top);
  }
  return {
    language: family.language,
    install: rules.projectPrograms
      ? family.install
      : `${family.install}; under read-only, only a program on PATH outside the project is run`,
  };
}

/** The first family that applies here: one with `onlyWhere` only in the projects it names. */
function familyFor(
  families: readonly ServerFamily[],
  dir: string,
  top: string,
): ServerFamily | undefined {
  for (const family of families) {
    if (!family.onlyWhere) return family;
    const own = nearest(dir, top, family.onlyWhere.markers);
    if (!own) continue;
    const other = nearest(dir, top, family.onlyWhere.unlessNearer);
    if (other && other.length > own.length) continue;
    return family;
  }
  return undefined;
}

function made(
  family: ServerFamily,
  program: ServerProgram,
  command: string,
  root: string,
  languageId: string,
  rules: ChoiceRules,
  top: string,
): ServerChoice {
  let initializationOptions = merged(family.initializationOptions, program.initializationOptions);
  let env = family.env;
  if (!rules.projectPrograms) {
    initializationOptions = merged(initializationOptions, family.readOnly?.initializationOptions);
    // What the server itself runs is looked up on PATH too (pyright's python, gopls' go).
    env = { ...env, PATH: pathOutside(top) };
    if (family.readOnly?.env) env = { ...env, ...family.readOnly.env };
    if (family.readOnly?.userToolchain === "rustup") {
      env = { ...env, RUSTUP_TOOLCHAIN: userRustToolchain(root) };
    }
    if (program.tsserver) {
      // The project's own typescript would otherwise be run (and its tsserver plugins).
      initializationOptions = merged(initializationOptions, {
        tsserver: { path: tsserverBeside(command) },
      });
    }
  }
  return {
    id: family.id,
    label: program.label,
    command,
    args: program.args,
    root,
    languageId,
    env,
    initializationOptions,
    settings: merged(family.settings, program.settings),
    pullsSettings: family.pullsSettings ?? program.pullsSettings,
    projectPrograms: rules.projectPrograms,
    waitsForProject: family.waitsForProject,
    builtin: true,
    // Under read-only the check is off (it runs build scripts).
    checkOnSave: rules.projectPrograms ? family.checkOnSave : undefined,
    warmsCaches: family.warmsCaches,
    loadedLog: family.loadedLog,
    neverCancel: family.neverCancel,
  };
}

/** `over` merged into `base`, objects key by key. */
function merged(
  base: Record<string, unknown> | undefined,
  over: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!over) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const now = out[key];
    out[key] = value && typeof value === "object" && !Array.isArray(value) && now &&
        typeof now === "object" && !Array.isArray(now)
      ? merged(now as Record<string, unknown>, value as Record<string, unknown>)
      : value;
  }
  return out;
}
