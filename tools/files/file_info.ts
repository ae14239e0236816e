import type { Stats } from "node:fs";
import { defineTool, type FromSchema, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import {
  describeEntry,
  ENTRY_TYPES,
  entryType,
  resolveEntry,
  Sandbox,
  whileReading,
} from "../_lib/sandbox/mod.ts";
import { encodingName, sniff } from "../_lib/text/file_sniff.ts";
import { LINE_COUNT_BUDGET_BYTES, scanLines } from "./_lib/line_scan.ts";
import { pathProperty } from "../_lib/declarations/path_properties.ts";
import { bytes, count } from "../_lib/text/units.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";

const OUTPUT = {
  type: "object",
  properties: {
    path: { type: "string" },
    type: { enum: ENTRY_TYPES },
    kind: { type: "string" },
    linkTarget: { type: "string" },
    targetType: { enum: [...ENTRY_TYPES, "missing"] },
    realPath: { type: "string" },
    size: { type: "integer" },
    modified: { type: "string" },
    accessed: { type: "string" },
    created: { type: ["string", "null"] },
    permissions: { type: "string" },
    mode: { type: "string" },
    contents: { enum: ["text", "image", "binary"] },
    description: { type: "string" },
    lines: { type: "integer" },
    linesExact: { type: "boolean" },
  },
  required: ["path", "type", "size", "modified", "accessed", "created", "permissions", "mode"],
  additionalProperties: false,
} as const;

type Facts = FromSchema<typeof OUTPUT>;

export default defineTool({
  name: "file_info",
  title: "Describe a file",
  description: "Describes a path without reading it all: type (file, directory, symlink and " +
    "its target, FIFO, …), size, times, permissions, contents (text and encoding, image, " +
    "binary) and a text file's line count (a lower bound past 64 MB). A symlink's size, times " +
    "and permissions are its target's.",
  annotations: READ_ONLY,
  input: {
    type: "object",
    properties: {
      path: pathProperty("The path to describe"),
    },
    required: ["path"],
    additionalProperties: false,
  },
  output: OUTPUT,

  run: fileInfo,
});

/** What the model asked file_info for. */
interface FileInfoArgs {
  path: string;
}

/** Reports what a path is (type, size, times, mode, link target) without reading what it holds. */
function fileInfo(args: FileInfoArgs, ctx: ToolContext) {
  return whileReading(async () => {
    const sandbox = await Sandbox.of(ctx);
    const at = await resolveEntry(sandbox, args.path);
    const shown = sandbox.display(at.entry);
    if (!at.exists && !at.link) {
      throw new ToolError(
        `${shown} does not exist. Check the path; list_dir or glob can find it.`,
      );
    }
    const own = await sandbox.info(at.entry);
    // A link's facts are its target's, unless the target is missing.
    const info = at.exists ? await sandbox.info(at.real) : own;
    const facts: Facts = {
      path: shown,
      type: entryType(own),
      ...(entryType(own) === "other" ? { kind: describeEntry(own) } : {}),
      size: info.size,
      modified: info.mtime.toISOString(),
      accessed: info.atime.toISOString(),
      created: info.birthtimeMs > 0 ? info.birthtime.toISOString() : null,
      permissions: permissions(info.mode),
      mode: `0${(info.mode & 0o7777).toString(8).padStart(3, "0")}`,
    };
    if (at.link) {
      const { dir, name } = await sandbox.parent(at.entry);
      facts.linkTarget = await dir.readlink(name).finally(() => dir.close());
      facts.targetType = at.exists ? entryType(info) : "missing";
      if (at.exists) facts.realPath = sandbox.display(at.real);
    }
    if (info.isFile() && at.exists) {
      Object.assign(facts, await contents(sandbox, at.real, info.size, ctx.signal));
    }
    return { content: describe(facts, info), structured: facts };
  });
}

/** What a regular file holds, and its line count when it is text. */
async function contents(
  sandbox: Sandbox,
  real: string,
  size: number,
  signal: AbortSignal,
): Promise<Partial<Facts>> {
  // An unreadable file still has the facts stat gave; only what it holds stays unknown.
  const handle = await sandbox.openForReading(real).catch(() => undefined);
  if (!handle) return {};
  try {
    const sniffed = await sniff(handle);
    if (sniffed.kind !== "text") {
      return { contents: sniffed.kind, description: sniffed.description };
    }
    const scan = await scanLines(handle, {
      encoding: sniffed.encoding,
      start: sniffed.bomBytes,
      countBudget: LINE_COUNT_BUDGET_BYTES,
      size,
      signal,
    });
    return {
      contents: "text",
      description: encodingName(sniffed.encoding, sniffed.bomBytes),
      lines: scan.lines,
      linesExact: scan.complete,
    };
  } finally {
    await handle.close();
  }
}

/** `ls -l` style: rwxr-xr-x, with s/S and t/T for the set-id and sticky bits. */
function permissions(mode: number): string {
  let text = "";
  for (let bit = 8; bit >= 0; bit--) text += mode & (1 << bit) ? "rwx"[(8 - bit) % 3] : "-";
  const special = (at: number, flag: number, letter: string) => {
    if (!(mode & flag)) return;
    const executable = text[at] === "x";
    text = text.slice(0, at) + (executable ? letter : letter.toUpperCase()) + text.slice(at + 1);
  };
  special(2, 0o4000, "s");
  special(5, 0o2000, "s");
  special(8, 0o1000, "t");
  return text;
}

function describe(facts: Facts, info: Stats): string {
  const what = facts.type === "symlink"
    ? `symlink → ${facts.linkTarget} (${
      facts.targetType === "missing"
        ? "its target does not exist"
        : `${facts.targetType}${facts.realPath ? ` ${facts.realPath}` : ""}`
    })`
    : facts.type === "other"
    ? String(facts.kind)
    : String(facts.type);
  const content = facts.contents === "text"
    ? `text (${facts.description}), ${facts.linesExact ? "" : "at least "}${
      count(facts.lines ?? 0)
    } lines${
      facts.linesExact ? "" : ` (counted through the first ${bytes(LINE_COUNT_BUDGET_BYTES)})`
    }`
    : facts.contents
    ? String(facts.description)
    : undefined;
  return [
    `${facts.path}: ${what}`,
    `size: ${bytes(info.size)}${info.size >= 1024 ? ` (${count(info.size)} bytes)` : ""}`,
    ...(content ? [`contents: ${content}`] : []),
    `permissions: ${facts.permissions} (${facts.mode})`,
    `modified: ${facts.modified}`,
    `accessed: ${facts.accessed}`,
    `created: ${facts.created ?? "not recorded by this filesystem"}`,
  ].join("\n");
}
