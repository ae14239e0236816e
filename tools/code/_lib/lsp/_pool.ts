/**
 * The language servers running in this toolhost: one per server and project root, started on
 * first use (never at start-up), restarted after a crash up to a limit, stopped when idle (the
 * server does that itself). A missing server is explained fully the first time it is needed.
 */
import { extname, sep } from "node:path";
import { ToolError } from "../../../../mcp/tool/mod.ts";
import type { Settings } from "../../../../config/settings.ts";
import type { Confinement } from "../../../_lib/processes/mod.ts";
import { languagesWithServers } from "../languages/mod.ts";
import { type ChoiceRules, chooseServer, type Missing, type ServerChoice } from "./_servers.ts";
import { LanguageServer, type ServerLog } from "./_server.ts";

/** Crashes of one server for one root after which it is not started again. */
export const MAX_CRASHES = 3;

const servers = new Map<string, LanguageServer>();
const crashes = new Map<string, { count: number; last: string }>();
const explained = new Set<string>();

function keyOf(choice: ServerChoice): string {
  return `${choice.id}\0${choice.root}\0${choice.projectPrograms}`;
}

/**
 * Whether programs that come with the project may run: not under --read-only or the read-only
 * profile (a server is then found on PATH only, and told to run none of the project's code).
 */
export function choiceRules(config: Readonly<Settings>): ChoiceRules {
  return {
    configured: config.code.languageServers,
    projectPrograms: !config.readOnly && config.toolsProfile !== "read-only",
  };
}

/** What to say about a missing server: how to install it the first time, shorter after. */
function missingMessage(missing: Missing, shown: string): string {
  const first = !explained.has(missing.language);
  explained.add(missing.language);
  const fallback = "The `symbols` tool (tree-sitter, no server needed) still outlines and finds " +
    "symbols in this file.";
  return first
    ? `No ${missing.language} language server was found for ${shown} (looked in the project's ` +
      `node_modules/.bin and on PATH; toolhost never downloads one). To enable this: ` +
      `${missing.install}. ${fallback}`
    : `No ${missing.language} language server is installed (${missing.install}). ${fallback}`;
}

/**
 * The server for `file` (a real path inside `top`, an allowed root), started if it is not
 * running. Throws a ToolError saying what is missing or why it cannot start.
 */
export async function serverFor(
  file: string,
  top: string,
  shown: string,
  config: Readonly<Settings>,
  confinement: () => Promise<Confinement>,
  log?: ServerLog,
): Promise<LanguageServer> {
  const choice = chooseServer(file, top, choiceRules(config));
  if (!choice) {
    throw new ToolError(
      `no language server handles ${extname(file) || "files without an extension"} files ` +
        `(${shown}); the built-in table covers ${languagesWithServers()}, and ` +
        "code.language_servers adds others. The `symbols` tool may still outline it.",
    );
  }
  if ("install" in choice) throw new ToolError(missingMessage(choice, shown));
  const key = keyOf(choice);
  let server = servers.get(key);
  let replaced: string | undefined;
  if (server?.dead) {
    servers.delete(key);
    // Stopped when idle: started again without a word; ended otherwise: counted, and said.
    if (!/was stopped/.test(server.dead)) {
      const crash = crashes.get(key) ?? { count: 0, last: "" };
      crash.count++;
      crash.last = server.dead;
      crashes.set(key, crash);
      replaced = server.dead;
    }
    server = undefined;
  }
  const crash = crashes.get(key);
  if (!server && crash && crash.count >= MAX_CRASHES) {
    throw new ToolError(
      `${choice.label} for ${choice.root} ended ${crash.count} times (last: ${crash.last}); it is ` +
        "not started again until toolhost restarts. The `symbols` tool still answers.",
    );
  }
  if (!server) {
    server = new LanguageServer(
      choice,
      {
        idleSeconds: config.code.serverIdleSeconds,
        memoryMb: config.code.serverMemoryMb,
      },
      await confinement(),
      log,
    );
    server.replaced = replaced;
    servers.set(key, server);
  }
  server.touch();
  try {
    await server.initialized;
  } catch (error) {
    throw new ToolError((error as Error).message);
  }
  return server;
}

/**
 * The servers already running that cover `file`: same extension family, root holding it. Never
 * starts one (the diagnostics after an edit use only what runs).
 */
export function runningFor(file: string, config: Readonly<Settings>): LanguageServer[] {
  const found: LanguageServer[] = [];
  for (const server of servers.values()) {
    if (server.dead) continue;
    const root = server.choice.root;
    if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) continue;
    const choice = chooseServer(file, root, choiceRules(config));
    if (choice && "id" in choice && choice.id === server.choice.id) found.push(server);
  }
  return found;
}

/** Every server running now (their roots may hold a file that changed). */
export function runningServers(): LanguageServer[] {
  return [...servers.values()].filter((server) => !server.dead);
}
