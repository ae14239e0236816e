/**
 * The legacy era's state of one connection: `initialize` negotiates the version and records the
 * client's capabilities, `logging/setLevel` sets the threshold of log notifications, and every
 * later request without modern `_meta` is read in their light.
 */
import { LOG_LEVEL_LIST, type Scope, type SessionTerms } from "../wire/eras.ts";
import { INVALID_PARAMS, isPlainObject, type Params, RpcError } from "../wire/jsonrpc.ts";
import { isLogLevel, type LogLevel } from "../wire/log.ts";
import type { McpService, ServiceOptions } from "./service.ts";
import { features, negotiateLegacy } from "../wire/versions.ts";

export class Handshake {
  #terms: SessionTerms | null = null;
  /** The scope of every legacy request once `initialize` has run: one object, never modified. */
  #sessionScope: Scope | null = null;
  /** Read when a log line is sent: the client may change its threshold while a call runs. */
  readonly logLevel = (): LogLevel | null => this.#terms?.logLevel ?? null;

  constructor(
    readonly service: McpService,
    readonly options: Pick<ServiceOptions, "info" | "instructions" | "icons">,
  ) {}

  /** What `initialize` settled, or null before it has run. */
  get terms(): SessionTerms | null {
    return this.#terms;
  }

  /** The protocol version `initialize` settled, if it has run. */
  get version(): string | undefined {
    return this.#terms?.version;
  }

  /** Settles the session's terms (again, if the client starts over) and answers `initialize`. */
  initialize(params: Params): Record<string, unknown> {
    if (typeof params.protocolVersion !== "string") {
      throw new RpcError(
        INVALID_PARAMS,
        "Invalid params: initialize needs params.protocolVersion (a string)",
      );
    }
    const version = negotiateLegacy(params.protocolVersion);
    this.#terms = {
      version,
      clientCapabilities: isPlainObject(params.capabilities) ? params.capabilities : {},
      logLevel: null,
    };
    this.#sessionScope = null;
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: this.service.capabilities(version),
      serverInfo: this.options.icons?.length && features.icons(version)
        ? { ...this.options.info, icons: this.options.icons }
        : this.options.info,
    };
    if (this.options.instructions) result.instructions = this.options.instructions;
    return result;
  }

  /** Only reached once `initialize` has run (handlerFor refuses it before). */
  setLevel(params: Params): Record<string, unknown> {
    if (!isLogLevel(params.level)) {
      throw new RpcError(INVALID_PARAMS, `Invalid params: level must be one of ${LOG_LEVEL_LIST}`);
    }
    this.#terms!.logLevel = params.level;
    return {};
  }

  /** The scope of a request without modern `_meta`: the session's, as far as it is settled. */
  scope(params: Params): Scope {
    const terms = this.#terms;
    if (terms) {
      this.#sessionScope ??= Object.freeze({
        era: "legacy",
        version: terms.version,
        clientCapabilities: terms.clientCapabilities,
        logLevel: this.logLevel,
      });
      return this.#sessionScope;
    }
    return {
      era: "legacy",
      version: negotiateLegacy(params.protocolVersion),
      clientCapabilities: {},
      logLevel: this.logLevel,
    };
  }
}
