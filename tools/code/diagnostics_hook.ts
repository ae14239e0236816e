/**
 * After every edit by toolhost's writing tools, the errors the edit introduced, from the
 * language server already running for the file (never one started for this): its diagnostics
 * before the edit are taken while the tool runs, those after it within a deadline, and only the
 * new errors are appended, a few lines at most ("diagnostics still pending" past the deadline).
 * Every file tool's changes (moves, deletes, undo too) are sent to the running servers.
 * The lines are appended in `finished`, which the reply waits for when it returns a promise:
 * `after` is synchronous and is not given the call's tool and arguments.
 */
import {
  type ContentBlock,
  defineToolHook,
  type FinishedCall,
  Handoff,
  type Tool,
  type ToolContext,
} from "../../mcp/tool/mod.ts";
import {
  allWriteTargets,
  callSandbox,
  type WriteTarget,
  writeTargets,
} from "../_lib/transaction/mod.ts";
import type { Diagnostic, LanguageServer } from "./_lib/lsp/mod.ts";
import { type Lsp, lspIfLoaded } from "./_lib/lsp_load.ts";

/** Set once a code tool has loaded the language-server package (lsp_load.ts); before, none runs. */
let lsp: Lsp;

/** The tools whose edits are checked; the keys name the argument holding the file, if one. */
export const DIAGNOSTICS_DEADLINE_MS = 2000;
/** How long an edit waits for the diagnostics of the file before it, the first time. */
const BASELINE_WAIT_MS = 1500;
/** Lines of new errors shown at most. */
const MAX_LINES = 5;

interface Baseline {
  server: LanguageServer;
  real: string;
  uri: string;
  before: Promise<Diagnostic[] | undefined>;
}

/** The diagnostics of the file a call edits, as they were before it, from before() to finished(). */
const baselines = new Handoff<Promise<Baseline[]>>("diagnostics before the edit");

/** Set when a call reaches the observe phase's before(); one refused earlier never does. */
const reached = new Handoff<boolean>("the call reached the diagnostics");

/** Whether a write changes a file's text: it replaces it, or changes it in place. */
function edits(write: WriteTarget["write"]): boolean {
  return write.kind === "replaces" || write.kind === "changes";
}

/**
 * The observe phase: looks at the file before the edit (its diagnostics as they are) and after
 * it (what the edit introduced), from the servers already running.
 */
export default defineToolHook({
  name: "code_diagnostics",
  phase: "observe",
  before(tool: Tool, ctx: ToolContext) {
    // The call reached this phase: a call refused earlier (plan mode, the check) changed nothing.
    if (ctx.writes.planned.length > 0 || tool.writes?.atRunTime) ctx.writes.give(reached, true);
    if (!ctx.config.code.diagnosticsAfterEdit || !serversRunning()) return;
    // Driven by what the tool declares it writes, never by its name.
    const write = ctx.writes.planned.find(edits);
    if (write === undefined) return;
    const taken = baseline(write, ctx).catch(() => []);
    ctx.writes.give(baselines, taken);
    // The tool waits until the file's diagnostics as it is now are known (at once for a file
    // the server has checked), at most BASELINE_WAIT_MS: a server may skip a version that is
    // replaced quickly, and then nothing would say what the edit changed.
    return taken.then((list) =>
      within(Promise.all(list.map((b) => b.before)), Date.now() + BASELINE_WAIT_MS)
    ).then(() => {});
  },
  finished(call: FinishedCall) {
    const writes = call.ctx.writes;
    const wrote = writes.planned.length > 0 || writes.named.length > 0;
    if (!writes.take(reached) || !wrote || !serversRunning()) return;
    return afterEdit(call).catch((error) => {
      call.ctx.log("debug", `code diagnostics: ${(error as Error).message}`);
    });
  },
});

/** Whether a language server runs; none can before a code tool has loaded the package. */
function serversRunning(): boolean {
  const loaded = lspIfLoaded();
  if (loaded === undefined) return false;
  lsp = loaded;
  return loaded.runningServers().length > 0;
}

/** Opens the file in the servers running for it and starts taking its diagnostics as they are. */
async function baseline(
  write: WriteTarget["write"],
  ctx: ToolContext,
): Promise<Baseline[]> {
  const sandbox = await callSandbox(ctx);
  // Where the call's one resolution put the write.
  const [target] = await writeTargets(ctx, [write]);
  if (!target) return [];
  const { real } = target;
  const servers = lsp.runningFor(real, ctx.config);
  if (servers.length === 0) return [];
  // A file not made yet has no text to send (readSource fails): nothing before it.
  const source = await lsp.readSource(sandbox, real).catch(() => undefined);
  const deadline = Date.now() + 10_000; // bounded again by the deadline after the edit
  return servers.map((server) => {
    const uri = lsp.uriOf(real);
    if (source) server.syncDocument(uri, source.text, source.mtimeMs, source.size);
    const before = source
      ? lsp.currentDiagnostics(server, uri, deadline).then((found) =>
        found.note ? undefined : found.items
      )
      : Promise.resolve([]);
    return { server, real, uri, before };
  });
}

