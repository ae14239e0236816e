/** The sandbox's path rules for each platform, chosen by an injected platform. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { pathRulesFor } from "../../tools/_lib/sandbox/_path_rules.ts";

const windows = pathRulesFor("win32");
const linux = pathRulesFor("linux");

test("containment: Windows ignores case and the long prefix; POSIX compares bytes; both by whole segments", () => {
  assert.ok(windows.contains("C:\\Work\\App", "c:\\work\\app\\src\\x.ts"));
  assert.ok(windows.contains("C:\\Work\\App", "\\\\?\\C:\\Work\\App\\x"));
  assert.ok(!windows.contains("C:\\a", "C:\\a-b\\x"));
  assert.ok(!windows.contains("C:\\a", "D:\\a\\x"));
  assert.ok(linux.contains("/work/app", "/work/app/src/x.ts"));
  assert.ok(linux.contains("/", "/etc/passwd"), "the root directory as a root");
  assert.ok(!linux.contains("/work/app", "/work/App/src"), "POSIX names are case-sensitive");
  assert.ok(!linux.contains("/work/a", "/work/a-b/x"));
});

test("refused before resolving: device names, the device namespace and streams on Windows only", () => {
  for (const path of ["src\\CON", "nul.txt", "\\\\.\\pipe\\x", "a.txt:hidden"]) {
    assert.ok(windows.problem(path), path);
    assert.equal(linux.problem(path), undefined, `${path} is an ordinary name on POSIX`);
  }
  assert.equal(windows.problem("C:\\work\\src\\a.ts"), undefined);
});
