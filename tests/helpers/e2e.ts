/**
 * The e2e tests' one fixture: scratch directories and servers that belong to the test running,
 * all gone after it. After each test every server it started is closed (stdin ended, killed if it
 * lingers) and its stdout checked for stray lines, then every scratch directory is removed,
 * read-only ones too; after the file's last test, the home and state directory its servers shared
 * (isolatedEnv()). Tools are called through tool_calls.ts.
 *
 * @example
 * ```ts
 * const e2e = e2eFixture();
 *
 * test("write_file writes into the root", async () => {
 *   const { root, client } = e2e.start(); // the product binary with --root in a fresh root
 *   const reply = await callTool(client, "write_file", { path: "a.txt", content: "hi\n" });
 *   assert.equal(reply.isError, false, reply.text);
 *   assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "hi\n");
 * }); // the server is stopped and the root removed here
 *
 * // One server for every test of the file, stopped after the last:
 * const shared = e2e.file.start();
 * ```
 */
import assert from "node:assert/strict";
import { chmodSync, lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach } from "node:test";
import { PRODUCT_BINARY, RawClient, removeIsolatedEnv } from "./raw_client.ts";

export interface ServerOptions {
  /** The binary to start: the product binary unless told (TEST_BINARY has the fixture tools). */
  binary?: string;
  /** Its arguments. */
  args?: string[];
  /** Its working directory: the repository unless told. */
  cwd?: string;
  /** Added to its environment (after isolatedEnv()'s empty home and scratch state). */
  env?: Record<string, string>;
}

/** Servers and scratch directories that go together: made by a test, or shared by a file. */
export interface Scope {
  /** A new empty directory (its real path) in `under`, removed with the rest. */
  scratch(name?: string, under?: string): string;
  /** Starts a server, closed with the rest. */
  server(options?: ServerOptions): RawClient;
  /**
   * Starts a server working in `root` (a new scratch directory unless given): `--root root`, the
   * root as its working directory, then `args`.
   */
  start(options?: ServerOptions & { root?: string }): { root: string; client: RawClient };
  /**
   * Runs `stop` when the scope ends, before its servers close and its directories go: for a
   * server the fixture did not start (an HTTP one) that works in a scratch directory.
   */
  cleanup(stop: () => Promise<unknown> | void): void;
}

export interface E2e extends Scope {
  /**
   * What every test of the file shares (a server started once at the top of the file): closed
   * and removed after the file's last test.
   */
  file: Scope;
}

/**
 * Registers the clean-up after each test of the file, and after its last; call it once, at the
 * top of the file.
 */
export function e2eFixture(): E2e {
  const perTest = new Pool();
  const perFile = new Pool();
  afterEach(() => perTest.end());
  after(async () => {
    await perFile.end();
    // The empty home and scratch state every server of the file shared.
    removeIsolatedEnv();
  });
  return {
    ...perTest.scope(),
    file: perFile.scope(),
  };
}

/** What one scope made, ended together: servers closed first, then directories removed. */
class Pool {
  readonly #clients: RawClient[] = [];
  readonly #dirs: string[] = [];
  readonly #cleanups: (() => Promise<unknown> | void)[] = [];

  scope(): Scope {
    const scratch = (name = "e2e", under = tmpdir()) => {
      const dir = realpathSync(mkdtempSync(join(under, `toolhost-${name}-`)));
      this.#dirs.push(dir);
      return dir;
    };
    const server = (options: ServerOptions = {}) => {
      const client = new RawClient(
        options.binary ?? PRODUCT_BINARY,
        options.args ?? [],
        options.cwd,
        options.env ?? {},
      );
      this.#clients.push(client);
      return client;
    };
    return {
      scratch,
      server,
      start(options = {}) {
        const root = options.root ?? scratch("root");
        const args = ["--root", root, ...options.args ?? []];
        return { root, client: server({ ...options, cwd: options.cwd ?? root, args }) };
      },
      cleanup: (stop) => void this.#cleanups.push(stop),
    };
  }

  /**
   * Runs the clean-ups, closes every server (killed if it lingers), removes every directory,
   * then checks the servers' stdout.
   */
  async end(): Promise<void> {
    // One step failing leaves none of the others undone; the first failure is reported after.
    const failures: unknown[] = [];
    for (const stop of this.#cleanups.splice(0)) {
      try {
        await stop();
      } catch (error) {
        failures.push(error);
      }
    }
    const closing = this.#clients.splice(0);
    await Promise.all(closing.map((client) => client.close()));
    for (const dir of this.#dirs.splice(0)) {
      try {
        removeScratch(dir);
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
    for (const client of closing) assert.deepEqual(client.strayLines, []);
  }
}

/** Removes a scratch directory, giving back the permissions a test took away first. */
export function removeScratch(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
    return;
  } catch {
    // a directory the test made unreadable or unwritable: open it up and try again
  }
  openUp(dir);
  rmSync(dir, { recursive: true, force: true });
}

function openUp(path: string): void {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return;
  }
  if (!stat.isDirectory()) return;
  chmodSync(path, 0o700);
  for (const name of readdirSync(path)) openUp(join(path, name));
}
