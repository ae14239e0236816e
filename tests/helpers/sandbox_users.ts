/**
 * Who the command sandbox's e2e tests run toolhost as: the user running the suite, and, when that
 * is root, also an unprivileged user (uid 65534 through `setpriv`), since a sandbox that holds for
 * root may still fail for an ordinary user (user namespaces are made differently) and the other
 * way round. Each run gets a scratch world it owns: a root, a home with credentials in it, a
 * state directory, a place outside the roots that the user could write without the sandbox.
 */
import { execFileSync } from "node:child_process";
import { chownSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { E2e } from "./e2e.ts";
import { PRODUCT_BINARY, type RawClient } from "./raw_client.ts";

const NOBODY = 65534;
const SETPRIV = "/usr/bin/setpriv";

export interface SandboxUser {
  /** "root", "uid 65534", "this user". */
  name: string;
  uid: number;
  /** Why its tests are skipped, when they are. */
  skip: string | false;
  /** `setpriv …` before the binary, or nothing. */
  prefix: string[];
}

function hasSetpriv(): boolean {
  try {
    execFileSync(SETPRIV, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The users to attack as: this one, and uid 65534 when this one is root. */
export function sandboxUsers(): SandboxUser[] {
  if (process.platform !== "linux") {
    const skip = "the sandbox's attack suite runs on Linux";
    return [{ name: "this user", uid: -1, skip, prefix: [] }];
  }
  const uid = process.getuid!();
  const self: SandboxUser = {
    name: uid === 0 ? "root" : `uid ${uid}`,
    uid,
    skip: false,
    prefix: [],
  };
  const nobody: SandboxUser = {
    name: `uid ${NOBODY}`,
    uid: NOBODY,
    skip: uid !== 0
      ? "running as another user needs root: run the suite as root to attack as uid 65534 too"
      : !hasSetpriv()
      ? "setpriv is missing (util-linux): cannot run toolhost as uid 65534"
      : false,
    prefix: [SETPRIV, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"],
  };
  return [self, nobody];
}

/** A user's scratch world, and the server started in it. */
export interface World {
  base: string;
  root: string;
  home: string;
  state: string;
  /** Outside the roots, writable by the user without the sandbox. */
  out: string;
  /** The private key planted in the home. */
  secret: string;
  client: RawClient;
}

/** Gives a tree to `uid` (a no-op for the user running the suite). */
export function own(path: string, uid: number): void {
  if (uid === process.getuid!()) return;
  chownSync(path, uid, uid);
  if (!lstatSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) own(join(path, name), uid);
}

export interface WorldOptions {
  /** Adds files to the world before it is given to the user and the server starts. */
  prepare?: (world: Omit<World, "client">) => void;
  env?: Record<string, string>;
  args?: string[];
  /** The home and the state directory inside the root: only the sandbox's mounts guard them. */
  homeInRoot?: boolean;
  /** A program (and its arguments) that starts the binary, after `setpriv` when there is one. */
  wrapper?: string[];
}

/**
 * Makes the world and starts the product binary in it as `user`, the root its only root and
 * working directory.
 */
export function startWorld(e2e: E2e, user: SandboxUser, options: WorldOptions = {}): World {
  const base = e2e.scratch("sandbox");
  const made = (path: string) => {
    mkdirSync(path, { recursive: true });
    return path;
  };
  const root = made(join(base, "root"));
  const inner = options.homeInRoot ? root : base;
  const home = made(join(inner, "home"));
  const state = made(join(inner, "state"));
  const out = made(join(base, "out"));
  mkdirSync(join(home, ".ssh"), { mode: 0o700 });
  const secret = `-----BEGIN OPENSSH PRIVATE KEY----- planted-${process.pid}-${Date.now()}`;
  writeFileSync(join(home, ".ssh", "id_ed25519"), `${secret}\n`, { mode: 0o600 });
  writeFileSync(join(out, "existing.txt"), "untouched\n");
  const world = { base, root, home, state, out, secret };
  options.prepare?.(world);
  own(base, user.uid);
  const argv = [...user.prefix, ...options.wrapper ?? [], PRODUCT_BINARY];
  const launcher = { binary: argv[0], args: argv.slice(1) };
  const client = e2e.server({
    binary: launcher.binary,
    args: [...launcher.args, "--root", root, ...options.args ?? []],
    cwd: root,
    env: {
      HOME: home,
      TOOLHOST_STATE_DIR: state,
      XDG_CONFIG_HOME: join(home, ".config"),
      // `npx deno task test` hands npm's own cache (root's ~/.npm) to everything it starts; the
      // world's npm uses the world's home like every other tool.
      npm_config_cache: join(home, ".npm"),
      ...options.env,
    },
  });
  return { ...world, client };
}

/** What a program planted by a command wrote at `path` outside the roots, said; "" when nothing. */
export function writtenOutside(path: string): string {
  try {
    return `written outside the roots: ${readFileSync(path, "utf8")}`;
  } catch {
    return "";
  }
}
