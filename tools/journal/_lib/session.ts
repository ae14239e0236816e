/**
 * This server's session, as the journal records it: one server process (the stdio server a
 * client starts is one session; an HTTP server is one for all its clients). A plain `undo` steps
 * back only through the calls of its own session; another's are undone only by naming their id.
 * The label is the process id and random hex, so two servers never share one, even when a pid
 * is reused.
 */
import { randomBytes } from "node:crypto";
import process from "node:process";

export const SESSION = `${process.pid}-${randomBytes(3).toString("hex")}`;

/** How an entry's session reads in history and in undo's messages. */
export function sessionLabel(session: string | undefined): string {
  if (session === SESSION) return "this session";
  return session === undefined ? "no session recorded" : `session ${session}`;
}
