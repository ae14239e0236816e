/**
 * Protocol versions and their eras. Legacy versions open with `initialize`; modern ones carry
 * their version and client capabilities in every request's `_meta` (no handshake, no session).
 */

export const MODERN_VERSIONS = ["2026-07-28"] as const;
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
/** Every version we speak, newest first: `server/discover` and -32022 errors list these. */
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];
export const NEWEST_LEGACY_VERSION = LEGACY_VERSIONS[0];

export type Era = "legacy" | "modern";

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

export function isModernVersion(version: string): boolean {
  return (MODERN_VERSIONS as readonly string[]).includes(version);
}

/** The legacy version `initialize` answers with: the client's if we speak it, else our newest. */
export function negotiateLegacy(requested: unknown): string {
  return typeof requested === "string" &&
      (LEGACY_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : NEWEST_LEGACY_VERSION;
}

/** Feature gates by legacy version (dates compare as strings). */
export const features = {
  /** JSON-RPC batches existed only in 2025-03-26. */
  batches: (version: string) => version === "2025-03-26",
  /** Tool annotations arrived in 2025-03-26. */
  toolAnnotations: (version: string) => version >= "2025-03-26",
  /** `title`, `outputSchema` and `structuredContent` arrived in 2025-06-18. */
  structuredOutput: (version: string) => version >= "2025-06-18",
  /** `title` on resources, templates and prompts (BaseMetadata) arrived in 2025-06-18. */
  titles: (version: string) => version >= "2025-06-18",
  /** The `completions` capability arrived in 2025-03-26 (completion/complete is older). */
  completionsCapability: (version: string) => version >= "2025-03-26",
  /** Servers could first ask the user questions (elicitation) in 2025-06-18. */
  elicitation: (version: string) => version >= "2025-06-18",
  /** Tasks (`tasks/*`, `execution.taskSupport`, `params.task`) arrived in 2025-11-25. */
  tasks: (version: string) => version >= "2025-11-25",
  /** `icons` on the server's and tools' descriptions arrived in 2025-11-25. */
  icons: (version: string) => version >= "2025-11-25",
};

/** `_meta` key tying a message to the task it belongs to (tasks utility and extension). */
export const META_RELATED_TASK = "io.modelcontextprotocol/related-task";
