/**
 * `toolhost --mcp-json`: the `.mcp.json` entry that starts this very toolhost, by absolute path,
 * with the other flags it was given, ready to paste into a client's configuration.
 */
import { posix, win32 } from "node:path";
import process from "node:process";

export interface Launch {
  /** The running executable: the compiled binary, or deno/bun when run from source. */
  execPath: string;
  /** Set when running from source: the absolute path of main.ts. */
  sourceMain?: string;
  /** "deno" or "bun" when running from source. */
  runtime?: "deno" | "bun";
  /** Started by the npm package's launcher: clients should start it the same way. */
  viaNpm?: boolean;
  /** The platform the entry is for (process.platform unless a test says otherwise). */
  platform?: NodeJS.Platform;
}

/** The command and leading arguments that start toolhost as it runs now. */
export function launchCommand(launch: Launch): { command: string; args: string[] } {
  const windows = (launch.platform ?? process.platform) === "win32";
  // On Windows npx is npx.cmd, which a client that spawns without a shell cannot start.
  if (launch.viaNpm) {
    return windows
      ? { command: "cmd", args: ["/c", "npx", "-y", "toolhost"] }
      : { command: "npx", args: ["-y", "toolhost"] };
  }
  const resolve = windows ? win32.resolve : posix.resolve;
  const command = resolve(launch.execPath);
  if (!launch.sourceMain) return { command, args: [] };
  const main = resolve(launch.sourceMain);
  return launch.runtime === "bun"
    ? { command, args: ["run", main] }
    : { command, args: ["run", "--allow-all", main] };
}

export function mcpJson(launch: Launch, flags: string[]): string {
  const { command, args } = launchCommand(launch);
  const entry = { command, args: [...args, ...flags], env: {} };
  return `${JSON.stringify({ mcpServers: { toolhost: entry } }, null, 2)}\n`;
}

/**
 * Said on stderr beside the entry (stdout stays pasteable) when no profile was named: which one
 * fits which client.
 */
export function profileHint(flags: string[]): string | undefined {
  if (flags.includes("--profile")) return undefined;
  return "toolhost: for a client with its own file and shell tools (Claude Code, Cursor, Gemini " +
    "CLI, Codex), add --profile companion: it offers only what they lack, about half the tool " +
    "descriptions; --profile read-only offers only tools that change nothing. This entry offers " +
    "every tool.\n";
}
