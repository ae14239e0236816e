/**
 * Source files as the code tools read them: through the sandbox, text only, bounded in size,
 * and the walk of a directory for the files tier 1 can parse (.gitignore respected, symbolic
 * links never followed, bounded in entries and time).
 */
import { closeSync, fstatSync, readSync, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { IgnoreRules } from "../../_lib/walk/gitignore.ts";
import type { Dir, Sandbox } from "../../_lib/sandbox/mod.ts";
import { type DecodedText, decodeText } from "../../_lib/text/text.ts";
import { Walk } from "../../_lib/walk/walk.ts";
import { type LanguageId, languageOf } from "./parse/mod.ts";

/**
 * Files larger than this are not parsed (a minified bundle, a generated table): tree-sitter's
 * tree of a pathological file (one expression of a million operators) takes about 200 bytes per
 * byte of text.
 */
export const MAX_PARSE_BYTES = 1024 * 1024;
/** At most this many entries are looked at in one walk, and for at most this long. */
const MAX_WALK_ENTRIES = 200_000;
/** At most this many source files in one map or find. */
export const MAX_SOURCE_FILES = 20_000;
const WALK_MS = 20_000;

export interface SourceText {
  real: string;
  shown: string;
  lang: LanguageId;
  text: string;
  decoded: DecodedText;
  bytes: Uint8Array;
  /** What identifies this version of the file: a cache key part. */
  version: string;
}

/** Why a file is not parsed, as a sentence's end: "is binary", "is 50 MB, over ...". */
export class Unparsable extends Error {
  constructor(message: string, readonly tooLarge = false) {
    super(message);
  }
}

/**
 * Reads one source file; throws Unparsable with a sentence when it is not one tier 1 reads.
 * `open` opens it (through the edit transaction, for an edit); through the sandbox unless given.
 */
export async function readSource(
  sandbox: Sandbox,
  real: string,
  open: () => Promise<FileHandle> = () => sandbox.openForReading(real),
): Promise<SourceText> {
  const shown = sandbox.display(real);
  const lang = languageOf(real);
  if (!lang) {
    throw new Unparsable(
      `${shown} is not in a language the built-in parser knows (by its extension)`,
    );
  }
  const handle = await open();
  try {
    const info = await handle.stat();
    checkSize(shown, info);
    return sourceOf(real, shown, lang, await handle.readFile(), info);
  } finally {
    await handle.close();
  }
}

/**
 * readSource() for a map's thousands of files: entry `name` of `dir` (held open beneath its
 * root), opened without following a link or blocking and read with synchronous calls
 * (microseconds each, where a round trip through the event loop per call costs more: 20,000
 * files took seconds of the main thread). Throws Unparsable as readSource() does, and the
 * system's error when it cannot be opened or is not a regular file (the caller asks readSource()
 * then, for its sentence).
 */
export function readSourceAt(dir: Dir, name: string, real: string, shown: string): SourceText {
  const lang = languageOf(real);
  if (!lang) throw new Error(`${shown} is not in a language the built-in parser knows`);
  const fd = dir.openFileSync(name);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error(`${shown} is not a regular file`);
    checkSize(shown, info);
    // One byte more than it had: a file that grew meanwhile is read to its bound, not past it.
    const bytes = new Uint8Array(info.size + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < bytes.length; length += n) {
      n = readSync(fd, bytes, length, bytes.length - length, length);
    }
    if (length > info.size) throw new Error(`${shown} changed while it was read`);
    return sourceOf(real, shown, lang, bytes.subarray(0, length), info);
  } finally {
    closeSync(fd);
  }
}

function checkSize(shown: string, info: Stats): void {
  if (info.size <= MAX_PARSE_BYTES) return;
  throw new Unparsable(
    `${shown} is ${megabytes(info.size)}, over the ${
      megabytes(MAX_PARSE_BYTES)
    } limit for parsing (a minified or generated file?)`,
    true,
  );
}

function sourceOf(
  real: string,
  shown: string,
  lang: LanguageId,
  bytes: Uint8Array,
  info: Stats,
): SourceText {
  const decoded = decodeText(bytes);
  if (!decoded || decoded.text.includes("\0")) {
    throw new Unparsable(`${shown} is a binary file, not ${lang} source`);
  }
  return { real, shown, lang, text: decoded.text, decoded, bytes, version: versionOf(info) };
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** What a walk found: parsable files (real paths) and whether it stopped early. */
export interface SourceList {
  files: string[];
  stoppedEarly?: string;
}

/** The files under `real` (a directory) that tier 1 parses, in walk order. */
export async function listSources(
  sandbox: Sandbox,
  real: string,
  signal: AbortSignal,
): Promise<SourceList> {
  const info = await sandbox.info(real);
  if (!info.isDirectory()) {
    throw new ToolError(`${sandbox.display(real)} is not a directory`);
  }
  const walk = new Walk({
    respectIgnores: true,
    rules: await IgnoreRules.above(sandbox, real),
    wanted: (rel, kind) => kind === "file" && languageOf(rel) !== undefined,
    maxEntries: MAX_WALK_ENTRIES,
    deadline: Date.now() + WALK_MS,
    signal,
  });
  const files: string[] = [];
  const start = (await sandbox.directory(real)).dir;
  try {
    walking: for await (const batch of walk.batches(start)) {
      for (const entry of batch) {
        if (files.length >= MAX_SOURCE_FILES) break walking;
        files.push(entry.path);
      }
    }
  } finally {
    await start.close();
  }
  const stoppedEarly = files.length >= MAX_SOURCE_FILES
    ? `at ${MAX_SOURCE_FILES} source files`
    : walk.stopped === "entry limit"
    ? `after ${MAX_WALK_ENTRIES} entries`
    : walk.stopped === "time limit"
    ? `after ${WALK_MS / 1000} s`
    : undefined;
  return { files, stoppedEarly };
}

/**
 * What tells one version of a source file from the next, as a cache key (the parse caches', in
 * memory and on disk): inode, size and modification time.
 */
export function versionOf(info: { ino: number; size: number; mtimeMs: number }): string {
  return `${info.ino}:${info.size}:${info.mtimeMs}`;
}
