/**
 * The markdown file that holds a plan while plan mode is on: started, written, read back. It is
 * never followed through a symlink at its end, so a link swapped in cannot make plan mode read or
 * show another file.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { describeEntry, makeDirectories, type Sandbox } from "../../_lib/sandbox/mod.ts";
import { replaceOwnFile } from "../../_lib/transaction/mod.ts";

/** The sandbox to work beneath (sandbox/_beneath.ts) when the plan file lies in its roots. */
function within(sandbox: Sandbox | undefined, path: string): Sandbox | undefined {
  return sandbox?.contains(path) ? sandbox : undefined;
}

/** What `exit` returns at most, and so what `write` accepts: the whole plan fits in one result. */
export const MAX_PLAN_CHARS = 30_000;

/** The first line of every plan toolhost starts. */
const TITLE = "# Plan";

export function planHeading(goal: string): string {
  return `${TITLE}\n\nGoal: ${goal}\n\n`;
}

/** Plans are markdown; a plan file by any other name is some other kind of file. */
export function isMarkdown(path: string): boolean {
  return /\.md$/i.test(path);
}

/** Whether `text` (a file's beginning) is a plan: it starts with the line toolhost starts it with. */
export function isPlan(text: string): boolean {
  return text === TITLE || text.startsWith(`${TITLE}\n`) || text.startsWith(`${TITLE}\r\n`);
}

/** The plan file's own entry (a symlink is not followed); undefined when it is missing. */
export async function planEntry(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Refuses a plan file that is there but is not a regular file (a symlink swapped in, say). */
export function assertRegular(info: Stats | undefined, shown: string): void {
  if (!info || info.isFile()) return;
  throw new ToolError(
    `the plan file ${shown} is now a ${describeEntry(info)}, not a regular file; toolhost ` +
      'does not follow it. Put the plan back as a file, or call action "reset" to leave plan mode.',
  );
}

/** Starts a new plan file; `replace` only for toolhost's own file, so no file is overwritten. */
export async function startPlanFile(
  path: string,
  goal: string,
  replace: boolean,
  sandbox?: Sandbox,
): Promise<void> {
  if (replace) return await writePlan(path, planHeading(goal), sandbox);
  const inside = within(sandbox, path);
  const create = async () => {
    if (!inside) return await open(path, "wx");
    const { dir, name } = await inside.parent(path);
    try {
      return await dir.open(name, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
    } finally {
      await dir.close();
    }
  };
  const handle = await create().catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
    throw new ToolError("the plan file was created by something else meanwhile; try again");
  });
  try {
    await handle.writeFile(planHeading(goal));
  } finally {
    await handle.close();
  }
}

/** Writes the plan; a plan file inside the roots is written beneath them (Sandbox.parent). */
export async function writePlan(path: string, text: string, sandbox?: Sandbox): Promise<void> {
  const inside = within(sandbox, path);
  if (inside) await makeDirectories(inside, dirname(path));
  else await mkdir(dirname(path), { recursive: true });
  await replaceOwnFile(path, new TextEncoder().encode(text), inside);
}

/**
 * The plan's text, cut at MAX_PLAN_CHARS (the file is read only that far): empty when the file
 * is missing. `shown` names it in refusals.
 */
export async function readPlan(
  path: string,
  shown: string,
  sandbox?: Sandbox,
): Promise<{ text: string; bytes: number; cut: boolean }> {
  const handle = await openPlan(path, shown, within(sandbox, path));
  if (!handle) return { text: "", bytes: 0, cut: false };
  try {
    const { size } = await handle.stat();
    // UTF-8 takes at most 4 bytes a character.
    const buffer = new Uint8Array(Math.min(size, MAX_PLAN_CHARS * 4));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = new TextDecoder().decode(buffer.subarray(0, bytesRead));
    const cut = text.length > MAX_PLAN_CHARS || bytesRead < size;
    return { text: text.slice(0, MAX_PLAN_CHARS), bytes: size, cut };
  } finally {
    await handle.close();
  }
}

/**
 * Opens the plan file if it is a regular file, and makes sure what opened is that file; one
 * inside the roots is opened beneath them (Sandbox.openForReading).
 */
async function openPlan(
  path: string,
  shown: string,
  sandbox?: Sandbox,
): Promise<FileHandle | undefined> {
  const entry = await planEntry(path);
  if (!entry) return undefined;
  assertRegular(entry, shown);
  const handle = sandbox ? await sandbox.openForReading(path) : await open(path, "r");
  const opened = await handle.stat();
  if (opened.ino !== entry.ino || opened.dev !== entry.dev) {
    await handle.close();
    throw new ToolError(`the plan file ${shown} changed while it was being opened; try again`);
  }
  return handle;
}
