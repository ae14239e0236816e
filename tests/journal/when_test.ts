/** history's `since` and `until`: the times a person or a model writes (tools/journal/_lib/when.ts). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseWhen } from "../../tools/journal/_lib/when.ts";

const NOW = new Date(2025, 5, 15, 13, 30, 0); // local time, 15 June 2025 13:30

test("day words name their local midnight; now is now", () => {
  assert.equal(parseWhen("today", NOW), new Date(2025, 5, 15).toISOString());
  assert.equal(parseWhen("Yesterday", NOW), new Date(2025, 5, 14).toISOString());
  assert.equal(parseWhen(" now ", NOW), NOW.toISOString());
  // Across a month's start.
  assert.equal(
    parseWhen("yesterday", new Date(2025, 6, 1, 9)),
    new Date(2025, 5, 30).toISOString(),
  );
});

test("a span back from now, with or without 'ago', in the usual units", () => {
  const back = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
  assert.equal(parseWhen("2h", NOW), back(2 * 3_600_000));
  assert.equal(parseWhen("30 minutes ago", NOW), back(30 * 60_000));
  assert.equal(parseWhen("90 min", NOW), back(90 * 60_000));
  assert.equal(parseWhen("3 days", NOW), back(3 * 86_400_000));
  assert.equal(parseWhen("1 week ago", NOW), back(7 * 86_400_000));
  assert.equal(parseWhen("1.5h", NOW), back(1.5 * 3_600_000));
  assert.equal(parseWhen("45s", NOW), back(45_000));
});

test("ISO times and dates: local unless they name a zone", () => {
  assert.equal(parseWhen("2025-06-01", NOW), new Date(2025, 5, 1).toISOString());
  assert.equal(parseWhen("2025-06-01T14:00", NOW), new Date(2025, 5, 1, 14).toISOString());
  assert.equal(
    parseWhen("2025-06-01 14:00:30", NOW),
    new Date(2025, 5, 1, 14, 0, 30).toISOString(),
  );
  assert.equal(parseWhen("2025-06-01T14:00:00Z", NOW), "2025-06-01T14:00:00.000Z");
  assert.equal(parseWhen("2025-06-01T14:00+02:00", NOW), "2025-06-01T12:00:00.000Z");
});

test("anything else names no time", () => {
  for (
    const text of [
      "soon",
      "",
      "yesterday morning",
      "2 months",
      "2025-02-30",
      "13:00",
      "-2h",
      "1e400h",
    ]
  ) {
    assert.equal(parseWhen(text, NOW), undefined, text);
  }
});
