/**
 * "Always allow": a host added to `sandbox.allow_network` in the user config file, its comments,
 * order and indentation kept (jsonc-parser's edits touch only what they change). The file is
 * replaced by a rename of a complete new one, beside the real file when it is a symlink. The
 * project file is never written.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree } from "jsonc-parser";
import type { FormattingOptions, ParseError } from "jsonc-parser";

/** Adds `entry` to the file's `sandbox.allow_network` unless it is there; creates the file. */
export async function addToAllowNetwork(file: string, entry: string): Promise<void> {
  const real = await realpath(file).catch(() => file);
  let text: string;
  let mode = 0o600;
  try {
    text = await readFile(real, "utf8");
    mode = (await stat(real)).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await mkdir(dirname(real), { recursive: true, mode: 0o700 });
    text = "{}\n";
  }
  const updated = withEntry(text, entry);
  if (updated === text) return;
  const temporary = join(dirname(real), `.${randomBytes(6).toString("hex")}.toolhost-tmp`);
  try {
    await writeFile(temporary, updated, { mode, flag: "wx" });
    await rename(temporary, real);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The text with `entry` in `sandbox.allow_network`; the same text when it is already there. */
export function withEntry(text: string, entry: string): string {
  const errors: ParseError[] = [];
  const root = parseTree(text.trim() ? text : "{}", errors, { allowTrailingComma: true });
  if (errors.length > 0 || root?.type !== "object") {
    throw new Error("it is not a JSON object (with comments) that can be edited safely");
  }
  if (!text.trim()) text = "{}\n";
  const formatting = formattingOf(text);
  const sandbox = findNodeAtLocation(root, ["sandbox"]);
  const list = findNodeAtLocation(root, ["sandbox", "allow_network"]);
  let edits;
  if (sandbox && sandbox.type === "string") {
    // The shorthand "sandbox": "read-only" becomes the object form, its mode kept.
    edits = modify(text, ["sandbox"], { mode: getNodeValue(sandbox), allow_network: [entry] }, {
      formattingOptions: formatting,
    });
  } else if (list && list.type === "array") {
    if ((getNodeValue(list) as unknown[]).includes(entry)) return text;
    edits = modify(text, ["sandbox", "allow_network", -1], entry, {
      formattingOptions: formatting,
      isArrayInsertion: true,
    });
  } else {
    edits = modify(text, ["sandbox", "allow_network"], [entry], { formattingOptions: formatting });
  }
  return applyEdits(text, edits);
}

/** The file's own indentation and line ends, so an added line looks like its neighbours. */
function formattingOf(text: string): FormattingOptions {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indent = text.match(/\n([ \t]+)\S/)?.[1];
  if (indent?.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent?.length || 2, eol };
}
