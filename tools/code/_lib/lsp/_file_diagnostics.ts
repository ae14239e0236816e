/**
 * A file's diagnostics for the content the server has now: pulled from servers that answer
 * textDocument/diagnostic, else the first set published after that content was sent, waited
 * for up to a deadline (then said, not guessed).
 */
import type { Diagnostic, LanguageServer } from "./_server.ts";

export interface Found {
  items: Diagnostic[];
  /** Set when nothing current arrived in time. */
  note?: string;
}

/**
 * `exact`: of the version open now only (a baseline before an edit must not be answered by
 * the diagnostics of the edit itself).
 */
export async function currentDiagnostics(
  server: LanguageServer,
  uri: string,
  deadline: number,
  signal?: AbortSignal,
  exact = false,
): Promise<Found> {
  if (server.pulls) {
    try {
      return { items: await server.pull(uri, Math.max(deadline - Date.now(), 1), signal) };
    } catch (error) {
      return { items: [], note: `diagnostics were not answered: ${(error as Error).message}` };
    }
  }
  const after = server.sentSeq(uri) ?? server.sequence;
  const items = await server.publishedAfter(uri, after, deadline, server.version(uri), exact);
  if (items) return { items };
  return { items: [], note: `${server.choice.label} published no diagnostics for it in time` };
}

/** Diagnostics of a target file for code_nav, waiting up to 5 s. */
export function fileDiagnostics(
  target: { server: LanguageServer; uri: string },
  signal?: AbortSignal,
): Promise<Found> {
  return currentDiagnostics(target.server, target.uri, Date.now() + 5000, signal);
}
