/**
 * The review page in a plain browser (real Chromium), through the compiled binary: `toolhost
 * review --root DIR` beside an agent's toolhost over stdio (the page follows the agent's work as
 * it lands, keeping the reader's place), `--http` with a static token (its address logged, the
 * token asked for, Undo), and `--http` under OAuth (Sign in at the authorization server).
 * The page inside an MCP Apps host is review_app_browser_test.ts's.
 *
 * TOOLHOST_UPDATE_SCREENSHOT=1 also writes docs/review-app.png (the page as `toolhost review`
 * shows it).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import {
  READ_SCOPE,
  startAuthorizationServer,
  WRITE_SCOPE,
} from "../helpers/authorization_server.ts";
import {
  findChromium,
  type Frame,
  launchBrowser,
  type Page,
  waitForText,
} from "../helpers/browser.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { startHttpServer } from "../helpers/http_server.ts";
import { oauthUserConfig } from "../helpers/oauth_client.ts";
import { PRODUCT_BINARY, type RawClient, ROOT } from "../helpers/raw_client.ts";

const e2e = e2eFixture();
const chromium = findChromium();
const skip = chromium ? false : "no Chromium found (install chromium, or set TOOLHOST_CHROME)";
const SCREENSHOT = join(ROOT, "docs", "review-app.png");

const BEFORE = "alpha\nold line: the colour of the sky\nomega\n";
const AFTER = "alpha\nnew line: the color of the sea\nomega\n";
const EDIT = {
  path: "notes.txt",
  edits: [{
    old_string: "old line: the colour of the sky",
    new_string: "new line: the color of the sea",
  }],
};

/** A browser page of `width` px whose script errors and CSP violations are collected. */
async function browserPage(width = 1000): Promise<{ page: Page; complaints: string[] }> {
  const browser = await launchBrowser(chromium!, e2e.scratch("profile"));
  e2e.cleanup(() => browser.close());
  const page = await browser.newPage();
  await page.setViewport({ width, height: 800 });
  const complaints: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") {
      complaints.push(`${message.text()} (${message.location().url})`);
    }
  });
  page.on("pageerror", (error) => complaints.push(String(error)));
  return { page, complaints };
}

async function agentCall(agent: RawClient, name: string, args: Record<string, unknown>) {
  const reply = await agent.request("tools/call", { name, arguments: args }, 30_000);
  const result = reply.result as { isError?: boolean; content: { text?: string }[] };
  assert.equal(result.isError ?? false, false, JSON.stringify(reply));
  return result;
}

/** The address `toolhost review` printed on stdout. */
async function printedAddress(stdout: () => string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const found = /http:\/\/127\.0\.0\.1:\d+\/ui\/toolhost\/review#token=[\w-]+/.exec(stdout());
    if (found) return found[0];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`toolhost review printed no address: ${JSON.stringify(stdout())}`);
}

const cardTop = (frame: Frame, id: string) =>
  frame.evaluate(
    `document.querySelector('[data-change-id="${id}"]').getBoundingClientRect().top`,
  ) as Promise<number>;

