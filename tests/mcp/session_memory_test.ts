/**
 * A session's memory makes each value once and releases it once when the session ends; a value
 * never made is never released, and nothing is made after the end.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionKey, SessionMemory } from "../../mcp/tool/session_memory.ts";

test("each value made is released once at the session's end, in any order of asking", async () => {
  const released: string[] = [];
  const dir = new SessionKey("a scratch dir", () => ({ path: "/x" }), (v) => {
    released.push(v.path);
  });
  const never = new SessionKey("never made", () => 1, () => {
    released.push("never");
  });
  const memory = new SessionMemory();
  assert.equal(memory.get(dir), memory.get(dir));
  assert.equal(memory.has(never), false);
  await Promise.all([memory.dispose(), memory.dispose()]);
  assert.deepEqual(released, ["/x"]);
  assert.throws(() => memory.get(dir), /the session has ended: a scratch dir/);
});

test("a release that fails does not keep the others from running", async () => {
  const released: string[] = [];
  const bad = new SessionKey("bad", () => 0, () => Promise.reject(new Error("no")));
  const good = new SessionKey("good", () => 0, () => {
    released.push("good");
  });
  const memory = new SessionMemory();
  memory.get(bad);
  memory.get(good);
  await memory.dispose();
  assert.deepEqual(released, ["good"]);
  assert.notEqual(new SessionMemory().id, memory.id);
});
