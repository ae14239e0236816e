/**
 * A file's diagnostics for the text the server has now (the open document's version), never
 * another version's: asked for where the server answers (pull, or tsserver's own requests
 * through typescript-language-server), else the set it publishes about that version. A server
 * that checks the project after a save (rust-analyzer's cargo check) adds the check's findings
 * once it has ended. What did not come in time is said as pending, never as "no errors".
 */
import { RequestFailed } from "./_connection.ts";
import type { Diagnostic } from "./_protocol.ts";
import { RETRY_CODES } from "./_protocol.ts";
import type { LanguageServer } from "./_server.ts";
import { relaysTsserver, tsserverDiagnostics } from "./_tsserver_diagnostics.ts";

export interface Found {
  items: Diagnostic[];
  /** Set when the diagnostics of this version did not come in time: why, as a sentence's end. */
  pending?: string;
}

/**
 * The diagnostics of open document `uri` at the version the server has now, waiting until
 * `deadline`.
 *
 * @example
 * const found = await currentDiagnostics(server, uri, Date.now() + 2000);
 * if (found.pending) say(`diagnostics pending (${found.pending})`);
 */
export async function currentDiagnostics(
  server: LanguageServer,
  uri: string,
  deadline: number,
  signal?: AbortSignal,
): Promise<Found> {
  // A server that only publishes is asked again about a file other changes may affect.
  const pushOnly = !relaysTsserver(server) && !server.pulls;
  const version = pushOnly ? server.recheck(uri) : server.version(uri);
  if (version === undefined) return { items: [], pending: "the file is not open in the server" };
  const asked = relaysTsserver(server)
    ? await asking(deadline, () => tsserverDiagnostics(server, uri, left(deadline), signal))
    : server.pulls
    ? await asking(deadline, () => pulled(server, uri, deadline, signal), server)
    : undefined;
  if (asked?.pending !== undefined) return asked;
  let items = asked?.items;
  if (!items || server.choice.checkOnSave) {
    // Published: the only source of a push server, and the check's findings of one that pulls.
    const published = await server.published.of(
      uri,
      version,
      server.sentSeq(uri) ?? 0,
      asked ? Math.min(deadline, Date.now()) : deadline,
      () => server.version(uri),
      signal,
    );
    if (!asked && published === undefined) {
      return {
        items: [],
        pending: server.version(uri) !== version
          ? "the file changed again meanwhile"
          : `${server.choice.label} did not publish them within the time allowed`,
      };
    }
    items = merged(items ?? [], published ?? []);
  }
  server.remember(uri, version, items);
  return { items };
}

function left(deadline: number): number {
  return Math.max(deadline - Date.now(), 1);
}

/** An answer, asked again while the server says it is not ready (rust-analyzer while loading). */
async function asking(
  deadline: number,
  ask: () => Promise<Diagnostic[]>,
  server?: LanguageServer,
): Promise<Found> {
  for (;;) {
    try {
      return { items: await ask() };
    } catch (error) {
      const retry = error instanceof RequestFailed && error.code !== undefined &&
        RETRY_CODES.has(error.code);
      if (!retry || Date.now() >= deadline || server?.dead) {
        return { items: [], pending: `they were not answered: ${(error as Error).message}` };
      }
      // Asked again when the server's state changes (its loading, a refresh), within the time.
      if (server) await server.readiness.changed(deadline);
      else return { items: [], pending: (error as Error).message };
    }
  }
}

async function pulled(
  server: LanguageServer,
  uri: string,
  deadline: number,
  signal?: AbortSignal,
): Promise<Diagnostic[]> {
  const report = await server.connection.request(
    "textDocument/diagnostic",
    { textDocument: { uri } },
    left(deadline),
    signal,
  );
  return Array.isArray(report?.items) ? report.items : [];
}

/** Two lists of one file's diagnostics with what both say at the same place once. */
function merged(first: Diagnostic[], second: Diagnostic[]): Diagnostic[] {
  const key = (d: Diagnostic) =>
    `${d.range?.start?.line}:${d.range?.start?.character}\0${d.code ?? ""}\0${d.severity ?? 1}`;
  const seen = new Set(first.map(key));
  return [...first, ...second.filter((d) => !seen.has(key(d)))];
}

/**
 * Diagnostics of a target file for code_nav, waiting within the query's time: for a check after
 * a save that runs now (cargo check) to end, then for the diagnostics of the text it has.
 */
export async function fileDiagnostics(
  target: { server: LanguageServer; uri: string; deadline: number },
  signal?: AbortSignal,
): Promise<Found> {
  const { readiness } = target.server;
  if (readiness.checking) {
    const ended = await readiness.checkEnded(readiness.checksBegun - 1, target.deadline, signal);
    if (!ended) {
      return {
        items: [],
        pending:
          `${target.server.choice.checkOnSave} is still running in ${target.server.choice.label}`,
      };
    }
  }
  return await currentDiagnostics(target.server, target.uri, target.deadline, signal);
}
