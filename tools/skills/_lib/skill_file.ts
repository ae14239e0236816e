/**
 * One SKILL.md, as the Agent Skills format defines it: YAML front matter between `---` lines,
 * then markdown. The two fields every client relies on are checked by the format's rules, so a
 * skill that works here works in other clients too.
 */
import { type FileHandle, stat } from "node:fs/promises";
import { describeEntry, openByPath } from "../../_lib/sandbox/mod.ts";
import { quoted } from "../../../config/quote.ts";
import { bytes } from "../../_lib/text/units.ts";

/** Lowercase letters and digits in hyphen-separated words: also a valid tool-argument value. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME_CHARS = 64;
const MAX_DESCRIPTION_CHARS = 1024;
/** The front matter must close within this much of SKILL.md; it holds two short fields. */
const FRONT_MATTER_BYTES = 16 * 1024;
const CHUNK_BYTES = 4 * 1024;

export interface SkillText {
  name: string;
  description: string;
  /** The markdown after the front matter, with LF line endings. */
  body: string;
  /** The line of SKILL.md (1-based) the body starts on. */
  bodyLine: number;
  /** The front matter as written (every field, `description` untrimmed), for the extension. */
  frontMatter: Record<string, unknown>;
}

/** Why a SKILL.md cannot be used, as a sentence that says what to fix. */
export class InvalidSkill extends Error {}

/** Whether `name` is a skill name the format allows. */
export function isSkillName(name: string): boolean {
  return name.length <= MAX_NAME_CHARS && SKILL_NAME.test(name);
}

/** Parses a SKILL.md's text; `dirName` is the directory holding it, which the name must match. */
export async function parseSkill(text: string, dirName: string): Promise<SkillText> {
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  if (lines[0].trimEnd() !== "---") {
    throw new InvalidSkill("it does not start with YAML front matter (a `---` line)");
  }
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (end < 0) throw new InvalidSkill("its front matter is not closed by a `---` line");
  const { parse } = await import("yaml");
  let header: unknown;
  try {
    // "error": YAML's warnings would otherwise be printed by the library itself.
    header = parse(lines.slice(1, end).join("\n").replace(/\r$/gm, ""), { logLevel: "error" });
  } catch (error) {
    throw new InvalidSkill(`its front matter is not valid YAML: ${(error as Error).message}`);
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    throw new InvalidSkill("its front matter is not a YAML mapping of `name` and `description`");
  }
  const { name, description } = header as Record<string, unknown>;
  if (typeof name !== "string") {
    throw new InvalidSkill("its front matter has no `name` (a string)");
  }
  if (!isSkillName(name)) {
    throw new InvalidSkill(
      `its name ${quoted(name)} is not 1–${MAX_NAME_CHARS} lowercase letters, digits ` +
        "and single hyphens (not at either end), like `pdf-tools`",
    );
  }
  if (name !== dirName) {
    throw new InvalidSkill(
      `its name ${quoted(name)} differs from its directory's name ${
        JSON.stringify(dirName)
      }; rename one so they match`,
    );
  }
  if (typeof description !== "string" || description.trim() === "") {
    throw new InvalidSkill("its front matter has no `description` (a non-empty string)");
  }
  if (description.length > MAX_DESCRIPTION_CHARS) {
    throw new InvalidSkill(
      `its description has ${description.length} characters, over the ${MAX_DESCRIPTION_CHARS} allowed`,
    );
  }
  return {
    name,
    description: description.trim(),
    body: lines.slice(end + 1).join("\n").replace(/\r$/gm, ""),
    bodyLine: end + 2,
    frontMatter: header as Record<string, unknown>,
  };
}

/**
 * Opens a SKILL.md that is a regular file (a link to one counts). A FIFO or a device is refused
 * before anything waits on it: reading one could block discovery, and every request, forever.
 */
async function openRegular(path: string): Promise<FileHandle> {
  const notRegular = (kind: string) =>
    new InvalidSkill(`its SKILL.md is a ${kind}, not a regular file`);
  const info = await stat(path);
  if (!info.isFile()) throw notRegular(describeEntry(info));
  // Never blocking: a FIFO swapped in after the check cannot hold the open (nothing could cancel it).
  const handle = await openByPath(path, "read through a link");
  const opened = await handle.stat().catch(async (error) => {
    await handle.close();
    throw error;
  });
  if (!opened.isFile()) {
    await handle.close();
    throw notRegular(describeEntry(opened));
  }
  return handle;
}

/**
 * Reads into `buffer`, `chunk` bytes at a time, until `done` says so, the file ends or the buffer
 * is full.
 */
async function readUntil(
  handle: FileHandle,
  buffer: Uint8Array,
  chunk: number,
  done: (filled: number) => boolean,
): Promise<{ filled: number; ended: boolean }> {
  let filled = 0;
  while (filled < buffer.length) {
    const want = Math.min(chunk, buffer.length - filled);
    const { bytesRead } = await handle.read(buffer, filled, want, filled);
    if (bytesRead === 0) return { filled, ended: true };
    filled += bytesRead;
    if (done(filled)) break;
  }
  return { filled, ended: false };
}

/**
 * Whether the start of a SKILL.md (maybe cut mid-line) settles its front matter: it holds the
 * closing `---` line whole, or its first line shows there is none.
 */
function frontMatterSettled(text: string): boolean {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[0].replace(/^\uFEFF/, "").trimEnd() !== "---") return true;
  return lines.slice(1, -1).some((line) => line.trimEnd() === "---");
}

/**
 * The start of a SKILL.md, up to its front matter's closing line: all discovery needs, however
 * long the skill's text. The text may end anywhere after that line.
 */
export async function readFrontMatter(path: string): Promise<string> {
  const handle = await openRegular(path);
  try {
    const buffer = new Uint8Array(FRONT_MATTER_BYTES);
    const decoder = new TextDecoder();
    const { filled, ended } = await readUntil(
      handle,
      buffer,
      CHUNK_BYTES,
      (filled) => frontMatterSettled(decoder.decode(buffer.subarray(0, filled))),
    );
    const text = decoder.decode(buffer.subarray(0, filled));
    if (!ended && !frontMatterSettled(text)) {
      throw new InvalidSkill(
        `its front matter is not closed by a \`---\` line within its first ${
          bytes(FRONT_MATTER_BYTES)
        }`,
      );
    }
    return text;
  } finally {
    await handle.close();
  }
}

/** A whole SKILL.md up to `maxBytes`; `whole` says whether that reached its end. */
export async function readSkillFile(
  path: string,
  maxBytes: number,
): Promise<{ text: string; whole: boolean }> {
  const handle = await openRegular(path);
  try {
    // One byte more than shown tells a file of exactly `maxBytes` from a longer one.
    const buffer = new Uint8Array(maxBytes + 1);
    const { filled } = await readUntil(handle, buffer, buffer.length, () => false);
    const whole = filled <= maxBytes;
    return {
      text: new TextDecoder().decode(buffer.subarray(0, Math.min(filled, maxBytes))),
      whole,
    };
  } finally {
    await handle.close();
  }
}
