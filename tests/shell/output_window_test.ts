import assert from "node:assert/strict";
import { test } from "node:test";
import { OutputWindow } from "../../tools/shell/_lib/output_window.ts";

test("reads by absolute offset across chunks; the next offset continues exactly", () => {
  const w = new OutputWindow(100);
  w.append("hello ");
  w.append("world");
  assert.deepEqual(w.read(0, 3), { text: "hel", offset: 0, nextOffset: 3, dropped: 0 });
  assert.deepEqual(w.read(3, 100), { text: "lo world", offset: 3, nextOffset: 11, dropped: 0 });
  assert.deepEqual(w.read(11, 100), { text: "", offset: 11, nextOffset: 11, dropped: 0 });
});

test("the oldest characters are dropped first, and a reader behind is told how many it missed", () => {
  const w = new OutputWindow(10);
  w.append("0123456789");
  w.append("abcde");
  assert.equal(w.start, 5);
  assert.equal(w.end, 15);
  assert.deepEqual(w.read(2, 100), { text: "56789abcde", offset: 5, nextOffset: 15, dropped: 3 });
  assert.deepEqual(w.read(7, 4), { text: "789a", offset: 7, nextOffset: 11, dropped: 0 });
});

test("a chunk larger than the window keeps only its end", () => {
  const w = new OutputWindow(4);
  w.append("abcdefgh");
  assert.deepEqual(w.read(0, 10), { text: "efgh", offset: 4, nextOffset: 8, dropped: 4 });
});

test("an offset past the end reads nothing and points at the end", () => {
  const w = new OutputWindow(10);
  w.append("abc");
  assert.deepEqual(w.read(50, 10), { text: "", offset: 3, nextOffset: 3, dropped: 0 });
});

test("every character is read exactly once by a reader following nextOffset", () => {
  const w = new OutputWindow(100_000);
  let expected = "";
  let got = "";
  let offset = 0;
  for (let i = 0; i < 200; i++) {
    const piece = `line ${i}\n`;
    w.append(piece);
    expected += piece;
    if (i % 7 === 0) {
      const read = w.read(offset, 13);
      got += read.text;
      offset = read.nextOffset;
    }
  }
  for (let read = w.read(offset, 13); read.text; read = w.read(offset, 13)) {
    got += read.text;
    offset = read.nextOffset;
  }
  assert.equal(got, expected);
});
