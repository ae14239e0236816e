/**
 * The one policy, by kind and mode, and the helper's arguments made from it: what is writable,
 * what stays protected (toolhost's files with the directories above them pinned, each
 * repository's hooks and config, a worktree's git directories), what is hidden, where caches go.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { defaultSettings, type Settings } from "../../config/settings.ts";
import { policyFor, type ProcessKind } from "../../tools/_lib/confine/_policy.ts";
import { linuxArguments } from "../../tools/_lib/confine/_linux.ts";

function world() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-policy-")));
  const made = (...parts: string[]) => {
    const path = join(base, ...parts);
    mkdirSync(path, { recursive: true });
    return path;
  };
  return { base, made, root: made("root"), home: made("home"), temp: made("temp") };
}

function policy(
  w: ReturnType<typeof world>,
  kind: ProcessKind,
  change: (s: Settings) => void = () => {},
  stateDir = join(w.base, "state"),
  env: Record<string, string> = {},
) {
  const settings = defaultSettings();
  settings.configFiles = [
    join(w.home, ".config", "toolhost", "config.jsonc"),
    join(w.root, ".toolhost.jsonc"),
  ];
  change(settings);
  return policyFor({
    kind,
    settings,
    roots: [w.root],
    home: w.home,
    env: { XDG_RUNTIME_DIR: "/run/user/4242", ...env },
    uid: 4242,
    stateDir,
    temp: kind === "search" ? undefined : w.temp,
  });
}

test("kinds: a command writes the roots and its temp; a search nothing; read-only only the temp", () => {
  const w = world();
  const command = policy(w, "command", (s) => (s.sandbox.allowWrite = ["/data"]));
  assert.deepEqual(command.writable.slice(0, 3), [w.root, "/data", w.temp]);
  assert.equal(command.env.TMPDIR, w.temp);
  const search = policy(w, "search");
  assert.deepEqual([search.writable, search.temp, search.env], [[], undefined, {}]);
  const readOnly = policy(w, "command", (s) => (s.readOnly = true));
  assert.equal(readOnly.mode, "read-only");
  assert.ok(!readOnly.writable.includes(w.root));
  assert.ok(readOnly.writable.includes(w.temp));
  const server = policy(w, "language-server", (s) => (s.toolsProfile = "read-only"));
  assert.equal(server.env.GOTOOLCHAIN, "local", "no Go toolchain named by the project runs");
  assert.ok(!server.writable.includes(w.root));
});

test("caches: the user's existing ones shared; a missing one, or all under session, in $TMPDIR", () => {
  const w = world();
  w.made("home", ".npm");
  w.made("home", ".cargo", "registry");
  const shared = policy(w, "command");
  assert.ok(shared.writable.includes(join(w.home, ".npm")));
  assert.ok(shared.writable.includes(join(w.home, ".cargo", "registry")));
  assert.ok(shared.writableFiles.includes(join(w.home, ".cargo", ".package-cache")));
  assert.ok(existsSync(join(w.home, ".cargo", ".package-cache")), "cargo's lock file is made");
  assert.equal(shared.env.npm_config_cache, undefined);
  assert.equal(shared.env.PIP_CACHE_DIR, join(w.temp, "caches", "pip"), "no ~/.cache/pip yet");
  const session = policy(w, "command", (s) => (s.sandbox.caches = "session"));
  assert.ok(!session.writable.includes(join(w.home, ".npm")));
  assert.equal(session.env.npm_config_cache, join(w.temp, "caches", "npm"));
  assert.ok(!session.writable.includes(join(w.home, ".cargo", "registry")), "cargo: read only");
});

test("a cache that cannot be looked at is not there: the command runs without it", () => {
  const w = world();
  // Under a file (ENOTDIR), as another user's npm_config_cache is to this one (EACCES): both throw.
  writeFileSync(join(w.base, "a-file"), "");
  const unreachable = join(w.base, "a-file", "npm");
  const plan = policy(w, "command", undefined, undefined, { npm_config_cache: unreachable });
  assert.ok(!plan.writable.includes(unreachable));
  assert.equal(plan.env.npm_config_cache, join(w.temp, "caches", "npm"));
});

test("toolhost's files inside a writable place are read-only, the directories above them pinned", () => {
  const w = world();
  const settings = (s: Settings) => (s.sandbox.allowWrite = [w.home]);
  const p = policy(w, "command", settings, join(w.home, ".local", "state", "toolhost"));
  const protectedPaths = p.readOnly.map((entry) => entry.path);
  assert.ok(protectedPaths.includes(join(w.home, ".local", "state", "toolhost")));
  assert.ok(
    protectedPaths.includes(join(w.home, ".config", "toolhost")),
    "the user file's directory",
  );
  assert.ok(existsSync(join(w.home, ".config", "toolhost")), "made, so it can be held");
  assert.deepEqual(p.pinned.sort(), [
    join(w.home, ".config"),
    join(w.home, ".local"),
    join(w.home, ".local", "state"),
  ]);
  // Outside every writable place there is nothing to hold.
  assert.deepEqual(policy(w, "command").pinned, []);
});

test("hidden: the credentials and the session's sockets; allow_read lifts an entry, deny_read adds", () => {
  const w = world();
  const p = policy(w, "command", (s) => {
    s.sandbox.allowRead = [join(w.home, ".npmrc")];
    s.sandbox.denyRead = ["/opt/secret"];
  });
  const hidden = p.hidden.map((h) => h.path);
  assert.ok(hidden.includes(join(w.home, ".ssh")));
  assert.ok(hidden.includes("/run/user/4242"));
  assert.ok(!hidden.includes(join(w.home, ".npmrc")));
  assert.equal(p.hidden.find((h) => h.path === "/opt/secret")?.setting, "sandbox.deny_read");
});

test("the helper's arguments: a repository's parts protected, a worktree's git directories writable", () => {
  const w = world();
  execFileSync("git", ["init", "-q", w.root]);
  const main = join(w.base, "main");
  execFileSync("git", ["init", "-q", main]);
  execFileSync("git", ["-C", main, "commit", "-q", "--allow-empty", "-m", "x"], {
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
  const tree = join(w.base, "tree");
  execFileSync("git", ["-C", main, "worktree", "add", "-q", tree]);
  writeFileSync(join(w.home, ".netrc"), "x");
  const p = policyFor({
    kind: "command",
    settings: defaultSettings(),
    roots: [w.root, tree],
    home: w.home,
    env: {},
    uid: 4242,
    stateDir: join(w.base, "state"),
    temp: w.temp,
  });
  const args = linuxArguments(p, { landlockOnly: false, network: "none", keep: [3] }, "/bin/sh", [
    "-c",
    "x",
  ]);
  const pairs = (flag: string) => args.flatMap((arg, i) => (args[i - 1] === flag ? [arg] : []));
  assert.ok(pairs("-p").includes(join(w.root, ".git")));
  assert.ok(pairs("-R").includes(join(w.root, ".git", "hooks")));
  assert.ok(pairs("-R").includes(join(w.root, ".git", "config")));
  assert.ok(pairs("-R").includes(join(tree, ".git")), "the gitfile cannot be pointed elsewhere");
  assert.ok(pairs("-w").includes(join(main, ".git")), "the common directory: commits work");
  assert.ok(pairs("-R").includes(join(main, ".git", "hooks")));
  assert.ok(pairs("-h").includes(join(w.home, ".netrc")), "an existing credential is hidden");
  assert.ok(pairs("-h").includes(join(w.home, ".aws")), "a missing one too: the helper skips it");
  assert.deepEqual(args.slice(-6), ["-k", "3", "--", "/bin/sh", "-c", "x"]);
  assert.ok(args.includes("-s"));
  // Landlock alone: nothing mounted, sockets not "hidden" (it cannot), -N first.
  const alone = linuxArguments(
    p,
    { landlockOnly: true, network: "deny", keep: [] },
    "/bin/true",
    [],
  );
  assert.equal(alone[1], "-N");
  assert.ok(!alone.includes("-R") && !alone.includes("-p") && !alone.includes("-s"));
});
