import type { Dirent } from "node:fs";
import { quoted } from "../../config/quote.ts";
import { join } from "node:path";
import {
  type Dir,
  ENTRY_TYPES,
  type EntryType,
  Sandbox,
  skippedIgnoreNote,
} from "../_lib/sandbox/mod.ts";
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { IgnoreRules } from "../_lib/walk/gitignore.ts";
import { pathOrRootProperty } from "../_lib/declarations/path_properties.ts";
import { bytes, count } from "../_lib/text/units.ts";
import { byName, kindOf, SKIPPED_NAMES } from "../_lib/walk/walk.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { shownName } from "../_lib/text/shown_name.ts";

const DEFAULT_DEPTH = 2;
const MAX_DEPTH = 10;
const PER_DIRECTORY = 100;
const MAX_ENTRIES = 1_000;
/** The structured entries repeat each full path, so they get more room, but are capped too. */
const STRUCTURED_CAP_CHARS = 60_000;
const TIME_LIMIT_MS = 10_000;

interface Node {
  name: string;
  kind: EntryType;
  size?: number;
  target?: string;
  /** Why a directory's entries are not shown, or that a file is gitignored. */
  note?: string;
  children?: Node[];
  /** Entries of this directory not shown because of the caps. */
  hidden?: number;
}

interface Pending {
  node: Node;
  path: string;
  rel: string;
  depth: number;
  rules: IgnoreRules;
}

/** Directories first, then the rest, each in name order. */
function ordered(listing: Dirent[]): Dirent[] {
  const dirs = listing.filter((e) => kindOf(e) === "directory");
  return [...byName(dirs), ...byName(listing.filter((e) => kindOf(e) !== "directory"))];
}

async function describe(entry: Dirent, dir: Dir): Promise<Node> {
  const node: Node = { name: entry.name, kind: kindOf(entry) };
  if (node.kind === "file") {
    node.size = await dir.lstat(entry.name).then((i) => i.size, () => undefined);
  }
  if (node.kind === "symlink") node.target = await dir.readlink(entry.name).catch(() => "?");
  return node;
}

/**
 * Lists directories breadth first, so the caps cut the deepest levels rather than whatever
 * comes last in name order.
 */
async function buildTree(
  sandbox: Sandbox,
  start: Pending,
  maxDepth: number,
  includeIgnored: boolean,
  signal: AbortSignal,
): Promise<{ listed: number; budgetHit: boolean; timedOut: boolean }> {
  const deadline = Date.now() + TIME_LIMIT_MS;
  const queue = [start];
  let listed = 0;
  let budgetHit = false;
  let timedOut = false;
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { node, path, rel, depth, rules } = next;
    if (listed >= MAX_ENTRIES || signal.aborted || Date.now() > deadline) {
      timedOut ||= Date.now() > deadline;
      budgetHit ||= listed >= MAX_ENTRIES;
      node.note = "not listed: limit reached";
      continue;
    }
    // Opened beneath its root (sandbox/_beneath.ts), so a directory swapped for a link since the
    // parent was listed is not listed; entries are looked at through it.
    let dir: Dir;
    let listing: Dirent[];
    try {
      dir = (await sandbox.directory(path)).dir;
    } catch (error) {
      node.note = `cannot be read: ${(error as NodeJS.ErrnoException).code ?? "changed"}`;
      continue;
    }
    let dirRules: IgnoreRules;
    try {
      listing = await dir.entries();
      dirRules = includeIgnored ? rules : await rules.within(
        path,
        rel,
        new Set(listing.map((e) => e.name)),
        (name) => dir.at(name),
      );
      const shown = ordered(listing).slice(0, Math.min(PER_DIRECTORY, MAX_ENTRIES - listed));
      listed += shown.length;
      node.hidden = listing.length - shown.length;
      node.children = await Promise.all(shown.map((entry) => describe(entry, dir)));
    } catch (error) {
      node.note = `cannot be read: ${(error as NodeJS.ErrnoException).code ?? "error"}`;
      continue;
    } finally {
      await dir.close();
    }
    for (const child of node.children) {
      const childRel = rel === "" ? child.name : `${rel}/${child.name}`;
      const isDir = child.kind === "directory";
      if (!includeIgnored && isDir && SKIPPED_NAMES.has(child.name)) {
        child.note = "not listed";
      } else if (!includeIgnored && dirRules.ignores(childRel, isDir)) {
        child.note = isDir ? "gitignored, not listed" : "gitignored";
      } else if (isDir && depth < maxDepth) {
        queue.push({
          node: child,
          path: join(path, child.name),
          rel: childRel,
          depth: depth + 1,
          rules: dirRules,
        });
      }
    }
  }
  return { listed, budgetHit, timedOut };
}

interface FlatEntry {
  path: string;
  type: EntryType;
  size?: number;
  target?: string;
}

/** One line of the tree, and the entry it shows (none for "... and N more"). */
interface Row {
  line: string;
  entry?: FlatEntry;
}

/** An entry's line: its name (and a link's target) shown safe (shown_name.ts). */
function label(node: Node): string {
  const name = shownName(node.name);
  if (node.kind === "directory") return `${name}/`;
  if (node.kind === "symlink") return `${name} -> ${shownName(node.target ?? "?")}`;
  if (node.kind === "file") {
    return `${name}  ${node.size === undefined ? "" : bytes(node.size)}`.trimEnd();
  }
  return `${name}  (special file)`;
}

