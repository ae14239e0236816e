/**
 * Real work under the sandbox's default (workspace-write, no network), through the binary, on
 * small projects the tests make: git commit, make and its test target, go build and go test,
 * cargo build --offline, a Python venv with `pip install -e .` from a local wheel and no index,
 * `npm ci` from a local cache and `npm test`. A missing toolchain skips its test, saying so.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";
import {
  cProject,
  crate,
  goProject,
  npmProject,
  python,
  pythonProject,
  rust,
  tool,
} from "../helpers/work_fixtures.ts";

const e2e = e2eFixture();
const [self] = sandboxUsers();

/** Why a test cannot run here: not Linux, or its toolchain is missing. */
const skipFor = (found: object) => self.skip || ("skip" in found ? found.skip as string : false);

/** Builds take their time on a busy machine; each call may take up to five minutes. */
const LONG = 300_000;

test("git: init, add and commit in the root, hooks and config untouched", {
  skip: skipFor(tool("git")),
}, async () => {
  let config = "";
  const w = startWorld(e2e, self, {
    prepare: ({ root, home }) => {
      execFileSync("git", ["init", "-q", root]);
      config = readFileSync(join(root, ".git", "config"), "utf8");
      // The identity from the user's own ~/.gitconfig, which commands read.
      writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@t\n");
    },
  });
  const reply = await callTool(w.client, "bash", {
    command: "echo one > a.txt && git add a.txt && git commit -qm first && " +
      "git checkout -qb topic && echo two >> a.txt && git commit -qam second && " +
      "git tag v1 && git stash list && git log --oneline | wc -l && git status --short",
  }, { timeoutMs: LONG });
  assert.equal(reply.isError, false, reply.text);
  assert.match(reply.text, /^2\n/);
  assert.equal(readFileSync(join(w.root, ".git", "config"), "utf8"), config);
});

test("make: builds a C program and runs the project's own test target", {
  skip: skipFor(tool("make")) || skipFor(tool("cc")),
}, async () => {
  const w = startWorld(e2e, self, { prepare: ({ root }) => cProject(root) });
  const reply = await callTool(w.client, "bash", { command: "make && make test" }, {
    timeoutMs: LONG,
  });
  assert.equal(reply.isError, false, reply.text);
  assert.match(reply.text, /make test: ok/);
});

test("go: build and test a module, its caches in $TMPDIR where the user has none", {
  skip: skipFor(tool("go")),
}, async () => {
  const w = startWorld(e2e, self, { prepare: ({ root }) => goProject(root) });
  const reply = await callTool(w.client, "bash", {
    command: "go build -o hello . && ./hello && go test ./... && go env GOCACHE",
  }, { timeoutMs: LONG });
  assert.equal(reply.isError, false, reply.text);
  assert.match(reply.text, /hello from go\nok\s+example\.com\/hello/);
  assert.match(reply.text, /\/tmp\/toolhost-\d+\/\d+-session-\w+\/caches\/go-build/);
});

test("cargo: build --offline a crate without dependencies, with the user's ~/.cargo", {
  skip: skipFor(rust()),
}, async () => {
  const { cargo, rustc } = rust() as { cargo: string; rustc: string };
  const w = startWorld(e2e, self, {
    prepare: ({ root, home }) => {
      crate(root);
      mkdirSync(join(home, ".cargo", "registry"), { recursive: true });
    },
    env: { RUSTC: rustc },
  });
  const reply = await callTool(w.client, "bash", {
    command: `${cargo} build --offline 2>&1 && ./target/debug/hello_crate`,
  }, { timeoutMs: LONG });
  assert.equal(reply.isError, false, reply.text);
  assert.match(reply.text, /hello from cargo/);
  assert.ok(existsSync(join(w.home, ".cargo", ".package-cache")), "its lock file is shared");
});

test("python: a venv, pip install -e . from a local wheel with no index, and its tests", {
  skip: skipFor(python()),
}, async () => {
  const py = (python() as { path: string }).path;
  const w = startWorld(e2e, self, { prepare: ({ root }) => pythonProject(root) });
  const reply = await callTool(w.client, "bash", {
    command: `cd app && ${py} -m venv .venv && ` +
      ".venv/bin/pip install -q --no-index --find-links ../wheels -e . 2>&1 && " +
      `cd / && ${w.root}/app/.venv/bin/python -c "import app; print(app.main())" && ` +
      `cd ${w.root}/app && .venv/bin/python -m unittest discover -s tests 2>&1 | tail -1`,
  }, { timeoutMs: LONG });
  assert.equal(reply.isError, false, reply.text);
  assert.match(reply.text, /hello app\nOK/);
});

test("npm: ci from the local cache with the network off, then the project's test script", {
  skip: skipFor(tool("npm")),
}, async () => {
  const w = startWorld(e2e, self, {
    prepare: ({ root, home }) => npmProject(root, home),
  });
  const reply = await callTool(w.client, "bash", {
    command:
      "cd app && npm ci --offline --no-audit --no-fund 2>&1 && npm test 2>&1 | grep -E '^# (pass|fail)'",
  }, { timeoutMs: LONG });
  assert.equal(reply.isError, false, reply.text);
  assert.match(reply.text, /added 1 package/);
  assert.match(reply.text, /# pass 1\n# fail 0/);
  assert.ok(existsSync(join(w.root, "app", "node_modules", "toolhost-fixture-greet", "index.js")));
});
