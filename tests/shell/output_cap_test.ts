import assert from "node:assert/strict";
import { test } from "node:test";
import { HeadTailBuffer } from "../../tools/shell/_lib/output_cap.ts";

test("output under the cap comes back unchanged", () => {
  const buffer = new HeadTailBuffer(100);
  buffer.push("hello ");
  buffer.push("world");
  assert.equal(buffer.text("how"), "hello world");
  assert.equal(buffer.truncated, false);
});

test("output over the cap keeps head and tail and says how much was cut", () => {
  const buffer = new HeadTailBuffer(10);
  for (const ch of "abcdefghijklmnopqrstuvwxyz") buffer.push(ch);
  const text = buffer.text("read the file");
  assert.ok(text.startsWith("abcde\n"));
  assert.ok(text.endsWith("\nvwxyz"));
  assert.match(text, /\[\.\.\. 16 of 26 characters cut from the middle; read the file \.\.\.\]/);
  assert.equal(buffer.truncated, true);
  assert.equal(buffer.totalChars, 26);
});

test("memory stays bounded when a command prints a lot in large chunks", () => {
  const buffer = new HeadTailBuffer(1000);
  for (let i = 0; i < 2000; i++) buffer.push(String(i % 10).repeat(4096));
  const text = buffer.text("x");
  assert.ok(text.length < 1200, `kept ${text.length} characters`);
  assert.equal(buffer.totalChars, 2000 * 4096);
});

test("cuts never split a surrogate pair", () => {
  const emoji = "\u{1F600}"; // two UTF-16 code units
  for (const max of [10, 11, 12, 13]) {
    const buffer = new HeadTailBuffer(max);
    for (let i = 0; i < 40; i++) buffer.push(i % 3 === 0 ? "a" : emoji);
    const text = buffer.text("x");
    assert.ok(
      !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text),
      `max ${max}: ${JSON.stringify(text)}`,
    );
  }
});
