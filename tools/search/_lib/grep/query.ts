/** What both of grep's engines (rg and the built-in one) are given, and rules they share. */
import type { FileHandle } from "node:fs/promises";
import picomatch from "picomatch";
import { ToolError } from "../../../../mcp/tool/mod.ts";
import type { Dir } from "../../../_lib/sandbox/mod.ts";
import type { IgnoreRules } from "../../../_lib/walk/gitignore.ts";
import type { CompiledPattern } from "./pattern.ts";
import type { OutputMode } from "./report.ts";
import { bytes } from "../../../_lib/text/units.ts";
import type { Confinement } from "../../../_lib/processes/mod.ts";

/** Larger files are skipped: they are logs and data, and reading one would stall the call. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface NameFilter {
  /** Whether a file (path relative to the searched directory) is searched. */
  matches(rel: string): boolean;
  /** The same filter as an rg type glob (file names only), when it can be one. */
  rgType?: string;
}

/**
 * The `glob` argument: without a slash it matches file names at any depth (`*.ts`), with one the
 * path from the searched directory (`src/**\/*.ts`); `*` matches dotfiles too; `!` negates.
 */
export function nameFilter(glob: string): NameFilter {
  const normalized = glob.replace(/^\.?\//, "");
  const hasSlash = normalized.includes("/");
  // picomatch's basename option compares the last segment only: a glob with a slash never matched.
  const matches = picomatch(normalized, { dot: true, basename: !hasSlash });
  // Simple name globs mean the same to rg; anything else is left to the check on rg's results.
  const simple = !hasSlash && !normalized.includes("**") && /^[\w.*{},~ -]+$/.test(normalized);
  return { matches, rgType: simple ? normalized : undefined };
}

/** What the searches need of the sandbox beyond `within`: the ignore files rg's guard finds. */
export interface SearchedRoots {
  /** Whether a real path lies inside the allowed roots. */
  contains(real: string): boolean;
  /** Opens a file inside the roots for reading (Sandbox.openForReading). */
  open(real: string): Promise<FileHandle>;
  /** How a path reads in messages. */
  display(path: string): string;
}

/** What to search for and where: made once per call, read by the engine, never written. */
export interface GrepQuery {
  /** Where rg runs and the walk starts: the searched directory, or the named file's directory. */
  readonly dir: string;
  /** A file named on its own (real path): only it is searched, whatever ignore rules and glob say. */
  readonly file?: string;
  /**
   * `dir` opened beneath its root (Sandbox.directory): the built-in search walks it and opens a
   * named file in it, and rg runs in it, so a directory swapped for a link meanwhile is not
   * searched. Without it (tests), `dir` is used by path.
   */
  readonly within?: Dir;
  /** How the searched path reads in messages. */
  readonly label: string;
  readonly pattern: CompiledPattern;
  readonly multiline: boolean;
  readonly caseInsensitive: boolean;
  readonly mode: OutputMode;
  readonly before: number;
  readonly after: number;
  readonly filter?: NameFilter;
  /** The ignore rules of the directory's parents inside the sandbox root. */
  readonly rulesAbove: IgnoreRules;
  /** Date.now() after which the search stops. */
  readonly deadline: number;
  /** Aborted on cancellation: the search stops and reports nothing more. */
  readonly signal: AbortSignal;
  readonly roots: SearchedRoots;
  /** How the processes of the search (rg, find) are confined: the sandbox's `search` kind. */
  readonly confinement: Confinement;
}

export function binaryFileError(label: string, kind: string): ToolError {
  return new ToolError(`${label} is a binary file (${kind}); grep searches text`);
}

export function tooLargeError(label: string, size: number): ToolError {
  return new ToolError(
    `${label} is ${bytes(size)}, over grep's ${
      bytes(MAX_FILE_BYTES)
    } limit: read it in parts with read_file instead`,
  );
}
