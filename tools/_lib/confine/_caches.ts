/**
 * Build tools' caches. With `caches: "shared"` (the default) the user's own caches stay writable,
 * so builds under the sandbox reuse what is downloaded and compiled; one that does not exist yet
 * is not made in the home directory but put in the session's temporary directory through the
 * tool's variable. With `"session"` every cache a variable can move is in the session's temporary
 * directory, and the user's are only read.
 */
import { closeSync, existsSync, lstatSync, openSync } from "node:fs";
import { join } from "node:path";

/** One tool's cache: where it is, and the variable that moves it (when there is one). */
interface Cache {
  tool: string;
  path: string;
  variable?: string;
  /** Files beside it the tool must write (cargo's lock files), made empty when missing. */
  files?: string[];
}

export interface CacheInput {
  home: string;
  env: Record<string, string | undefined>;
  mode: "shared" | "session";
  /** The session's temporary directory, where moved caches go. */
  temp: string;
}

export interface CachePlan {
  /** Writable directories (the user's caches in use). */
  writable: string[];
  /** Writable files (lock files beside a cache). */
  writableFiles: string[];
  /** Variables set for the command: caches moved into the temporary directory. */
  env: Record<string, string>;
  /** One line per cache for list_roots: "npm ~/.npm (shared)". */
  shown: string[];
}

function caches(home: string, env: Record<string, string | undefined>): Cache[] {
  const xdgCache = env.XDG_CACHE_HOME?.startsWith("/") ? env.XDG_CACHE_HOME : join(home, ".cache");
  const cargo = env.CARGO_HOME || join(home, ".cargo");
  const gopath = (env.GOPATH || join(home, "go")).split(":")[0];
  return [
    { tool: "npm", path: env.npm_config_cache || join(home, ".npm"), variable: "npm_config_cache" },
    { tool: "pip", path: env.PIP_CACHE_DIR || join(xdgCache, "pip"), variable: "PIP_CACHE_DIR" },
    { tool: "uv", path: env.UV_CACHE_DIR || join(xdgCache, "uv"), variable: "UV_CACHE_DIR" },
    {
      tool: "poetry",
      path: env.POETRY_CACHE_DIR || join(xdgCache, "pypoetry"),
      variable: "POETRY_CACHE_DIR",
    },
    { tool: "go build", path: env.GOCACHE || join(xdgCache, "go-build"), variable: "GOCACHE" },
    {
      tool: "go modules",
      path: env.GOMODCACHE || join(gopath, "pkg", "mod"),
      variable: "GOMODCACHE",
    },
    {
      tool: "cargo registry",
      path: join(cargo, "registry"),
      files: [".package-cache", ".package-cache-mutate", ".global-cache"].map((f) =>
        join(cargo, f)
      ),
    },
    { tool: "cargo git", path: join(cargo, "git") },
    {
      tool: "yarn",
      path: env.YARN_CACHE_FOLDER || join(xdgCache, "yarn"),
      variable: "YARN_CACHE_FOLDER",
    },
    // pnpm's store has no variable of its own (npm would warn of npm_config_store_dir).
    { tool: "pnpm", path: join(home, ".local", "share", "pnpm", "store") },
    {
      tool: "bun",
      path: env.BUN_INSTALL_CACHE_DIR || join(home, ".bun", "install", "cache"),
      variable: "BUN_INSTALL_CACHE_DIR",
    },
    { tool: "deno", path: env.DENO_DIR || join(xdgCache, "deno"), variable: "DENO_DIR" },
    { tool: "maven", path: join(home, ".m2", "repository") },
    { tool: "gradle", path: join(home, ".gradle", "caches") },
    { tool: "ccache", path: env.CCACHE_DIR || join(xdgCache, "ccache"), variable: "CCACHE_DIR" },
  ];
}

/**
 * Looked up at each spawn: without an exception for the common answer, "not there". A cache the
 * user cannot reach (another user's `npm_config_cache` inherited from the environment, EACCES) is
 * not there either: the command runs without it rather than failing.
 */
function isDirectory(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Makes an empty file unless one is there; false when it cannot be made. */
function ensureFile(path: string): boolean {
  if (existsSync(path)) return true;
  try {
    closeSync(openSync(path, "a"));
    return true;
  } catch {
    return false;
  }
}

/** Which caches are writable where, and the variables that move the others. */
export function cachePlan({ home, env, mode, temp }: CacheInput): CachePlan {
  const plan: CachePlan = { writable: [], writableFiles: [], env: {}, shown: [] };
  const shortened = (path: string) =>
    path.startsWith(home + "/") ? `~${path.slice(home.length)}` : path;
  for (const cache of caches(home, env)) {
    const moved = join(temp, "caches", cache.tool.replace(/ /g, "-"));
    if (mode === "shared" && isDirectory(cache.path)) {
      plan.writable.push(cache.path);
      for (const file of cache.files ?? []) if (ensureFile(file)) plan.writableFiles.push(file);
      plan.shown.push(`${cache.tool}: ${shortened(cache.path)} (shared)`);
    } else if (cache.variable) {
      plan.env[cache.variable] = moved;
      plan.shown.push(`${cache.tool}: $TMPDIR/caches/${cache.tool.replace(/ /g, "-")} (session)`);
    } else if (isDirectory(cache.path)) {
      plan.shown.push(`${cache.tool}: ${shortened(cache.path)} (read only)`);
    }
  }
  return plan;
}
