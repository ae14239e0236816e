/**
 * typescript-language-server publishes a file's diagnostics only when they change (a clean file
 * that stays clean gets nothing) and names no version, so its publishes cannot say what a given
 * text has. It relays requests to its tsserver, though: the syntactic and semantic diagnostics
 * of a file, answered for the text the server has now (requests are handled in order, after
 * every change sent before them).
 */
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "./_protocol.ts";
import type { LanguageServer } from "./_server.ts";

export const TSSERVER_REQUEST = "typescript.tsserverRequest";

interface TsDiagnostic {
  start?: { line: number; offset: number };
  end?: { line: number; offset: number };
  text?: string;
  code?: number;
  category?: string;
}

const SEVERITY: Record<string, number> = { error: 1, warning: 2, suggestion: 4, message: 3 };

/** Whether `server` relays tsserver requests (typescript-language-server does). */
export function relaysTsserver(server: LanguageServer): boolean {
  const commands = server.capabilities.executeCommandProvider?.commands;
  return Array.isArray(commands) && commands.includes(TSSERVER_REQUEST);
}

/** The syntactic and semantic diagnostics of `uri` as the server has it now. */
export async function tsserverDiagnostics(
  server: LanguageServer,
  uri: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Diagnostic[]> {
  const file = fileURLToPath(uri);
  const kinds = ["syntacticDiagnosticsSync", "semanticDiagnosticsSync"];
  const answers = await Promise.all(
    kinds.map((kind) =>
      server.connection.request(
        "workspace/executeCommand",
        {
          command: TSSERVER_REQUEST,
          arguments: [kind, { file, includeLinePosition: false }],
        },
        timeoutMs,
        signal,
      )
    ),
  );
  const items: Diagnostic[] = [];
  for (const answer of answers) {
    const body = (answer as { body?: unknown } | null)?.body;
    if (!Array.isArray(body)) continue;
    for (const d of body as TsDiagnostic[]) {
      if (!d.start || typeof d.text !== "string") continue;
      const start = { line: d.start.line - 1, character: d.start.offset - 1 };
      const end = d.end ? { line: d.end.line - 1, character: d.end.offset - 1 } : start;
      items.push({
        range: { start, end },
        severity: SEVERITY[d.category ?? "error"] ?? 1,
        message: d.text,
        code: d.code,
        source: "typescript",
      });
    }
  }
  return items;
}
