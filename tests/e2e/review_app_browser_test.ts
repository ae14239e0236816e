/**
 * The review app (ui://toolhost/review) in a real Chromium, through the compiled binary, loaded
 * by an MCP Apps host as a client loads it (tests/helpers/apps_host: the ext-apps SDK's AppBridge,
 * a sandbox proxy on another origin, the strict CSP): readable cards, changed words marked, new
 * calls appearing while it is open, Undo and Redo with toolhost's answer beside the button,
 * processes by name, and legible in both themes at 390 px and on a desktop. The plain page in a
 * browser (`toolhost review`, --http with a token or OAuth) is review_page_test.ts's.
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
  type Page,
  textIn,
  waitForText,
} from "../helpers/browser.ts";

const e2e = e2eFixture();
const chromium = findChromium();
const skip = chromium ? false : "no Chromium found (install chromium, or set TOOLHOST_CHROME)";

const BEFORE = "alpha\nold line: the colour of the sky\nomega\n";
const AFTER = "alpha\nnew line: the color of the sea\nomega\n";
const EDIT = {
  path: "notes.txt",
  edits: [{
    old_string: "old line: the colour of the sky",
    new_string: "new line: the color of the sea",
  }],
};

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

/** A host page connected to a fresh toolhost over HTTP, in a browser of `width` px. */
async function hosted(
  root: string,
  options: { args?: string[]; theme?: "light" | "dark"; width?: number } = {},
) {
  const pages = await startHostPages(e2e.scratch("host"));
  e2e.cleanup(() => pages.close());
  const server = await startHttpServer(
    PRODUCT_BINARY,
    ["--root", root, "--http-origin", pages.origin, ...options.args ?? []],
    {},
    root,
  );
  e2e.cleanup(() => server.terminate());
  const browser = await launchBrowser(chromium!, e2e.scratch("profile"));
  e2e.cleanup(() => browser.close());
  const page = await browser.newPage();
  await page.setViewport({ width: options.width ?? 1000, height: 760 });
  // What the page and the app's frames report: a script error or a CSP violation shows here.
  const complaints: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") {
      complaints.push(`${message.text()} (${message.location().url})`);
    }
  });
  page.on("pageerror", (error) => complaints.push(String(error)));
  await page.goto(pages.hostUrl({ mcp: server.url, theme: options.theme }));
  await page.waitForSelector("body[data-host=connected]", { timeout: 30_000 })
    .catch(async (error) => assert.fail(`${error.message}; the host: ${await hostState(page)}`));
  return { page, complaints };
}

async function call(page: Page, name: string, args: Record<string, unknown>) {
  const result = await hostCall(page, name, args);
  assert.equal(result.isError ?? false, false, textOf(result));
  return result;
}

