/**
 * Blobs out of toolhost's git directory, many in one `git cat-file --batch`, handed over one at a
 * time as they arrive: memory holds one blob (the snapshots add none over the per-file bound).
 */
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import { gitEnv, GitFailed, type GitPlace, gitProgram } from "./git_run.ts";

/** Milliseconds the whole batch may take. */
const TIMEOUT_MS = 60_000;

/**
 * Calls `each` with every object of `ids` in order (its id and content); `each` may be async, and
 * the next object waits for it. Fails (GitFailed) when an object is missing or git fails.
 */
export function catFiles(
  place: GitPlace,
  ids: readonly string[],
  each: (id: string, content: Buffer) => Promise<void> | void,
): Promise<void> {
  if (ids.length === 0) return Promise.resolve();
  const program = gitProgram();
  if (!program) {
    return Promise.reject(new GitFailed("git cat-file could not start: no git outside the roots"));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(program, ["-c", "safe.directory=*", "cat-file", "--batch"], {
      cwd: place.workTree,
      env: gitEnv(place),
      stdio: ["pipe", "pipe", "ignore"],
      windowsHide: true,
    });
    let failed = false;
    const fail = (message: string) => {
      if (failed) return;
      failed = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new GitFailed(`git cat-file ${message}`));
    };
    const timer = setTimeout(() => fail(`took longer than ${TIMEOUT_MS} ms`), TIMEOUT_MS);
    child.once("error", (error) => fail(`could not start: ${error.message}`));
    child.stdin.on("error", () => {});

    let pending: Buffer[] = [];
    let pendingBytes = 0;
    /** The object being read: its id and size, once its header line is in. */
    let current: { id: string; size: number } | undefined;
    let next = 0;
    let handing = Promise.resolve();

    const take = (count: number): Buffer => {
      const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
      pending = count < all.length ? [all.subarray(count)] : [];
      pendingBytes = all.length - count;
      return all.subarray(0, count);
    };
    const parse = () => {
      for (;;) {
        if (!current) {
          const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
          pending = all.length ? [all] : [];
          const newline = all.indexOf(10);
          if (newline < 0) return;
          const header = take(newline + 1).toString("utf8").trim();
          const [id, type, size] = header.split(" ");
          if (type === "missing" || size === undefined || id !== ids[next]) {
            return fail(`found no object ${ids[next]} (${header.slice(0, 100)})`);
          }
          current = { id, size: Number(size) };
        }
        // The content and the newline after it.
        if (pendingBytes < current.size + 1) return;
        const content = Buffer.from(take(current.size + 1).subarray(0, current.size));
        const { id } = current;
        current = undefined;
        next++;
        handing = handing.then(() => each(id, content));
        handing.catch((error) => fail(`stopped: ${(error as Error).message}`));
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      pending.push(chunk);
      pendingBytes += chunk.length;
      parse();
    });
    child.once("close", (code) => {
      if (failed) return;
      if (next < ids.length) return fail(`ended (exit ${code}) after ${next} of ${ids.length}`);
      handing.then(() => {
        clearTimeout(timer);
        resolve();
      }, () => {});
    });
    child.stdin.end(ids.map((id) => id + "\n").join(""));
  });
}
