/**
 * Language servers that misbehave, through the compiled binary: a fake server (configured with
 * code.language_servers) that is killed mid-request, never answers initialize, floods its
 * output, or crashes at every request. Each call ends with a sentence saying what happened, the
 * rest of the server keeps answering, and no server process outlives toolhost.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { ROOT } from "../helpers/raw_client.ts";
import { call, ok, project, startOn } from "../helpers/code_servers.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { childrenOf } from "../helpers/processes_tree.ts";

const POSIX = posixOnly("the fake server is a node script started through a POSIX PATH");
const FAKE = join(ROOT, "tests", "code", "fake_lsp_server.mjs");
const e2e = e2eFixture();

/** toolhost on a project of one `.fake` file, the fake server configured in `mode`. */
function startFake(mode: string, env: Record<string, string> = {}) {
  const root = project(`fake-${mode}`, { "x.fake": "let thing = 1;\n" });
  const config = join(mkdtempSync(join(tmpdir(), "toolhost-fake-config-")), "config.jsonc");
  writeFileSync(
    config,
    JSON.stringify({
      code: {
        language_servers: { fake: { command: ["node", FAKE, mode], extensions: [".fake"] } },
      },
    }),
  );
  // Inside the root: the server runs in the sandbox, which writes nowhere else.
  const pidFile = join(root, ".fake-lsp.pid");
  const c = startOn(e2e, root, ["--config", config], { FAKE_LSP_PID: pidFile, ...env });
  return { c, pidFile, root };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`waited 30 s for ${what}`);
}

test("a server killed mid-request: the call says so, the next one restarts it", POSIX, async () => {
  const { c, pidFile } = startFake("hang-references");
  const pending = call(c, "code_nav", {
    operation: "references",
    path: "x.fake",
    line: 1,
    column: 5,
  });
  await until(() => existsSync(`${pidFile}.refs`), "the references request to reach the server");
  const first = Number(readFileSync(pidFile, "utf8"));
  process.kill(first, "SIGKILL");
  const killed = await pending;
  assert.equal(killed.isError, true);
  assert.match(killed.text, /^fake \(.*\): the server ended: it exited \(signal SIGKILL\)/);
  const again = await ok(c, "code_nav", {
    operation: "definition",
    path: "x.fake",
    line: 1,
    column: 5,
  });
  // The first answer of the new server says, once, why the previous one ended.
  assert.match(
    again.text,
    /^fake: 1 result\nx\.fake:1:5\nnote: fake was started again: the previous one ended \(it exited \(signal SIGKILL\)\)$/,
  );
  const second = Number(readFileSync(pidFile, "utf8"));
  assert.notEqual(second, first);
  await c.close();
  await until(() => !alive(second), "the server to end with toolhost");
});

for (const mode of ["slow-talking", "busy-silent"]) {
  test(
    `a server that is slow but talks or computes (${mode}) is left to answer: the call says no answer, the next is served by it`,
    POSIX,
    async () => {
      const { c, pidFile } = startFake(mode, { TOOLHOST_CODE_QUERY_WAIT_SECONDS: "6" });
      const at = { path: "x.fake", line: 1, column: 5 };
      await ok(c, "code_nav", { operation: "definition", ...at });
      const first = Number(readFileSync(pidFile, "utf8"));
      const slow = await call(c, "code_nav", { operation: "references", ...at });
      assert.equal(slow.isError, true);
      assert.match(slow.text, /textDocument\/references got no answer within 6 s$/);
      const again = await ok(c, "code_nav", { operation: "definition", ...at });
      assert.equal(again.text, "fake: 1 result\nx.fake:1:5");
      assert.equal(Number(readFileSync(pidFile, "utf8")), first);
      assert.ok(alive(first));
    },
  );
}

/** A process started (at any depth) by `pid` whose command line holds `marker`. */
function startedBy(pid: number, marker: string): number | undefined {
  for (const child of childrenOf(pid)) {
    try {
      if (readFileSync(`/proc/${child}/cmdline`, "utf8").includes(marker)) return child;
    } catch {
      continue; // ended meanwhile
    }
    const deeper = startedBy(child, marker);
    if (deeper !== undefined) return deeper;
  }
  return undefined;
}

