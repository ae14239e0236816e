/**
 * Renders a web page in headless Chromium and hands back its HTML after scripts have run: for
 * pages whose text only exists once JavaScript has written it. The DevTools protocol is spoken
 * over --remote-debugging-pipe (fds 3 and 4, NUL-delimited JSON), so no port is opened and no
 * WebSocket library is needed. Each render gets its own browser in its own process group and a
 * scratch profile; both are gone when renderPage settles, however it settles.
 */
import { Buffer } from "node:buffer";
import type { ChildProcess } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import { quoted } from "../../_lib/one_line.ts";
import { groupAlive, spawnInGroup, terminateGroup } from "../../_lib/process_groups.ts";

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

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The Chromium (or Chrome) executable to render with: TOOLHOST_CHROME, else CHROME_PATH (a path,
 * or a bare name looked up on PATH), else the usual names on PATH, else on macOS the standard
 * Chrome install. Only an existing executable file counts; a setting that names anything else is
 * passed over.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const setting of [env.TOOLHOST_CHROME, env.CHROME_PATH]) {
    if (!setting) continue;
    const found = setting.includes("/")
      ? (isExecutableFile(setting) ? setting : undefined)
      : onPath(setting, env);
    if (found) return found;
  }
  for (const name of NAMES) {
    const found = onPath(name, env);
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
}

export interface RenderedPage {
  /** document.documentElement.outerHTML once scripts have run. */
  html: string;
  /** Where the page ended up: after redirects and any script navigation. */
  url: string;
}

/** A failure told as a sentence the model can act on. */
export class RenderError extends Error {}

/** Reading the DOM is quick unless a script on the page keeps the main thread busy. */
const READ_LIMIT_MS = 5_000;
/** A bigger page is refused rather than held in memory twice over. */
const MAX_HTML_CHARS = 16_000_000;
/** Bound on one DevTools message, so a runaway page cannot grow our memory without limit. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** How long to wait for a killed browser's processes to be gone before removing its profile. */
const EXIT_WAIT_MS = 2_000;
/** setTimeout fires at once for anything longer. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const STDERR_KEEP = 4_000;
const STDERR_SHOWN = 500;

function chromiumArguments(profile: string): string[] {
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
    // The first tab, which the render uses, starts blank instead of on the New Tab page.
    "about:blank",
  ];
  // Chromium refuses to start as root with its sandbox on.
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return args;
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error
    ? reason
    : new DOMException("The render was cancelled", "AbortError");
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message?: string };
  sessionId?: string;
}

type Handler = (params: Record<string, unknown>, sessionId: string | undefined) => void;

/** One browser process group and its DevTools pipe. */
class Chromium {
  readonly #child: ChildProcess;
  /** Missing when the spawn failed at once (Deno): then an "error" event follows. */
  readonly #input: Writable | undefined;
  readonly #pending = new Map<
    number,
    { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  readonly #handlers = new Map<string, Handler>();
  #nextId = 0;
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #stderr = "";
  #failure: Error | undefined;
  #failed!: (error: Error) => void;
  /** Whether the browser has answered a command: it started. */
  answered = false;
  /** Rejects, with why, once the browser can no longer be used. Never resolves. */
  readonly gone: Promise<never>;

  constructor(readonly executable: string, args: string[]) {
    this.gone = new Promise<never>((_, reject) => (this.#failed = reject));
    this.gone.catch(() => {}); // every wait races it; a failure with nobody waiting is fine
    this.#child = spawnInGroup(executable, args, {
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    });
    this.#input = (this.#child.stdio[3] ?? undefined) as Writable | undefined;
    const output = (this.#child.stdio[4] ?? undefined) as Readable | undefined;
    const stderr = this.#child.stderr;
    stderr?.setEncoding("utf8");
    stderr?.on(
      "data",
      (text: string) => (this.#stderr = (this.#stderr + text).slice(-STDERR_KEEP)),
    );
    stderr?.on("error", () => {});
    this.#input?.on("error", () => {}); // EPIPE when the browser has died; `gone` tells why
    output?.on("error", () => {});
    output?.on("data", (chunk: Buffer) => this.#read(chunk));
    // The exit, when it follows, says more than the closed pipe; both wait for stderr's last words.
    output?.once("end", () => this.#failSoon(100, "closed its DevTools connection"));
    this.#child.once("error", (error) => {
      this.#fail(
        new RenderError(`Chromium could not be started (${quoted(executable)}): ${error.message}.`),
      );
    });
    this.#child.once("exit", (code, signal) => {
      this.#failSoon(50, code === null ? `was killed by ${signal}` : `exited with code ${code}`);
    });
  }

