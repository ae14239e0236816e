/** The background registry's bookkeeping, in-process. */
import assert from "node:assert/strict";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { background, LIMITS } from "../../tools/shell/_lib/background.ts";

/** The registry is what is tested here; the sandbox, through the binary (tests/e2e). */
const UNCONFINED = { confinement: { unconfined: "a unit test of the registry" } };

const test = posixOnlyTest("commands in sh syntax, signals");

test("finished processes stay listed, the last 100 of them", async () => {
  const never = new AbortController().signal;
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
