/**
 * Language servers for the code tools: which server answers a file, a running server kept in
 * step with the files (toolhost's own writes and anyone else's), and the conversions between
 * paths and the URIs servers speak. The tools see only this face.
 *
 * @example
 * const confined = async () => (await sandboxFor(ctx, "language-server")).confinement;
 * const server = await serverFor(real, sandbox.roots[0], shown, ctx.config, confined);
 * await syncForQuery(server, sandbox, [real]);
 * const result = await server.connection.request("textDocument/hover", params, 10_000);
 */
export { runningFor, runningServers, serverFor } from "./_pool.ts";
export type { Diagnostic, LanguageServer } from "./_server.ts";
export type * from "./_protocol.ts";
export { RequestFailed } from "./_connection.ts";
export {
  lineOf,
  lineStarts,
  offsetOf,
  type Position,
  positionIn,
  readSource,
} from "./_documents.ts";
export { findProgram } from "./_programs.ts";
export { chooseServer, type ServerChoice } from "./_servers.ts";
export { pathOf, uriOf } from "./_uris.ts";
export {
  groupedLines,
  hoverText,
  type Place,
  placeLines,
  placeOf,
  placesOf,
} from "./_locations.ts";
export { resolveNamePath } from "./_symbols.ts";
export { ask, NotAnswered, syncForQuery } from "./_sync.ts";
export {
  type PointArgs,
  stillLoading,
  type Target,
  targetFile,
  targetPosition,
} from "./_target.ts";
export { compareErrors, diagnosticLine, severityName } from "./_diagnostics.ts";
export { currentDiagnostics, fileDiagnostics } from "./_file_diagnostics.ts";
export { type Baseline, CHECK_DEADLINE_MS, reportEdit, takeBaselines } from "./_edit_report.ts";
export { followCommand } from "./_command_sync.ts";
export { applyEdits, editsByUri, type TextEdit } from "./_workspace_edit.ts";
export { MAX_WARM, warmStart } from "./_warm_start.ts";
/** The base protocol's framing, also for the benchmark's bare client. */
export { frame, FrameReader } from "./_framing.ts";
