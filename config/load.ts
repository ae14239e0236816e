/**
 * The effective configuration: defaults, then the user file, the project file, the environment
 * and the flags, each overriding the one before. Scalars and arrays are replaced whole; objects
 * (tools, limits, search, custom_tools) are merged key by key. Every value remembers its source.
 */
import { dirname, isAbsolute, relative } from "node:path";
import { type CustomToolSpec, defaultSettings, type Settings } from "./settings.ts";
import { type ConfigFlags, CUSTOM_TOOLS, LEAF_BY_KEY, LEAVES } from "./keys.ts";
import { userConfigPath } from "./paths.ts";
import {
  type Entry,
  envLayer,
  fileLayer,
  flagLayer,
  type Layer,
  projectFile,
  type SourceContext,
} from "./sources.ts";

export type { ConfigFlags };

/** Bad configuration. The message is the whole report, one problem per line. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
  }
}

export interface ConfigInput {
  flags: ConfigFlags;
  env: Record<string, string | undefined>;
  cwd: string;
  home: string;
  platform: NodeJS.Platform;
}

export interface LoadedConfig {
  settings: Settings;
  /**
   * The source of every setting, by its key as files write it ("limits.output_chars",
   * "custom_tools.lint"): "default", "user file /home/u/.config/toolhost/config.jsonc:4",
   * "project file /p/.toolhost.jsonc:7", "env TOOLHOST_ROOTS", "flag --root".
   */
  origins: Map<string, string>;
  /**
   * Where a complaint about each setting points, by the same keys: "/p/.toolhost.jsonc:7:3",
   * "env TOOLHOST_ROOTS", "flag --root"; defaults are absent.
   */
  places: Map<string, string>;
  /** The config files read, the one read first first. */
  files: string[];
  /** What loaded but is likely a mistake (an empty file), one line each, for stderr. */
  warnings: string[];
}

/**
 * The default bash timeout must fit under the longest a call may ask for. The complaint points at
 * the one of the two set by the later source, the one that broke the pair.
 */
function checkTimeouts(
  merged: Map<string, Entry>,
  rank: Map<string, number>,
  settings: Settings,
): string[] {
  const { bashTimeoutMs, bashMaxTimeoutMs } = settings.limits;
  if (bashTimeoutMs <= bashMaxTimeoutMs) return [];
  const [timeoutKey, maxKey] = ["limits.bash_timeout_ms", "limits.bash_max_timeout_ms"];
  const blamed = (rank.get(timeoutKey) ?? -1) >= (rank.get(maxKey) ?? -1) ? timeoutKey : maxKey;
  const origin = (key: string) => merged.get(key)?.origin ?? "default";
  const timeout = `${timeoutKey} is ${bashTimeoutMs} (${origin(timeoutKey)})`;
  const max = `${maxKey} ${bashMaxTimeoutMs} (${origin(maxKey)})`;
  const allowed = "a default timeout no longer than the longest one a call may ask for";
  return [`${merged.get(blamed)!.where}: ${timeout}, above ${max}; allowed: ${allowed}`];
}

/** Keys a project file may not set: they would reach past the project or run other programs. */
const USER_ONLY = new Map<string, string>([
  ["shell", "it would replace the shell every command runs in"],
  ["shell_env", "it would change the environment of every command"],
  ["allow_private_network", "it would open the private-network guard"],
  ["proxy", "it would send the web tools' traffic through another machine"],
  ["sandbox.allow_write", "it would let commands write outside the project"],
  ["sandbox.allow_read", "it would let commands read your credentials"],
  ["sandbox.allow_network", "it would let commands reach the network"],
  ["sandbox.caches", "it would change where commands may write"],
  [
    "code.language_servers",
    "it would run its programs whenever code_nav is used, in read-only mode too",
  ],
  ["http.origins", "it would let pages of other origins drive toolhost from a browser"],
  [
    "state_dir",
    "it would choose where toolhost keeps the command sandbox's helper and the journal (one it " +
    "cannot write there leaves commands unconfined; another user's directory lets them be replaced)",
  ],
  ...[
    "issuer",
    "resource",
    "jwks_uri",
    "introspection_url",
    "client_id",
    "read_scope",
    "write_scope",
    "jwks_cooldown_seconds",
  ].map((key): [string, string] => [
    `http.auth.${key}`,
    "it would decide who may use toolhost over HTTP",
  ]),
]);

/**
 * What a project file (which comes with the repository, not from the user) tries beyond the
 * project: user-only keys, and roots outside the project's directory. Such settings belong in
 * the user file, the environment or a flag.
 */
