/**
 * Renders a web page in headless Chromium and hands back its HTML after scripts have run: for
 * pages whose text only exists once JavaScript has written it. Each render gets its own browser
 * (cdp.ts speaks to it) in its own process group and a scratch profile; both are gone
 * when renderPage settles, however it settles. Every request the page makes waits in the Fetch
 * domain until the caller's guard has judged it.
 */
import { accessSync, constants, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { quoted } from "../../../../config/quote.ts";
import { programOutside } from "../../../_lib/programs_outside.ts";
import { abortError, Chromium, RenderError, within } from "./cdp.ts";

/** Callers (web_render.ts) tell a render's failures by this class. */
export { RenderError };

const NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"];
const MAC_CHROME = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome";

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The Chromium (or Chrome) executable to render with: TOOLHOST_CHROME, else CHROME_PATH (a path,
 * or a bare name looked up on PATH), else the usual names on PATH, else on macOS the standard
 * Chrome install. Only an existing executable file counts; a setting that names anything else is
 * passed over, and so is a PATH entry that is relative or inside `avoid` (the roots).
 */
export function findChromium(
  env: NodeJS.ProcessEnv = process.env,
  avoid: readonly string[] = [],
): string | undefined {
  for (const setting of [env.TOOLHOST_CHROME, env.CHROME_PATH]) {
    if (!setting) continue;
    const found = setting.includes("/")
      ? (isExecutableFile(setting) ? setting : undefined)
      : programOutside(setting, env.PATH, avoid);
    if (found) return found;
  }
  for (const name of NAMES) {
    const found = programOutside(name, env.PATH, avoid);
    if (found) return found;
  }
  if (process.platform === "darwin" && isExecutableFile(MAC_CHROME)) return MAC_CHROME;
  return undefined;
}

export interface RenderOptions {
  /** The browser, usually from findChromium(). */
  executable: string;
  /** How long to let scripts run after the load event before the HTML is read. */
  waitMs: number;
  /** Browser start, navigation and the load event together; waitMs comes on top. */
  timeoutMs: number;
  /** Aborting rejects at once with an AbortError and kills the browser. */
  signal?: AbortSignal;
  /**
   * The guard for every request the page makes (the page itself, its redirects, frames,
   * subresources, workers): undefined lets it through, a string refuses it and says why.
   */
  allowUrl?: (url: string) => Promise<string | undefined>;
  /**
   * Chromium's proxy flags (--proxy-server, --proxy-bypass-list); without them the browser is
   * told to use none, as the downloads do when no proxy is set.
   */
  proxyArguments?: string[];
}

export interface RenderedPage {
  /** document.documentElement.outerHTML once scripts have run. */
  html: string;
  /** Where the page ended up: after redirects and any script navigation. */
  url: string;
}

/** Reading the DOM is quick unless a script on the page keeps the main thread busy. */
const READ_LIMIT_MS = 5_000;
/** A bigger page is refused rather than held in memory twice over. */
const MAX_HTML_CHARS = 16_000_000;

function chromiumArguments(profile: string, proxy: string[] = ["--no-proxy-server"]): string[] {
  const args = [
    "--headless=new",
    "--remote-debugging-pipe",
    `--user-data-dir=${profile}`,
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-component-extensions-with-background-pages",
    "--disable-default-apps",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-breakpad",
    "--no-pings",
    "--mute-audio",
    "--disable-gpu",
    // Containers often give /dev/shm 64 MB, too little for Chromium's shared memory.
    "--disable-dev-shm-usage",
    // Also denies Local Network Access, which stops a public page's WebSockets (which the Fetch
    // domain never sees) from reaching loopback and private addresses.
    "--deny-permission-prompts",
    "--hide-scrollbars",
    "--window-size=1280,1024",
    // No OS keyring or keychain prompts for a throwaway profile.
    "--password-store=basic",
    "--use-mock-keychain",
    ...proxy,
    // The first tab, which the render uses, starts blank instead of on the New Tab page.
    "about:blank",
  ];
  // Chromium refuses to start as root with its sandbox on.
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return args;
}

/** A request of the page's own frame for a document that the guard refused. */
interface Refusal {
  url: string;
  reason: string;
}

/**
 * Renders `url` (http or https) in a browser of its own: loads it, waits for its load event and
 * `waitMs` more, and reads the DOM. Fails with a RenderError whose message says what went wrong
 * (or an AbortError when `signal` aborts); the browser and its profile are gone when it settles.
 */
export async function renderPage(url: string, options: RenderOptions): Promise<RenderedPage> {
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
  // Anything else (file:, chrome:, javascript:) would step around the sandbox and the guard.
  if (!/^https?:\/\//i.test(url)) {
    throw new RenderError(`Only http and https pages can be rendered, not ${quoted(url)}.`);
  }
  const profile = await mkdtemp(join(tmpdir(), "toolhost-chromium-"));
  let browser: Chromium | undefined;
  try {
    browser = new Chromium(options.executable, chromiumArguments(profile, options.proxyArguments));
    return await render(browser, url, options);
  } finally {
    await browser?.close();
    await rm(profile, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 }).catch(
      () => {},
    );
  }
}

