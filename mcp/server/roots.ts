/**
 * Where the tools of one connection may work: the roots given on the command line; otherwise a
 * legacy client's own roots when it offers them (asked once, and again after it says they
 * changed); otherwise the fallback (the working directory).
 */
import { quotedJson } from "../../config/quote.ts";
import { fileURLToPath } from "node:url";
import type { Scope } from "../wire/eras.ts";
import { isPlainObject, type RequestId } from "../wire/jsonrpc.ts";
import type { Logger } from "../wire/log.ts";
import type { RequestsToClient } from "./requests_to_client.ts";
import type { ServiceOptions } from "./service.ts";

export class Roots {
  /** The legacy client's roots, fetched when it offers them and refetched when they change. */
  #client: Promise<string[]> | null = null;
  /**
   * What of() answers, made once and handed out again until they may change: every call asks,
   * so one promise serves them all, and a caller may key a cache by it (the journal does).
   */
  #clientOrFallback: Promise<string[]> | null = null;
  #fixed: Promise<string[]> | null = null;
  #fallback: Promise<string[]> | null = null;

  constructor(
    readonly options: Pick<ServiceOptions, "roots" | "logger">,
    /** Whether the legacy client declared the roots capability. */
    readonly offered: () => boolean,
    readonly requests: RequestsToClient,
  ) {}

  /** The client's roots are asked for again when a tool next wants them. */
  forget(): void {
    this.#client = null;
    this.#clientOrFallback = null;
  }

  of(scope: Scope, related?: RequestId): Promise<string[]> {
    const { fixed, fallback } = this.options.roots;
    if (fixed.length > 0) return this.#fixed ??= Promise.resolve(fixed);
    if (scope.era === "legacy" && this.offered()) {
      if (this.#clientOrFallback) return this.#clientOrFallback;
      this.#client ??= this.requests.ask("roots/list", {}, undefined, undefined, related).then(
        (result) => rootPaths(result, this.options.logger),
        (error) => {
          // Until the client says its roots changed, do not make every call wait again.
          this.options.logger.log(
            "warning",
            `could not get the client's roots (${error.message}); using ${
              fallback.join(", ")
            } until they change`,
          );
          return [];
        },
      );
      return this.#clientOrFallback = this.#client.then((roots) =>
        roots.length > 0 ? roots : fallback
      );
    }
    return this.#fallback ??= Promise.resolve(fallback);
  }
}

/** The local directories in a roots/list result; other kinds of URI are skipped with a warning. */
function rootPaths(result: Record<string, unknown>, logger: Logger): string[] {
  const roots = Array.isArray(result.roots) ? result.roots : [];
  const paths: string[] = [];
  for (const root of roots) {
    const uri = isPlainObject(root) ? root.uri : undefined;
    try {
      if (typeof uri === "string" && uri.startsWith("file:")) {
        paths.push(fileURLToPath(uri));
        continue;
      }
    } catch {
      // not a usable file URI: reported below
    }
    logger.log("warning", `ignored a root that is not a local directory: ${quotedJson(root, 300)}`);
  }
  return paths;
}
