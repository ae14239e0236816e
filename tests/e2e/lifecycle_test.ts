/**
 * How the binary ends: end of input, SIGTERM, SIGINT, a client that stops reading. Each time it
 * exits 0 within 2 s, answers or abandons work cleanly, and leaves no process of ours behind.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { processesWith, waitUntil } from "../helpers/processes.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, RawClient, TEST_BINARY } from "../helpers/raw_client.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

const test = posixOnlyTest(
  "signals (SIGTERM, SIGINT, SIGHUP) and process groups; Windows can only terminate",
);

/**
 * Starts the product binary running a long bash command that leaves a background process of its
 * own, and a bash_background process with a grandchild.
 */
async function busyServer(marker: string) {
  const c = e2e.server();
  await c.request("ping"); // running, with its signal handlers installed
  // Distinct sleep durations make our processes easy to find in the process table.
  const background = `sleep ${marker}3 & sleep ${marker}4`;
  await c.request(
    "tools/call",
    modern({ name: "bash_background", arguments: { command: background, grace_ms: 0 } }),
  );
  const command = `sleep ${marker}1 & sleep ${marker}2`;
  const id = c.start("tools/call", modern({ name: "bash", arguments: { command } }));
  const started = await waitUntil(() => processesWith(`sleep ${marker}`).length >= 4, 5000);
  assert.ok(started, "all four sleeps are running");
  return { c, id };
}

for (
  const [how, end] of [
    ["end of input", (c: RawClient) => c.closeStdin()],
    // process.kill, not child.kill: Deno's ChildProcess then reports the signal, not the exit code.
    ["SIGTERM", (c: RawClient) => process.kill(c.child.pid!, "SIGTERM")],
    ["SIGINT", (c: RawClient) => process.kill(c.child.pid!, "SIGINT")],
    ["SIGHUP", (c: RawClient) => process.kill(c.child.pid!, "SIGHUP")],
  ] as const
) {
  test(`${how}: exits 0 within 2 s and kills every process group it started`, async () => {
    const marker = String(90000 + Math.floor(Math.random() * 9999));
    const { c, id } = await busyServer(marker);
    const before = Date.now();
    end(c);
    const status = await c.exited;
    const elapsed = Date.now() - before;
    assert.deepEqual(status, { code: 0, signal: null });
    // Its budget is 1.8 s; the sleeps it started would take a day. A bound far from both holds on
    // a loaded machine and still tells a server that waited for its work.
    assert.ok(elapsed < 30_000, `exited after ${elapsed} ms`);
    const gone = await waitUntil(() => processesWith(`sleep ${marker}`).length === 0, 1000);
    assert.ok(gone, `left behind: ${processesWith(`sleep ${marker}`).join("; ")}`);
    assert.deepEqual(c.strayLines, []);
    assert.equal(c.unterminated, "");
    if (how === "end of input") {
      // The stopped call is still answered, saying why it stopped.
      const reply = c.messages.find((m) => m.id === id);
      assert.match(JSON.stringify(reply?.result), /server is shutting down/);
    }
  });
}

test("end of input right after a quick request: the reply is written before exit", async () => {
  const c = e2e.server();
  c.start("tools/call", modern({ name: "bash", arguments: { command: "echo piped" } }), "q");
  c.closeStdin();
  const status = await c.exited;
  assert.equal(status.code, 0);
  const reply = c.messages.find((m) => m.id === "q");
  assert.match(JSON.stringify(reply?.result), /piped\\n/);
});

