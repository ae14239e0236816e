/** The sandbox's Windows path rules, checked on any machine with node:path's win32 rules. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  reservedSegment,
  streamSegment,
  windowsContains,
  windowsPathKey,
  windowsPathProblem,
  withoutLongPrefix,
} from "../../tools/_lib/sandbox/_windows_paths.ts";

test("drive letters: case-insensitive, / as \\, whole segments only", () => {
  assert.ok(windowsContains("C:\\work\\app", "c:\\WORK\\App\\src\\a.ts"));
  assert.ok(windowsContains("C:\\work\\app", "C:/work/app/src"));
  assert.ok(windowsContains("C:\\work\\app\\", "C:\\work\\app"));
  assert.ok(windowsContains("C:\\", "C:\\anything"));
  assert.ok(!windowsContains("C:\\a", "C:\\a-b"));
  assert.ok(!windowsContains("C:\\a", "C:\\ab\\x"));
  assert.ok(!windowsContains("C:\\a", "D:\\a"));
  assert.ok(!windowsContains("C:\\a", "C:\\a\\..\\b"));
});

test("UNC and \\\\?\\ paths are the same paths as their plain forms", () => {
  assert.equal(withoutLongPrefix("\\\\?\\C:\\x\\y"), "C:\\x\\y");
  assert.equal(withoutLongPrefix("\\\\?\\UNC\\srv\\share\\x"), "\\\\srv\\share\\x");
  assert.ok(windowsContains("\\\\srv\\share\\proj", "\\\\?\\UNC\\SRV\\share\\proj\\f"));
  assert.ok(windowsContains("\\\\?\\C:\\work", "C:\\Work\\f"));
  assert.ok(!windowsContains("\\\\srv\\share\\proj", "\\\\srv\\share\\proj2"));
  assert.ok(!windowsContains("\\\\srv\\share", "\\\\srv\\other"));
  assert.equal(windowsPathKey("C:\\Work\\App\\\\"), "c:\\work\\app");
});

test("the device namespace is never inside a root", () => {
  assert.equal(withoutLongPrefix("\\\\.\\PhysicalDrive0"), undefined);
  assert.equal(withoutLongPrefix("\\\\?\\GLOBALROOT\\Device\\X"), undefined);
  assert.ok(!windowsContains("C:\\", "\\\\.\\C:\\x"));
  assert.match(windowsPathProblem("\\\\.\\pipe\\x") ?? "", /device namespace/);
});

test("reserved device names are refused in any segment, with extensions and trailing dots", () => {
  for (const name of ["CON", "nul", "NUL.txt", "com1", "LPT9.log", "aux.", "con  ", "CONIN$"]) {
    assert.equal(reservedSegment(`C:\\work\\${name}`), name, name);
  }
  assert.equal(reservedSegment("C:\\work\\nul\\x.txt"), "nul");
  for (const name of ["console.txt", "nullable", "com10", "lpt", "connect"]) {
    assert.equal(reservedSegment(`C:\\work\\${name}`), undefined, name);
  }
  assert.match(windowsPathProblem("src\\NUL") ?? "", /device "NUL"/);
  assert.equal(windowsPathProblem("C:\\work\\ok.txt"), undefined);
});

test("alternate data streams are refused; the drive's colon and the long prefix are not streams", () => {
  for (const path of ["a.txt:hidden", "C:\\work\\a.txt:s:$DATA", "src\\dir::$INDEX_ALLOCATION"]) {
    assert.match(windowsPathProblem(path) ?? "", /alternate data stream/, path);
  }
  assert.equal(streamSegment("C:\\work\\a.txt:hidden"), "a.txt:hidden");
  for (const path of ["C:\\work\\a.txt", "C:work\\a.txt", "\\\\?\\C:\\x", "\\\\srv\\share\\x"]) {
    assert.equal(windowsPathProblem(path), undefined, path);
  }
});
