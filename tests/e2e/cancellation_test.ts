/**
 * Cancelling bash through the binary: whatever the timing, the command and everything it
 * started stop, no reply is sent, and the id can be used again.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { processesWith, waitUntil } from "../helpers/processes.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const test = posixOnlyTest("sh commands, process groups and /proc");

const marker = () => String(60000 + Math.floor(Math.random() * 9999));

const bashCall = (id: number, command: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: modern({ name: "bash", arguments: { command } }),
});

test("cancelling a running bash call kills its whole process group and sends no reply", async () => {
  const c = e2e.server();
  const m = marker();
  c.send(bashCall(1, `sleep ${m}1 & sleep ${m}2; wait`));
  assert.ok(await waitUntil(() => processesWith(`sleep ${m}`).length >= 2, 5000));
  c.notify("notifications/cancelled", { requestId: 1, reason: "test" });
  assert.ok(
    await waitUntil(() => processesWith(`sleep ${m}`).length === 0, 2000),
    processesWith(`sleep ${m}`).join("; "),
  );
  // The id is free again, and the only reply to it is the new request's.
  c.send(bashCall(1, "echo again"));
  const reply = await c.responseTo(1);
  assert.match(JSON.stringify(reply.result), /again\\n/);
  assert.equal(c.messages.filter((msg) => msg.id === 1).length, 1);
  await c.close();
});

test("a cancel written together with its call stops the command before it does anything", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-cancel-"));
  for (let attempt = 0; attempt < 5; attempt++) {
    const c = e2e.server();
    const flag = join(dir, `ran-${attempt}`);
    const m = marker();
    c.sendLine(
      JSON.stringify(bashCall(7, `sleep 0.3; touch ${flag}; sleep ${m}`)) + "\n" +
        JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 7 },
        }),
    );
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(existsSync(flag), false, "the command's side effect happened after the cancel");
    assert.deepEqual(processesWith(`sleep ${m}`), []);
    assert.deepEqual((await c.request("ping")).result, {});
    assert.equal(c.messages.some((msg) => msg.id === 7), false, "no reply to a cancelled call");
    await c.close();
  }
});

test("a built-in grep cancelled while its worker reads a file leaves no descriptor open", async () => {
  const root = e2e.scratch("grep-cancel");
  // Lines where `a.*z.*q` backtracks over thousands of characters: seconds a file, each held
  // open by the search worker meanwhile.
  const line = "qa" + "z".repeat(5000) + "\n";
  for (let i = 0; i < 4; i++) writeFileSync(join(root, `f${i}.txt`), line.repeat(200));
  const c = e2e.server({ args: ["--root", root], cwd: root, env: { TOOLHOST_GREP: "builtin" } });
  const fdDir = `/proc/${c.child.pid}/fd`;
  const openInRoot = () =>
    readdirSync(fdDir).filter((fd) => {
      try {
        return readlinkSync(join(fdDir, fd)).startsWith(`${root}/f`);
      } catch {
        return false; // closed meanwhile
      }
    });
  try {
    for (const id of [1, 2]) {
      c.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: modern({ name: "grep", arguments: { pattern: "a.*z.*q", output_mode: "count" } }),
      });
      assert.ok(await waitUntil(() => openInRoot().length > 0, 20_000), "a file is being read");
      c.notify("notifications/cancelled", { requestId: id, reason: "test" });
      // The walk's directories are closed two seconds after a cancel; the file the terminated
      // worker held must go too.
      assert.ok(await waitUntil(() => openInRoot().length === 0, 15_000), openInRoot().join());
    }
  } finally {
    await c.close();
    rmSync(root, { recursive: true, force: true });
  }
});