test(
  "in an MCP Apps host: a readable card per call with its changed words marked, new calls appearing while open, Undo and Redo answered beside the button, a refusal too, processes by name",
  { skip },
  async () => {
    const root = e2e.scratch("root");
    writeFileSync(join(root, "notes.txt"), BEFORE);
    const { page, complaints } = await hosted(root);

    await call(page, "edit_file", EDIT);
    const started = await call(page, "bash_background", {
      name: "dev-server",
      command:
        "head -c 5000 /dev/zero | tr '\\0' x; echo; echo 'review-background-output <i>out</i>'; " +
        'read line; echo "later: $line"; exec sleep 600',
    });
    const processId = textOf(started).match(/\bp\d+\b/)?.[0];
    assert.ok(processId, textOf(started));
    const editId = newestId(
      textOf(await call(page, "history", { tool: "edit_file" })),
      "edit_file",
    );
    // A file whose name is markup: the app must show it as text.
    const hostile = `<img src=x onerror="document.body.dataset.pwned=1">.txt`;
    await call(page, "write_file", { path: hostile, content: "<b>bold</b>\n" });

    await hostOpen(page, "history");
    const app = await appFrame(page, "body[data-ready=true]");
    // Inside a host the app talks through the bridge: it never asks for toolhost's token.
    const tokenForm = await app.$("form#token");
    assert.equal(await tokenForm?.isVisible() ?? false, false, "the token form shows in a host");
    await tokenForm?.dispose();

    // The card's header reads: the tool, the path and what it was asked; the raw arguments
    // wait behind their toggle.
    const card = `[data-change-id="${editId}"]`;
    await waitForText(app, `${card} h3`, [
      "edit_file",
      "notes.txt",
      "“old line: the colour of the sky” → “new line: the color of the sea”",
    ]);
    assert.match(await textIn(app, `${card} .meta`) ?? "", /1 file · \+1 −1/);
    assert.equal(await app.$eval(`${card} pre.args`, (node) => node.checkVisibility()), false);
    await click(app, `${card} button[data-action="args"]`);
    await waitForText(app, `${card} pre.args`, ['"old_string"', '"path": "notes.txt"']);
    // The words that changed are marked within their lines.
    const marked = await app.$$eval(
      `${card} .diff mark`,
      (nodes) => nodes.map((n) => n.textContent),
    );
    for (const word of ["old", "colour", "sky", "new", "color", "sea"]) {
      assert.ok(marked.includes(word), `${word} is not marked: ${JSON.stringify(marked)}`);
    }
    assert.ok(!marked.some((word) => /line|the/.test(word ?? "")), JSON.stringify(marked));

    await waitForText(app, "#calls", [hostile, "<b>bold</b>"]);
    assert.equal(await app.$("img, b, i"), null, "markup from a name, a file or output rendered");
    assert.equal(await app.evaluate("document.body.dataset.pwned ?? null"), null);

    // The process by the name it was given, its output's size for a person, no word meant for
    // the model.
    const proc = `[data-process-id="${processId}"]`;
    await waitForText(app, `${proc} h3`, ["dev-server"]);
    await waitForText(app, `${proc} .output`, ["review-background-output <i>out</i>"]);
    assert.match(await textIn(app, proc) ?? "", /\b5\.\d KB of output/);
    assert.doesNotMatch(await app.evaluate("document.body.textContent") as string, /bash_output/);

    // What the model does while the app is open appears in it, without Refresh: the app asks
    // with the revision it has, which costs toolhost a stat while nothing landed.
    const before = await appCallCount(page);
    await call(page, "write_file", { path: "landed-later.txt", content: "new\n" });
    await waitForText(app, "#calls", ["landed-later.txt"]);
    const asked = await appCall(page, "history_changes", before);
    assert.equal(typeof asked.arguments?.unless, "string", JSON.stringify(asked.arguments));
    await call(page, "bash_input", { id: processId, text: "typed", newline: true, wait_ms: 0 });
    await waitForText(app, `${proc} .output`, ["later: typed"]);

    // Every control has a name a screen reader can say (its text, label or aria-label).
    const unnamed = await app.evaluate(`[...document.querySelectorAll("button, input, select")]
      .filter((node) => node.checkVisibility())
      .filter((node) => !(node.getAttribute("aria-label") || node.textContent.trim() ||
        (node.labels && [...node.labels].some((label) => label.textContent.trim()))))
      .map((node) => node.outerHTML.slice(0, 120))`);
    assert.deepEqual(unnamed, []);

    // The filters still narrow the list, and the frame follows its height.
    const frameHeight = "document.querySelector('#app iframe').getBoundingClientRect().height";
    const fullHeight = await page.evaluate(frameHeight) as number;
    await app.type('input[name="filter-path"]', "notes");
    await app.waitForSelector(`[data-change-id]:not(${card})`, { hidden: true, timeout: 30_000 });
    await page.waitForFunction(`${frameHeight} < ${fullHeight}`, { timeout: 30_000 })
      .catch(() => assert.fail(`the frame stayed ${fullHeight} px high`));
    await app.click('input[name="filter-path"]', { count: 3 });
    await page.keyboard.press("Backspace");
    await waitForText(app, "#calls", ["landed-later.txt"]);

    // Undo: the file comes back, the card says undone (struck through, folded, with Redo),
    // and toolhost's answer stands beside the button, which keeps the keyboard.
    await click(app, `${card} button[data-action="undo"]`);
    await app.waitForSelector(`${card}.undone button[data-action="redo"]`, { timeout: 30_000 });
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), BEFORE);
    await waitForText(app, `${card} .said`, ["notes.txt", "restored"]);
    assert.equal(
      await app.evaluate(
        `getComputedStyle(document.querySelector(${
          JSON.stringify(`${card} h3`)
        })).textDecorationLine`,
      ),
      "line-through",
    );
    assert.equal(await app.$eval(`${card} .details`, (node) => node.checkVisibility()), false);
    assert.equal(await textIn(app, `${card} button[data-action="redo"]`), "Redo");
    assert.equal(await app.evaluate("document.activeElement?.dataset.action ?? null"), "redo");
    // The undo is a card of its own, whose button redoes as well.
    await waitForText(app, "#calls", ["undid edit_file notes.txt"]);

    // Redo, from the keyboard: the edit is back and the card stands again.
    await page.keyboard.press("Enter");
    await app.waitForSelector(`${card}:not(.undone) button[data-action="undo"]`, {
      timeout: 30_000,
    });
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), AFTER);

    // A file changed behind toolhost's back: Undo is refused, said beside the button.
    writeFileSync(join(root, "notes.txt"), "changed by someone else\n");
    const calls = await appCallCount(page);
    await click(app, `${card} button[data-action="undo"]`);
    const refused = await appCall(page, "undo", calls);
    assert.equal(refused.result.isError, true, JSON.stringify(refused));
    const refusal = textOf(refused.result).split("\n")[0].trim();
    await waitForText(app, `${card} .said.error`, [refusal]);
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "changed by someone else\n");

    // Stop stops the process; a stopped process has nothing left to stop.
    await click(app, `${proc} button[data-action="stop"]`);
    await app.waitForSelector(`${proc} button[data-action="stop"]`, {
      hidden: true,
      timeout: 30_000,
    });
    assert.match((await textIn(app, proc)) ?? "", /killed|SIGTERM|exit/i);
    assert.deepEqual(complaints, []);
  },
);

