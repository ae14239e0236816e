/**
 * A fence for the file watches: events a watch has not yet delivered (Bun reads inotify on
 * another thread and hands the events over later, more than a turn of the event loop after the
 * write) are had before a query. All fs.watch watches of the process share one inotify queue in
 * order, so once an event for a file written now in a directory of toolhost's own (never in the
 * project) comes back, every change made before it has been delivered too.
 */
import { type FSWatcher, mkdtempSync, rmSync, unlinkSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** Waited at most for the fence's own event (a platform whose watches do not share a queue). */
const FENCE_MS = 250;

let dir: string | undefined;
let watcher: FSWatcher | undefined;
let users = 0;
let next = 0;
let removedAtExit = false;
const waiting = new Map<string, () => void>();

/** Takes the fence for one more project watch; the first creates its directory. */
export function holdFence(): void {
  if (users++ > 0) return;
  try {
    dir = mkdtempSync(join(tmpdir(), "toolhost-watch-"));
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (typeof name === "string") waiting.get(name)?.();
    });
    watcher.on("error", () => {});
    if (!removedAtExit) {
      // toolhost ending with servers running (its end closes no watch): not left in /tmp.
      removedAtExit = true;
      process.once("exit", () => {
        if (dir) rmSync(dir, { recursive: true, force: true });
      });
    }
  } catch {
    dir = undefined; // without it, fence() only waits for a turn of the event loop
  }
}

/** Lets go of it; the last one removes its directory. */
export function releaseFence(): void {
  if (--users > 0) return;
  watcher?.close();
  watcher = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  for (const wake of waiting.values()) wake();
}

/** Resolves once the watch events of every change made before the call were delivered. */
export async function fence(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (!dir) return;
  const name = `fence-${++next}`;
  const path = join(dir, name);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await new Promise<void>((resolve) => {
      waiting.set(name, resolve);
      timer = setTimeout(resolve, FENCE_MS);
      writeFileSync(path, "");
    });
  } catch {
    // Not written: nothing to wait for.
  } finally {
    clearTimeout(timer);
    waiting.delete(name);
    try {
      unlinkSync(path);
    } catch {
      // already gone with its directory
    }
  }
  // The watch callbacks of the events before the fence's have run; theirs queue nothing more.
}
