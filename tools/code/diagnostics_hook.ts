/**
 * After every edit by toolhost's writing tools, the errors the edit introduced, from the
 * language server already running for the file (never one started for this): its diagnostics
 * before the edit are taken while the tool runs, those of the text the edit wrote within a
 * deadline (lsp/_edit_report.ts), and only the new errors are appended, a few lines at most
 * ("diagnostics pending" when the server did not answer for that text in time). Every file
 * tool's changes (moves, deletes, undo too) are sent to the running servers.
 * The lines are appended in `finished`, which the reply waits for when it returns a promise:
 * `after` is synchronous and is not given the call's tool and arguments.
 */
import {
  defineToolHook,
  type FinishedCall,
  Handoff,
  type Tool,
  type ToolContext,
} from "../../mcp/tool/mod.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import type { Baseline } from "./_lib/lsp/mod.ts";
import { type Lsp, lspIfLoaded } from "./_lib/lsp_load.ts";

/** Set once a code tool has loaded the language-server package (lsp_load.ts); before, none runs. */
let lsp: Lsp;

/** How long an edit waits for the diagnostics of the file before it, the first time. */
const BASELINE_WAIT_MS = 1500;

/** The diagnostics of the files a call edits, as they were before it, from before() to finished(). */
const baselines = new Handoff<Promise<Baseline[]>[]>("diagnostics before the edit");

/** The paths (as given) a call replaces or changes in place, by its declaration. */
function editedPaths(ctx: ToolContext): string[] {
  return ctx.writes.planned.filter((w) => w.kind === "replaces" || w.kind === "changes").map((w) =>
    w.path
  );
}

export default defineToolHook({
  name: "code_diagnostics",
  before(_tool: Tool, ctx: ToolContext) {
    if (!ctx.config.code.diagnosticsAfterEdit || !serversRunning()) return;
    const taken: Promise<Baseline[]>[] = [];
    ctx.writes.give(baselines, taken);
    // Files named while the tool runs (a rename's): taken as they are named, before they change.
    ctx.writes.onWillWrite((writes) => {
      for (const write of writes) taken.push(baselinesOf(write.path, ctx));
    });
    // Driven by what the tool declares it writes, never by its name.
    const [path] = editedPaths(ctx);
    if (path === undefined) return;
    const first = baselinesOf(path, ctx);
    taken.push(first);
    // The tool waits until the file's diagnostics as it is now are known (at once for a file
    // the server has checked), at most BASELINE_WAIT_MS: a server that only publishes may skip
    // a version that is replaced quickly, and then nothing would say what the edit changed.
    return first.then((list) =>
      within(Promise.all(list.map((b) => b.before)), Date.now() + BASELINE_WAIT_MS)
    ).then(() => {});
  },
  finished(call: FinishedCall) {
    const writes = call.ctx.writes;
    const wrote = writes.planned.length > 0 || writes.named.length > 0 ||
      writes.reported.length > 0;
    if (!wrote || !serversRunning()) return;
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

async function baselinesOf(path: string, ctx: ToolContext): Promise<Baseline[]> {
  const sandbox = await Sandbox.of(ctx);
  const { real } = await sandbox.resolve(path);
  return lsp.takeBaselines(sandbox, real, ctx).catch(() => []);
}

async function afterEdit(call: FinishedCall): Promise<void> {
  const { ctx } = call;
  const sandbox = await Sandbox.of(ctx);
  const taken = (await Promise.all(ctx.writes.take(baselines) ?? [])).flat();
  // What the call declared, named while running (a rename) or reported (undo).
  const changed = [...ctx.writes.reported];
  for (const write of [...ctx.writes.planned, ...ctx.writes.named]) {
    const resolved = await sandbox.resolve(write.path).catch(() => undefined);
    if (resolved) changed.push(resolved.real);
  }
  // New errors are told after an edit of a file's text (declared or named while running, or
  // undone); a move or a delete only brings the servers up to date.
  const check = call.outcome === "ok" && ctx.config.code.diagnosticsAfterEdit &&
    (editedPaths(ctx).length > 0 || ctx.writes.named.length > 0 || ctx.writes.reported.length > 0);
  const text = await lsp.reportEdit(sandbox, changed, taken, check, ctx);
  if (text) call.result.content.push({ type: "text", text });
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
