/**
 * Imported first by every worker (HTML conversion, document extraction): a worker's console.log writes to the process's
 * stdout, which is the JSON-RPC channel, so every console method that would write there writes
 * to stderr instead (console.error already does, in Deno and Bun alike).
 */
const toStderr = console.error.bind(console);
const methods = ["log", "info", "debug", "trace", "dir", "dirxml", "table", "warn"] as const;
for (const method of methods) {
  (console as unknown as Record<string, unknown>)[method] = toStderr;
}
