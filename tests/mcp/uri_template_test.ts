/** RFC 6570 matching as resource templates use it: {name} is one segment, {+name} spans `/`. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { UriTemplate } from "../../mcp/features/mod.ts";

test("a simple variable matches one path segment, percent-decoded", () => {
  const t = new UriTemplate("toolhost://processes/{id}/output");
  assert.deepEqual(t.variables, ["id"]);
  assert.deepEqual(t.match("toolhost://processes/p12/output"), { id: "p12" });
  assert.deepEqual(t.match("toolhost://processes/a%20b/output"), { id: "a b" });
  assert.equal(t.match("toolhost://processes/a/b/output"), null);
  assert.equal(t.match("toolhost://processes//output"), null);
  assert.equal(t.match("toolhost://processes/p1/output?x=1"), null);
  assert.equal(t.match("toolhost://processes/p1/outputs"), null);
  assert.equal(t.match("toolhost://processes/%E0%A4%A/output"), null, "malformed escape");
});

test("a reserved variable spans slashes and stops at a query or fragment", () => {
  const t = new UriTemplate("file:///{+path}");
  assert.deepEqual(t.match("file:///etc/passwd"), { path: "etc/passwd" });
  assert.deepEqual(t.match("file:///a/b%20c/d%25e.txt"), { path: "a/b c/d%e.txt" });
  assert.deepEqual(t.match("file:///a/../b"), { path: "a/../b" }, "dot segments are the reader's");
  assert.equal(t.match("file:///a?b"), null);
  assert.equal(t.match("file://host/a"), null);
  assert.equal(t.match("file:///"), null);
});

test("expand is match's inverse, for awkward values too", () => {
  const file = new UriTemplate("file:///{+path}");
  const simple = new UriTemplate("x://{a}/{b}");
  for (const path of ["home/u/a b.txt", "50%25.txt", "q?/#frag", "ü/ñ", "a+b;c=d"]) {
    assert.deepEqual(file.match(file.expand({ path })), { path });
  }
  assert.equal(file.expand({ path: "home/u/a b" }), "file:///home/u/a%20b");
  const values = { a: "x/y", b: "p?q" };
  assert.equal(simple.expand(values), "x://x%2Fy/p%3Fq");
  assert.deepEqual(simple.match(simple.expand(values)), values);
});

test("templates we cannot match are refused when defined", () => {
  assert.throws(() => new UriTemplate("x://{a,b}"), /only \{name\} and \{\+name\}/);
  assert.throws(() => new UriTemplate("x://{?q}"), /not supported/);
  assert.throws(() => new UriTemplate("x://{a}/{a}"), /names a variable twice/);
  assert.throws(() => new UriTemplate("x://{a"), /unbalanced brace/);
});