async function render(
  browser: Chromium,
  url: string,
  options: RenderOptions,
): Promise<RenderedPage> {
  const { signal, timeoutMs, waitMs, allowUrl } = options;
  const state: { frame?: string; refused?: Refusal } = {};
  const refusedError = (refusal: Refusal) =>
    new RenderError(
      refusal.url === url
        ? refusal.reason
        : `${quoted(url)} led to ${quoted(refusal.url)}, which was refused: ${refusal.reason}`,
    );
  const loadTimeout = (): never => {
    throw browser.answered
      ? new RenderError(
        `The page ${quoted(url)} did not finish loading within ${timeoutMs} ms; ` +
          "try again, allow more time, or fetch it without rendering.",
      )
      : new RenderError(`Chromium did not start within ${timeoutMs} ms.${browser.said()}`);
  };

  if (allowUrl) guardRequests(browser, allowUrl, state);
  const sessionId = await within(
    load(browser, url, state, allowUrl !== undefined),
    timeoutMs,
    loadTimeout,
    signal,
    browser.gone,
  )
    .catch((error) => {
      throw state.refused && !signal?.aborted ? refusedError(state.refused) : error;
    });

  // Time for scripts to write the page after its load event.
  await within(new Promise<void>(() => {}), waitMs, () => {}, signal, browser.gone);
  if (state.refused) throw refusedError(state.refused);

  const expression = `(() => {
    const html = document.documentElement ? document.documentElement.outerHTML : "";
    return html.length > ${MAX_HTML_CHARS} ? { tooLarge: html.length, url: location.href } : { html, url: location.href };
  })()`;
  const evaluated = await within(
    browser.send("Runtime.evaluate", { expression, returnByValue: true }, sessionId),
    READ_LIMIT_MS,
    () => {
      throw new RenderError(
        `Chromium could not read the page ${quoted(url)} within ${READ_LIMIT_MS / 1000} s; ` +
          "a script on it may be keeping it busy. Try a shorter wait, or fetch it without rendering.",
      );
    },
    signal,
    browser.gone,
  );
  if (evaluated.exceptionDetails) {
    throw new RenderError(
      `Chromium could not read the page ${quoted(url)}: reading its DOM failed.`,
    );
  }
  const value =
    (evaluated.result as { value?: { html?: string; url?: string; tooLarge?: number } })?.value ??
      {};
  if (value.tooLarge !== undefined) {
    throw new RenderError(
      `The rendered page ${quoted(url)} is ${value.tooLarge} characters of HTML, more than the ` +
        `${MAX_HTML_CHARS} that can be read; fetch it without rendering.`,
    );
  }
  return { html: value.html ?? "", url: value.url ?? url };
}

/** Pauses every request the browser makes (any target) until `allowUrl` has judged it. */
function guardRequests(
  browser: Chromium,
  allowUrl: (url: string) => Promise<string | undefined>,
  state: { frame?: string; refused?: Refusal },
): void {
  browser.on("Fetch.requestPaused", async (params) => {
    const requestId = params.requestId as string;
    const requestUrl = (params.request as { url: string }).url;
    let reason: string | undefined;
    try {
      reason = await allowUrl(requestUrl);
    } catch (error) {
      reason = `the address check failed: ${(error as Error).message}`;
    }
    if (reason === undefined) {
      browser.send("Fetch.continueRequest", { requestId }).catch(() => {});
      return;
    }
    // The page's main frame has the id of its target.
    if (params.resourceType === "Document" && params.frameId === state.frame) {
      state.refused ??= { url: requestUrl, reason };
    }
    browser.send("Fetch.failRequest", { requestId, errorReason: "AccessDenied" }).catch(() => {});
  });
}

/** Starts the page, navigates, waits for the load event; resolves with the page's session. */
async function load(
  browser: Chromium,
  url: string,
  state: { frame?: string; refused?: Refusal },
  guarded: boolean,
): Promise<string> {
  if (guarded) await browser.send("Fetch.enable", { patterns: [{ urlPattern: "*" }] });
  await browser.send("Browser.setDownloadBehavior", { behavior: "deny" });
  const { targetInfos } = await browser.send("Target.getTargets") as {
    targetInfos: { type: string; targetId: string }[];
  };
  const targetId = targetInfos.find((target) => target.type === "page")?.targetId ??
    (await browser.send("Target.createTarget", { url: "about:blank" }) as { targetId: string })
      .targetId;
  state.frame = targetId;
  const { sessionId } = await browser.send("Target.attachToTarget", {
    targetId,
    flatten: true,
  }) as {
    sessionId: string;
  };
  // An alert() would stop the page's scripts, and our reading of its DOM, until answered.
  browser.on("Page.javascriptDialogOpening", (_params, dialogSession) => {
    browser.send("Page.handleJavaScriptDialog", { accept: false }, dialogSession).catch(() => {});
  });
  const loads: string[] = [];
  let loaded: (() => void) | undefined;
  browser.on("Page.lifecycleEvent", (params) => {
    if (params.name !== "load" || params.frameId !== targetId) return;
    loads.push(params.loaderId as string);
    loaded?.();
  });
  await browser.send("Page.enable", {}, sessionId);
  await browser.send("Page.setLifecycleEventsEnabled", { enabled: true }, sessionId);
  const navigation = await browser.send("Page.navigate", { url }, sessionId).catch((error) => {
    // The browser's refusal of the URL itself ("Cannot navigate to invalid URL").
    throw error instanceof RenderError
      ? error
      : new RenderError(`Chromium could not load ${quoted(url)}: ${error.message}.`);
  }) as { loaderId?: string; errorText?: string; isDownload?: boolean };
  if (navigation.isDownload) {
    throw new RenderError(
      `${quoted(url)} is a file download, not a page; fetch it without rendering.`,
    );
  }
  if (navigation.errorText) {
    throw new RenderError(`Chromium could not load ${quoted(url)}: ${navigation.errorText}.`);
  }
  const done = () =>
    navigation.loaderId === undefined ? loads.length > 0 : loads.includes(navigation.loaderId);
  if (!done()) await new Promise<void>((resolve) => (loaded = () => done() && resolve()));
  return sessionId;
}
