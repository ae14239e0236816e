/**
 * How contributions tell the server that something changed, so it can send change
 * notifications: a resource watches its content, a template one concrete URI's content or what
 * its list() returns, a prompt family what its list() returns. The server starts a watch when
 * the first client wants to hear about it and stops it when the last one leaves.
 */
import type { LogLevel } from "../wire/log.ts";
import type { ProgramContext, SessionMemory } from "../tool/tool.ts";

/** Ends a watch; called once. */
export type Unwatch = () => void;

/**
 * What a watcher may use: the roots and the session of the client that subscribed, the log, the
 * settings.
 */
export interface WatchContext extends Pick<ProgramContext, "config" | "state"> {
  roots(): Promise<string[]>;
  /** The subscriber's session: what it watches of a session's is that one's. */
  readonly session: SessionMemory;
  log(level: LogLevel, data: unknown): void;
}

/**
 * Calls `changed` whenever what is watched may have changed: extra calls are harmless (the
 * server coalesces them), missed ones are not. Must not throw after returning.
 */
export type Watch = (ctx: WatchContext, changed: () => void) => Unwatch;