test(
  "toolhost review --root DIR: prints the page's address, which opens signed in, follows the agent's calls as they land without moving what the reader looks at",
  { skip },
  async () => {
    const { root, client: agent } = e2e.start();
    writeFileSync(join(root, "notes.txt"), BEFORE);
    writeFileSync(
      join(root, "min.js"),
      `${"var a=1;".repeat(1200)}x=143;${"var b=2;".repeat(1200)}\n`,
    );
    writeFileSync(join(root, "draft.md"), "# Draft\n");
    await agent.initialize();
    for (let i = 0; i < 8; i++) {
      await agentCall(agent, "write_file", { path: `file-${i}.txt`, content: `${i}\n` });
    }
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i}`).join("\n");
    await agentCall(agent, "write_file", { path: "big.txt", content: `${lines}\n` });
    await agentCall(agent, "edit_file", {
      path: "min.js",
      edits: [{ old_string: "x=143;", new_string: "x=999999;" }],
    });
    await agentCall(agent, "move_file", { source: "draft.md", destination: "docs-draft.md" });
    await agentCall(agent, "edit_file", EDIT);
    // From elsewhere: the review command finds the project by --root, not by its directory.
    const review = await startHttpServer(PRODUCT_BINARY, ["review", "--root", root], {});
    e2e.cleanup(() => review.terminate());
    const address = await printedAddress(review.stdout);

    const { page, complaints } = await browserPage();
    await page.goto(address);
    const app = page.mainFrame();
    await app.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    // The token came in the address's fragment: nothing asked, and the address no longer has it.
    assert.equal(await app.$eval("form#token", (form) => form.checkVisibility()), false);
    assert.doesNotMatch(page.url(), /token/);
    await waitForText(app, "#calls", ["edit_file", "notes.txt", "file-0.txt"]);
    await waitForText(app, "#calls", ["moved draft.md → docs-draft.md", "999999"]);
    await app.waitForSelector("body[data-following=told]", { timeout: 30_000 });
    // Where toolhost starts no processes (the review command offers no bash), no panel at all.
    await app.waitForSelector("#processes-section", { hidden: true, timeout: 30_000 });

    // The reader scrolls down to the oldest card.
    const ids = await app.evaluate(
      `[...document.querySelectorAll("[data-change-id]")].map((n) => n.dataset.changeId)`,
    ) as string[];
    const [edit, oldest] = [ids[0], ids.at(-1)!];
    await waitForText(app, `[data-change-id="${edit}"] h3`, ["edit_file", "notes.txt"]);
    await app.evaluate(
      `document.querySelector('[data-change-id="${oldest}"]').scrollIntoView({ block: "center" })`,
    );
    const top = await cardTop(app, oldest);
    assert.ok(await app.evaluate("scrollY") as number > 0, "the page is too short to scroll");

    // The agent works on: its calls appear, above, and the card read stays where it was.
    await agentCall(agent, "write_file", { path: "landed-live.txt", content: "new\n" });
    await waitForText(app, "#calls", ["landed-live.txt"]);
    const now = await cardTop(app, oldest);
    assert.ok(Math.abs(now - top) <= 1, `the reader's place moved from ${top} to ${now} px`);
    // An undo from the agent: the edit's card turns undone while the page is open.
    await agentCall(agent, "undo", { id: edit });
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), BEFORE);
    await app.waitForSelector(`[data-change-id="${edit}"].undone`, { timeout: 30_000 });
    await waitForText(app, "#calls", ["undid edit_file notes.txt"]);

    if (process.env.TOOLHOST_UPDATE_SCREENSHOT === "1") {
      await page.setViewport({ width: 1000, height: 1000 });
      await app.evaluate("scrollTo(0, 0)");
      await page.screenshot({ path: SCREENSHOT });
    }

    // Redo from the page: the edit is back.
    await app.click(`[data-change-id="${edit}"] button[data-action="redo"]`);
    await app.waitForSelector(`[data-change-id="${edit}"]:not(.undone)`, { timeout: 30_000 });
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), AFTER);
    assert.deepEqual(complaints, []);
  },
);

test(
  "--http with a token logs the review page's address; the page asks for the token, says when one is refused, then shows the change and undoes it",
  { skip },
  async () => {
    const token = "review-page-test-token-0123456789";
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
    // Logged once it listens, for the person who started it.
    for (let i = 0; i < 600 && !server.stderr().includes(pageUrl); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(server.stderr().includes(pageUrl), server.stderr());

    const { page, complaints } = await browserPage(390);
    assert.equal((await page.goto(pageUrl))?.status(), 200);
    const app = page.mainFrame();
    const input = await app.waitForSelector("form#token input[name=token]", {
      visible: true,
      timeout: 30_000,
    });
    await input!.type("not-the-token");
    await input!.press("Enter");
    await waitForText(app, '[role="status"]', ["refused"]);
    const again = await app.waitForSelector("form#token input[name=token]", {
      visible: true,
      timeout: 30_000,
    });
    await again!.type(token);
    await again!.press("Enter");
    await app.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    await app.waitForSelector("body[data-following=told]", { timeout: 30_000 });
    // A change the page did not see made: toolhost's own client edits, and the page shows it.
    const agent = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "agent", version: "1" },
        },
      }),
    });
    const session = agent.headers.get("mcp-session-id");
    await agent.body?.cancel();
    const edited = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": "2025-11-25",
        ...(session ? { "mcp-session-id": session } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "edit_file", arguments: EDIT },
      }),
    });
    assert.equal(edited.status, 200, await edited.clone().text());
    await edited.body?.cancel();
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), AFTER);
    await waitForText(app, "#calls .diff", ["colour", "color"]);
    const card = await app.evaluate(
      `document.querySelector("[data-change-id]").dataset.changeId`,
    ) as string;
    await app.click(`[data-change-id="${card}"] button[data-action="undo"]`);
    await waitForText(app, `[data-change-id="${card}"] .said`, ["notes.txt", "restored"]);
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), BEFORE);
    // Nothing wider than the phone's screen.
    assert.ok(
      await app.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth",
      ),
    );
    // The refused token's 401 is the only thing the page may complain of.
    assert.deepEqual(complaints.filter((text) => !/status of 401/.test(text)), []);
  },
);

