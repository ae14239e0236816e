/**
 * The language-server package, loaded when a code tool first needs it: a session that never asks
 * a language server does not pay at start-up for parsing the client, the server table and the
 * pool (they are most of the code family's code).
 */
import { onCommandFiles } from "../../_lib/command_files.ts";

export type Lsp = typeof import("./lsp/mod.ts");

let loading: Promise<Lsp> | undefined;
let loaded: Lsp | undefined;

/** The package, loaded once. */
export function loadLsp(): Promise<Lsp> {
  return loading ??= import("./lsp/mod.ts").then((module) => {
    // From now on servers may run: what commands change is sent to them (lsp/_command_sync.ts).
    onCommandFiles(module.followCommand);
    return (loaded = module);
  });
}

/**
 * The package when a code tool has loaded it already, else undefined: no server can run before
 * that, so hooks that only follow running servers need not load it.
 */
export function lspIfLoaded(): Lsp | undefined {
  return loaded;
}
