/**
 * The review app (ui://toolhost/review) in a real Chromium, through the compiled binary: loaded
 * by an MCP Apps host as a client loads it (tests/helpers/apps_host: the ext-apps SDK's AppBridge,
 * a sandbox proxy on another origin, the strict CSP), and as the plain page GET /ui/toolhost/review
 * serves to a browser with the token. The DOM hooks are the review contract's.
 *
 * TOOLHOST_UPDATE_SCREENSHOT=1 also writes docs/review-app.png (the app showing a change).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { e2eFixture } from "../helpers/e2e.ts";
import { startHttpServer } from "../helpers/http_server.ts";
import { PRODUCT_BINARY, ROOT } from "../helpers/raw_client.ts";
import { startHostPages } from "../helpers/apps_host/mod.ts";
import {
  appCall,
  appCallCount,
  appFrame,
  findChromium,
  type Frame,
  hostCall,
  hostOpen,
  hostState,
  launchBrowser,
  lowContrastText,
  textIn,
  waitForText,
} from "../helpers/browser.ts";

const e2e = e2eFixture();
const chromium = findChromium();
const skip = chromium ? false : "no Chromium found (install chromium, or set TOOLHOST_CHROME)";
const SCREENSHOT = join(ROOT, "docs", "review-app.png");

const BEFORE = "alpha\nold line: the colour of the sky\nomega\n";
const AFTER = "alpha\nnew line: the color of the sea\nomega\n";

/** The journal id of the newest call of `tool`: the first word of history's first line. */
function newestId(historyText: string, tool: string): string {
  const line = historyText.split("\n").find((entry) => entry.includes(` ${tool} `));
  assert.ok(line, `history lists no ${tool} call:\n${historyText}`);
  return line.split(" ")[0];
}

const textOf = (result: { content: { text?: string }[] }) =>
  result.content.map((block) => block.text ?? "").join("\n");

async function click(frame: Frame, selector: string): Promise<void> {
  const button = await frame.waitForSelector(selector, { timeout: 30_000 });
  assert.ok(button, `no ${selector}`);
  await button.click();
  await button.dispose();
}

