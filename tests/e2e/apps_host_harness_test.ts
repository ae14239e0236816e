/**
 * The MCP Apps test host itself (tests/helpers/apps_host), against a placeholder app that speaks
 * the protocol by hand: the page connects to toolhost, makes calls as the model would, loads the
 * app through the sandbox proxy, and the app's tools/call reaches toolhost through the bridge.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { startHttpServer } from "../helpers/http_server.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";
import { startHostPages } from "../helpers/apps_host/mod.ts";
import {
  appFrame,
  findChromium,
  hostCall,
  hostOpen,
  hostState,
  launchBrowser,
  waitForText,
} from "../helpers/browser.ts";

const e2e = e2eFixture();
const chromium = findChromium();

test("the test host loads an app through its sandbox proxy, and the app's Undo reaches toolhost", {
  skip: chromium ? false : "no Chromium found (install chromium, or set TOOLHOST_CHROME)",
}, async () => {
  const root = e2e.scratch("root");
  writeFileSync(join(root, "notes.txt"), "alpha\nold line\nomega\n");
  const pages = await startHostPages(e2e.scratch("host"));
  e2e.cleanup(() => pages.close());
  const server = await startHttpServer(
    PRODUCT_BINARY,
    ["--root", root, "--http-origin", pages.origin],
    {},
    root,
  );
  e2e.cleanup(() => server.terminate());
  const browser = await launchBrowser(chromium!, e2e.scratch("profile"));
  e2e.cleanup(() => browser.close());

  const page = await browser.newPage();
  await page.goto(pages.hostUrl({ mcp: server.url, app: pages.placeholderUrl }));
  await page.waitForSelector("body[data-host=connected]", { timeout: 30_000 })
    .catch(async (error) => assert.fail(`${error.message}; the host: ${await hostState(page)}`));
  const edit = await hostCall(page, "edit_file", {
    path: "notes.txt",
    edits: [{ old_string: "old line", new_string: "new line" }],
  });
  assert.equal(edit.isError ?? false, false, JSON.stringify(edit));
  assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "alpha\nnew line\nomega\n");

  await hostOpen(page, "history");
  const app = await appFrame(page, "body[data-ready=true]");
  const undo = await app.waitForSelector('[data-change-id] button[data-action="undo"]');
  await undo!.click();
  await waitForText(app, '[role="status"]', [
    "Undid 1 call (edit_file",
    "notes.txt: content restored",
  ]);
  assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "alpha\nold line\nomega\n");
  const state = JSON.parse(await hostState(page));
  assert.deepEqual(
    state.appCalls.map((call: { name: string }) => call.name),
    ["bash_list", "undo"],
  );
});