  /** The tail of the browser's stderr, for a message: its noisy D-Bus complaints left out. */
  said(): string {
    const lines = this.#stderr.split("\n").map((line) => line.trim())
      .filter((line) => line && !line.includes("dbus"));
    const text = lines.join("\n").slice(-STDERR_SHOWN);
    return text ? ` Chromium said:\n${text}` : "";
  }

  #failSoon(ms: number, how: string): void {
    if (!this.#failure) setTimeout(() => this.#fail(this.#exitError(how)), ms);
  }

  #exitError(how: string): RenderError {
    const when = this.answered ? "before the page was rendered" : "while starting";
    return new RenderError(`Chromium (${quoted(this.executable)}) ${how} ${when}.${this.said()}`);
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#failed(error);
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let nul = chunk.indexOf(0); nul !== -1; nul = chunk.indexOf(0, start)) {
      this.#partial.push(chunk.subarray(start, nul));
      const text = Buffer.concat(this.#partial).toString("utf8");
      this.#partial = [];
      this.#partialBytes = 0;
      this.#dispatch(text);
      start = nul + 1;
    }
    if (start < chunk.length) {
      this.#partial.push(chunk.subarray(start));
      this.#partialBytes += chunk.length - start;
      if (this.#partialBytes > MAX_MESSAGE_BYTES) {
        this.#partial = [];
        this.#fail(
          new RenderError(
            "Chromium sent a DevTools message over 64 MiB; the page is too large to render.",
          ),
        );
        this.#kill();
      }
    }
  }

  #dispatch(text: string): void {
    if (this.#failure) return; // closed: nothing may act on the page any more
    let message: Message;
    try {
      message = JSON.parse(text);
    } catch {
      return; // not ours to understand; the command waiting for an answer will time out
    }
    if (message.id !== undefined) {
      const waiter = this.#pending.get(message.id);
      if (!waiter) return;
      this.#pending.delete(message.id);
      this.answered = true;
      if (message.error) waiter.reject(new Error(message.error.message ?? "DevTools error"));
      else waiter.resolve(message.result ?? {});
    } else if (message.method) {
      this.#handlers.get(message.method)?.(message.params ?? {}, message.sessionId);
    }
  }

  /** Sends a command (to a page when sessionId is given) and resolves with its result. */
  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#input?.write(JSON.stringify({ id, method, params, sessionId }) + "\0");
    });
  }

  /** The handler for an event (one per event name is all a render needs). */
  on(method: string, handler: Handler): void {
    this.#handlers.set(method, handler);
  }

  #kill(): void {
    if (this.#child.pid !== undefined) void terminateGroup(this.#child.pid, 0, "SIGKILL");
  }

  /** Kills the whole group and waits (bounded) until none of it is left running. */
  async close(): Promise<void> {
    this.#fail(new RenderError("The browser was closed."));
    const pgid = this.#child.pid;
    if (pgid === undefined) return;
    await terminateGroup(pgid, 0, "SIGKILL");
    const deadline = Date.now() + EXIT_WAIT_MS;
    while (groupAlive(pgid) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.#child.stdio.forEach((stream) => stream?.destroy());
  }
}

/**
 * Settles as `work` does, unless `ms` pass first (then settles as `atLimit` does: returns or
 * throws), the signal is aborted, or the browser goes away. No timer or listener outlives it.
 */
function within<T>(
  work: Promise<T>,
  ms: number,
  atLimit: () => T,
  signal: AbortSignal | undefined,
  gone: Promise<never>,
): Promise<T> {
  work.catch(() => {}); // it may fail after we have stopped waiting for it
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => settle(() => reject(abortError(signal!)));
    const timer = setTimeout(
      () => settle(() => resolve(atLimit())),
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    );
    function settle(how: () => void) {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      try {
        how();
      } catch (error) {
        reject(error);
      }
    }
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    work.then((value) => settle(() => resolve(value)), (error) => settle(() => reject(error)));
    gone.catch((error) => settle(() => reject(error)));
  });
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
    browser = new Chromium(options.executable, chromiumArguments(profile));
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
