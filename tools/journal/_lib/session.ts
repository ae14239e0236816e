/**
 * Sessions as the journal records them. Every MCP session is one: a stdio server's connection, a
 * legacy HTTP session, a WebSocket or SSE stream, the 2026-07-28 requests of one subject. A label
 * names it in each line, the server's (its process id and random hex, so two servers never share
 * one even when a pid is reused) and the session's number within it: `4242-a1b2c3.2`. A plain
 * `undo` steps back only through its own session's calls; another's are undone only by naming
 * their id. With OAuth, a line also carries its subject's tag (owner), and a caller of another
 * subject sees it nowhere: history, the review app and undo (by id too) pass it by as if it were
 * not there.
 */
import { randomBytes } from "node:crypto";
import process from "node:process";
import { SessionKey, type SessionMemory } from "../../../mcp/tool/mod.ts";
import { ownerTag } from "../../_lib/owner.ts";
import type { Entry } from "./journal_entry.ts";

/** This server process, as the first part of its sessions' labels (and of its own notes). */
export const SERVER = `${process.pid}-${randomBytes(3).toString("hex")}`;

let sessions = 0;

/** A session's label, given the first time it journals something. */
const LABEL = new SessionKey(
  "the journal's label for this session",
  () => `${SERVER}.${++sessions}`,
);

/** Who reads the journal: the session asking, and its subject's tag under OAuth. */
export interface Viewer {
  session: string;
  owner?: string;
}

/** The caller's session as the journal sees it. */
export function viewerOf(ctx: { readonly session: SessionMemory }): Viewer {
  const owner = ownerTag(ctx.session.subject);
  return { session: ctx.session.get(LABEL), ...(owner ? { owner } : {}) };
}

/**
 * Whether `viewer` may see `entry`. A subject sees only its own lines; a caller without one (the
 * machine's user: stdio, HTTP without OAuth) sees every line, its journal being the user's own.
 */
export function sees(viewer: Viewer, entry: Entry): boolean {
  return viewer.owner === undefined || entry.owner === viewer.owner;
}

/** How an entry's session reads in history and in undo's messages, to `viewer`. */
export function sessionLabel(session: string | undefined, viewer: Viewer): string {
  if (session === viewer.session) return "this session";
  return session === undefined ? "no session recorded" : `session ${session}`;
}
