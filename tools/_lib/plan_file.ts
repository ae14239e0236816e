/** The markdown file that holds a plan while plan mode is on: started, written, read back. */
import { mkdir, open, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "./atomic_write.ts";

/** What `exit` returns at most, and so what `write` accepts: the whole plan fits in one result. */
export const MAX_PLAN_CHARS = 30_000;

export function planHeading(goal: string): string {
  return `# Plan\n\nGoal: ${goal}\n\n`;
}

/**
 * Gives the plan file its heading: always for toolhost's own file (a new plan starts afresh),
 * only when missing for a file the model named (it may plan into an existing document).
 * Returns the size of a file that was kept.
 */
export async function startPlanFile(
  path: string,
  goal: string,
  ownFile: boolean,
): Promise<number | undefined> {
  const existing = await stat(path).catch(() => null);
  if (existing && !ownFile) return existing.size;
  await writePlan(path, planHeading(goal));
}

export async function writePlan(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, new TextEncoder().encode(text));
}

/** Bytes in the plan file; undefined when it is missing. */
export async function planSize(path: string): Promise<number | undefined> {
  return (await stat(path).catch(() => null))?.size;
}

/**
 * The plan's text, cut at MAX_PLAN_CHARS (the file is read only that far): empty when the file
 * is missing.
 */
export async function readPlan(
  path: string,
): Promise<{ text: string; bytes: number; cut: boolean }> {
  const handle = await open(path, "r").catch(() => null);
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
