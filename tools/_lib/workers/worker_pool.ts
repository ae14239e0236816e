/**
 * A pool of web-standard Workers (in Deno and in the Bun binary alike), shared by the HTML
 * converter (tools/web/_lib/convert_pool.ts) and document extraction (documents/pool.ts):
 *
 * - none starts until the first job (or `prepare()`, for a job about to come); a worker is then
 *   reused, a second one starts only while two jobs are wanted at once (at most one per core, at
 *   most `maxWorkers`), and further jobs wait in line;
 * - a worker idle for `idleMs` ends, giving its memory back, and a worker never keeps the
 *   process alive (unref'd where the runtime can);
 * - a cancelled call's job stops: waiting, it leaves the line; running, its worker is terminated
 *   (a job cannot be interrupted) and a new one starts when next needed;
 * - a job given a deadline that it outlives has its worker terminated, and the call gets
 *   `timedOut`'s error; a worker that fails is replaced the same way;
 * - a worker whose reply says it should go (`retire`: it holds memory it cannot give back, as a
 *   WebAssembly memory that grew) ends once it has answered, and a fresh one takes the next job.
 *
 * Each pool names its worker with workerModule().
 */

/**
 * A worker module's URL, resolved when a worker starts. `poolUrl` is the pool module's
 * import.meta.url; `fromRoot` the worker's path from the project's root. From source the worker
 * is the pool's neighbour; in the binary every module is bundled into one file whose
 * import.meta.url is the binary's root (no `.ts` there), where `bun build --compile` keeps each
 * entry point (scripts/build.ts WORKER_ENTRYPOINTS) under its path from the project's root.
 */
export function workerModule(poolUrl: string, fromRoot: string): () => string {
  const bundled = !poolUrl.endsWith(".ts");
  const relative = bundled ? fromRoot : fromRoot.slice(fromRoot.lastIndexOf("/") + 1);
  return () => new URL(`./${relative}`, poolUrl).href;
}

/** What one pool needs to know about its worker and its messages. */
export interface WorkerPoolOptions<Request, Result> {
  /** The worker's module, resolved when a worker starts. */
  workerUrl(): string;
  /** Workers at once; default: at most one per core, at most two. */
  maxWorkers?: number;
  /** An idle worker ends after this long; the next job starts a fresh one. */
  idleMs?: number;
  /** The error a cancelled job rejects with. */
  cancelled(): Error;
  /** The message to post for a job, and what to transfer with it. */
  message(id: number, request: Request): { message: unknown; transfer?: Transferable[] };
  /** The worker's reply (which carries the job's `id`) read as a result or an error. */
  reply(data: { id: number }): { result: Result } | { error: Error };
  /** The error for a job whose worker failed. */
  crashed(request: Request, message: string): Error;
  /** The error for a job that outlived its deadline. */
  timedOut?(request: Request, deadlineMs: number): Error;
  /** Whether the worker that sent this reply should end once it is delivered. */
  retire?(data: { id: number }): boolean;
}

export interface WorkerPool<Request, Result> {
  /** Runs a job in a worker; rejects with `cancelled()` on `signal`. */
  run(request: Request, signal?: AbortSignal, deadlineMs?: number): Promise<Result>;
  /**
   * Starts a worker now when none runs, idle until a job comes (it ends after `idleMs` as any
   * idle worker): its start then overlaps what the first job is waiting for.
   */
  prepare(): void;
  /** Ends every worker now, failing what they were doing (tests, and a process that is leaving). */
  stop(): void;
  /** How many workers are running now. */
  count(): number;
}

interface Job<Request, Result> {
  id: number;
  request: Request;
  deadlineMs?: number;
  resolve(result: Result): void;
  reject(error: Error): void;
  /** Undoes the abort listener once the job is settled. */
  settle(): void;
}

interface Slot<Request, Result> {
  worker: Worker;
  job?: Job<Request, Result>;
  idle?: ReturnType<typeof setTimeout>;
  deadline?: ReturnType<typeof setTimeout>;
}

/** Node-style ref counting where the runtime has it (Bun); Deno's workers have none. */
function unref(handle: unknown): void {
  (handle as { unref?: () => void }).unref?.();
}

