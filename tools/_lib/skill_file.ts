/**
 * One SKILL.md, as the Agent Skills format defines it: YAML front matter between `---` lines,
 * then markdown. The two fields every client relies on are checked by the format's rules, so a
 * skill that works here works in other clients too.
 */
import { open } from "node:fs/promises";

/** Lowercase letters and digits in hyphen-separated words: also a valid tool-argument value. */
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1024;

export interface SkillText {
  name: string;
  description: string;
  /** The markdown after the front matter, with LF line endings. */
  body: string;
  /** The line of SKILL.md (1-based) the body starts on. */
  bodyLine: number;
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
    header = parse(lines.slice(1, end).join("\n"), { logLevel: "error" });
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
      `its name ${JSON.stringify(name)} is not 1–${MAX_NAME_CHARS} lowercase letters, digits ` +
        "and single hyphens (not at either end), like `pdf-tools`",
    );
  }
  if (name !== dirName) {
    throw new InvalidSkill(
      `its name ${JSON.stringify(name)} differs from its directory's name ${
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
  };
}

/** The first `maxBytes` of a file as text: enough for the front matter without reading it all. */
export async function readHead(path: string, maxBytes: number): Promise<string> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(maxBytes);
    let length = 0;
    while (length < maxBytes) {
      const { bytesRead } = await handle.read(buffer, length, maxBytes - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return new TextDecoder().decode(buffer.subarray(0, length));
  } finally {
    await handle.close();
  }
}
