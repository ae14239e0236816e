/**
 * The sessions of 2026-07-28 requests: one per subject, kept while requests come, ended (what
 * they kept released) once idle, never while a request of theirs is in flight.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { StatelessSessions } from "../../mcp/http/stateless_sessions.ts";
import { SessionKey } from "../../mcp/tool/mod.ts";
import type { Logger } from "../../mcp/wire/log.ts";

const logger = { log: () => {} } as unknown as Logger;
const HOUR = 60 * 60_000;

/** A key whose release is counted, standing for what a session keeps (its processes). */
function released() {
  const ended: string[] = [];
  const key = new SessionKey("a kept thing", () => ({}), () => void ended.push("released"));
  return { key, ended };
}

test("requests of one subject share a session; another subject's, and no subject's, are others", async () => {
  const sessions = new StatelessSessions(logger, HOUR);
  const a1 = sessions.take("alice");
  a1.release();
  const a2 = sessions.take("alice");
  const b = sessions.take("bob");
  const none = sessions.take(undefined);
  assert.equal(a1.session, a2.session);
  assert.notEqual(a1.session, b.session);
  assert.notEqual(a1.session, none.session);
  assert.equal(a1.session.subject, "alice");
  assert.equal(none.session.subject, undefined);
  await sessions.close();
  assert.equal(a1.session.ended && b.session.ended && none.session.ended, true);
});

test("an idle session ends and releases what it kept; one with a request in flight does not", async () => {
  const sessions = new StatelessSessions(logger, HOUR);
  const { key, ended } = released();
  const idle = sessions.take("idle");
  idle.session.get(key);
  idle.release();
  const busy = sessions.take("busy");
  busy.session.get(key);
  const later = Date.now() + HOUR + 1;
  sessions.endIdle(HOUR, later);
  await idle.session.dispose(); // the wait endIdle started
  assert.equal(idle.session.ended, true);
  assert.equal(busy.session.ended, false);
  assert.deepEqual(ended, ["released"]);
  // The subject's next request gets a new session: nothing of the ended one is kept.
  const next = sessions.take("idle");
  assert.notEqual(next.session, idle.session);
  busy.release();
  next.release();
  await sessions.close();
  assert.deepEqual(ended, ["released", "released"]);
});

test("past the cap the least recently used idle session ends to make room", async () => {
  const sessions = new StatelessSessions(logger, HOUR, 2);
  const first = sessions.take("first");
  first.release();
  const second = sessions.take("second");
  second.release();
  sessions.take("first").release(); // first is now the more recently used
  const third = sessions.take("third");
  assert.equal(second.session.ended, true);
  assert.equal(first.session.ended, false);
  assert.equal(sessions.size, 2);
  third.release();
  await sessions.close();
});