async function afterEdit(call: FinishedCall): Promise<void> {
  const { ctx } = call;
  const sandbox = await callSandbox(ctx);
  const deadline = Date.now() + DIAGNOSTICS_DEADLINE_MS;
  const taken = (await ctx.writes.take(baselines)) ?? [];
  // What changed: open documents whose file changed (any tool, or another program), and the
  // files the call names or reported.
  const touched = new Map<LanguageServer, Set<string>>();
  const note = (server: LanguageServer, real: string) => {
    const set = touched.get(server) ?? new Set();
    set.add(real);
    touched.set(server, set);
  };
  for (const server of lsp.runningServers()) {
    for (const { uri, path, gone } of await server.changedOnDisk()) {
      if (gone || !sandbox.contains(path)) {
        server.closeDocument(uri, gone);
        continue;
      }
      note(server, path);
    }
  }
  // What the call declared, or named while running (a rename, an undo).
  const named = [...taken.map((t) => t.real)];
  for (const { real } of await allWriteTargets(ctx)) named.push(real);
  for (const real of new Set(named)) {
    for (const server of lsp.runningFor(real, ctx.config)) {
      server.fileChanged(lsp.uriOf(real), 2);
      note(server, real);
    }
  }
  // New errors are told after an edit of a file's text (declared or named while running, or
  // undone); a move or a delete only brings the servers up to date.
  const check = call.outcome === "ok" && ctx.config.code.diagnosticsAfterEdit &&
    (ctx.writes.planned.some(edits) || ctx.writes.named.length > 0);
  const lines: string[] = [];
  const pending: string[] = [];
  const quiet: string[] = [];
  let unknown = 0;
  let introducedCount = 0;
  let fixedCount = 0;
  const labels = new Set<string>();
  await Promise.all([...touched].flatMap(([server, reals]) =>
    [...reals].map(async (real) => {
      const uri = lsp.uriOf(real);
      const source = await lsp.readSource(sandbox, real).catch(() => undefined);
      if (!source) {
        server.closeDocument(uri, true);
        return;
      }
      const known = server.openText(uri) !== undefined;
      // What it published for the content it had: the comparison for a file open before.
      const previous = server.published(uri)?.items;
      server.syncDocument(uri, source.text, source.mtimeMs, source.size);
      if (!check) return;
      const base = taken.find((t) => t.server === server && t.real === real);
      // A file the server already had open was checked before; one first opened now was not.
      if (!base && !known) return;
      // A server that neither answers pulls nor ever published anything gives no diagnostics.
      if (!server.pulls && server.sequence === 0) return;
      labels.add(server.choice.label);
      const after = await lsp.currentDiagnostics(server, uri, deadline);
      const before = base ? await within(base.before, deadline) : previous;
      if (after.note && before !== undefined && !before.some((d) => (d.severity ?? 1) === 1)) {
        // Some servers (typescript-language-server) publish nothing when a clean file stays
        // clean: silence here is "none reported", said as such.
        quiet.push(sandbox.display(real));
        return;
      }
      if (after.note) {
        pending.push(sandbox.display(real));
        return;
      }
      if (before === undefined) {
        // What it had before is not known: its errors now, said as such.
        const errors = after.items.filter((d) => (d.severity ?? 1) === 1);
        unknown += errors.length;
        for (const d of errors) lines.push(lsp.diagnosticLine(sandbox.display(real), d));
        return;
      }
      const { introduced, fixed } = lsp.compareErrors(before, after.items);
      introducedCount += introduced.length;
      fixedCount += fixed;
      for (const d of introduced) lines.push(lsp.diagnosticLine(sandbox.display(real), d));
    })
  ));
  if (!check || labels.size === 0) return;
  const who = [...labels].join(", ");
  const parts: string[] = [];
  if (unknown > 0 && introducedCount === 0) {
    parts.push(
      `diagnostics (${who}): ${unknown} error${unknown === 1 ? "" : "s"} after this edit ` +
        "(what the file had before it was not known)",
      ...lines.slice(0, MAX_LINES),
    );
  } else if (introducedCount > 0) {
    parts.push(
      `diagnostics (${who}): this edit introduced ${introducedCount} error${
        introducedCount === 1 ? "" : "s"
      }` +
        (fixedCount > 0 ? ` and fixed ${fixedCount}` : ""),
      ...lines.slice(0, MAX_LINES),
    );
    if (lines.length > MAX_LINES) {
      parts.push(`… ${lines.length - MAX_LINES} more (code_nav diagnostics)`);
    }
  } else if (pending.length === 0 && quiet.length === 0) {
    parts.push(
      `diagnostics (${who}): no new errors${fixedCount > 0 ? `; ${fixedCount} fixed` : ""}`,
    );
  } else if (pending.length === 0) {
    parts.push(
      `diagnostics (${who}): no new errors (none reported within ${
        DIAGNOSTICS_DEADLINE_MS / 1000
      } s for ${quiet.slice(0, 3).join(", ")}${quiet.length > 3 ? ", …" : ""})`,
    );
  }
  if (pending.length > 0) {
    parts.push(
      `diagnostics still pending for ${
        pending.slice(0, 3).join(", ")
      } (${who} did not answer within ` +
        `${DIAGNOSTICS_DEADLINE_MS / 1000} s); code_nav diagnostics shows them later`,
    );
  }
  const block: ContentBlock = { type: "text", text: parts.join("\n") };
  call.result.content.push(block);
}

/** `promise`'s value, or undefined once `deadline` passed. */
function within<T>(promise: Promise<T>, deadline: number): Promise<T | undefined> {
  return Promise.race([
    promise,
    new Promise<undefined>((resolve) =>
      setTimeout(() => resolve(undefined), Math.max(deadline - Date.now(), 0))
    ),
  ]);
}
