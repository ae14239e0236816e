/** Resolving and checking the directory a command runs in. */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import process from "node:process";
import { quoted } from "../../../config/quote.ts";
import { ToolError } from "../../../mcp/tool/mod.ts";

/**
 * `cwd` resolved against the first configured root (`roots`: the roots setting) (a client started in `/` with --root means
 * that root), else the server's working directory; a ToolError unless it is a directory.
 */
export async function workingDirectory(
  cwd: string | undefined,
  roots: readonly string[],
): Promise<string> {
  const base = roots[0] ?? process.cwd();
  const path = resolve(base, cwd ?? ".");
  const info = await stat(path).catch(() => null);
  if (!info?.isDirectory()) {
    throw new ToolError(`cwd ${quoted(path)} is not an existing directory`);
  }
  return path;
}

/** The `cwd` input of the tools that run commands. */
export const CWD_PROPERTY = {
  type: "string",
  description: "Directory to run in; relative to the first root of --root or the config, " +
    "else to the server's working directory.",
} as const;
