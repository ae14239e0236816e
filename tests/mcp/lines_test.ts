import assert from "node:assert/strict";
import { test } from "node:test";
import { type Line, LineSplitStream, OversizedLine } from "../../mcp/stdio/lines.ts";

async function split(chunks: string[], max = 1024): Promise<Line[]> {
  const out: Line[] = [];
  const source = ReadableStream.from(chunks).pipeThrough(new LineSplitStream(max));
  for await (const line of source) out.push(line);
  return out;
}

test("splits on newlines across and within chunks", async () => {
  assert.deepEqual(await split(["a\nb", "c\n", "d\ne\n"]), ["a", "bc", "d", "e"]);
});

test("drops the \\r of \\r\\n line ends, also when \\r and \\n arrive in different chunks", async () => {
  assert.deepEqual(await split(["one\r\ntwo\r", "\nthree\n"]), ["one", "two", "three"]);
});

test("keeps a \\r that is not at the end of a line", async () => {
  assert.deepEqual(await split(["a\rb\n"]), ["a\rb"]);
});

test("emits a last line that has no newline", async () => {
  assert.deepEqual(await split(["x\ny"]), ["x", "y"]);
});

test("passes empty lines through (the server ignores them)", async () => {
  assert.deepEqual(await split(["\n\na\n"]), ["", "", "a"]);
});

test("a line longer than the cap becomes an OversizedLine with its head, and the next line survives", async () => {
  const long = "{" + "x".repeat(5000) + "}";
  const lines = await split([long.slice(0, 700), long.slice(700), "\n{}\n"], 1000);
  assert.equal(lines.length, 2);
  const [first, second] = lines;
  assert.ok(first instanceof OversizedLine);
  assert.equal(first.length, long.length);
  assert.equal(first.head, long.slice(0, 4096));
  assert.equal(second, "{}");
});

test("an oversized line inside a single chunk is reported too", async () => {
  const lines = await split(["ok\n" + "y".repeat(2000) + "\nafter\n"], 1000);
  assert.equal(lines[0], "ok");
  assert.ok(lines[1] instanceof OversizedLine);
  assert.equal((lines[1] as OversizedLine).length, 2000);
  assert.equal(lines[2], "after");
});

test("a line of exactly the cap is delivered", async () => {
  const exact = "z".repeat(1000);
  assert.deepEqual(await split([exact.slice(0, 10), exact.slice(10) + "\n"], 1000), [exact]);
});

test("a 12 MB line split into 64 KB chunks arrives whole", async () => {
  const line = "q".repeat(12 * 1024 * 1024);
  const chunks: string[] = [];
  for (let i = 0; i < line.length; i += 65536) chunks.push(line.slice(i, i + 65536));
  chunks.push("\n");
  const out = await split(chunks, 64 * 1024 * 1024);
  assert.equal(out.length, 1);
  assert.equal((out[0] as string).length, line.length);
});
