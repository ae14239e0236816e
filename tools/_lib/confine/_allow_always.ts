/**
 * "Always allow": a host added to `sandbox.allow_network` in the user config file, as one
 * insertion: its comments, order, indentation and line ends kept (jsonc-parser finds where; its
 * own edits reformat the neighbouring lines and move a trailing comment). The file is replaced
 * by a rename of a complete new one, beside the real file when it is a symlink. The project file
 * is never written.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  findNodeAtLocation,
  getNodeValue,
  type Node,
  type ParseError,
  parseTree,
  stripComments,
} from "jsonc-parser";

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
  if (!stripComments(text).trim()) {
    // Comments alone (the loader warns that such a file sets nothing): the object after them.
    const object = `{ "sandbox": { "allow_network": [${JSON.stringify(entry)}] } }\n`;
    return text + (text === "" || text.endsWith("\n") ? "" : "\n") + object;
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true });
  if (errors.length > 0 || root?.type !== "object") {
    throw new Error("it is not a JSON object (with comments) that can be edited safely");
  }
  const item = JSON.stringify(entry);
  const sandbox = findNodeAtLocation(root, ["sandbox"]);
  const list = findNodeAtLocation(root, ["sandbox", "allow_network"]);
  if (list?.type === "array") {
    if ((getNodeValue(list) as unknown[]).includes(entry)) return text;
    return appended(text, list, item);
  }
  if (sandbox?.type === "object") return appended(text, sandbox, `"allow_network": [${item}]`);
  const value = `{ ${
    sandbox?.type === "string" ? `"mode": ${JSON.stringify(getNodeValue(sandbox))}, ` : ""
  }"allow_network": [${item}] }`;
  // The shorthand "sandbox": "read-only" becomes the object form, its mode kept.
  if (sandbox) {
    return text.slice(0, sandbox.offset) + value + text.slice(sandbox.offset + sandbox.length);
  }
  return appended(text, root, `"sandbox": ${value}`);
}

/**
 * `item` added after the last element of an array or property of an object, in its style: on a
 * line of its own with the same indentation when the elements are one per line (after a comment
 * that ends the last one's line, never before it), else on the same line.
 */
function appended(text: string, container: Node, item: string): string {
  const children = container.children ?? [];
  const last = children.at(-1);
  if (!last) {
    const at = container.offset + 1;
    const spaced = container.type === "object" ? ` ${item} ` : item;
    return text.slice(0, at) + spaced + text.slice(at);
  }
  const end = last.offset + last.length;
  const lineEnd = lineEndAfter(text, end);
  const rest = text.slice(end, lineEnd);
  const comma = /^[ \t]*,/.test(rest);
  const onItsOwnLine = text.slice(container.offset, last.offset).includes("\n") &&
    /^[ \t]*,?[ \t]*(\/\/.*|\/\*.*?\*\/[ \t]*)?$/.test(rest);
  if (!onItsOwnLine) return `${text.slice(0, end)}, ${item}${text.slice(end)}`;
  const lineStart = text.lastIndexOf("\n", last.offset) + 1;
  const indent = text.slice(lineStart, last.offset).match(/^[ \t]*/)![0];
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return text.slice(0, end) + (comma ? "" : ",") + text.slice(end, lineEnd) + eol + indent +
    item + (comma ? "," : "") + text.slice(lineEnd);
}

function lineEndAfter(text: string, from: number): number {
  const newline = text.indexOf("\n", from);
  if (newline < 0) return text.length;
  return text[newline - 1] === "\r" ? newline - 1 : newline;
}
