/**
 * What an edit did to the errors of the files it wrote, as the servers already running for them
 * see it: the diagnostics of each file before the edit (taken while the tool starts, or known
 * from an earlier answer about that same text) against those of the text the edit wrote. Every
 * statement is about the version the edit produced: "no new errors" only when the server
 * answered for it, otherwise "pending". A server that checks on save (rust-analyzer's cargo
 * check) is told of the save, and its check is waited for.
 */
import type { ToolContext } from "../../../../mcp/tool/mod.ts";
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { compareErrors, diagnosticLine } from "./_diagnostics.ts";
import { readSource } from "./_documents.ts";
import { currentDiagnostics } from "./_file_diagnostics.ts";
import { runningFor, runningServers } from "./_pool.ts";
import type { Diagnostic } from "./_protocol.ts";
import type { LanguageServer } from "./_server.ts";
import { uriOf } from "./_uris.ts";

/**
 * How long it waits at least for a check run after a save (cargo check compiles); the wait for
 * the diagnostics themselves is `code.diagnostics_wait_seconds`.
 */
export const CHECK_DEADLINE_MS = 10_000;
/** Lines of new errors shown at most. */
const MAX_LINES = 5;

/** One file's diagnostics before an edit, from one server. */
export interface Baseline {
  server: LanguageServer;
  real: string;
  /** Undefined when they could not be had. */
  before: Promise<Diagnostic[] | undefined>;
}

/**
 * Opens `real` (as it is now) in the servers running for it and starts taking its diagnostics;
 * a question sent now is answered for this text even when the edit's text follows it.
 */
export async function takeBaselines(
  sandbox: Sandbox,
  real: string,
  ctx: ToolContext,
): Promise<Baseline[]> {
  const servers = runningFor(real, ctx.config);
  if (servers.length === 0) return [];
  const source = await readSource(sandbox, real).catch(() => undefined);
  const deadline = Date.now() + 10_000; // bounded again by the deadline after the edit
  return servers.map((server) => {
    const uri = uriOf(real);
    if (!source) return { server, real, before: Promise.resolve([]) };
    server.syncDocument(uri, source.text, source);
    const before = currentDiagnostics(server, uri, deadline).then((found) =>
      found.pending ? undefined : found.items
    );
    return { server, real, before };
  });
}

interface FileOutcome {
  label: string;
  shown: string;
  introduced?: Diagnostic[];
  fixed?: number;
  /** Errors now, where what it had before is not known. */
  errorsNow?: Diagnostic[];
  pending?: string;
}

/**
 * Sends what the call changed to the running servers, and, when `check`, says what the edit did
 * to the errors: the text to append to the call's result, or undefined when no server runs for
 * what it wrote.
 */
export async function reportEdit(
  sandbox: Sandbox,
  changed: readonly string[],
  baselines: readonly Baseline[],
  check: boolean,
  ctx: ToolContext,
): Promise<string | undefined> {
  const touched = new Map<LanguageServer, Set<string>>();
  const note = (server: LanguageServer, real: string) => {
    const set = touched.get(server) ?? new Set();
    set.add(real);
    touched.set(server, set);
  };
  // Open documents whose file changed (any tool, or another program), then what the call named.
  for (const server of runningServers()) {
    for (const { uri, path, gone } of server.changedOnDisk()) {
      if (gone || !sandbox.contains(path)) server.closeDocument(uri, gone);
      else note(server, path);
    }
  }
  for (const real of new Set([...changed, ...baselines.map((b) => b.real)])) {
    for (const server of runningFor(real, ctx.config)) {
      server.fileChanged(uriOf(real), 2);
      note(server, real);
    }
  }
  // Every file is sent before any is asked about: a rename's files agree with each other.
  const synced = await Promise.all(
    [...touched].flatMap(([server, reals]) =>
      [...reals].map((real) => sync(server, real, sandbox))
    ),
  );
  if (!check) return undefined;
  const waitMs = ctx.config.code.diagnosticsWaitSeconds * 1000;
  const deadline = Date.now() + waitMs;
  const outcomes = await Promise.all(
    synced.filter((s): s is Synced => s !== undefined).map((s) =>
      fileOutcome(s, baselines, { deadline, waitMs }, sandbox, ctx.signal)
    ),
  );
  return summary(outcomes.filter((o): o is FileOutcome => o !== undefined));
}

/** A file sent to a server after the edit. */
interface Synced {
  server: LanguageServer;
  real: string;
  uri: string;
  /** Whether the server had it open before (else it was opened now). */
  wasOpen: boolean;
  /** What it had said of the text it had before, when that is known. */
  prior?: Diagnostic[];
  /** The number of checks after a save begun before this save. */
  checksBefore: number;
}

async function sync(
  server: LanguageServer,
  real: string,
  sandbox: Sandbox,
): Promise<Synced | undefined> {
  const uri = uriOf(real);
  const source = await readSource(sandbox, real).catch(() => undefined);
  if (!source) {
    server.closeDocument(uri, true);
    return undefined;
  }
  const open = server.version(uri);
  const known = server.known(uri);
  const prior = open !== undefined && known?.version === open ? known.items : undefined;
  server.syncDocument(uri, source.text, source);
  const checksBefore = server.readiness.checksBegun;
  server.saved(uri);
  return { server, real, uri, wasOpen: open !== undefined, prior, checksBefore };
}

