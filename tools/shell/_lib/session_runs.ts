/**
 * What a session's commands leave running ends with the session: `sleep 600 &` left by a `bash`
 * call, a `setsid` or daemonized process of a custom tool or background command. Each command of
 * the session carries the session's owner name in its run mark (processes/mod.ts), and ending the
 * session ends every process that carries it. Over stdio the session is the server's life, whose
 * exit kills everything anyway; over HTTP a session ends long before the server does.
 */
import { SessionKey, type SessionMemory } from "../../../mcp/tool/mod.ts";
import { endRunsOf } from "../../_lib/processes/mod.ts";

/** Between SIGTERM and SIGKILL for what a session left running. */
const END_GRACE_MS = 2_000;

const SESSION_RUNS = new SessionKey(
  "what this session's commands left running",
  () => `s${Array.from(crypto.getRandomValues(new Uint8Array(6)), hex).join("")}`,
  (owner) => endRunsOf(owner, END_GRACE_MS),
);

function hex(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

/**
 * The owner name the caller's session gives its commands (spawnInGroup's `owner`).
 *
 * @example
 * ```ts
 * spawnInGroup(file, args, options, { confinement, owner: runOwner(ctx) });
 * ```
 */
export function runOwner(ctx: { readonly session: SessionMemory }): string {
  return ctx.session.get(SESSION_RUNS);
}