test(
  "the review app in an MCP Apps host: an edit's diff, Undo through the host restores the file, a second Undo shows toolhost's refusal, a background process is stopped",
  {
    skip,
  },
  async () => {
    const root = e2e.scratch("root");
    writeFileSync(join(root, "notes.txt"), BEFORE);
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
    // What the page and the app's frames report: a script error or a CSP violation shows here.
    const complaints: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") {
        complaints.push(`${message.text()} (${message.location().url})`);
      }
    });
    page.on("pageerror", (error) => complaints.push(String(error)));
    await page.goto(pages.hostUrl({ mcp: server.url }));
    await page.waitForSelector("body[data-host=connected]", { timeout: 30_000 })
      .catch(async (error) => assert.fail(`${error.message}; the host: ${await hostState(page)}`));

    // What the model does first, through the host's one connection to toolhost.
    const edit = await hostCall(page, "edit_file", {
      path: "notes.txt",
      edits: [{
        old_string: "old line: the colour of the sky",
        new_string: "new line: the color of the sea",
      }],
    });
    assert.equal(edit.isError ?? false, false, textOf(edit));
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), AFTER);
    const started = await hostCall(page, "bash_background", {
      command: "echo 'review-background-output <i>out</i>'; read line; echo \"later: $line\"; " +
        "exec sleep 600",
    });
    assert.equal(started.isError ?? false, false, textOf(started));
    const processId = textOf(started).match(/\bp\d+\b/)?.[0];
    assert.ok(processId, textOf(started));
    const editId = newestId(
      textOf(await hostCall(page, "history", { tool: "edit_file" })),
      "edit_file",
    );
    // A file whose name is markup: the app must show it as text.
    const hostile = `<img src=x onerror="document.body.dataset.pwned=1">.txt`;
    const written = await hostCall(page, "write_file", { path: hostile, content: "<b>bold</b>\n" });
    assert.equal(written.isError ?? false, false, textOf(written));
    const writeId = newestId(
      textOf(await hostCall(page, "history", { tool: "write_file" })),
      "write_file",
    );

    // The model calls history; the host shows its app beside the result.
    await hostOpen(page, "history");
    const app = await appFrame(page, "body[data-ready=true]");
    const state = JSON.parse(await hostState(page));
    assert.equal(state.resourceUri, "ui://toolhost/review");
    assert.equal(state.mimeType, "text/html;profile=mcp-app");
    // It declares no domain to reach or load from: the strictest policy, which the proxy applies.
    const csp = (state.resourceUi?.csp ?? {}) as Record<string, unknown[]>;
    assert.deepEqual(Object.values(csp).flat(), [], JSON.stringify(state.resourceUi));

    // Inside a host the app talks through the bridge: it never asks for toolhost's token.
    const tokenForm = await app.$("form#token");
    assert.equal(await tokenForm?.isVisible() ?? false, false, "the token form shows in a host");
    await tokenForm?.dispose();

    const change = `[data-change-id="${editId}"]`;
    await waitForText(app, change, ["notes.txt"]);
    await waitForText(app, `${change} .diff`, [
      "old line: the colour of the sky",
      "new line: the color of the sea",
    ]);
    const processSelector = `[data-process-id="${processId}"]`;
    await waitForText(app, `${processSelector} .output`, ["review-background-output <i>out</i>"]);
    await waitForText(app, `[data-change-id="${writeId}"]`, [hostile, "<b>bold</b>"]);
    assert.equal(
      await app.$("img, b, i"),
      null,
      "markup from a file name, its content or a process's output was rendered",
    );
    assert.equal(await app.evaluate("document.body.dataset.pwned ?? null"), null);
    // Live: what the process prints while the app is open appears in it.
    const typed = await hostCall(page, "bash_input", {
      id: processId,
      text: "typed-after-opening",
      newline: true,
      wait_ms: 0,
    });
    assert.equal(typed.isError ?? false, false, textOf(typed));
    await waitForText(app, `${processSelector} .output`, ["later: typed-after-opening"]);

    // Every control has a name a screen reader can say (its text, label or aria-label).
    const unnamed = await app.evaluate(`[...document.querySelectorAll("button, input, select")]
      .filter((node) => !node.hidden && !node.closest("[hidden]"))
      .filter((node) => !(node.getAttribute("aria-label") || node.textContent.trim() ||
        (node.labels && [...node.labels].some((label) => label.textContent.trim()))))
      .map((node) => node.outerHTML.slice(0, 120))`);
    assert.deepEqual(unnamed, []);

    // The filters: by path, then by tool, each undone.
    const writeChange = `[data-change-id="${writeId}"]`;
    const frameHeight = "document.querySelector('#app iframe').getBoundingClientRect().height";
    const fullHeight = await page.evaluate(frameHeight) as number;
    await app.type('input[name="filter-path"]', "notes");
    await app.waitForSelector(writeChange, { hidden: true, timeout: 30_000 });
    await app.waitForSelector(change, { timeout: 30_000 });
    // The app tells the host its new size (ui/notifications/size-changed): a shorter list, a
    // shorter frame, not the old height with a blank below.
    await page.waitForFunction(`${frameHeight} < ${fullHeight}`, { timeout: 30_000 })
      .catch(() =>
        assert.fail(`the frame stayed ${fullHeight} px high after the list got shorter`)
      );
    if (process.env.TOOLHOST_UPDATE_SCREENSHOT === "1") {
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
    }
    await app.click('input[name="filter-path"]', { count: 3 });
    await page.keyboard.press("Backspace");
    await app.waitForSelector(writeChange, { timeout: 30_000 });
    await app.select('select[name="filter-tool"]', "write_file");
    await app.waitForSelector(change, { hidden: true, timeout: 30_000 });
    await app.waitForSelector(writeChange, { timeout: 30_000 });
    await app.select('select[name="filter-tool"]', "");
    await app.waitForSelector(change, { timeout: 30_000 });

    // Undo, pressed in the app, goes to toolhost through the host and restores the file.
    let before = await appCallCount(page);
    await click(app, `${change} button[data-action="undo"]`);
    const undone = await appCall(page, "undo", before);
    assert.equal(undone.result.isError ?? false, false, JSON.stringify(undone));
    assert.equal(undone.arguments?.id, editId);
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), BEFORE);
    await waitForText(app, '[role="status"]', ["notes.txt", "restored"]);

    // The app lists the calls anew after an Undo (its button stays disabled until then), and
    // keeps the keyboard on this call's Undo.
    await app.waitForSelector(`${change} button[data-action="undo"]:not([disabled])`);
    assert.equal(
      await app.evaluate(
        `document.activeElement?.closest("[data-change-id]")?.dataset.changeId ?? null`,
      ),
      editId,
      "the focus left the Undo button when the list was redrawn",
    );

    // A second Undo of the same change, from the keyboard: toolhost refuses, and the app shows
    // its words.
    before = await appCallCount(page);
    await page.keyboard.press("Enter");
    const refused = await appCall(page, "undo", before);
    assert.equal(refused.result.isError, true, JSON.stringify(refused));
    const refusal = textOf(refused.result).split("\n")[0].trim();
    await waitForText(app, '[role="status"]', [refusal]);
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), BEFORE);

    // Stop, pressed in the app, stops the background process.
    before = await appCallCount(page);
    await click(app, `${processSelector} button[data-action="stop"]`);
    const stopped = await appCall(page, "bash_kill", before);
    assert.equal(stopped.arguments?.id, processId);
    const listed = await hostCall(page, "bash_list", {}) as {
      content: { text?: string }[];
      structuredContent?: { processes: { id: string; status: string }[] };
    };
    const entry = listed.structuredContent?.processes.find((item) => item.id === processId);
    assert.ok(entry, textOf(listed));
    assert.notEqual(entry.status, "running", textOf(listed));
    assert.match((await textIn(app, processSelector)) ?? "", /stopped|killed|exited|SIGTERM/i);
    assert.deepEqual(complaints, []);
  },
);

