/**
 * A headless Chromium for browser tests, driven with puppeteer-core over a DevTools pipe: frames
 * (the sandboxed app's too), selectors, clicks and screenshots. The product's own DevTools client
 * (tools/web/_lib/chromium) only renders a page and reads its HTML; it has none of these.
 *
 * @example
 * ```ts
 * const executable = findChromium();
 * test("...", { skip: executable ? false : "no Chromium found" }, async () => {
 *   const browser = await launchBrowser(executable!, e2e.scratch("profile"));
 *   try { ... } finally { await browser.close(); }
 * });
 * ```
 */
import process from "node:process";
import puppeteer, { type Browser, type Frame, type Page } from "puppeteer-core";

export { findChromium } from "../../tools/web/_lib/chromium/render.ts";
export type { Browser, Frame, Page };

/** Starts Chromium headless with a scratch profile; no network but loopback is needed. */
export async function launchBrowser(executable: string, profile: string): Promise<Browser> {
  const args = [
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-proxy-server",
    "--hide-scrollbars",
    "--mute-audio",
  ];
  // Chromium refuses to start its own sandbox as root (CI runs as root).
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return await puppeteer.launch({
    executablePath: executable,
    headless: true,
    pipe: true,
    userDataDir: profile,
    args,
    defaultViewport: { width: 1000, height: 760 },
  });
}

/**
 * The app's frame: the srcdoc document inside the sandbox proxy, once `selector` matches in it
 * (say `body[data-ready=true]`).
 */
export async function appFrame(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  const frame = await page.waitForFrame((candidate) => candidate.url() === "about:srcdoc", {
    timeout: timeoutMs,
  }).catch(async (error) => {
    throw new Error(`no app frame: ${error.message}; the host: ${await hostState(page)}`);
  });
  await frame.waitForSelector(selector, { timeout: timeoutMs }).catch(async (error) => {
    throw new Error(
      `the app never matched ${selector}: ${error.message}; the host: ${await hostState(page)}`,
    );
  });
  return frame;
}

/** What the test host page (apps_host/host.ts) recorded, as JSON, for a failure's message. */
export async function hostState(page: Page): Promise<string> {
  return await page.evaluate(() =>
    JSON.stringify((globalThis as { hostState?: unknown }).hostState)
  ).catch((error) => `unreadable (${error.message})`);
}

/** A tools/call made by the test host as the model would make it (apps_host/host.ts). */
export async function hostCall(
  page: Page,
  name: string,
  args: Record<string, unknown>,
): Promise<{ content: { type: string; text?: string }[]; isError?: boolean }> {
  return await page.evaluate(
    `globalThis.testHost.call(${JSON.stringify(name)}, ${JSON.stringify(args)})`,
  ) as { content: { type: string; text?: string }[]; isError?: boolean };
}

/** Opens a tool's app in the test host beside the result of a fresh call of it. */
export async function hostOpen(page: Page, tool: string): Promise<void> {
  await page.evaluate(`globalThis.testHost.open(${JSON.stringify(tool)})`);
}

/** The text of the first element `selector` matches in `frame`, or null when none does. */
export async function textIn(frame: Frame, selector: string): Promise<string | null> {
  return await frame.evaluate(
    `document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`,
  ) as string | null;
}

/** Waits until the text of what `selector` matches in `frame` includes every one of `texts`. */
export async function waitForText(
  frame: Frame,
  selector: string,
  texts: string[],
  timeoutMs = 30_000,
): Promise<string> {
  const condition = `(() => {
    const text = document.querySelector(${JSON.stringify(selector)})?.textContent ?? "";
    return ${JSON.stringify(texts)}.every((part) => text.includes(part));
  })()`;
  await frame.waitForFunction(condition, { timeout: timeoutMs }).catch(async (error) => {
    throw new Error(
      `${selector} never said ${JSON.stringify(texts)} (${error.message}); it says: ${
        JSON.stringify(await textIn(frame, selector))
      }`,
    );
  });
  return (await textIn(frame, selector)) ?? "";
}

/** A tools/call the app made through the test host, and its result. */
export interface AppCall {
  name: string;
  arguments?: Record<string, unknown>;
  result: { content: { type: string; text?: string }[]; isError?: boolean };
}

/** How many tools/call the app has made through the test host so far. */
export async function appCallCount(page: Page): Promise<number> {
  return await page.evaluate("globalThis.hostState.appCalls.length") as number;
}

/**
 * Waits for the app's first call of `tool` after the first `after` calls to have its result (an
 * app also makes calls of its own: listing, polling output).
 */
export async function appCall(
  page: Page,
  tool: string,
  after: number,
  timeoutMs = 30_000,
): Promise<AppCall> {
  const found = `globalThis.hostState.appCalls.slice(${after})
    .find((call) => call.name === ${JSON.stringify(tool)} && call.result !== undefined)`;
  await page.waitForFunction(`Boolean(${found})`, { timeout: timeoutMs }).catch(async (error) => {
    throw new Error(`the app made no ${tool} call: ${error.message}; ${await hostState(page)}`);
  });
  return await page.evaluate(found) as AppCall;
}

/**
 * The visible text in `frame` whose colour against its background is below WCAG AA's 4.5:1
 * (applied to all text, large or not), as "ratio tag.class: text" lines.
 */
export async function lowContrastText(frame: Frame): Promise<string[]> {
  return await frame.evaluate(`(() => {
    const rgba = (colour) => colour.match(/[\\d.]+/g).map(Number);
    const channel = (value) => {
      value /= 255;
      return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
    };
    const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    const background = (node) => {
      for (; node; node = node.parentElement) {
        const colour = rgba(getComputedStyle(node).backgroundColor);
        if (colour.length < 4 || colour[3] > 0) return colour;
      }
      return [255, 255, 255];
    };
    const low = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const node = text.parentElement;
      if (!text.textContent.trim() || !node.checkVisibility()) continue;
      const [light, dark] = [luminance(rgba(getComputedStyle(node).color)), luminance(background(node))]
        .sort((a, b) => b - a);
      const ratio = (light + 0.05) / (dark + 0.05);
      if (ratio < 4.5) {
        low.add(ratio.toFixed(2) + " " + node.tagName.toLowerCase() + "." + node.className + ": " +
          text.textContent.trim().slice(0, 40));
      }
    }
    return [...low];
  })()`) as string[];
}
