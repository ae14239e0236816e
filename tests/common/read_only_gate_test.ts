/**
 * The read-only gate: under --read-only or the read-only profile, a call whose arguments declare
 * a write is refused before it runs, whatever the tool; calls that write nothing pass.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultSettings, type Settings } from "../../config/settings.ts";
import type { ToolContext } from "../../mcp/tool/mod.ts";
import fetchUrl from "../../tools/web/fetch_url.ts";
import { readOnlyGate } from "../../tools/_catalog/read_only_gate.ts";

const ctx = (settings: Partial<Settings>) =>
  ({ config: { ...defaultSettings(), ...settings } }) as unknown as ToolContext;
const before = (settings: Partial<Settings>, args: Record<string, unknown>) =>
  readOnlyGate.before!(fetchUrl, ctx(settings), args);

test("save_to is refused under --read-only and under the read-only profile, and only there", () => {
  const saving = { url: "https://example.com/", save_to: "page.html" };
  assert.throws(() => before({ readOnly: true }, saving), /save_to writes files.*--read-only/);
  assert.throws(
    () => before({ toolsProfile: "read-only" }, saving),
    /fetch_url was refused: save_to writes files, and toolhost offers the read-only profile/,
  );
  assert.equal(before({}, saving), undefined, "a server that writes lets it through");
  assert.equal(before({ toolsProfile: "companion" }, saving), undefined);
  assert.equal(before({ readOnly: true }, { url: "https://example.com/" }), undefined);
});
