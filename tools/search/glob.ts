import { lstatSync } from "node:fs";
import { sep } from "node:path";
import { quoted } from "../../config/quote.ts";
import picomatch from "picomatch";
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { IgnoreRules } from "../_lib/walk/gitignore.ts";
import { modifiedAt, nativeLookups, Sandbox, skippedIgnoreNote } from "../_lib/sandbox/mod.ts";
import { pathOrRootProperty } from "../_lib/declarations/path_properties.ts";
import { count } from "../_lib/text/units.ts";
import { Walk } from "../_lib/walk/walk.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { globMatcher } from "./_lib/glob_match.ts";
import { shownName } from "../_lib/text/shown_name.ts";

const MAX_RESULTS = 1_000;
const MAX_WALK_ENTRIES = 200_000;
const TIME_LIMIT_MS = 10_000;

/** Which directories can hold a match: those on the way to the pattern's fixed part, or in it. */
function walkBounds(pattern: string): (rel: string, depth: number) => boolean {
  const { base, isGlob } = picomatch.scan(pattern);
  const fixed = isGlob ? base : pattern;
  // Without ** or braces (which may hide slashes) a pattern has a fixed depth.
  const depth = /\*\*|\{/.test(pattern) ? Infinity : pattern.split("/").length;
  return (rel, at) =>
    at < depth &&
    (fixed === "" || fixed === rel || fixed.startsWith(`${rel}/`) || rel.startsWith(`${fixed}/`));
}

export default defineTool({
  name: "glob",
  title: "Find files by name",
  description: (offers) =>
    "Finds files whose path from `path` matches a glob pattern, newest first: to " +
    "locate files by name or extension before reading them. `*` and `?` within a name, `**` any " +
    "number of directories, `{a,b}`, `[abc]`; `*.ts` matches only at the top, `**/*.ts` at any " +
    "depth. Dotfiles match like other files. Returns regular files and symlinks (never " +
    `followed), not directories${
      offers("list_dir") ? " (use list_dir)" : ""
    } or special files. Skips .git, node_modules and ` +
    "what .gitignore and .rgignore exclude (a directory holding .git starts afresh) unless " +
    "include_ignored. At most 1,000 paths (and 30,000 characters) with a count of the rest; the " +
    "walk stops after 200,000 entries or 10 s and says the results are incomplete.",
  annotations: READ_ONLY,
  taskSupport: "optional",
  input: {
    type: "object",
    properties: {
      pattern: {
        type: "string",
        minLength: 1,
        description: "Glob relative to `path`, e.g. **/*.ts or src/**/*.{js,jsx}.",
      },
      path: pathOrRootProperty("Directory to search"),
      include_ignored: {
        type: "boolean",
        description: "Also search .git, node_modules and gitignored files.",
      },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      paths: { type: "array", items: { type: "string" }, description: "newest first" },
      total: { type: "integer", description: "files that matched, shown or not" },
      stoppedEarly: {
        type: ["string", "null"],
        description: "why the walk stopped before the end, if it did",
      },
    },
    required: ["paths", "total", "stoppedEarly"],
    additionalProperties: false,
  },

  run: globFiles,
});

/** What the model asked glob for. */
interface GlobArgs {
  pattern: string;
  path?: string;
  include_ignored?: boolean;
}

/** Lists the files under `path` that the pattern matches, leaving ignored ones out unless asked. */
async function globFiles(args: GlobArgs, ctx: ToolContext) {
  const pattern = args.pattern.replace(/^\.\//, "");
  if (pattern.startsWith("/") || pattern.split("/").includes("..")) {
    throw new ToolError(
      `pattern ${quoted(args.pattern)} must be relative to path, without "..": ` +
        `put the directory in path (for example path "src", pattern "**/*.ts")`,
    );
  }
  const sandbox = await Sandbox.of(ctx);
  const requested = args.path ?? ".";
  const { real, exists } = await sandbox.resolve(requested);
  if (!exists || !(await sandbox.info(real)).isDirectory()) {
    throw new ToolError(
      `${quoted(requested)} is not ${exists ? "a directory" : "an existing directory"}`,
    );
  }
  const includeIgnored = args.include_ignored ?? false;
  const rules = includeIgnored ? IgnoreRules.empty() : await IgnoreRules.above(sandbox, real);
  const matches = globMatcher(pattern);
  const walk = new Walk({
    respectIgnores: !includeIgnored,
    rules,
    enter: walkBounds(pattern),
    // What the description promises: files and links, never FIFOs, sockets or devices.
    wanted: (rel, kind, name) => (kind === "file" || kind === "symlink") && matches(rel, name),
    maxEntries: MAX_WALK_ENTRIES,
    deadline: Date.now() + TIME_LIMIT_MS,
    signal: ctx.signal,
  });
  const found: { path: string; rel: string; mtime: number }[] = [];
  /** Matches whose time is looked up by path, after the walk. */
  const byPath: { path: string; rel: string }[] = [];
  const native = nativeLookups();
  // Walked beneath its root (beneath.ts): a directory swapped for a link since is not.
  const start = (await sandbox.directory(real)).dir;
  try {
    for await (const batch of walk.batches(start)) {
      for (const entry of batch) {
        // Its time, for the order only (no content is read): as an entry of the directory
        // held open (beneath_native.ts) where the system allows it, else by path.
        const fd = native ? entry.dir.fd : undefined;
        const name = entry.rel.slice(entry.rel.lastIndexOf("/") + 1);
        const mtime = fd === undefined ? undefined : modifiedAt(fd, name);
        if (mtime === undefined) byPath.push({ path: entry.path, rel: entry.rel });
        else found.push({ path: entry.path, rel: entry.rel, mtime });
      }
    }
  } finally {
    await start.close();
  }
  // By path: a few microseconds each where an address through /proc costs several times that,
  // and all at once after the walk (interleaved with it they cost twice as much); one gone
  // since is left out.
  for (const { path, rel } of byPath) {
    try {
      found.push({ path, rel, mtime: lstatSync(path).mtimeMs });
    } catch {
      // removed (or its directory replaced) since the listing
    }
  }
  found.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const where = sandbox.display(real);
  const whereShown = shownName(where);
  // A match as display() shows it: its path from the start after the start's own, without a
  // path.relative per match (POSIX: `rel` is "/"-separated names, never "." or "..").
  const under = sep === "/" && !where.endsWith("/")
    ? (rel: string) => (where === "." ? rel : `${where}/${rel}`)
    : undefined;
  const paths: string[] = [];
  /** The same paths as the text shows them (shown_name.ts): one per line, whatever a name holds. */
  const lines: string[] = [];
  let chars = 0;
  for (const { path, rel } of found) {
    const real = under ? under(rel) : sandbox.display(path);
    const shown = shownName(real);
    if (paths.length >= MAX_RESULTS || chars + shown.length + 1 > ctx.config.limits.outputChars) {
      break;
    }
    paths.push(real);
    lines.push(shown);
    chars += shown.length + 1;
  }
  const notes: string[] = [];
  if (found.length === 0) {
    const anyDepth = pattern.includes("/") ? "" : `; to match at any depth use "**/${pattern}"`;
    notes.push(`[no files under ${whereShown} match ${JSON.stringify(pattern)}${anyDepth}]`);
  } else {
    notes.push(
      `[${count(found.length)} file${found.length === 1 ? "" : "s"} under ${whereShown} match ${
        JSON.stringify(pattern)
      }, newest first]`,
    );
  }
  if (paths.length < found.length) {
    notes.push(
      `[${count(found.length - paths.length)} more not shown (at most ${
        count(MAX_RESULTS)
      } paths or ${
        count(ctx.config.limits.outputChars)
      } characters): use a narrower pattern or path]`,
    );
  }
  const stoppedEarly = walk.stopped === "entry limit"
    ? `after looking at ${count(MAX_WALK_ENTRIES)} entries`
    : walk.stopped === "time limit"
    ? `after ${TIME_LIMIT_MS / 1000} s`
    : null;
  if (stoppedEarly) {
    notes.push(
      `[the walk stopped early (${stoppedEarly}): results are incomplete; use a narrower path]`,
    );
  }
  const skipped = skippedIgnoreNote(rules.skipped, (path) => shownName(sandbox.display(path)));
  if (skipped) notes.push(skipped);
  const body = lines.join("\n");
  return {
    content: body ? `${body}\n\n${notes.join("\n")}` : notes.join("\n"),
    structured: { paths, total: found.length, stoppedEarly },
  };
}
