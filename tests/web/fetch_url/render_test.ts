/**
 * Rendering pages in headless Chromium: script-written text comes back, the URL guard refuses the
 * page, its redirects and its subresources, and a timeout, a cancel or a browser that will not
 * start each end with a clear error and leave neither processes nor a profile behind.
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  findChromium,
  type RenderOptions,
  renderPage,
} from "../../../tools/web/_lib/chromium/render.ts";
import { isRunning, processesWith } from "../../helpers/processes.ts";
import { type LocalServer, serveLocally } from "../local_site.ts";
import { posixOnlyTest } from "../../helpers/posix_only.ts";

const test = posixOnlyTest(
  "the fake browser is a #!/bin/sh script (chmod 755) stopped by process group",
);

const chromium = findChromium();
const skip = !chromium && "no Chromium installed (apt-get install chromium)";

/** A test that needs a browser; without one it is skipped, its name saying why. */
function withChromium(name: string, fn: () => Promise<void>): void {
  test(skip ? `${name} [skipped: ${skip}]` : name, { skip }, fn);
}

function scratch(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** A local site; `seen` lists the paths it was asked for. */
async function site(
  routes: Record<string, (res: ServerResponse) => void>,
): Promise<LocalServer & { seen: string[] }> {
  const seen: string[] = [];
  const local = await serveLocally((req, res) => {
    seen.push(req.url!);
    const route = routes[req.url!];
    if (route) return route(res);
    res.statusCode = 404;
    res.end();
  });
  return { ...local, seen };
}

function html(body: string) {
  return (res: ServerResponse) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`);
  };
}

/** The process group of `pid`, or undefined once it has exited. */
function groupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return undefined; // exited while we looked
  }
}

/** Process groups of running processes whose command line mentions `marker`. */
function groupsMentioning(marker: string): Set<number> {
  const groups = new Set<number>();
  for (const found of processesWith(marker)) {
    const group = groupOf(Number(found.slice(0, found.indexOf(":"))));
    if (group !== undefined) groups.add(group);
  }
  return groups;
}

/** Running processes in any of `groups`. */
function membersOf(groups: Set<number>): number[] {
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number).filter((pid) => {
    const group = groupOf(pid);
    return group !== undefined && groups.has(group) && isRunning(pid);
  });
}

/**
 * renderPage with its scratch profile made under a directory of our own, so the browser's process
 * group can be told apart from any other; once it settles, asserts that the group and the profile
 * are gone, and that a browser was seen at all when `expectBrowser`.
 */
async function rendered(
  url: string,
  options: Partial<RenderOptions>,
  expectBrowser = true,
): Promise<PromiseSettledResult<Awaited<ReturnType<typeof renderPage>>>> {
  const home = scratch("toolhost-render-test-");
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = home;
  const rendering = renderPage(url, {
    executable: chromium!,
    waitMs: 0,
    timeoutMs: 15_000,
    ...options,
  });
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
  const groups = new Set<number>();
  let settled = false;
  const watching = (async () => {
    while (!settled) {
      for (const group of groupsMentioning(home)) groups.add(group);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const [outcome] = await Promise.allSettled([rendering]);
  settled = true;
  await watching;
  if (expectBrowser) assert.ok(groups.size > 0, "the browser's process group was seen");
  assert.deepEqual(membersOf(groups), [], "no process of the browser's group is left running");
  assert.deepEqual(readdirSync(home), [], "the scratch profile was removed");
  return outcome;
}

function rejection(outcome: PromiseSettledResult<unknown>): Error {
  assert.equal(outcome.status, "rejected", "the render failed");
  return (outcome as PromiseRejectedResult).reason;
}

test("findChromium takes an executable from TOOLHOST_CHROME, CHROME_PATH or PATH, nothing else", () => {
  const dir = scratch("toolhost-find-chromium-");
  const bin = join(dir, "bin");
  mkdirSync(bin);
  const onPath = join(bin, "google-chrome");
  writeFileSync(onPath, "#!/bin/sh\n");
  chmodSync(onPath, 0o755);
  mkdirSync(join(bin, "chromium")); // a directory is not a browser, though it is "executable"
  const notExecutable = join(dir, "chrome-data");
  writeFileSync(notExecutable, "#!/bin/sh\n");
  const explicit = join(dir, "my-chrome");
  writeFileSync(explicit, "#!/bin/sh\n");
  chmodSync(explicit, 0o755);

  assert.equal(findChromium({ PATH: bin }), onPath);
  assert.equal(findChromium({ PATH: bin, TOOLHOST_CHROME: notExecutable }), onPath);
  assert.equal(findChromium({ PATH: bin, TOOLHOST_CHROME: join(dir, "missing") }), onPath);
  assert.equal(
    findChromium({ PATH: bin, TOOLHOST_CHROME: explicit, CHROME_PATH: onPath }),
    explicit,
  );
  assert.equal(findChromium({ PATH: bin, CHROME_PATH: explicit }), explicit);
  assert.equal(findChromium({ PATH: bin, CHROME_PATH: "google-chrome" }), onPath);
  // macOS has a standard install path to fall back on.
  if (process.platform !== "darwin") {
    assert.equal(findChromium({ PATH: join(dir, "nowhere") }), undefined);
  }
});

test("findChromium passes over relative PATH entries and those inside the roots", () => {
  const dir = scratch("toolhost-find-chromium-roots-");
  const root = join(dir, "project");
  const outside = join(dir, "usr-bin");
  for (const bin of [join(root, ".venv", "bin"), join(root, "node_modules", ".bin"), outside]) {
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "chromium"), "#!/bin/sh\n");
    chmodSync(join(bin, "chromium"), 0o755);
  }
  const path = ["node_modules/.bin", join(root, ".venv", "bin"), outside].join(":");
  assert.equal(findChromium({ PATH: path }, [root]), join(outside, "chromium"));
  assert.equal(
    findChromium({ PATH: path, CHROME_PATH: "chromium" }, [root]),
    join(outside, "chromium"),
  );
  // No roots: an absolute entry counts, a relative one never does.
  assert.equal(findChromium({ PATH: path }, []), join(root, ".venv", "bin", "chromium"));
});

test("a browser that cannot start is reported with what it said", async () => {
  const dir = scratch("toolhost-fake-chromium-");
  const fake = join(dir, "chromium");
  writeFileSync(fake, "#!/bin/sh\necho 'cannot open display: nonsense' >&2\nexit 3\n");
  chmodSync(fake, 0o755);
  const error = rejection(await rendered("http://127.0.0.1:9/", { executable: fake }, false));
  assert.match(error.message, /exited with code 3 while starting/);
  assert.match(error.message, /cannot open display: nonsense/);

  const missing = rejection(
    await rendered("http://127.0.0.1:9/", { executable: join(dir, "none") }, false),
  );
  assert.match(missing.message, /could not be started/);
});

withChromium(
  "the HTML comes back after scripts have written the page, from the URL redirects led to",
  async () => {
    const { base, close } = await site({
      "/start": (res) => {
        res.writeHead(302, { location: "/page" });
        res.end();
      },
      "/page": html(
        `<p id="t">placeholder</p><script>setTimeout(() => {
          document.getElementById("t").textContent = "written by JavaScript";
        }, 100)</script>`,
      ),
    });
    try {
      const outcome = await rendered(`${base}/start`, { waitMs: 500 });
      assert.equal(outcome.status, "fulfilled");
      const page = (outcome as PromiseFulfilledResult<{ html: string; url: string }>).value;
      assert.match(page.html, /<p id="t">written by JavaScript<\/p>/);
      assert.doesNotMatch(page.html, /placeholder/);
      assert.equal(page.url, `${base}/page`);
    } finally {
      await close();
    }
  },
);

withChromium("the guard sees every request; a refused subresource is never fetched", async () => {
  const { base, seen, close } = await site({
    "/": html(
      `<img src="/secret.png"><p id="out">waiting</p><script>
        fetch("/secret-data").then(() => "fetched", () => "blocked")
          .then((how) => { document.getElementById("out").textContent = how; });
      </script>`,
    ),
  });
  const asked: string[] = [];
  try {
    const outcome = await rendered(`${base}/`, {
      waitMs: 300,
      allowUrl: (url) => {
        asked.push(new URL(url).pathname);
        return Promise.resolve(url.includes("secret") ? "secrets are off limits" : undefined);
      },
    });
    assert.equal(outcome.status, "fulfilled");
    const page = (outcome as PromiseFulfilledResult<{ html: string }>).value;
    assert.match(page.html, /<p id="out">blocked<\/p>/);
    assert.ok(
      asked.includes("/") && asked.includes("/secret.png") && asked.includes("/secret-data"),
      `asked: ${asked}`,
    );
    assert.deepEqual(seen.filter((path) => path.includes("secret")), []);
  } finally {
    await close();
  }
});

withChromium(
  "a refused page, or a redirect to a refused place, fails with the guard's reason",
  async () => {
    const { base, seen, close } = await site({
      "/jump": (res) => {
        res.writeHead(302, { location: "/private" });
        res.end();
      },
      "/private": html("private"),
    });
    const allowUrl = (url: string) =>
      Promise.resolve(url.endsWith("/private") ? "private pages are off limits" : undefined);
    try {
      const refused = rejection(await rendered(`${base}/private`, { allowUrl }));
      assert.match(refused.message, /private pages are off limits/);
      const redirected = rejection(await rendered(`${base}/jump`, { allowUrl }));
      assert.match(redirected.message, /\/private.*private pages are off limits/);
      assert.deepEqual(seen, ["/jump"]);
    } finally {
      await close();
    }
  },
);

withChromium(
  "a page that never loads times out with a clear error and no browser left",
  async () => {
    const { port, close } = await serveLocally(() => {}); // accepts, never answers
    try {
      const error = rejection(await rendered(`http://127.0.0.1:${port}/`, { timeoutMs: 2_000 }));
      assert.ok(error.message.includes("did not finish loading within 2000 ms"), error.message);
    } finally {
      await close();
    }
  },
);

test("only http and https pages are rendered", async () => {
  const error = rejection(await rendered("file:///etc/passwd", {}, false));
  assert.match(error.message, /Only http and https pages can be rendered/);
});

withChromium("a navigation that fails says why", async () => {
  const { port, close } = await serveLocally();
  await close(); // nothing listens there now
  const error = rejection(await rendered(`http://127.0.0.1:${port}/`, {}));
  assert.match(error.message, /could not load .*net::ERR_CONNECTION_REFUSED/);
});

withChromium("a cancel stops the render at once", async () => {
  const { port, close } = await serveLocally(() => {});
  try {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_000);
    const started = Date.now();
    const error = rejection(
      await rendered(`http://127.0.0.1:${port}/`, { signal: controller.signal }),
    );
    assert.equal(error.name, "AbortError");
    // Aborted at 1 s; the time limit it must not wait for is 15 s.
    assert.ok(Date.now() - started < 12_000, "before the 15 s time limit");

    const already = rejection(
      await rendered(`http://127.0.0.1:${port}/`, { signal: AbortSignal.abort() }, false),
    );
    assert.equal(already.name, "AbortError");
  } finally {
    await close();
  }
});
