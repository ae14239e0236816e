/**
 * Paths in configuration: where the user file lives on each platform, `~` expansion, and
 * relative paths taken from the directory of whatever named them. The platform is a parameter,
 * not process.platform, so that every platform's rules can be tested on any machine.
 */
import { posix, win32 } from "node:path";

type Env = Record<string, string | undefined>;

export function pathsFor(platform: NodeJS.Platform): typeof posix {
  return platform === "win32" ? win32 : posix;
}

/** The user's config file: per the XDG spec on Linux and other Unixes, else the platform's place. */
export function userConfigPath(env: Env, home: string, platform: NodeJS.Platform): string {
  const path = pathsFor(platform);
  switch (platform) {
    case "darwin":
      return path.join(home, "Library", "Application Support", "toolhost", "config.jsonc");
    case "win32": {
      const appData = env.APPDATA;
      const base = appData && path.isAbsolute(appData)
        ? appData
        : path.join(home, "AppData", "Roaming");
      return path.join(base, "toolhost", "config.jsonc");
    }
    default: {
      // The XDG spec: a relative path in XDG_CONFIG_HOME is invalid and must be ignored.
      const xdg = env.XDG_CONFIG_HOME;
      return path.join(
        xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".config"),
        "toolhost",
        "config.jsonc",
      );
    }
  }
}

/**
 * toolhost's state directory (tasks, plans): `configured` (state_dir, TOOLHOST_STATE_DIR) when
 * set, else the platform's place for per-user state. Not created here.
 */
export function stateDirectory(
  configured: string,
  env: Env,
  home: string,
  platform: NodeJS.Platform,
): string {
  const path = pathsFor(platform);
  if (configured) return path.resolve(configured);
  switch (platform) {
    case "darwin":
      return path.join(home, "Library", "Application Support", "toolhost");
    case "win32":
      return path.resolve(env.LOCALAPPDATA ?? path.join(home, "AppData", "Local"), "toolhost");
    default: {
      // The XDG spec: a relative path in XDG_STATE_HOME is invalid and must be ignored.
      const xdg = env.XDG_STATE_HOME;
      return path.join(
        xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".local", "state"),
        "toolhost",
      );
    }
  }
}

/** `~` and `~/…` (also `~\…` on Windows) stand for the home directory; `~user` is left alone. */
function expandHome(value: string, home: string, platform: NodeJS.Platform): string {
  if (value === "~") return home;
  const separated = value.startsWith("~/") || (platform === "win32" && value.startsWith("~\\"));
  return separated ? pathsFor(platform).join(home, value.slice(2)) : value;
}

/** An absolute path: `value` taken from `base` (a config file's directory, or the working one). */
export function resolvePath(
  value: string,
  base: string,
  home: string,
  platform: NodeJS.Platform,
): string {
  return pathsFor(platform).resolve(base, expandHome(value, home, platform));
}

/**
 * A program: a bare name ("zsh") is left for the PATH lookup when it runs; anything with a
 * directory in it is a path, resolved like any other.
 */
export function resolveProgram(
  value: string,
  base: string,
  home: string,
  platform: NodeJS.Platform,
): string {
  if (value === "") return value;
  const hasDirectory = value.includes("/") || (platform === "win32" && value.includes("\\"));
  return hasDirectory ? resolvePath(value, base, home, platform) : value;
}
