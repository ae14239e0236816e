/**
 * JSON bodies (body_text.ts): pretty-printed unless that would grow them past a bound, which a
 * deeply nested body would (its indentation grows quadratically).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bodyText,
  MAX_PRETTY_CHARS,
  prettyLengthAtMost,
} from "../../tools/web/_lib/convert/body_text.ts";

const encode = (text: string) => new TextEncoder().encode(text);

test("the bound is never below the pretty-printed length", () => {
  const samples = [
    "[]",
    "{}",
    '{"a":1,"b":[1,2,{"c":"x,y:[z]"}],"d":{}}',
    '["quote \\" inside, and [brackets]", {"k": [ [ ], { } ] }]',
    '  { "spaced" : [ 1 , 2 ] }  ',
    JSON.stringify({ deep: [[[[[[1, [2, { e: "}" }]]]]]]], list: Array(50).fill({ x: [1] }) }),
  ];
  for (const text of samples) {
    const pretty = JSON.stringify(JSON.parse(text), null, 2);
    assert.ok(prettyLengthAtMost(text) >= pretty.length, text);
    assert.equal(bodyText({ kind: "json", body: encode(text) }), pretty);
  }
});

test("a body nested so deep that its indentation would pass the bound comes as it was", () => {
  // 40 kB: 20,000 numbers 1,000 deep, each on a line of 2,000 spaces once indented (40 MB).
  const depth = 1000;
  const text = "[".repeat(depth) + Array(20_000).fill(0).join(",") + "]".repeat(depth);
  assert.ok(prettyLengthAtMost(text) > MAX_PRETTY_CHARS);
  assert.equal(bodyText({ kind: "json", body: encode(text) }), text);
  // Shallower, the same numbers are pretty-printed.
  const shallow = "[[" + Array(20_000).fill(0).join(",") + "]]";
  assert.equal(
    bodyText({ kind: "json", body: encode(shallow) }),
    JSON.stringify(JSON.parse(shallow), null, 2),
  );
});
