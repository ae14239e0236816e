/**
 * The check of rg's lines against the held file (grep/ripgrep/held_reader.ts): on raw bytes it must never
 * confirm what the decoded text would not, and on valid UTF-8 without a BOM it must agree.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  confirms,
  confirmsBytes,
  decodeAsRg,
  MAX_HELD_FILE_BYTES,
} from "../../tools/search/_lib/grep/ripgrep/held_reader.ts";
import { MAX_FILE_BYTES } from "../../tools/search/_lib/grep/query.ts";

const bytesOf = (text: string) => new TextEncoder().encode(text);
const raw = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

test("lines confirmed on bytes are confirmed on the decoded text, and agree on valid UTF-8", () => {
  const files: [string, Uint8Array][] = [
    ["plain", bytesOf("one\ntwo\nthree\n")],
    ["no final break", bytesOf("one\ntwo")],
    ["crlf", bytesOf("one\r\ntwo\r\n\r\nfour\r\n")],
    ["non-ASCII", bytesOf("café\n😀 smile\nnaïve\n")],
    ["invalid bytes", raw("caf\xe9\nok\n\xff\xfe\n")],
    ["U+FFFD itself", bytesOf("a\uFFFDb\nc\n")],
    ["BOM", raw("\xef\xbb\xbfone\ntwo\n")],
    ["lone CR inside", bytesOf("a\rb\nc\r\r\n")],
  ];
  const candidates = [
    "one",
    "two",
    "three",
    "four",
    "",
    "café",
    "caf\uFFFD",
    "😀 smile",
    "naïve",
    "ok",
    "\uFFFD\uFFFD",
    "a\uFFFDb",
    "c",
    "a\rb",
    "c\r",
    "c\r\r",
    "tw",
  ];
  let agreed = 0;
  for (const [name, bytes] of files) {
    const text = decodeAsRg(bytes);
    const valid = bytes[0] !== 0xef && new TextDecoder().decode(bytes) === text &&
      !text.includes("\uFFFD");
    for (let number = 1; number <= 5; number++) {
      for (const wanted of candidates) {
        for (
          const reported of [[{ number, text: wanted }], [
            { number: 1, text: text.split("\n")[0] },
            { number, text: wanted },
          ]]
        ) {
          const onBytes = confirmsBytes(bytes, reported);
          const onText = confirms(text, reported);
          const what = `${name}: ${JSON.stringify(reported)}`;
          if (onBytes) assert.equal(onText, true, what);
          if (valid) assert.equal(onBytes, onText, what);
          if (onBytes) agreed++;
        }
      }
    }
  }
  assert.ok(agreed > 20, "some lines are confirmed on bytes");
  // Lines out of order, and invalid bytes, are left to the decoded text.
  const two = bytesOf("one\ntwo\n");
  assert.equal(confirmsBytes(two, [{ number: 2, text: "two" }, { number: 1, text: "one" }]), false);
  assert.equal(confirmsBytes(raw("caf\xe9\n"), [{ number: 1, text: "caf\uFFFD" }]), false);
});

test("the held reader's size limit is grep's, so no file grep searches is dropped when read again", () => {
  assert.equal(MAX_HELD_FILE_BYTES, MAX_FILE_BYTES);
});
