/** Telling text from binary: signatures that are also how text can start need a NUL byte. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { binaryKind, decodeText, imageType } from "../../tools/_lib/text/text.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

test("text that happens to start like a GIF, a PDF, an EXE or SQLite is text", () => {
  for (
    const text of [
      "GIF87a is an old format\n",
      "%PDF-1.4 notes\n",
      "MZ was here\n",
      "SQLite format notes\n",
    ]
  ) {
    assert.equal(binaryKind(bytes(text)), undefined, text);
    assert.equal(imageType(bytes(text)), undefined, text);
    assert.equal(decodeText(bytes(text))?.text, text);
  }
});

test("the real formats, which carry NUL bytes, are recognised", () => {
  const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0]);
  assert.equal(imageType(gif), "image/gif");
  assert.equal(binaryKind(gif), "GIF image");
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  assert.equal(imageType(png), "image/png");
  const webp = new Uint8Array([0x52, 0x49, 0x46, 0x46, 0x24, 0, 0, 0, 0x57, 0x45, 0x42, 0x50]);
  assert.equal(imageType(webp), "image/webp");
  assert.equal(binaryKind(bytes("SQLite format 3\0")), "SQLite database");
  assert.equal(
    binaryKind(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1])),
    "ELF executable or library",
  );
  assert.equal(binaryKind(new Uint8Array([0x41, 0, 0x42])), "binary data");
});

test("a BOM means text even with NUL bytes (UTF-16)", () => {
  const utf16 = new Uint8Array([0xff, 0xfe, 0x68, 0, 0x69, 0]);
  assert.equal(binaryKind(utf16), undefined);
  assert.deepEqual(decodeText(utf16), { text: "hi", encoding: "utf-16le", bom: true, invalid: 0 });
});