function widenings(layer: Layer, projectDir: string): string[] {
  const problems: string[] = [];
  const allowed = "set it in the user file, the environment or a flag instead";
  for (const [key, entry] of layer) {
    const why = USER_ONLY.get(key);
    if (why && !(key === "allow_private_network" && entry.value === false)) {
      problems.push(
        `${entry.where}: a project file cannot set ${key}: ${why}; allowed: ${allowed}`,
      );
    }
    if (key === "roots") {
      for (const root of entry.value as string[]) {
        const inside = relative(projectDir, root);
        if (inside.startsWith("..") || isAbsolute(inside)) {
          problems.push(
            `${entry.where}: root ${root} is outside the project (${projectDir}), and a project ` +
              `file cannot reach past it; allowed: directories inside it, or ${allowed}`,
          );
        }
      }
    }
  }
  return problems;
}

/** The sandbox's modes, loosest first: a project file may only move to the right. */
const SANDBOX_MODES = ["off", "workspace-write", "read-only"];

/**
 * The sandbox settings of a project file, held to what comes before it (the user file, else the
 * defaults): it may make the mode stricter and require a sandbox, never the reverse; its
 * deny_write and deny_read are added to the user file's rather than replacing them.
 */
function sandboxTightening(project: Layer, user: Layer | undefined): string[] {
  const problems: string[] = [];
  const allowed = "set it in the user file, the environment or a flag instead";
  const mode = project.get("sandbox.mode");
  const before = (user?.get("sandbox.mode")?.value as string | undefined) ?? "workspace-write";
  if (mode && SANDBOX_MODES.indexOf(mode.value as string) < SANDBOX_MODES.indexOf(before)) {
    problems.push(
      `${mode.where}: a project file cannot set sandbox.mode to ${mode.value}: it would loosen ` +
        `the sandbox (${before}${user?.has("sandbox.mode") ? " in the user file" : " by default"}` +
        `); allowed: a stricter mode, or ${allowed}`,
    );
  }
  const required = project.get("sandbox.required");
  if (required && required.value === false && user?.get("sandbox.required")?.value === true) {
    problems.push(
      `${required.where}: a project file cannot set sandbox.required to false: the user file ` +
        `requires a sandbox; allowed: true, or ${allowed}`,
    );
  }
  for (const key of ["sandbox.deny_write", "sandbox.deny_read"]) {
    const theirs = project.get(key);
    const mine = user?.get(key);
    if (theirs && mine) {
      project.set(key, {
        ...theirs,
        value: [...new Set([...(mine.value as string[]), ...(theirs.value as string[])])],
        origin: `${mine.origin} and ${theirs.origin}`,
      });
    }
  }
  return problems;
}

export function loadConfig(input: ConfigInput): LoadedConfig {
  const ctx: SourceContext = { ...input, problems: [], warnings: [] };
  const project = projectFile(input.flags, ctx);
  const user = userConfigPath(input.env, input.home, input.platform);
  const files: string[] = [];
  const layers: Layer[] = [];
  const readFile = (path: string, label: string, namedBy?: string) => {
    const layer = fileLayer(path, label, namedBy, ctx);
    if (layer) {
      files.push(path);
      layers.push(layer);
    }
    return layer;
  };
  // --config naming the user file reads it once, as the project file.
  const userLayer = user !== project.path ? readFile(user, "user file") : undefined;
  // A file named by --config or TOOLHOST_CONFIG takes the project file's place, but it is the
  // user's own: messages name it for what it is.
  const projectLabel = project.namedBy ? `${project.namedBy} file` : "project file";
  const projectLayer = readFile(project.path, projectLabel, project.namedBy);
  // Only the implicit .toolhost.jsonc: a file the user names with --config is theirs.
  if (projectLayer && !project.namedBy && user !== project.path) {
    ctx.problems.push(...widenings(projectLayer, dirname(project.path)));
    ctx.problems.push(...sandboxTightening(projectLayer, userLayer));
  }
  layers.push(envLayer(ctx), flagLayer(input.flags, ctx));
  if (ctx.problems.length > 0) throw new ConfigError(ctx.problems);

  const merged = new Map<string, Entry>();
  const rank = new Map<string, number>();
  for (const [index, layer] of layers.entries()) {
    for (const [key, entry] of layer) {
      merged.set(key, entry);
      rank.set(key, index);
    }
  }
  const settings = defaultSettings();
  const origins = new Map<string, string>(LEAVES.map((leaf) => [leaf.key, "default"]));
  const places = new Map<string, string>();
  for (const [key, entry] of merged) {
    origins.set(key, entry.origin);
    places.set(key, entry.where);
    const leaf = LEAF_BY_KEY.get(key);
    if (leaf) leaf.set(settings, entry.value);
    else settings.customTools[key.slice(CUSTOM_TOOLS.length + 1)] = entry.value as CustomToolSpec;
  }
  settings.configFiles = [...new Set([user, project.path])];
  const conflicts = checkTimeouts(merged, rank, settings);
  if (conflicts.length > 0) throw new ConfigError(conflicts);
  return { settings, origins, places, files, warnings: ctx.warnings };
}