test("end of input with a call whose child ignores SIGTERM: every call is answered as stopped", async () => {
  const marker = String(70000 + Math.floor(Math.random() * 9999));
  const c = e2e.server();
  await c.request("ping");
  const stubborn = c.start(
    "tools/call",
    modern({ name: "bash", arguments: { command: `trap '' TERM; sleep ${marker}1; sleep 1` } }),
    "stubborn",
  );
  const plain = c.start(
    "tools/call",
    modern({ name: "bash", arguments: { command: `sleep ${marker}2` } }),
    "plain",
  );
  const started = await waitUntil(() => processesWith(`sleep ${marker}`).length >= 2, 5000);
  assert.ok(started, "both sleeps are running");
  c.closeStdin();
  const status = await c.exited;
  assert.deepEqual(status, { code: 0, signal: null });
  for (const id of [stubborn, plain]) {
    const reply = c.messages.find((m) => m.id === id);
    assert.equal(reply?.result?.isError, true, `${id}: ${JSON.stringify(reply)}`);
    assert.match(JSON.stringify(reply?.result), /server is shutting down/, String(id));
  }
  assert.equal(c.messages.filter((m) => m.id === stubborn).length, 1);
  assert.deepEqual(c.strayLines, []);
});

test("a client that stops reading stdout: the server notices on its next write, exits, and leaves nothing", async () => {
  const marker = String(80000 + Math.floor(Math.random() * 9999));
  const c = e2e.server();
  await c.request(
    "tools/call",
    modern({ name: "bash_background", arguments: { command: `sleep ${marker}`, grace_ms: 0 } }),
  );
  c.child.stdout!.destroy();
  c.start("tools/call", modern({ name: "bash", arguments: { command: "echo into the void" } }));
  const status = await Promise.race([
    c.exited,
    new Promise<null>((r) => setTimeout(() => r(null), 5000)),
  ]);
  assert.ok(status, "exited after its reader went away");
  assert.equal(status.code, 0);
  assert.ok(await waitUntil(() => processesWith(`sleep ${marker}`).length === 0, 1000));
});

test("nothing but JSON-RPC reaches stdout, even when tools and the server log a lot", async () => {
  const c = e2e.server({ binary: TEST_BINARY, args: ["--log-level", "debug"] });
  await c.initialize();
  await c.request("logging/setLevel", { level: "debug" });
  await c.request("tools/call", { name: "logs", arguments: {} });
  await c.request("tools/call", { name: "bash", arguments: { command: "echo out; echo err >&2" } });
  await c.request("tools/call", { name: "fail", arguments: { how: "crash" } });
  c.notify("notifications/unknown");
  await c.close();
  assert.deepEqual(c.strayLines, []);
  assert.equal(c.unterminated, "");
  assert.match(c.stderr, /toolhost error: tool fail threw: TypeError: fixture crash/);
  assert.match(c.stderr, /notification "notifications\/unknown"/);
});

test("end of input while the client has stopped reading: still exits 0 within 2 s", async () => {
  const c = e2e.server({ binary: TEST_BINARY });
  await c.request("ping");
  c.child.stdout!.pause();
  c.start("tools/call", modern({ name: "big", arguments: { size: 8_000_000 } }));
  c.start("ping");
  await new Promise((r) => setTimeout(r, 300));
  const before = Date.now();
  c.closeStdin();
  const status = await Promise.race([
    c.exited,
    new Promise<null>((r) => setTimeout(() => r(null), 5000)),
  ]);
  assert.ok(status, "it exited");
  assert.equal(status.code, 0);
  // Budget 1.8 s; a server waiting for the client to read 8 MB would wait for ever.
  assert.ok(Date.now() - before < 30_000, `exit took ${Date.now() - before} ms`);
});

test("fifty bash calls at once do not hold up ping", async () => {
  const c = e2e.server();
  const ids = Array.from(
    { length: 50 },
    () => c.start("tools/call", modern({ name: "bash", arguments: { command: "sleep 600" } })),
  );
  // Answered while every call still runs, however slow the machine: order, not time.
  assert.deepEqual((await c.request("ping", undefined, 60_000)).result, {});
  assert.equal(c.messages.filter((m) => ids.includes(m.id as string | number)).length, 0);
  for (const id of ids) c.notify("notifications/cancelled", { requestId: id });
  await c.close();
});