test(
  "a real server frozen mid-call (pyright, SIGSTOP): the call says so, the next gets a new one",
  POSIX,
  async () => {
    const root = project("py-frozen", {
      "pyproject.toml": "[project]\nname = 'p'\n",
      "m.py": "def f(n: int) -> int:\n    return n\n",
      "u.py": "from m import f\n\nv: int = f(1)\n",
    });
    const c = startOn(e2e, root, [], { TOOLHOST_CODE_QUERY_WAIT_SECONDS: "8" });
    const refs = { operation: "references", path: "m.py", line: 1, column: 5 };
    // Loaded first: a server still loading is not asked to answer in the query's time.
    let warm = await ok(c, "code_nav", refs);
    for (let i = 0; i < 20 && warm.structured?.incomplete; i++) {
      warm = await ok(c, "code_nav", refs);
    }
    assert.equal(warm.structured?.incomplete, undefined, warm.text);
    const pid = startedBy(c.child.pid!, "pyright");
    assert.ok(pid, "pyright runs for the project");
    const group = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[2]);
    process.kill(-group, "SIGSTOP");
    try {
      const frozen = await call(c, "code_nav", refs);
      assert.equal(frozen.isError, true, frozen.text);
      assert.match(
        frozen.text,
        /^pyright \(.*\): textDocument\/references got no answer within \d+ s, and wrote nothing at all meanwhile \(not even progress\) and used no CPU: it was taken for frozen and killed; the next call starts a new one$/,
      );
      const fresh = await ok(c, "code_nav", refs);
      assert.match(fresh.text, /^pyright: 3 results\n3 references in 2 files\n/, fresh.text);
      assert.match(
        fresh.text,
        /note: pyright was started again: the previous one ended \(it wrote nothing for \d+ s while a request waited and used no CPU: taken for frozen, it was killed\)/,
      );
      assert.notEqual(startedBy(c.child.pid!, "pyright"), pid);
    } finally {
      try {
        process.kill(-group, "SIGCONT");
      } catch {
        // killed as frozen
      }
    }
  },
);

test(
  "a server that never answers initialize: refused after the time limit; ping still answers",
  POSIX,
  async () => {
    const { c } = startFake("hang-initialize");
    const pending = call(c, "code_nav", { operation: "definition", path: "x.fake", line: 1 });
    const ping = await c.request("ping", undefined, 5000);
    assert.deepEqual(ping.result, {}, "ping answered while the server hangs");
    const hung = await pending;
    assert.equal(hung.isError, true);
    assert.match(
      hung.text,
      /fake could not be started for .*: initialize got no answer within 30 s/,
    );
  },
);

test(
  "a server that floods its output with a header that never ends is stopped",
  POSIX,
  async () => {
    const { c } = startFake("flood");
    const flooded = await call(c, "code_nav", { operation: "definition", path: "x.fake", line: 1 });
    assert.equal(flooded.isError, true);
    assert.match(flooded.text, /wrote a header longer than 8192 bytes/);
  },
);

test("a server that crashes at every request is not started a fourth time", POSIX, async () => {
  const { c } = startFake("crash");
  for (let i = 0; i < 3; i++) {
    const crashed = await call(c, "code_nav", { operation: "definition", path: "x.fake", line: 1 });
    assert.equal(crashed.isError, true);
    assert.match(crashed.text, /exited \(code 3\)/);
  }
  const refused = await call(c, "code_nav", { operation: "definition", path: "x.fake", line: 1 });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /ended 3 times .*not started again until toolhost restarts/);
});

