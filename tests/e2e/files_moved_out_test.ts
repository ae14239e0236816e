/**
 * A directory held open by delete_file's or copy_file's walk, renamed out of the root while the
 * walk runs (Linux: the file tools check /proc/self/fd before every change): the walk stops after
 * at most the one change under way, and the reply says truthfully what was done. The server is
 * stopped (SIGSTOP) while the directory is moved and counted, so what is compared does not
 * depend on how fast either side runs.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, RawClient } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const scratch = (name: string) => e2e.scratch(name);
const entries = (path: string) => existsSync(path) ? readdirSync(path).length : -1;
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/** Whether every thread of `pid` is stopped (SIGSTOP takes effect after kill() returns). */
function allStopped(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).every((task) => {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
    return /^\S+ \(.*\) [Tt] /s.test(stat);
  });
}

/**
 * Stops the server, and once `ready()` holds while it is stopped, runs `move` before letting it
 * go on: the walk takes no step between the check, the move and the count `move` returns.
 */
async function moveWhileStopped<T>(c: RawClient, ready: () => boolean, move: () => T) {
  const pid = c.child.pid!;
  for (;;) {
    process.kill(pid, "SIGSTOP");
    try {
      while (!allStopped(pid)) await tick();
      if (ready()) return move();
    } finally {
      process.kill(pid, "SIGCONT");
    }
    // A few milliseconds of running between looks: the walk goes on by some dozens of entries.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const N = 4000;
const linux = { skip: process.platform !== "linux" && "the check reads /proc/self/fd" };

function start(c: RawClient, name: string, args: Record<string, unknown>) {
  return c.request("tools/call", modern({ name, arguments: args }), 60_000).then((reply) => {
    const result = reply.result as { content: { text?: string }[]; isError?: boolean };
    return { text: result.content.map((b) => b.text ?? "").join("\n"), isError: !!result.isError };
  });
}

test(
  "delete_file: a directory moved out mid-walk loses at most one more entry",
  linux,
  async () => {
    const root = scratch("mo-root");
    const outside = scratch("mo-out");
    mkdirSync(join(root, "victim", "z"), { recursive: true });
    for (let i = 0; i < N; i++) writeFileSync(join(root, "victim", "z", `f${i}`), "x");
    const client = e2e.server({ args: ["--root", root] });
    await start(client, "file_info", { path: "victim" }); // started and warm
    const reply = start(client, "delete_file", { path: "victim", recursive: true });
    const atMove = await moveWhileStopped(
      client,
      () => entries(join(root, "victim", "z")) <= N - 100,
      () => {
        renameSync(join(root, "victim", "z"), join(outside, "z"));
        return entries(join(outside, "z"));
      },
    );
    assert.ok(atMove > 0, "the walk was under way, not done");
    const result = await reply;
    const after = entries(join(outside, "z"));
    assert.ok(atMove - after <= 1, `${atMove - after} entries removed outside the root`);
    assert.equal(result.isError, true, result.text);
    assert.match(result.text, /moved out of the allowed roots/);
    const removed = (N - after).toLocaleString("en-US");
    assert.match(result.text, new RegExp(`${removed} entries inside it were removed before that`));
  },
);

test(
  "copy_file: the copy in progress moved out mid-walk gets at most one more entry",
  linux,
  async () => {
    const root = scratch("mo-root");
    const outside = scratch("mo-out");
    mkdirSync(join(root, "src", "z"), { recursive: true });
    for (let i = 0; i < N; i++) writeFileSync(join(root, "src", "z", `f${i}`), "x");
    const client = e2e.server({ args: ["--root", root] });
    await start(client, "file_info", { path: "src" });
    const reply = start(client, "copy_file", {
      source: "src",
      destination: "dst",
      recursive: true,
    });
    let temporary: string | undefined;
    const atMove = await moveWhileStopped(
      client,
      () => {
        temporary ??= readdirSync(root).find((name) => name.startsWith(".toolhost-"));
        return temporary !== undefined && entries(join(root, temporary, "z")) >= 100;
      },
      () => {
        renameSync(join(root, temporary!), join(outside, "stolen"));
        return entries(join(outside, "stolen", "z"));
      },
    );
    assert.ok(atMove < N, "the walk was under way, not done");
    const result = await reply;
    const after = entries(join(outside, "stolen", "z"));
    assert.ok(after - atMove <= 1, `${after - atMove} entries created outside the root`);
    assert.equal(result.isError, true, result.text);
    assert.match(result.text, /moved out of the allowed roots during the copy; stopped after/);
    assert.match(result.text, /went with it, outside the roots, and was not removed/);
    assert.doesNotMatch(result.text, /Nothing was copied/);
    assert.deepEqual(readdirSync(root).sort(), ["src"]);
  },
);
