/**
 * The program's effective configuration: what config/load.ts makes of the defaults here, the
 * config files, the environment and the flags. Tools see it as `ctx.config`.
 */

export type ShellEnv = "inherit" | "login";
/**
 * Which tools a session offers before tools.allow/deny: `full` every tool, `companion` only what a
 * client with its own file and shell tools lacks, `claude-code` and `gemini-cli` only what those
 * clients lack, `read-only` only tools annotated read-only (tools/_catalog/profiles.ts).
 */
export type ToolProfile = "full" | "companion" | "claude-code" | "gemini-cli" | "read-only";
/**
 * How the processes toolhost starts are confined (tools/_lib/confine): `workspace-write` writes
 * only in the roots and the session's temporary directory, `read-only` nowhere but that directory,
 * `off` not at all.
 */
export type SandboxMode = "workspace-write" | "read-only" | "off";
/** Where build tools' caches are: the user's own (`shared`) or the session's temporary directory. */
export type SandboxCaches = "shared" | "session";
export type SearchProviderId = "duckduckgo" | "searxng" | "brave" | "wikipedia" | "all";

/** A tool the user declares in the config: a command run with the call's arguments, no shell. */
export interface CustomToolSpec {
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  input?: Record<string, unknown>;
  /** argv template: each `{name}` is replaced by that argument, within its own slot. */
  command: string[];
  cwd?: string;
  timeout_ms?: number;
  env?: Record<string, string>;
  /** Whether the tool changes things; defaults to true. */
  destructive?: boolean;
}

/** A language server the user declares (`code.language_servers`): started for its extensions. */
export interface LanguageServerSpec {
  /** The program and its arguments; it speaks LSP on its stdin and stdout. */
  command: string[];
  /** File extensions it answers for (".lua" or "lua"). */
  extensions: string[];
  /** The LSP languageId of its files; default: the extension without its dot. */
  language_id?: string;
  /** Files or directories that mark a project root for it (nearest wins; default the root). */
  root_markers?: string[];
  initialization_options?: Record<string, unknown>;
  /** Answered to the server's workspace/configuration requests. */
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
}

/** `http.auth`: toolhost as an OAuth 2.1 protected resource. */
export interface HttpAuthSettings {
  issuer?: string;
  /** Default: the URL of /mcp on the address listened on. */
  resource?: string;
  /** Default: from the issuer's metadata. */
  jwksUri?: string;
  introspectionUrl?: string;
  clientId?: string;
  readScope: string;
  writeScope: string;
  jwksCooldownSeconds: number;
}

