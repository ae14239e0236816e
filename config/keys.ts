/**
 * Every setting a config file, an environment variable or a flag can give, once: its key as files
 * write it, the variables and flag that also set it, how their text is read, and where it lands
 * in Settings. Custom tools, keyed by the user's own names, are handled beside this table.
 */
import type { Settings, ShellEnv, ToolProfile } from "./settings.ts";

/** The command-line flags that bear on configuration, as main.ts parsed them. */
export interface ConfigFlags {
  root?: string[];
  read_only?: boolean;
  profile?: string;
  allow_private_network?: boolean;
  max_line_mb?: string | number;
  log_level?: string;
  /** The project file to read instead of ./.toolhost.jsonc. */
  config?: string;
  /** The sandbox's mode. */
  sandbox?: string;
}

/**
 * How a value is read from a variable's text and what its paths are relative to:
 * `paths` PATH-style lists, `names` comma-separated lists, `program` a path or a name on PATH.
 */
export type LeafKind =
  | "paths"
  | "names"
  | "boolean"
  | "number"
  | "choice"
  | "text"
  | "path"
  | "program"
  | "object";

export interface Leaf {
  /** The key as files write it: "limits.output_chars". */
  key: string;
  kind: LeafKind;
  /** Variables that set it, the one that wins first. */
  env: string[];
  flag?: { name: keyof ConfigFlags; text: string };
  /** Hidden by --print-config. */
  secret?: boolean;
  get(settings: Settings): unknown;
  set(settings: Settings, value: unknown): void;
}

type Limits = Settings["limits"];
type Search = Settings["search"];

function limit(key: string, field: keyof Limits, variable: string, flag?: Leaf["flag"]): Leaf {
  return {
    key: `limits.${key}`,
    kind: "number",
    env: [variable],
    flag,
    get: (s) => s.limits[field],
    set: (s, v) => (s.limits[field] = v as number),
  };
}

function search(key: string, field: keyof Search, env: string[], kind: LeafKind = "text"): Leaf {
  return {
    key: `search.${key}`,
    kind,
    env,
    get: (s) => s.search[field],
    set: (s, v) => (s.search = { ...s.search, [field]: v }),
  };
}

type Sandbox = Settings["sandbox"];

function sandbox(
  key: string,
  field: keyof Sandbox,
  kind: LeafKind,
  env: string[] = [],
  flag?: Leaf["flag"],
): Leaf {
  return {
    key: `sandbox.${key}`,
    kind,
    env,
    flag,
    get: (s) => s.sandbox[field],
    set: (s, v) => (s.sandbox = { ...s.sandbox, [field]: v }),
  };
}

type HttpAuth = Settings["http"]["auth"];

/** `http.auth.*`: user file only (config/load.ts), so no variable or flag sets them. */
function httpAuth(key: string, field: keyof HttpAuth, kind: LeafKind = "text"): Leaf {
  return {
    key: `http.auth.${key}`,
    kind,
    env: [],
    get: (s) => s.http.auth[field],
    set: (s, v) => (s.http = { ...s.http, auth: { ...s.http.auth, [field]: v } }),
  };
}

