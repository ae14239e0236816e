/**
 * Change notifications for one connection: which of its listeners (the legacy session, each
 * subscriptions/listen stream) want which changes, and the watches that run while anyone does.
 * A watch starts with its first listener and stops with its last; bursts are coalesced.
 */
import { describeLogData, type Logger } from "../wire/log.ts";
import type { Unwatch, Watch, WatchContext } from "../features/watch.ts";

export type ListKind = "tools" | "prompts" | "resources";

/** Where changes come from: the catalogs. */
export interface ChangeSources {
  /** undefined: no resource has that URI; null: it has, but says nothing when it changes. */
  watchFor(uri: string): Watch | null | undefined;
  listWatches(kind: ListKind): readonly Watch[];
}

/** One receiver of change notifications. */
export interface ChangeListener {
  deliver(method: string, params: Record<string, unknown>): void;
}

/** Changes closer together than this become one notification. */
const COALESCE_MS = 30;

interface Running {
  stops: Unwatch[];
  listeners: Set<ChangeListener>;
  timer?: ReturnType<typeof setTimeout>;
}

export class ChangeWatches {
  readonly #running = new Map<string, Running>();

  constructor(
    readonly sources: ChangeSources,
    readonly ctx: WatchContext,
    readonly logger: Logger,
  ) {}

  /** Whether changes of this list kind can be told. */
  canWatchList(kind: ListKind): boolean {
    return this.sources.listWatches(kind).length > 0;
  }

  /** `listener` hears notifications/<kind>/list_changed from now on. */
  addList(listener: ChangeListener, kind: ListKind): void {
    this.#add(listener, `list:${kind}`, () => this.sources.listWatches(kind), () => ({
      method: `notifications/${kind}/list_changed`,
      params: {},
    }));
  }

  /** `listener` hears notifications/resources/updated for `uri`; false if it cannot be watched. */
  addResource(listener: ChangeListener, uri: string): boolean {
    const watch = this.sources.watchFor(uri);
    if (!watch) return false;
    this.#add(listener, `uri:${uri}`, () => [watch], () => ({
      method: "notifications/resources/updated",
      params: { uri },
    }));
    return true;
  }

  removeResource(listener: ChangeListener, uri: string): void {
    this.#remove(listener, `uri:${uri}`);
  }

  /** Everything `listener` was hearing stops. */
  removeListener(listener: ChangeListener): void {
    for (const key of [...this.#running.keys()]) this.#remove(listener, key);
  }

  /** Stops every watch. */
  close(): void {
    for (const [key, running] of this.#running) {
      running.listeners.clear();
      this.#stop(key, running);
    }
  }

  /** How many watches run now (for tests and diagnostics). */
  get size(): number {
    return this.#running.size;
  }

  #add(
    listener: ChangeListener,
    key: string,
    watches: () => readonly Watch[],
    notification: () => { method: string; params: Record<string, unknown> },
  ): void {
    const existing = this.#running.get(key);
    if (existing) {
      existing.listeners.add(listener);
      return;
    }
    const running: Running = { stops: [], listeners: new Set([listener]) };
    this.#running.set(key, running);
    const changed = () => {
      if (running.timer || this.#running.get(key) !== running) return;
      running.timer = setTimeout(() => {
        running.timer = undefined;
        const { method, params } = notification();
        for (const each of running.listeners) each.deliver(method, params);
      }, COALESCE_MS);
    };
    for (const watch of watches()) {
      try {
        running.stops.push(watch(this.ctx, changed));
      } catch (error) {
        this.logger.log(
          "warning",
          `watching ${key.slice(key.indexOf(":") + 1)} failed: ${describeLogData(error)}`,
        );
      }
    }
  }

  #remove(listener: ChangeListener, key: string): void {
    const running = this.#running.get(key);
    if (!running || !running.listeners.delete(listener)) return;
    if (running.listeners.size === 0) this.#stop(key, running);
  }

  #stop(key: string, running: Running): void {
    this.#running.delete(key);
    clearTimeout(running.timer);
    for (const stop of running.stops) {
      try {
        stop();
      } catch (error) {
        this.logger.log("warning", `stopping a watch failed: ${describeLogData(error)}`);
      }
    }
  }
}
