/**
 * Warm from the first question: when a read-only call names a source file (`path`) of a language
 * whose server toolhost knows, that server is started for the file's project, after the call and
 * without delaying its reply (lsp/_warm_start.ts says when it is not). `code.start_on_read:
 * false` turns this off.
 */
import { defineToolHook, type FinishedCall } from "../../mcp/tool/mod.ts";
import { extensionOf, languageFor } from "./_lib/languages/mod.ts";
import { loadLsp } from "./_lib/lsp_load.ts";

/** Whether some server may answer for `path`: the table's, or one the user configured. */
function served(path: string, configured: Record<string, { extensions: string[] }>): boolean {
  if ((languageFor(path)?.servers.length ?? 0) > 0) return true;
  const extension = extensionOf(path);
  return extension !== "" &&
    Object.values(configured).some((spec) =>
      spec.extensions.some((e) => (e.startsWith(".") ? e : `.${e}`).toLowerCase() === extension)
    );
}

/**
 * Tools that start the file's server themselves: after them a warm start only repeats the
 * sandbox's checks of the path, on the way to the reply.
 */
const STARTS_ITS_SERVER = new Set(["code_nav"]);

export default defineToolHook({
  name: "code_warm_start",
  phase: "observe",
  finished(call: FinishedCall) {
    const { ctx, args, tool } = call;
    if (!ctx.config.code.startOnRead || call.outcome !== "ok") return;
    if (STARTS_ITS_SERVER.has(tool.name)) return;
    // Reading, by what the tool declares: read-only, naming a file in `path`.
    if (tool.annotations?.readOnlyHint !== true || typeof args.path !== "string") return;
    if (!served(args.path, ctx.config.code.languageServers)) return;
    const path = args.path;
    void loadLsp().then((lsp) => lsp.warmStart(path, ctx)).catch((error) => {
      ctx.serverLog("info", "language server", `not started ahead: ${(error as Error).message}`);
    });
  },
});