test(
  "a binary file and one over 4 MB with a source extension are refused, never sent",
  POSIX,
  async () => {
    const { c, root } = startFake("ok");
    writeFileSync(join(root, "bin.fake"), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
    writeFileSync(join(root, "big.fake"), "x".repeat(5 * 1024 * 1024));
    const binary = await call(c, "code_nav", {
      operation: "definition",
      path: "bin.fake",
      line: 1,
    });
    assert.equal(binary.isError, true);
    assert.match(binary.text, /bin\.fake is a binary file, not source code/);
    const big = await call(c, "code_nav", { operation: "definition", path: "big.fake", line: 1 });
    assert.equal(big.isError, true);
    assert.match(big.text, /big\.fake is 5242880 bytes, over the 4194304-byte limit/);
    const fine = await ok(c, "code_nav", {
      operation: "definition",
      path: "x.fake",
      line: 1,
      column: 5,
    });
    assert.match(fine.text, /^fake: 1 result/);
  },
);

test(
  "a pull-only server (textDocument/diagnostic): an edit's new error, then its fix",
  POSIX,
  async () => {
    const { c } = startFake("pull");
    const none = await ok(c, "code_nav", { operation: "diagnostics", path: "x.fake" });
    assert.match(none.text, /^fake: 0 results/);
    const broke = await ok(c, "edit_file", {
      path: "x.fake",
      edits: [{ old_string: "thing", new_string: "BAD" }],
    });
    assert.match(
      broke.text,
      /diagnostics \(fake\): this edit introduced 1 error\nx\.fake:1:1 error BAD is not allowed here$/,
    );
    const fixed = await ok(c, "edit_file", {
      path: "x.fake",
      edits: [{ old_string: "BAD", new_string: "thing" }],
    });
    assert.match(fixed.text, /diagnostics \(fake\): no new errors; 1 fixed$/);
  },
);

/**
 * References asked of the fake in `mode` (one that never finishes loading) with a query wait of
 * 1 s: the answer must say it is incomplete, in the structure too.
 */
async function referencesWhileLoading(mode: string) {
  const { c } = startFake(mode, { TOOLHOST_CODE_QUERY_WAIT_SECONDS: "1" });
  const refs = await ok(c, "code_nav", {
    operation: "references",
    path: "x.fake",
    line: 1,
    column: 5,
  });
  assert.match(String(refs.structured?.incomplete), /^fake is still loading the project/);
  return { c, refs };
}

test(
  "a server still loading when the query's wait ends: the answer says incomplete, never a plain zero (issue 34, item 1)",
  POSIX,
  async () => {
    const { c, refs } = await referencesWhileLoading("loading");
    assert.match(
      refs.text,
      /^fake: 0 results\nincomplete: fake is still loading the project \(Indexing, \d+ s\); ask again shortly/,
    );
    // A rename now could miss files: refused, and nothing written.
    const renamed = await call(c, "rename_symbol", {
      path: "x.fake",
      line: 1,
      column: 5,
      new_name: "other",
    });
    assert.equal(renamed.isError, true);
    assert.match(renamed.text, /fake is still loading the project \(Indexing\)/);
  },
);

test(
  "a server still loading that does not answer in the query's time: incomplete, not an error",
  POSIX,
  async () => {
    const { refs } = await referencesWhileLoading("loading-silent");
    assert.match(
      refs.text,
      /^fake: 0 results\nincomplete: fake is still loading the project \(Indexing, \d+ s\); ask again shortly\nno answer yet: fake \(.*\): textDocument\/references got no answer within 1 s$/,
    );
    assert.equal(refs.structured?.count, 0);
  },
);

test("SIGKILL of toolhost: the watchdog ends its language server too", POSIX, async () => {
  const { c, pidFile } = startFake("ok");
  await ok(c, "code_nav", { operation: "definition", path: "x.fake", line: 1, column: 5 });
  const server = Number(readFileSync(pidFile, "utf8"));
  assert.ok(alive(server));
  c.child.kill("SIGKILL");
  await until(() => !alive(server), "the watchdog to kill the server");
});

test("a rename that would change a file outside the roots is refused whole", POSIX, async () => {
  const outside = join(mkdtempSync(join(tmpdir(), "toolhost-outside-")), "victim.fake");
  writeFileSync(outside, "let thing = 2;\n");
  const { c, root } = startFake("ok", { FAKE_LSP_OUTSIDE: outside });
  const refused = await call(c, "rename_symbol", {
    path: "x.fake",
    symbol: "thing",
    new_name: "other",
  });
  assert.equal(refused.isError, true);
  assert.match(
    refused.text,
    /would change 1 file\(s\) outside the allowed roots .*victim\.fake.*nothing was changed/,
  );
  assert.equal(readFileSync(outside, "utf8"), "let thing = 2;\n");
  assert.equal(readFileSync(join(root, "x.fake"), "utf8"), "let thing = 1;\n");
});

test(
  "plan mode refuses an edit before the diagnostics look at the file or the journal keeps it",
  POSIX,
  async () => {
    const state = mkdtempSync(join(tmpdir(), "toolhost-plan-state-"));
    // In the project (the server runs in the sandbox, which writes nowhere else), from its cwd.
    const { c, root } = startFake("ok", { TOOLHOST_STATE_DIR: state, FAKE_LSP_LOG: ".fake.log" });
    const log = join(root, ".fake.log");
    // The server runs and has the file open: an edit's diagnostics would start from it.
    await ok(c, "code_nav", { operation: "definition", path: "x.fake", line: 1, column: 5 });
    await ok(c, "plan_mode", { action: "enter", goal: "look before editing" });
    // Changed on disk: a look at the file before the edit would send the server its new text.
    writeFileSync(join(root, "x.fake"), "let thing = 3;\n");
    const heard = readFileSync(log, "utf8").split("\n").length;
    const refused = await call(c, "edit_file", {
      path: "x.fake",
      edits: [{ old_string: "thing", new_string: "other" }],
    });
    assert.equal(refused.isError, true, refused.text);
    assert.match(refused.text, /plan mode/i);
    assert.equal(readFileSync(join(root, "x.fake"), "utf8"), "let thing = 3;\n");
    // A later call's answer: whatever the refused call could have started has had its turn.
    await ok(c, "list_roots", {});
    const after = readFileSync(log, "utf8").split("\n").slice(heard - 1).join("\n");
    assert.doesNotMatch(
      after,
      /x\.fake/,
      `the server heard of the file after the refusal:\n${after}`,
    );
    // Nothing was kept for undo: the journal's undo store holds no content.
    const blobs = kept(state);
    assert.deepEqual(blobs, [], "the journal kept the file's content for a refused call");
  },
);

/** The content blobs of the undo stores under a state directory (named by their sha256). */
function kept(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => /(^|\/)[0-9a-f]{64}$/.test(path));
}

