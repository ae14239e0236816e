/**
 * One lock for the tools of this server that touch files (the file tools, and fetch_url's
 * save_to). Calls run concurrently, and a path checked by the
 * sandbox must still mean the same thing when it is used: while one call moves a directory,
 * another must not write through a link that the move brought into place, nor may two edits of
 * one file both start from its old content. Changes take the lock alone; reads share it.
 */
type Waiter = { exclusive: boolean; start: () => void };

let readers = 0;
let writer = false;
const queue: Waiter[] = [];

function admit(): void {
  while (queue.length > 0) {
    const next = queue[0];
    if (next.exclusive ? writer || readers > 0 : writer) return;
    queue.shift();
    if (next.exclusive) writer = true;
    else readers++;
    next.start();
    if (next.exclusive) return;
  }
}

async function hold<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
  await new Promise<void>((start) => {
    queue.push({ exclusive, start });
    admit();
  });
  try {
    return await work();
  } finally {
    if (exclusive) writer = false;
    else readers--;
    admit();
  }
}

/** Runs `work` while no file tool changes anything. */
export function whileReading<T>(work: () => Promise<T>): Promise<T> {
  return hold(false, work);
}

/**
 * Runs `work` alone among the file tools: what the sandbox checked stays true until the change
 * is made.
 */
export function whileChanging<T>(work: () => Promise<T>): Promise<T> {
  return hold(true, work);
}
