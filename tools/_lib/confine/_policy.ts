/**
 * The one policy every confined process follows, by kind: what it may write, what stays
 * read-only inside that, what it may not read, its temporary directory and environment. Computed
 * from the settings, the roots and the session; the mechanism (_linux.ts, _seatbelt.ts) applies it.
 */
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Settings } from "../../../config/settings.ts";
import { cachePlan } from "./_caches.ts";
import { type Hidden, hiddenPaths } from "./_hidden.ts";
import { isWithin } from "../sandbox/mod.ts";

/**
 * `command`: bash, bash_background, custom command tools, the login shell. `language-server`:
 * no network, writes only its caches, the temporary directory and (under workspace-write) the
 * roots. `search`: rg and the find beside it, which write nothing.
 */
export type ProcessKind = "command" | "language-server" | "search";

export type ConfinedMode = "workspace-write" | "read-only";

/** A path made read-only inside a writable place, and why (for list_roots and refusals). */
export interface Protected {
  path: string;
  why: string;
}

export interface Policy {
  kind: ProcessKind;
  mode: ConfinedMode;
  /** The roots, as real paths. */
  roots: string[];
  /** Writable directories, and beneath them. */
  writable: string[];
  /** Writable files outside those (cargo's lock files). */
  writableFiles: string[];
  /** Read-only even inside a writable place (toolhost's files, deny_write). */
  readOnly: Protected[];
  /** Directories above toolhost's files in a writable place: they cannot be renamed. */
  pinned: string[];
  hidden: Hidden[];
  /** The private temporary directory (none for search). */
  temp?: string;
  /** Variables set for the process: TMPDIR, moved caches. */
  env: Record<string, string>;
  /** One line per cache, for list_roots. */
  caches: string[];
}

export interface PolicyInput {
  kind: ProcessKind;
  settings: Readonly<Settings>;
  roots: readonly string[];
  home: string;
  env: Record<string, string | undefined>;
  uid: number;
  stateDir: string;
  temp?: string;
}

/** read-only when the settings, --read-only or the read-only profile say so. */
export function confinedMode(settings: Readonly<Settings>): ConfinedMode | "off" {
  if (settings.readOnly || settings.toolsProfile === "read-only") return "read-only";
  return settings.sandbox.mode;
}

/** Whether `path` is `place` or lies beneath it. */
export function within(path: string, place: string): boolean {
  return isWithin(place, path);
}

/** The roots as real paths (a root that is gone allows nothing), each once. */
export function realRoots(roots: readonly string[]): string[] {
  const real: string[] = [];
  for (const root of roots) {
    try {
      real.push(realpathSync(root));
    } catch {
      // gone
    }
  }
  return [...new Set(real)];
}

/** Language servers' own caches, writable when they exist. */
const SERVER_CACHES = ["gopls", "clangd", "typescript", "pyright", "rust-analyzer"];

export function policyFor(input: PolicyInput): Policy {
  const { kind, settings, roots, home, env, uid, temp } = input;
  const mode = confinedMode(settings) === "read-only" ? "read-only" : "workspace-write";
  const sandbox = settings.sandbox;
  const writable: string[] = [];
  const writableFiles: string[] = [];
  const policyEnv: Record<string, string> = {};
  let caches: string[] = [];
  if (kind !== "search") {
    if (mode === "workspace-write") writable.push(...roots);
    if (kind === "command" && mode === "workspace-write") writable.push(...sandbox.allowWrite);
    if (temp) {
      writable.push(temp);
      for (const name of ["TMPDIR", "TMP", "TEMP"]) policyEnv[name] = temp;
      // Under read-only the user's caches are only read: every movable one goes to the session.
      const plan = cachePlan({
        home,
        env,
        mode: mode === "read-only" ? "session" : sandbox.caches,
        temp,
      });
      writable.push(...plan.writable);
      writableFiles.push(...plan.writableFiles);
      Object.assign(policyEnv, plan.env);
      caches = plan.shown;
    }
    if (kind === "language-server") {
      const xdgCache = env.XDG_CACHE_HOME?.startsWith("/")
        ? env.XDG_CACHE_HOME
        : join(home, ".cache");
      writable.push(...SERVER_CACHES.map((name) => join(xdgCache, name)).filter(existsSync));
      // Under read-only no program from the project runs: not a Go toolchain it names either.
      if (mode === "read-only") policyEnv.GOTOOLCHAIN = "local";
    }
  }
  const isWritable = (path: string) => writable.some((place) => within(path, place));
  const readOnly: Protected[] = [];
  const pinned = new Set<string>();
  const protect = (path: string, why: string) => {
    if (isWritable(path)) readOnly.push({ path, why });
  };
  // toolhost's own files: read-only, and every directory above them inside a writable place
  // pinned, so a command cannot rename one away and put a file of its own where it was.
  const guard = (path: string, why: string) => {
    if (!isWritable(path)) return;
    readOnly.push({ path, why });
    for (let at = dirname(path); at !== dirname(at); at = dirname(at)) {
      if (!isWritable(at) || writable.includes(at)) break;
      pinned.add(at);
    }
  };
  guard(input.stateDir, "toolhost's state directory (journal, undo, the sandbox helper)");
  // The user file's directory (made, empty, when missing): a command must not make the file.
  const [userFile, ...others] = settings.configFiles;
  if (userFile) {
    const dir = dirname(userFile);
    if (isWritable(dir) && !existsSync(dir)) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
      } catch {
        // then there is nothing to hold, and nothing a command could make there either
      }
    }
    guard(dir, "toolhost's configuration");
  }
  for (const file of others) guard(file, "toolhost's configuration");
  for (const path of sandbox.denyWrite) protect(path, "sandbox.deny_write");
  const hidden = hiddenPaths({
    home,
    env,
    uid,
    denyRead: sandbox.denyRead,
    allowRead: sandbox.allowRead,
  });
  // The user file may hold toolhost's secrets (an API key, a proxy's password): not to be read.
  if (userFile && !sandbox.allowRead.includes(userFile)) {
    hidden.push({
      path: userFile,
      why: "toolhost's settings, which may hold its secrets",
      setting: "sandbox.allow_read",
    });
  }
  // What toolhost keeps of every session (journal, undo store, snapshots, plans, task lists) is
  // toolhost's to show, through history and undo: with OAuth it holds other users' work, and a
  // snapshot may hold what a command could not read where it was.
  const kept = join(input.stateDir, "projects");
  if (!sandbox.allowRead.includes(kept)) {
    try {
      mkdirSync(kept, { recursive: true, mode: 0o700 });
    } catch {
      // a state directory that cannot be written has no journal in it to hide
    }
    hidden.push({
      path: kept,
      why: "toolhost's journal, undo store, plans and task lists (every session's and user's)",
      setting: "sandbox.allow_read",
    });
  }
  return {
    kind,
    mode,
    roots: [...roots],
    writable,
    writableFiles,
    readOnly,
    pinned: [...pinned],
    hidden,
    temp,
    env: policyEnv,
    caches,
  };
}
