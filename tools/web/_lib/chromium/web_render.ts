/**
 * fetch_url's `render: true`: the page loaded in a local headless Chromium, its DOM after scripts
 * ran handed on as if it were a downloaded HTML response. Every request the browser makes passes
 * the private-network guard.
 */
import process from "node:process";
import { findChromium, RenderError, renderPage } from "./render.ts";
import { HttpError, type HttpResponse, HttpTimeoutError } from "../http/http_get.ts";
import { refusalForUrl } from "../../../_lib/net/net_guard.ts";
import { chromiumProxyArguments } from "./chromium_proxy.ts";
import {
  isUsable,
  proxyFor,
  proxyHostRefusal,
  type ProxyRules,
} from "../../../_lib/net/user_proxy.ts";

/** Browsers running at once; each is a dozen processes and a few hundred MB. */
const MAX_RENDERS = 2;
let rendering = 0;
const queue: (() => void)[] = [];

/** Waits for a free browser slot; the returned function gives it back. */
async function slot(signal: AbortSignal): Promise<() => void> {
  if (rendering >= MAX_RENDERS) {
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener("abort", stop);
        resolve();
      };
      const stop = () => {
        queue.splice(queue.indexOf(go), 1);
        reject(signal.reason);
      };
      queue.push(go);
      signal.addEventListener("abort", stop, { once: true });
    });
  }
  rendering++;
  return () => {
    rendering--;
    queue.shift()?.();
  };
}

export async function renderedResponse(
  url: string,
  options: {
    waitMs: number;
    timeoutMs: number;
    signal: AbortSignal;
    allowPrivateNetwork: boolean;
    proxy?: ProxyRules;
    /** The roots: no browser is run from there (commands write there). */
    avoid?: readonly string[];
  },
): Promise<HttpResponse> {
  const allowPrivate = options.allowPrivateNetwork;
  const rules = options.proxy ?? { noProxy: [] };
  // Through a proxy the browser does not resolve names: only the host as written is judged.
  const guard = (target: string) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(target);
    } catch {
      parsed = undefined;
    }
    const web = parsed?.protocol === "http:" || parsed?.protocol === "https:";
    const proxy = web ? proxyFor(parsed!, rules) : undefined;
    if (!proxy) return refusalForUrl(target, allowPrivate);
    if (!isUsable(proxy)) return Promise.resolve(proxy.refusal);
    return Promise.resolve(allowPrivate ? undefined : proxyHostRefusal(parsed!));
  };
  const proxyArguments = chromiumProxyArguments(rules);
  if (!Array.isArray(proxyArguments)) throw new HttpError(proxyArguments.refusal);
  // Refused before any browser starts: a refusal should not cost a second.
  const refused = await guard(url);
  if (refused) throw new HttpError(refused);
  const executable = findChromium(process.env, options.avoid);
  if (!executable) {
    throw new HttpError(
      "render: true needs Chrome or Chromium installed on this machine, and none was found " +
        "(looked for chromium, chromium-browser, google-chrome and chrome on PATH; the user can " +
        "set TOOLHOST_CHROME to its path). Fetch the page without render instead.",
    );
  }
  const release = await slot(options.signal);
  try {
    const page = await renderPage(url, {
      executable,
      ...options,
      proxyArguments,
      allowUrl: guard,
    });
    return {
      url: page.url,
      // The browser does not report the status of the page it shows; what loaded is the answer.
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8" },
      body: new TextEncoder().encode(page.html),
      truncated: false,
      redirects: page.url === url ? [] : [page.url],
    };
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    throw /did not finish loading within/.test(error.message)
      ? new HttpTimeoutError(error.message)
      : new HttpError(error.message);
  } finally {
    release();
  }
}
