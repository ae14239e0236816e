/**
 * No command outlives its end: for every way a call or the server ends (end of input, SIGTERM,
 * SIGINT, SIGKILL of the server, a call's timeout, a cancel, bash_kill), every descendant of the
 * commands the compiled binary started is gone within 3 s — plain background jobs, `setsid`,
 * `nohup` and double forks included. Survivors are counted from /proc by a marker in their
 * command line. `outlive_server: true` is the one way to keep a process past the server.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { processesWith, waitUntil } from "../helpers/processes.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, RawClient } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const test = posixOnlyTest("signals, sessions, /proc and the watchdog");

const skip = process.platform !== "linux" && "survivors are counted from /proc: Linux only";

/** Five-digit markers from a range no other test uses; `sleep <marker><n>` is one process. */
const newMarker = () => String(40000 + Math.floor(Math.random() * 9999));

/**
 * Shell code leaving four descendants that do not hold the output: a plain background job,
 * a new session (setsid), nohup, and a double fork whose middle process exits at once.
 */
const leave = (m: string, n: number) =>
  `sleep ${m}${n}1 >/dev/null 2>&1 & setsid sleep ${m}${n}2 >/dev/null 2>&1 & ` +
  `nohup sleep ${m}${n}3 >/dev/null 2>&1 & (sh -c 'sleep ${m}${n}4 >/dev/null 2>&1 &' &); `;

const call = (name: string, args: Record<string, unknown>) => modern({ name, arguments: args });

/** Every process marked `m`: the sleeps, and the shells whose command line names them. */
const count = (m: string) => processesWith(`sleep ${m}`).length;
/** The sleeps alone. */
const sleeps = (m: string) =>
  processesWith(`sleep ${m}`).filter((line) => /^\d+: sleep /.test(line)).length;

/** Waits for `n` sleeps marked `m`, or fails saying how many there were. */
async function running(m: string, n: number) {
  assert.ok(await waitUntil(() => sleeps(m) === n, 5000), `${sleeps(m)} of ${n} started`);
}

/** Kills what is marked `m` and returns it, "pid: command line" each. */
function killAll(m: string): string[] {
  const left = processesWith(`sleep ${m}`);
  for (const line of left) {
    try {
      process.kill(Number(line.split(":")[0]), "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  return left;
}

/** Asserts nothing marked `m` runs within 3 s; kills what does, so a failure leaves no litter. */
async function noSurvivors(m: string, how: string) {
  const gone = await waitUntil(() => count(m) === 0, 3000);
  const left = killAll(m);
  assert.ok(gone, `${how}: ${left.length} survivor(s): ${left.join("; ")}`);
}

for (
  const [how, end] of [
    ["end of input", (c: RawClient) => c.closeStdin()],
    ["SIGTERM", (c: RawClient) => process.kill(c.child.pid!, "SIGTERM")],
    ["SIGINT", (c: RawClient) => process.kill(c.child.pid!, "SIGINT")],
    ["SIGKILL of the server", (c: RawClient) => process.kill(c.child.pid!, "SIGKILL")],
  ] as const
) {
  test(`${how}: no descendant of any command survives`, { skip }, async () => {
    const m = newMarker();
    const c = e2e.server();
    // A finished bash call, a background process and a bash call still running.
    await c.request("tools/call", call("bash", { command: `${leave(m, 1)} echo done` }));
    await c.request(
      "tools/call",
      call("bash_background", { command: `${leave(m, 2)} sleep ${m}25`, grace_ms: 0 }),
    );
    c.start("tools/call", call("bash", { command: `${leave(m, 3)} sleep ${m}35` }));
    await running(m, 14);
    end(c);
    await c.exited;
    await noSurvivors(m, how);
  });
}

test("a call's timeout_ms: no descendant survives, the server goes on", { skip }, async () => {
  const m = newMarker();
  const c = e2e.server();
  const id = c.start(
    "tools/call",
    call("bash", { command: `${leave(m, 1)} sleep ${m}15`, timeout_ms: 1500 }),
  );
  await running(m, 5);
  const reply = await c.responseTo(id);
  assert.match(JSON.stringify(reply.result), /Timed out/);
  await noSurvivors(m, "timeout");
  await c.close();
});

test("notifications/cancelled: no descendant survives", { skip }, async () => {
  const m = newMarker();
  const c = e2e.server();
  const id = c.start("tools/call", call("bash", { command: `${leave(m, 1)} sleep ${m}15` }));
  await running(m, 5);
  c.notify("notifications/cancelled", { requestId: id });
  await noSurvivors(m, "cancel");
  await c.close();
});

test("bash_kill of a background process: no descendant survives", { skip }, async () => {
  const m = newMarker();
  const c = e2e.server();
  await c.request(
    "tools/call",
    call("bash_background", { command: `${leave(m, 1)} sleep ${m}15`, grace_ms: 0 }),
  );
  await running(m, 5);
  await c.request("tools/call", call("bash_kill", { id: "p1" }));
  await noSurvivors(m, "bash_kill");
  await c.close();
});

test("outlive_server: true keeps a background process past the server's end, and only it", {
  skip,
}, async () => {
  const m = newMarker();
  const c = e2e.server();
  await c.request(
    "tools/call",
    call("bash_background", {
      command: `setsid sleep ${m}11 >/dev/null 2>&1 & sleep ${m}12 >/dev/null 2>&1`,
      grace_ms: 0,
      outlive_server: true,
    }),
  );
  await c.request(
    "tools/call",
    call("bash_background", { command: `${leave(m, 2)} sleep ${m}25`, grace_ms: 0 }),
  );
  await running(m, 7);
  process.kill(c.child.pid!, "SIGKILL");
  await c.exited;
  const killed = await waitUntil(() => count(`${m}2`) === 0, 3000);
  const kept = sleeps(`${m}1`);
  const left = killAll(m);
  assert.ok(killed, `the ordinary background process went with the server: ${left.join("; ")}`);
  assert.equal(kept, 2, "the one started with outlive_server: true is still running");
});
