/**
 * Without the command sandbox (where there is none to be had, or it is off), a command can see
 * toolhost's watchdog (a /bin/sh in its own session) and signal it. It ignores the signals a
 * command can catch; killed outright, the server notices and starts another at once, told of
 * every group, so a SIGKILL of the server afterwards still leaves no command running. (Under the
 * sandbox a command cannot signal it at all: tests/e2e/sandbox_reach_test.ts.) Survivors are counted from /proc by a marker in their command
 * line, as in process_survival_test.ts.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { processesWith, waitUntil } from "../helpers/processes.ts";
import { modern, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";

const test = posixOnlyTest("signals, sessions, /proc and the watchdog");

const skip = process.platform !== "linux" && "survivors are counted from /proc: Linux only";

const call = (name: string, args: Record<string, unknown>) => modern({ name, arguments: args });

/** Five-digit markers from a range no other test uses; `sleep <marker><n>` is one process. */
const newMarker = () => String(50000 + Math.floor(Math.random() * 9999));

/** A plain background job, a new session, nohup and a double fork, as a command may leave. */
const leave = (m: string) =>
  `sleep ${m}1 >/dev/null 2>&1 & setsid sleep ${m}2 >/dev/null 2>&1 & ` +
  `nohup sleep ${m}3 >/dev/null 2>&1 & (sh -c 'sleep ${m}4 >/dev/null 2>&1 &' &); `;

const sleeps = (m: string) =>
  processesWith(`sleep ${m}`).filter((line) => /^\d+: sleep /.test(line));

/** The server's watchdogs: `/bin/sh -c <script> toolhost-watchdog <token>`. */
const watchdogs = (token: string) =>
  processesWith(`toolhost-watchdog ${token}`).map((line) => Number(line.split(":")[0]));

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

/** The text of a tools/call reply. */
function textOf(reply: { result?: unknown }): string {
  const result = reply.result as { content?: { text?: string }[] } | undefined;
  return result?.content?.map((c) => c.text ?? "").join("") ?? "";
}

for (const signal of ["SIGKILL", "SIGTERM"] as const) {
  test(
    `a command ${signal}s the watchdog, and a SIGKILL of the server afterwards still leaves no command`,
    {
      skip,
    },
    async () => {
      const m = newMarker();
      // The case without the sandbox, which would refuse the command's kill.
      const c = new RawClient(PRODUCT_BINARY, [], undefined, { TOOLHOST_SANDBOX: "off" });
      try {
        await c.request(
          "tools/call",
          call("bash_background", { command: `${leave(m)} sleep ${m}5`, grace_ms: 0 }),
        );
        assert.ok(await waitUntil(() => sleeps(m).length === 5, 5000), "the commands started");
        // The token every command carries in TOOLHOST_RUN, which the watchdog is started with.
        const said = textOf(
          await c.request("tools/call", call("bash", { command: 'echo "run=${TOOLHOST_RUN%.*}"' })),
        );
        const token = /run=([0-9a-f]{16})/.exec(said)?.[1];
        assert.ok(token, `the token, from: ${said}`);
        assert.ok(await waitUntil(() => watchdogs(token).length === 1, 5000), "a watchdog runs");
        const [first] = watchdogs(token);

        // What a hostile command can do: it sees the watchdog and kills it.
        await c.request(
          "tools/call",
          call("bash", { command: `kill -s ${signal.slice(3)} ${first}` }),
        );
        // SIGKILL ends it, and another must take its place; SIGTERM it ignores.
        const guarded = await waitUntil(
          () => watchdogs(token).some((pid) => signal === "SIGTERM" || pid !== first),
          5000,
        );

        process.kill(c.child.pid!, "SIGKILL");
        await c.exited;
        const gone = await waitUntil(() => sleeps(m).length === 0, 3000);
        const left = killAll(m);
        assert.ok(gone, `${left.length} survivor(s) of the server's SIGKILL: ${left.join("; ")}`);
        assert.ok(guarded, "a watchdog was running when the server was killed");
      } finally {
        killAll(m);
        if (c.child.exitCode === null && c.child.signalCode === null) {
          process.kill(c.child.pid!, "SIGKILL");
        }
      }
    },
  );
}