/** In the order --print-config shows them, which is the order of the schema. */
export const LEAVES: readonly Leaf[] = [
  {
    key: "roots",
    kind: "paths",
    env: ["TOOLHOST_ROOTS"],
    flag: { name: "root", text: "--root" },
    get: (s) => s.roots,
    set: (s, v) => (s.roots = v as string[]),
  },
  {
    key: "read_only",
    kind: "boolean",
    env: ["TOOLHOST_READ_ONLY"],
    flag: { name: "read_only", text: "--read-only" },
    get: (s) => s.readOnly,
    set: (s, v) => (s.readOnly = v as boolean),
  },
  {
    key: "tools.profile",
    kind: "choice",
    env: ["TOOLHOST_TOOLS_PROFILE"],
    flag: { name: "profile", text: "--profile" },
    get: (s) => s.toolsProfile,
    set: (s, v) => (s.toolsProfile = v as ToolProfile),
  },
  {
    key: "tools.allow",
    kind: "names",
    env: ["TOOLHOST_TOOLS_ALLOW"],
    get: (s) => s.toolsAllow,
    set: (s, v) => (s.toolsAllow = v as string[]),
  },
  {
    key: "tools.deny",
    kind: "names",
    env: ["TOOLHOST_TOOLS_DENY"],
    get: (s) => s.toolsDeny,
    set: (s, v) => (s.toolsDeny = v as string[]),
  },
  limit("output_chars", "outputChars", "TOOLHOST_OUTPUT_CHARS"),
  limit("bash_timeout_ms", "bashTimeoutMs", "TOOLHOST_BASH_TIMEOUT_MS"),
  limit("bash_max_timeout_ms", "bashMaxTimeoutMs", "TOOLHOST_BASH_MAX_TIMEOUT_MS"),
  limit("fetch_timeout_ms", "fetchTimeoutMs", "TOOLHOST_FETCH_TIMEOUT_MS"),
  limit("fetch_max_bytes", "fetchMaxBytes", "TOOLHOST_FETCH_MAX_BYTES"),
  limit("max_line_mb", "maxLineMb", "TOOLHOST_MAX_LINE_MB", {
    name: "max_line_mb",
    text: "--max-line-mb",
  }),
  {
    key: "shell",
    kind: "program",
    env: ["TOOLHOST_SHELL"],
    get: (s) => s.shell,
    set: (s, v) => (s.shell = v as string),
  },
  {
    key: "shell_env",
    kind: "choice",
    env: ["TOOLHOST_SHELL_ENV"],
    get: (s) => s.shellEnv,
    set: (s, v) => (s.shellEnv = v as ShellEnv),
  },
  {
    key: "allow_private_network",
    kind: "boolean",
    env: ["TOOLHOST_ALLOW_PRIVATE_NETWORK"],
    flag: { name: "allow_private_network", text: "--allow-private-network" },
    get: (s) => s.allowPrivateNetwork,
    set: (s, v) => (s.allowPrivateNetwork = v as boolean),
  },
  {
    key: "proxy",
    kind: "text",
    env: ["TOOLHOST_PROXY"],
    // Its address may carry the proxy's password.
    secret: true,
    get: (s) => s.proxy,
    set: (s, v) => (s.proxy = v as string),
  },
  sandbox("mode", "mode", "choice", ["TOOLHOST_SANDBOX"], { name: "sandbox", text: "--sandbox" }),
  sandbox("allow_write", "allowWrite", "paths", ["TOOLHOST_SANDBOX_ALLOW_WRITE"]),
  sandbox("deny_write", "denyWrite", "paths"),
  sandbox("deny_read", "denyRead", "paths"),
  sandbox("allow_read", "allowRead", "paths"),
  sandbox("allow_network", "allowNetwork", "names", ["TOOLHOST_SANDBOX_ALLOW_NETWORK"]),
  sandbox("caches", "caches", "choice", ["TOOLHOST_SANDBOX_CACHES"]),
  sandbox("required", "required", "boolean", ["TOOLHOST_SANDBOX_REQUIRED"]),
  search("provider", "provider", ["TOOLHOST_SEARCH_PROVIDER"], "choice"),
  search("searxng_url", "searxngUrl", ["TOOLHOST_SEARXNG_URL"]),
  {
    ...search("brave_api_key", "braveApiKey", ["TOOLHOST_BRAVE_API_KEY", "BRAVE_API_KEY"]),
    secret: true,
  },
  search("duckduckgo_url", "duckduckgoUrl", ["TOOLHOST_DUCKDUCKGO_URL"]),
  search("brave_url", "braveUrl", ["TOOLHOST_BRAVE_URL"]),
  search("wikipedia_url", "wikipediaUrl", ["TOOLHOST_WIKIPEDIA_URL"]),
  {
    key: "skill_dirs",
    kind: "paths",
    env: ["TOOLHOST_SKILL_DIRS"],
    get: (s) => s.skillDirs,
    set: (s, v) => (s.skillDirs = v as string[]),
  },
  {
    key: "state_dir",
    kind: "path",
    env: ["TOOLHOST_STATE_DIR"],
    get: (s) => s.stateDir,
    set: (s, v) => (s.stateDir = v as string),
  },
  {
    key: "journal.enabled",
    kind: "boolean",
    env: ["TOOLHOST_JOURNAL"],
    get: (s) => s.journal.enabled,
    set: (s, v) => (s.journal = { ...s.journal, enabled: v as boolean }),
  },
  {
    key: "journal.max_bytes",
    kind: "number",
    env: ["TOOLHOST_JOURNAL_MAX_BYTES"],
    get: (s) => s.journal.maxBytes,
    set: (s, v) => (s.journal = { ...s.journal, maxBytes: v as number }),
  },
  {
    key: "journal.undo_budget_bytes",
    kind: "number",
    env: ["TOOLHOST_UNDO_BUDGET_BYTES"],
    get: (s) => s.journal.undoBudgetBytes,
    set: (s, v) => (s.journal = { ...s.journal, undoBudgetBytes: v as number }),
  },
  {
    key: "journal.snapshot_max_files",
    kind: "number",
    env: ["TOOLHOST_SNAPSHOT_MAX_FILES"],
    get: (s) => s.journal.snapshotMaxFiles,
    set: (s, v) => (s.journal = { ...s.journal, snapshotMaxFiles: v as number }),
  },
  {
    key: "code.diagnostics_after_edit",
    kind: "boolean",
    env: ["TOOLHOST_CODE_DIAGNOSTICS"],
    get: (s) => s.code.diagnosticsAfterEdit,
    set: (s, v) => (s.code = { ...s.code, diagnosticsAfterEdit: v as boolean }),
  },
  {
    key: "code.server_idle_seconds",
    kind: "number",
    env: ["TOOLHOST_CODE_SERVER_IDLE_SECONDS"],
    get: (s) => s.code.serverIdleSeconds,
    set: (s, v) => (s.code = { ...s.code, serverIdleSeconds: v as number }),
  },
  {
    key: "code.server_memory_mb",
    kind: "number",
    env: ["TOOLHOST_CODE_SERVER_MEMORY_MB"],
    get: (s) => s.code.serverMemoryMb,
    set: (s, v) => (s.code = { ...s.code, serverMemoryMb: v as number }),
  },
  {
    key: "code.diagnostics_wait_seconds",
    kind: "number",
    env: ["TOOLHOST_CODE_DIAGNOSTICS_WAIT_SECONDS"],
    get: (s) => s.code.diagnosticsWaitSeconds,
    set: (s, v) => (s.code = { ...s.code, diagnosticsWaitSeconds: v as number }),
  },
  {
    key: "code.query_wait_seconds",
    kind: "number",
    env: ["TOOLHOST_CODE_QUERY_WAIT_SECONDS"],
    get: (s) => s.code.queryWaitSeconds,
    set: (s, v) => (s.code = { ...s.code, queryWaitSeconds: v as number }),
  },
  {
    key: "code.start_on_read",
    kind: "boolean",
    env: ["TOOLHOST_CODE_START_ON_READ"],
    get: (s) => s.code.startOnRead,
    set: (s, v) => (s.code = { ...s.code, startOnRead: v as boolean }),
  },
  {
    key: "code.language_servers",
    kind: "object",
    env: [],
    get: (s) => s.code.languageServers,
    set: (
      s,
      v,
    ) => (s.code = { ...s.code, languageServers: v as Settings["code"]["languageServers"] }),
  },
  {
    key: "http.origins",
    kind: "names",
    env: [],
    get: (s) => s.http.origins,
    set: (s, v) => (s.http = { ...s.http, origins: v as string[] }),
  },
  httpAuth("issuer", "issuer"),
  httpAuth("resource", "resource"),
  httpAuth("jwks_uri", "jwksUri"),
  httpAuth("introspection_url", "introspectionUrl"),
  httpAuth("client_id", "clientId"),
  httpAuth("read_scope", "readScope"),
  httpAuth("write_scope", "writeScope"),
  httpAuth("jwks_cooldown_seconds", "jwksCooldownSeconds", "number"),
  {
    key: "log_level",
    kind: "choice",
    env: ["TOOLHOST_LOG_LEVEL"],
    flag: { name: "log_level", text: "--log-level" },
    get: (s) => s.logLevel,
    set: (s, v) => (s.logLevel = v as string),
  },
];

export const LEAF_BY_KEY: ReadonlyMap<string, Leaf> = new Map(
  LEAVES.map((leaf) => [leaf.key, leaf]),
);

/** Custom tools are merged per tool: a tool of the project file replaces the user file's whole. */
export const CUSTOM_TOOLS = "custom_tools";