async function fileOutcome(
  { server, real, uri, wasOpen, prior, checksBefore }: Synced,
  baselines: readonly Baseline[],
  { deadline, waitMs }: { deadline: number; waitMs: number },
  sandbox: Sandbox,
  signal: AbortSignal,
): Promise<FileOutcome | undefined> {
  const base = baselines.find((b) => b.server === server && b.real === real);
  if (!base && !wasOpen) return undefined;
  // A configured server that has never published nor answers pulls gives no diagnostics.
  if (!server.choice.builtin && !server.pulls && server.published.sequence === 0) return undefined;
  const shown = sandbox.display(real);
  const label = server.choice.label;
  if (server.choice.checkOnSave) {
    const checkMs = Math.max(CHECK_DEADLINE_MS, waitMs);
    const checkDeadline = Date.now() + checkMs;
    const ended = await server.readiness.checkEnded(checksBefore, checkDeadline, signal);
    if (!ended) {
      return {
        label,
        shown,
        pending: `${server.choice.checkOnSave} still running in ${label} past ${
          checkMs / 1000
        } s); \`code_nav diagnostics\` shows its errors when it has ended`,
      };
    }
    // The check and the answer after it share the check's time; the answer gets what is left
    // of it, and never less than the diagnostics wait: rust-analyzer's own diagnostics of the
    // version came 2.4 s after its check had ended, on a loaded machine.
    deadline = Math.max(deadline, checkDeadline, Date.now() + waitMs);
  }
  const after = await currentDiagnostics(server, uri, deadline, signal);
  if (after.pending) {
    return {
      label,
      shown,
      pending: `${label} did not answer within ${
        waitMs / 1000
      } s); \`code_nav diagnostics\` shows them`,
    };
  }
  const before = base ? await within(base.before, deadline) : prior;
  if (before === undefined) {
    return { label, shown, errorsNow: after.items.filter((d) => (d.severity ?? 1) === 1) };
  }
  const { introduced, fixed } = compareErrors(before, after.items);
  return { label, shown, introduced, fixed };
}

function summary(outcomes: FileOutcome[]): string | undefined {
  if (outcomes.length === 0) return undefined;
  const who = [...new Set(outcomes.map((o) => o.label))].join(", ");
  const parts: string[] = [];
  const lines = (list: { shown: string; items: Diagnostic[] }[]) =>
    list.flatMap(({ shown, items }) => items.map((d) => diagnosticLine(shown, d)));
  const introduced = outcomes.filter((o) => o.introduced);
  const newLines = lines(introduced.map((o) => ({ shown: o.shown, items: o.introduced! })));
  const fixed = introduced.reduce((n, o) => n + (o.fixed ?? 0), 0);
  const unknown = outcomes.filter((o) => o.errorsNow);
  const unknownLines = lines(unknown.map((o) => ({ shown: o.shown, items: o.errorsNow! })));
  const pending = outcomes.filter((o) => o.pending);
  if (newLines.length > 0) {
    parts.push(
      `diagnostics (${who}): this edit introduced ${count(newLines.length, "error")}` +
        (fixed > 0 ? ` and fixed ${fixed}` : ""),
      ...newLines.slice(0, MAX_LINES),
    );
    if (newLines.length > MAX_LINES) {
      parts.push(`… ${newLines.length - MAX_LINES} more (code_nav diagnostics)`);
    }
  } else if (introduced.length > 0 || (unknown.length > 0 && unknownLines.length === 0)) {
    // A file whose earlier errors are not known but that has none now has no new ones either.
    parts.push(`diagnostics (${who}): no new errors${fixed > 0 ? `; ${fixed} fixed` : ""}`);
  }
  if (unknownLines.length > 0) {
    const withErrors = unknown.filter((o) => o.errorsNow!.length > 0);
    parts.push(
      `diagnostics (${who}): ${count(unknownLines.length, "error")} in ${
        names(withErrors)
      } after this edit (what ${withErrors.length === 1 ? "it" : "they"} had before was not known)`,
      ...unknownLines.slice(0, MAX_LINES),
    );
  }
  // Each says why and what to do: "(<server> did not answer within 2 s); `code_nav …`".
  for (const o of pending) parts.push(`diagnostics pending for ${o.shown} (${o.pending}`);
  return parts.join("\n");
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

function names(outcomes: FileOutcome[]): string {
  const shown = outcomes.map((o) => o.shown);
  return shown.slice(0, 3).join(", ") + (shown.length > 3 ? ", …" : "");
}

/** `promise`'s value, or undefined once `deadline` passed. */
function within<T>(promise: Promise<T>, deadline: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), Math.max(deadline - Date.now(), 0));
    }),
  ]).finally(() => clearTimeout(timer));
}