test(
  "under --profile companion: a move and a copy said as such, no diff; no processes panel and no error about it",
  { skip },
  async () => {
    const root = e2e.scratch("root");
    writeFileSync(join(root, "notes.txt"), BEFORE);
    const { page, complaints } = await hosted(root, { args: ["--profile", "companion"] });
    await call(page, "move_file", { source: "notes.txt", destination: "moved.txt" });
    await call(page, "copy_file", { source: "moved.txt", destination: "copy.txt" });
    await hostOpen(page, "history");
    const app = await appFrame(page, "body[data-ready=true]");
    await waitForText(app, "#calls", [
      "moved notes.txt → moved.txt",
      "copied moved.txt → copy.txt",
      "(unchanged)",
    ]);
    assert.equal(await app.$("#calls table"), null, "an unchanged move or copy shows a diff");
    await app.waitForSelector("#processes-section", { hidden: true, timeout: 30_000 });
    assert.doesNotMatch(await app.evaluate("document.body.innerText") as string, /not found/i);
    assert.deepEqual(complaints, []);
  },
);

for (const theme of ["light", "dark"] as const) {
  for (const width of [390, 1280]) {
    test(`${theme} theme at ${width} px: every text at least 4.5:1, nothing wider than the frame`, {
      skip,
    }, async () => {
      const root = e2e.scratch("root");
      writeFileSync(join(root, "notes.txt"), BEFORE);
      writeFileSync(
        join(root, "min.js"),
        `${"var a=1;".repeat(1200)}x=143;${"var b=2;".repeat(1200)}\n`,
      );
      const { page } = await hosted(root, { theme, width });
      await call(page, "edit_file", EDIT);
      await call(page, "edit_file", {
        path: "min.js",
        edits: [{ old_string: "x=143;", new_string: "x=999999;" }],
      });
      await call(page, "bash_background", { command: "echo some-output; exec sleep 600" });
      await hostOpen(page, "history");
      const app = await appFrame(page, "body[data-ready=true]");
      await waitForText(app, "[data-process-id] .output", ["some-output"]);
      // The one-line file: its change marked, the rest of the line folded.
      await waitForText(app, "#calls", ["999999", "more characters"]);
      // Undone, with Redo; then an undo refused (the error's colour counts too).
      const first = await app.evaluate(
        `[...document.querySelectorAll("[data-change-id]")].find((n) => n.textContent.includes("notes.txt")).dataset.changeId`,
      );
      const card = `[data-change-id="${first}"]`;
      await click(app, `${card} button[data-action=undo]`);
      await app.waitForSelector(`${card}.undone`, { timeout: 30_000 });
      writeFileSync(join(root, "notes.txt"), "someone else's\n");
      await click(app, `${card} button[data-action=redo]`);
      await app.waitForSelector(`${card} .said.error`, { timeout: 30_000 });
      assert.equal(await app.evaluate("document.documentElement.dataset.theme"), theme);
      assert.deepEqual(await lowContrastText(app), []);
      const overflow = await app.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      );
      assert.ok((overflow as number) <= 0, `the app is ${overflow} px wider than its frame`);
      // The one-line file's card is no taller than a few screens at this width.
      const height = await app.evaluate(
        `[...document.querySelectorAll("[data-change-id]")].find((n) => n.textContent.includes("min.js")).getBoundingClientRect().height`,
      ) as number;
      assert.ok(height < 1200, `the one-line file's card is ${height} px high`);
    });
  }
}