test("a server naming one file under two URIs: both its edits land, once each", POSIX, async () => {
  const { c, root } = startFake("ok", { FAKE_LSP_DOT_URI: "1" });
  const renamed = await ok(c, "rename_symbol", {
    path: "x.fake",
    symbol: "thing",
    new_name: "other",
  });
  assert.match(renamed.text, /renamed to other: 2 edits in 1 file\nx\.fake \(2\)$/);
  assert.equal(readFileSync(join(root, "x.fake"), "utf8"), "let other = 1;\n// other\n");
  await ok(c, "undo", {});
  assert.equal(readFileSync(join(root, "x.fake"), "utf8"), "let thing = 1;\n");
});

test(
  "a rename inside the roots: the reply counts the edits, one undo reverts it",
  POSIX,
  async () => {
    const { c, root } = startFake("ok");
    const renamed = await ok(c, "rename_symbol", {
      path: "x.fake",
      symbol: "thing",
      new_name: "other",
    });
    assert.match(renamed.text, /^fake: renamed to other: 1 edit in 1 file\nx\.fake \(1\)$/);
    assert.equal(readFileSync(join(root, "x.fake"), "utf8"), "let other = 1;\n");
    await ok(c, "undo", {});
    assert.equal(readFileSync(join(root, "x.fake"), "utf8"), "let thing = 1;\n");
  },
);
