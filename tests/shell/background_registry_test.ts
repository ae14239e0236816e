/** The background registry's bookkeeping, in-process: one session's processes. */
import assert from "node:assert/strict";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { LIMITS, processesOf, Registry } from "../../tools/shell/_lib/background.ts";
import { SessionMemory } from "../../mcp/tool/mod.ts";

/** The registry is what is tested here; the sandbox, through the binary (tests/e2e). */
const UNCONFINED = { confinement: { unconfined: "a unit test of the registry" } };

const test = posixOnlyTest("commands in sh syntax, signals");
const never = new AbortController().signal;

test("finished processes stay listed, the last 100 of them", async () => {
  const background = new Registry();
  const started = [];
  for (let i = 0; i < LIMITS.keepFinished + 5; i++) {
    const proc = background.start("true", ".", UNCONFINED);
    await proc.waitForEnd(5000, never);
    started.push(proc.id);
  }
  background.start("true", ".", UNCONFINED); // the next start forgets the oldest finished ones
  const listed = background.list().map((p) => p.id);
  assert.ok(!listed.includes(started[0]), "the oldest finished process was forgotten");
  assert.ok(listed.includes(started.at(-1)!));
  assert.equal(
    listed.filter((id) => background.get(id).status !== "running").length,
    LIMITS.keepFinished,
  );
});

test("each session has its own processes and ids; ending it stops them, but not one that outlives the server", async () => {
  const a = new SessionMemory();
  const b = new SessionMemory();
  const bound = processesOf({ session: a }).start("sleep 30", ".", UNCONFINED);
  const free = processesOf({ session: a }).start("sleep 30", ".", {
    ...UNCONFINED,
    outliveServer: true,
  });
  assert.deepEqual(processesOf({ session: b }).list(), []);
  assert.throws(() => processesOf({ session: b }).get(bound.id), /no background process/);
  assert.equal(processesOf({ session: b }).start("true", ".", UNCONFINED).id, "p1");
  await a.dispose();
  await bound.waitForEnd(10_000, never);
  assert.equal(bound.status, "killed");
  assert.equal(free.status, "running");
  await free.stop("SIGKILL", 0);
  await free.waitForEnd(10_000, never);
});