/** The tree depth first, as it reads: each entry with its path from the listed directory's. */
function rows(node: Node, indent: string, prefix: string, out: Row[]): void {
  for (const child of node.children ?? []) {
    const path = prefix === "." ? child.name : `${prefix}/${child.name}`;
    out.push({
      line: `${indent}${label(child)}${child.note ? `  (${child.note})` : ""}`,
      entry: {
        path,
        type: child.kind,
        ...(child.size !== undefined ? { size: child.size } : {}),
        ...(child.target !== undefined ? { target: child.target } : {}),
      },
    });
    rows(child, `${indent}  `, path, out);
  }
  if (node.hidden) out.push({ line: `${indent}... and ${count(node.hidden)} more` });
}

export default defineTool({
  name: "list_dir",
  title: "List a directory tree",
  description: (offers) =>
    "Shows the tree under a directory to `depth` levels: directories first " +
    "(trailing /), files with sizes, symlinks with targets (never followed). .git, node_modules " +
    "and gitignored directories are shown but not opened unless include_ignored; gitignored " +
    "files are marked. At most 100 entries per directory, 1,000 in all and 30,000 characters, " +
    "with a count of what was left out." +
    (offers("glob") ? " To find files by name, use glob." : ""),
  annotations: READ_ONLY,
  input: {
    type: "object",
    properties: {
      path: pathOrRootProperty("Directory to list"),
      depth: {
        type: "integer",
        minimum: 1,
        maximum: MAX_DEPTH,
        description: `Levels to show (default ${DEFAULT_DEPTH}; 1 shows only its own entries).`,
      },
      include_ignored: {
        type: "boolean",
        description: "Also open .git, node_modules and gitignored directories.",
      },
    },
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      path: { type: "string" },
      entries: {
        type: "array",
        items: {
          type: "object",
          properties: {
            path: { type: "string" },
            type: { type: "string", enum: ENTRY_TYPES },
            size: { type: "integer" },
            target: { type: "string" },
          },
          required: ["path", "type"],
          additionalProperties: false,
        },
      },
      complete: { type: "boolean", description: "false when the caps left entries out" },
    },
    required: ["path", "entries", "complete"],
    additionalProperties: false,
  },

  run: listDir,
});

/** What the model asked list_dir for. */
interface ListDirArgs {
  path?: string;
  depth?: number;
  include_ignored?: boolean;
}

/** Lists a directory as a tree down to `depth`, leaving ignored entries out unless asked. */
async function listDir(args: ListDirArgs, ctx: ToolContext) {
  const sandbox = await Sandbox.of(ctx);
  const requested = args.path ?? ".";
  const { real, exists } = await sandbox.resolve(requested);
  const info = exists ? await sandbox.info(real) : undefined;
  if (!info) throw new ToolError(`${quoted(requested)} does not exist`);
  if (!info.isDirectory()) {
    throw new ToolError(
      `${quoted(requested)} is a file, not a directory: use read_file to see it`,
    );
  }
  const includeIgnored = args.include_ignored ?? false;
  const display = sandbox.display(real);
  const root: Node = { name: display, kind: "directory" };
  const rules = includeIgnored ? IgnoreRules.empty() : await IgnoreRules.above(sandbox, real);
  const { listed, budgetHit, timedOut } = await buildTree(
    sandbox,
    { node: root, path: real, rel: "", depth: 1, rules },
    args.depth ?? DEFAULT_DEPTH,
    includeIgnored,
    ctx.signal,
  );

  const tree: Row[] = [{ line: `${display}/` }];
  rows(root, "  ", display, tree);
  // The text and the structured entries stop at the same line, each within its cap: deep
  // paths make the entries much longer than the indented names.
  let text = "";
  let entryChars = 0;
  let cut = 0;
  let cutBy = "";
  const entries: FlatEntry[] = [];
  for (const { line, entry } of tree) {
    const size = entry ? JSON.stringify(entry).length + 1 : 0;
    if (cut === 0 && text.length + line.length + 1 > ctx.config.limits.outputChars) {
      cutBy = `${count(ctx.config.limits.outputChars)} characters`;
    } else if (cut === 0 && entryChars + size > STRUCTURED_CAP_CHARS) {
      cutBy = `${count(STRUCTURED_CAP_CHARS)} characters of structured entries`;
    }
    if (cutBy) {
      cut++;
      continue;
    }
    text += `${line}\n`;
    entryChars += size;
    if (entry) entries.push(entry);
  }
  const hidden = countHidden(root);
  const notes: string[] = [];
  if (listed === 0 && !root.hidden) notes.push("[empty directory]");
  const left: string[] = [];
  if (hidden > 0) {
    left.push(`${count(hidden)} more entries (at most ${PER_DIRECTORY} per directory)`);
  }
  if (budgetHit) left.push(`directories past the first ${count(MAX_ENTRIES)} entries`);
  if (cut > 0) left.push(`${count(cut)} lines past ${cutBy}`);
  if (left.length) {
    notes.push(`[not listed: ${left.join("; ")}. List a subdirectory or use a smaller depth]`);
  }
  if (timedOut) {
    notes.push(`[stopped after ${TIME_LIMIT_MS / 1000} s: the listing is incomplete]`);
  }
  const skipped = skippedIgnoreNote(rules.skipped, (path) => sandbox.display(path));
  if (skipped) notes.push(skipped);
  return {
    content: `${text}${notes.length ? `\n${notes.join("\n")}` : ""}`.trimEnd(),
    structured: {
      path: display,
      entries,
      complete: hidden === 0 && !budgetHit && !timedOut && cut === 0,
    },
  };
}

function countHidden(node: Node): number {
  return (node.hidden ?? 0) + (node.children ?? []).reduce((n, c) => n + countHidden(c), 0);
}