/**
 * Answers the authorization server's login and consent pages in the browser as a user would
 * (tests/helpers/authorization_server.ts: GET shows the prompt, a POST of the form answers it),
 * until the browser is sent back to `back`.
 */
async function approveInBrowser(page: Page, back: string, scopes: string[]): Promise<void> {
  for (let step = 0; step < 6; step++) {
    await page.waitForFunction(
      `location.pathname.startsWith("/interaction/") || location.href.startsWith(${
        JSON.stringify(back)
      })`,
      { timeout: 30_000 },
    );
    if (page.url().startsWith(back)) return;
    await Promise.all([
      page.waitForNavigation({ timeout: 30_000 }),
      // The prompt page is JSON: a form posted from it answers it, as the user's browser would.
      page.evaluate(`(() => {
        const form = document.createElement("form");
        form.method = "POST";
        form.action = location.href;
        const answers = [["account", "reviewer"], ["approve", ${JSON.stringify(scopes.join(" "))}]];
        for (const [name, value] of answers) {
          const input = document.createElement("input");
          input.name = name;
          input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      })()`),
    ]);
  }
  assert.fail(`the sign-in did not come back to ${back}: ${page.url()}`);
}

test(
  "--http under OAuth: the page signs in at the authorization server (registration, PKCE, the resource) and shows the project's calls",
  { skip },
  async () => {
    const as = await startAuthorizationServer({ browserRegistration: true });
    e2e.cleanup(() => as.close());
    const root = e2e.scratch("root");
    writeFileSync(join(root, "notes.txt"), BEFORE);
    const env = oauthUserConfig(e2e.scratch("config"), { issuer: as.issuer });
    const server = await startHttpServer(PRODUCT_BINARY, ["--root", root], env, root);
    e2e.cleanup(() => server.terminate());
    as.resources.add(server.url);
    const pageUrl = server.url.replace(/\/mcp$/, "/ui/toolhost/review");

    const { page, complaints } = await browserPage();
    await page.goto(pageUrl);
    const app = page.mainFrame();
    const signIn = await app.waitForSelector("form#token button[data-action=signin]", {
      visible: true,
      timeout: 30_000,
    });
    await waitForText(app, "#token-why", ["authorization server", READ_SCOPE]);
    await Promise.all([page.waitForNavigation({ timeout: 30_000 }), signIn!.click()]);
    assert.ok(page.url().startsWith(as.issuer), page.url());
    await approveInBrowser(page, pageUrl, [READ_SCOPE, WRITE_SCOPE]);
    await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    await waitForText(page.mainFrame(), '[role="status"]', ["Signed in"]);
    // The code left the address; the token works on /mcp: the page lists and follows.
    assert.doesNotMatch(page.url(), /code=/);
    await page.waitForSelector("body[data-following=told]", { timeout: 30_000 });
    assert.ok(as.requests.includes("POST /reg"), as.requests.join(", "));
    assert.ok(as.requests.includes("POST /token"), as.requests.join(", "));
    // The refused first request's 401, and the authorization server's missing icon, aside.
    assert.deepEqual(complaints.filter((text) => !/status of 401|favicon\.ico/.test(text)), []);
  },
);

test(
  "--http under OAuth with an authorization server that lets no page register: the page says how to get a token",
  { skip },
  async () => {
    const as = await startAuthorizationServer();
    e2e.cleanup(() => as.close());
    const root = e2e.scratch("root");
    const env = oauthUserConfig(e2e.scratch("config"), { issuer: as.issuer });
    const server = await startHttpServer(PRODUCT_BINARY, ["--root", root], env, root);
    e2e.cleanup(() => server.terminate());
    as.resources.add(server.url);
    const { page } = await browserPage();
    await page.goto(server.url.replace(/\/mcp$/, "/ui/toolhost/review"));
    const app = page.mainFrame();
    await app.click("form#token button[data-action=signin]");
    await waitForText(app, '[role="status"]', [
      "could not register",
      "paste an access token",
      server.url,
    ]);
  },
);