export function createWorkerPool<Request, Result>(
  options: WorkerPoolOptions<Request, Result>,
): WorkerPool<Request, Result> {
  const maxWorkers = options.maxWorkers ??
    Math.max(1, Math.min(2, globalThis.navigator?.hardwareConcurrency ?? 1));
  const idleMs = options.idleMs ?? 30_000;
  const slots = new Set<Slot<Request, Result>>();
  const waiting: Job<Request, Result>[] = [];
  let nextId = 1;

  function fail(job: Job<Request, Result>, error: Error): void {
    job.settle();
    job.reject(error);
  }

  function startWorker(): Slot<Request, Result> {
    const worker = new Worker(options.workerUrl(), { type: "module" });
    unref(worker);
    const slot: Slot<Request, Result> = { worker };
    worker.onmessage = ({ data }: MessageEvent<{ id: number }>) => {
      const job = slot.job;
      if (!job || job.id !== data.id) return;
      clearTimeout(slot.deadline);
      slot.job = undefined;
      job.settle();
      const outcome = options.reply(data);
      if ("error" in outcome) job.reject(outcome.error);
      else job.resolve(outcome.result);
      if (options.retire?.(data)) {
        stop(slot);
        dispatch();
      } else next(slot);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      const job = slot.job;
      stop(slot);
      if (job) fail(job, options.crashed(job.request, event.message || "worker error"));
      dispatch();
    };
    slots.add(slot);
    return slot;
  }

  function stop(slot: Slot<Request, Result>): void {
    clearTimeout(slot.idle);
    clearTimeout(slot.deadline);
    slots.delete(slot);
    slot.job = undefined;
    slot.worker.terminate();
  }

  function run(slot: Slot<Request, Result>, job: Job<Request, Result>): void {
    clearTimeout(slot.idle);
    slot.idle = undefined;
    slot.job = job;
    const { deadlineMs } = job;
    if (deadlineMs !== undefined && options.timedOut) {
      const timedOut = options.timedOut;
      slot.deadline = setTimeout(() => {
        if (slot.job !== job) return;
        stop(slot);
        fail(job, timedOut(job.request, deadlineMs));
        dispatch();
      }, deadlineMs);
      unref(slot.deadline);
    }
    const { message, transfer } = options.message(job.id, job.request);
    slot.worker.postMessage(message, transfer ?? []);
  }

  /** Gives a worker that just finished the next job in line, or lets it idle out. */
  function next(slot: Slot<Request, Result>): void {
    const job = waiting.shift();
    if (job) return run(slot, job);
    slot.idle = setTimeout(() => {
      if (!slot.job) stop(slot);
    }, idleMs);
    unref(slot.idle);
  }

  /** Starts what waits on idle workers, or on new ones while there is room. */
  function dispatch(): void {
    while (waiting.length) {
      let free: Slot<Request, Result> | undefined;
      for (const slot of slots) if (!slot.job) free = slot;
      if (!free && slots.size < maxWorkers) free = startWorker();
      if (!free) return;
      run(free, waiting.shift()!);
    }
  }

  function cancel(job: Job<Request, Result>): void {
    const at = waiting.indexOf(job);
    if (at >= 0) waiting.splice(at, 1);
    for (const slot of slots) {
      if (slot.job === job) {
        // A job cannot be interrupted from outside: the worker goes, and a new one starts when
        // the next job needs it.
        stop(slot);
        dispatch();
      }
    }
    fail(job, options.cancelled());
  }

  return {
    run(request, signal, deadlineMs) {
      if (signal?.aborted) return Promise.reject(options.cancelled());
      return new Promise((resolve, reject) => {
        const onAbort = () => cancel(job);
        const job: Job<Request, Result> = {
          id: nextId++,
          request,
          deadlineMs,
          resolve,
          reject,
          settle: () => signal?.removeEventListener("abort", onAbort),
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        waiting.push(job);
        dispatch();
      });
    },
    prepare() {
      if (slots.size === 0) next(startWorker());
    },
    stop() {
      for (const slot of slots) {
        const job = slot.job;
        stop(slot);
        if (job) fail(job, options.cancelled());
      }
      for (const job of waiting.splice(0)) fail(job, options.cancelled());
    },
    count: () => slots.size,
  };
}