test(
  "the plain page GET /ui/toolhost/review against --http with a token: the same guard, the token asked for, the change and its Undo",
  { skip },
  async () => {
    const token = "review-app-test-token-0123456789";
    const root = e2e.scratch("root");
    writeFileSync(join(root, "notes.txt"), BEFORE);
    const server = await startHttpServer(
      PRODUCT_BINARY,
      ["--root", root, "--http-token", token],
      {},
      root,
    );
    e2e.cleanup(() => server.terminate());
    const pageUrl = server.url.replace(/\/mcp$/, "/ui/toolhost/review");

    // The Origin check of /mcp guards the page too; the page holds no data, /mcp the token.
    const foreign = await fetch(pageUrl, { headers: { origin: "https://evil.example" } });
    await foreign.body?.cancel();
    assert.equal(foreign.status, 403);
    const served = await fetch(pageUrl);
    assert.equal(served.status, 200);
    assert.match(served.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(served.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    await served.body?.cancel();

    const client = new Client({ name: "review-plain", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    e2e.cleanup(() => client.close());
    const edit = await client.callTool({
      name: "edit_file",
      arguments: {
        path: "notes.txt",
        edits: [{
          old_string: "old line: the colour of the sky",
          new_string: "new line: the color of the sea",
        }],
      },
    });
    assert.equal(edit.isError ?? false, false, JSON.stringify(edit));
    const history = await client.callTool({ name: "history", arguments: { tool: "edit_file" } });
    const editId = newestId(textOf(history as { content: { text?: string }[] }), "edit_file");

    const browser = await launchBrowser(chromium!, e2e.scratch("profile"));
    e2e.cleanup(() => browser.close());
    const page = await browser.newPage();
    const complaints: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") {
        complaints.push(`${message.text()} (${message.location().url})`);
      }
    });
    page.on("pageerror", (error) => complaints.push(String(error)));
    const response = await page.goto(pageUrl);
    assert.equal(response?.status(), 200);
    const app = page.mainFrame();
    // /mcp refuses the page's first request: it asks for the token, and shows nothing before.
    const tokenInput = await app.waitForSelector("form#token input[name=token]", {
      visible: true,
      timeout: 30_000,
    });
    assert.equal(await app.$(`[data-change-id="${editId}"]`), null);
    // A wrong token is refused by /mcp, and the page asks again, saying so.
    await tokenInput!.type("not-the-token");
    await tokenInput!.press("Enter");
    await waitForText(app, '[role="status"]', ["refused"]);
    assert.equal(await app.$(`[data-change-id="${editId}"]`), null);
    const again = await app.waitForSelector("form#token input[name=token]", {
      visible: true,
      timeout: 30_000,
    });
    await again!.type(token);
    await again!.press("Enter");
    await app.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    const change = `[data-change-id="${editId}"]`;
    await waitForText(app, `${change} .diff`, [
      "old line: the colour of the sky",
      "new line: the color of the sea",
    ]);
    // Side by side, the same change in two columns.
    await click(app, 'button[data-action="view"]');
    await app.waitForSelector(`${change} .diff table.side`, { timeout: 30_000 });
    await waitForText(app, `${change} .diff`, [
      "old line: the colour of the sky",
      "new line: the color of the sea",
    ]);
    await click(app, `${change} button[data-action="undo"]`);
    await waitForText(app, '[role="status"]', ["notes.txt", "restored"]);
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), BEFORE);
    // The refused token's 401 is the only thing the page may complain of.
    assert.deepEqual(complaints.filter((text) => !/status of 401/.test(text)), []);
  },
);

for (const theme of ["light", "dark"] as const) {
  test(`the review app's text has a contrast of at least 4.5:1 in a host's ${theme} theme`, {
    skip,
  }, async () => {
    const root = e2e.scratch("root");
    writeFileSync(join(root, "notes.txt"), BEFORE);
    const pages = await startHostPages(e2e.scratch("host"));
    e2e.cleanup(() => pages.close());
    // The host's page is of another origin: allowed as a person would (--http-origin).
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
    await page.goto(pages.hostUrl({ mcp: server.url, theme }));
    await page.waitForSelector("body[data-host=connected]", { timeout: 30_000 });
    await hostCall(page, "edit_file", {
      path: "notes.txt",
      edits: [{
        old_string: "old line: the colour of the sky",
        new_string: "new line: the color of the sea",
      }],
    });
    await hostCall(page, "bash_background", { command: "echo some-output; exec sleep 600" });
    await hostOpen(page, "history");
    const app = await appFrame(page, "body[data-ready=true]");
    await waitForText(app, "[data-process-id] .output", ["some-output"]);
    // Undone, then refused (the error's colour counts too).
    const change = `[data-change-id="${await app.evaluate(
      `document.querySelector("[data-change-id]").dataset.changeId`,
    )}"] button[data-action=undo]`;
    await click(app, change);
    await waitForText(app, '[role="status"]', ["restored"]);
    await app.waitForSelector(`${change}:not([disabled])`, { timeout: 30_000 });
    await click(app, change);
    await app.waitForSelector('[role="status"].error', { timeout: 30_000 });
    assert.equal(await app.evaluate("document.documentElement.dataset.theme"), theme);
    assert.deepEqual(await lowContrastText(app), []);
  });
}