export interface Settings {
  /** Directories tools may work in; empty means the client's roots, else the working directory. */
  roots: string[];
  /** Only tools annotated read-only are offered. */
  readOnly: boolean;
  /** The named set of tools offered (tools/profiles.ts), then narrowed by allow and deny. */
  toolsProfile: ToolProfile;
  /** Tool names (with `*` wildcards) offered; empty means all. */
  toolsAllow: string[];
  /** Tool names (with `*` wildcards) never offered; wins over allow. */
  toolsDeny: string[];
  limits: {
    /** Characters a tool's text output may have before it is cut (bash, grep, read_file…). */
    outputChars: number;
    bashTimeoutMs: number;
    bashMaxTimeoutMs: number;
    fetchTimeoutMs: number;
    fetchMaxBytes: number;
    maxLineMb: number;
  };
  /** The shell `bash` runs commands with; empty means bash on PATH, else sh. */
  shell: string;
  shellEnv: ShellEnv;
  allowPrivateNetwork: boolean;
  /** The web tools' proxy (http or https URL); empty means HTTPS_PROXY and the like. */
  proxy: string;
  search: {
    provider?: SearchProviderId;
    searxngUrl?: string;
    braveApiKey?: string;
    duckduckgoUrl?: string;
    braveUrl?: string;
    wikipediaUrl?: string;
  };
  skillDirs: string[];
  /** Where tasks and plans are kept; empty means the platform's state directory. */
  stateDir: string;
  /** The journal of tool calls and what undo keeps, in the state directory. */
  journal: {
    enabled: boolean;
    /** Bytes a journal file may reach before it is rotated (three files are kept). */
    maxBytes: number;
    /** Bytes of replaced and deleted content kept for undo; the oldest go first. */
    undoBudgetBytes: number;
    /**
     * Files and directories a root may hold for a command's change to be kept for undo (the
     * snapshot before and after each command, tools/journal/_lib/observed/).
     */
    snapshotMaxFiles: number;
  };
  /** Language servers (tools/code): which, how long they live, diagnostics after edits. */
  code: {
    /** Append the errors an edit introduced, where a server runs for the file. */
    diagnosticsAfterEdit: boolean;
    /** A server unused this long is stopped. */
    serverIdleSeconds: number;
    /** A server whose processes together hold more than this is stopped. */
    serverMemoryMb: number;
    /** How long an edit's reply waits for the diagnostics of what it wrote (then: pending). */
    diagnosticsWaitSeconds: number;
    /** How long a query waits for a server still loading the project (then: incomplete). */
    queryWaitSeconds: number;
    /** Start the project's server when a session first reads one of its source files. */
    startOnRead: boolean;
    languageServers: Record<string, LanguageServerSpec>;
  };
  /** The --http listener. */
  http: {
    /** Browser origins served besides toolhost's own (--http-origin adds to them). User file only. */
    origins: string[];
    /** OAuth 2.1 (mcp/http/auth); on when `issuer` is set. User file only. */
    auth: HttpAuthSettings;
  };
  /** The command sandbox: what the processes toolhost starts may write, read and reach. */
  sandbox: {
    mode: SandboxMode;
    /** More places commands may write (absolute paths). */
    allowWrite: string[];
    /** Never writable, even inside the roots. */
    denyWrite: string[];
    /** Hidden, besides the built-in list of credentials. */
    denyRead: string[];
    /** Entries of the built-in credential list that stay readable. */
    allowRead: string[];
    /** Hosts commands may reach through toolhost's proxy: `host`, `*.suffix`, `host:port`, `*`. */
    allowNetwork: string[];
    caches: SandboxCaches;
    /** Refuse to run commands where no sandbox can be had, instead of running them unconfined. */
    required: boolean;
  };
  logLevel: string;
  customTools: Record<string, CustomToolSpec>;
  /**
   * The configuration files toolhost reads, the user file first, then the project file, whether
   * or not they exist: never writable by a command. Set by config/load.ts, not by any source.
   */
  configFiles: string[];
}

export function defaultSettings(): Settings {
  return {
    roots: [],
    readOnly: false,
    toolsProfile: "full",
    toolsAllow: [],
    toolsDeny: [],
    limits: {
      outputChars: 30_000,
      bashTimeoutMs: 120_000,
      bashMaxTimeoutMs: 600_000,
      fetchTimeoutMs: 30_000,
      fetchMaxBytes: 10 * 1024 * 1024,
      maxLineMb: 64,
    },
    shell: "",
    shellEnv: "inherit",
    allowPrivateNetwork: false,
    proxy: "",
    search: {},
    skillDirs: [],
    stateDir: "",
    journal: {
      enabled: true,
      maxBytes: 4 * 1024 * 1024,
      undoBudgetBytes: 64 * 1024 * 1024,
      snapshotMaxFiles: 100_000,
    },
    code: {
      diagnosticsAfterEdit: true,
      serverIdleSeconds: 600,
      serverMemoryMb: 4096,
      diagnosticsWaitSeconds: 2,
      queryWaitSeconds: 45,
      startOnRead: true,
      languageServers: {},
    },
    http: {
      origins: [],
      auth: { readScope: "toolhost:read", writeScope: "toolhost:write", jwksCooldownSeconds: 30 },
    },
    sandbox: {
      mode: "workspace-write",
      allowWrite: [],
      denyWrite: [],
      denyRead: [],
      allowRead: [],
      allowNetwork: [],
      caches: "shared",
      required: false,
    },
    logLevel: "info",
    customTools: {},
    configFiles: [],
  };
}
