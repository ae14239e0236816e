/**
 * The fallback ladder through the binary, each rung shown on this machine by standing in for the
 * kernel's answer (TOOLHOST_SANDBOX_PROBE): Landlock without user namespaces still confines
 * writes, credentials and the network and says what it cannot guarantee; with no Landlock there
 * is no sandbox, said at start, in list_roots and on every command's result, and
 * `sandbox.required` then refuses commands. Also the mode off, by choice, said the same way.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();
const [self] = sandboxUsers();
const skip = self.skip;

test(
  "Landlock without namespaces: writes, credentials and sockets still confined; the losses said",
  {
    skip,
  },
  async () => {
    const w = startWorld(e2e, self, {
      env: { TOOLHOST_SANDBOX_PROBE: "landlock=7 userns=0 netns=0" },
    });
    await w.client.waitForStderr(
      /sandbox: workspace-write \(Landlock 7 only \(no user namespaces\)\)/,
    );
    assert.match(
      w.client.stderr,
      /not guaranteed here: \.git\/hooks, \.git\/config and toolhost's files/,
    );
    const reply = await callTool(w.client, "bash", {
      command: `echo x > ${w.out}/outside.txt; cat ~/.ssh/id_ed25519; ` +
        'python3 -c "import socket; socket.socket()" 2>&1 | tail -1; echo in > inside.txt',
    });
    assert.equal(existsSync(join(w.out, "outside.txt")), false);
    assert.ok(!reply.text.includes(w.secret), reply.text);
    assert.match(reply.text, /PermissionError|Permission denied/);
    assert.equal(existsSync(join(w.root, "inside.txt")), true);
    const roots = await callTool(w.client, "list_roots", {});
    const sandbox = roots.data.sandbox as { mechanism: string; notGuaranteed: string[] };
    assert.match(sandbox.mechanism, /Landlock 7 only/);
    assert.ok(sandbox.notGuaranteed.some((line) => /\.git\/hooks/.test(line)), roots.text);
  },
);

test("no Landlock: no sandbox, said at start, in list_roots and first on every command's result", {
  skip,
}, async () => {
  const w = startWorld(e2e, self, {
    env: { TOOLHOST_SANDBOX_PROBE: "landlock=0 userns=1 netns=1" },
  });
  await w.client.waitForStderr(/sandbox: unavailable: this kernel has no Landlock/);
  const reply = await callTool(w.client, "bash", { command: "echo ran" });
  assert.match(
    reply.text,
    /^\[no sandbox: this kernel has no Landlock .*; this ran with your full rights\]\nran\n/,
  );
  const background = await callTool(w.client, "bash_background", { command: "echo bg" });
  assert.match(background.text, /^\[no sandbox: this kernel has no Landlock/);
  const roots = await callTool(w.client, "list_roots", {});
  assert.match(roots.text, /sandbox: unavailable: this kernel has no Landlock/);
  assert.equal((roots.data.sandbox as { mechanism: string }).mechanism, "none");
});

test("sandbox.required refuses to run commands where there is no sandbox", { skip }, async () => {
  const w = startWorld(e2e, self, {
    env: { TOOLHOST_SANDBOX_PROBE: "landlock=0 userns=0 netns=0", TOOLHOST_SANDBOX_REQUIRED: "1" },
  });
  await w.client.waitForStderr(/commands are refused \(sandbox\.required\)/);
  const reply = await callTool(w.client, "bash", { command: `echo x > ${w.out}/ran.txt` });
  assert.equal(reply.isError, true);
  assert.match(
    reply.text,
    /not started: sandbox\.required is true, and this kernel has no Landlock/,
  );
  assert.equal(existsSync(join(w.out, "ran.txt")), false);
  // grep's search only reads, and still answers (its rg unconfined, or the built-in search).
  const grep = await callTool(w.client, "grep", { pattern: "x", path: "." });
  assert.equal(grep.isError, false, grep.text);
});

test("the mode off is said too, and commands then run with the user's full rights", {
  skip,
}, async () => {
  const w = startWorld(e2e, self, { args: ["--sandbox", "off"] });
  await w.client.waitForStderr(
    /sandbox: off \(sandbox\.mode\); commands run with your full rights/,
  );
  const reply = await callTool(w.client, "bash", { command: `echo x > ${w.out}/off.txt` });
  assert.match(reply.text, /^\[sandbox off \(sandbox\.mode\): this ran with your full rights\]/);
  assert.equal(existsSync(join(w.out, "off.txt")), true);
});

test("the read-only mode: nothing in the roots is written, $TMPDIR is", { skip }, async () => {
  const w = startWorld(e2e, self, { args: ["--sandbox", "read-only"] });
  const reply = await callTool(w.client, "bash", {
    command: 'echo x > inside.txt; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"',
  });
  assert.equal(existsSync(join(w.root, "inside.txt")), false);
  assert.match(reply.text, /^\S*: line 1: inside\.txt: Permission denied\nt\n/);
  assert.match(
    reply.text,
    /sandbox: refused writing .*\/inside\.txt \(the sandbox is read-only; sandbox\.mode\)/,
  );
});
