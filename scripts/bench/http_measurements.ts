/**
 * HTTP measurements, wall-clock on the client's side. Throughput is a closed loop: a fixed
 * number of callers, each sending its next request as soon as its previous reply is checked, so
 * exactly that many requests are in flight all the time.
 */
import { cpuSeconds, type HttpServerProcess } from "./http_server_process.ts";
import type { EchoCall } from "./http_client.ts";

/** Shares increasing request ids between callers, so ids never repeat within a session. */
export class Ids {
  #next = 1;
  take(): number {
    return this.#next++;
  }
  /** How many ids were taken. */
  get count(): number {
    return this.#next - 1;
  }
}

/** Microseconds per echo call, each sent after the previous reply; `warmUp` calls untimed. */
export async function sequentialLatencies(
  call: EchoCall,
  ids: Ids,
  warmUp: number,
  count: number,
): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await call(ids.take());
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const id = ids.take();
    const sent = performance.now();
    await call(id);
    latencies.push((performance.now() - sent) * 1000);
  }
  return latencies;
}

export interface LoadRun {
  requestsPerSecond: number;
  /** CPU time over wall time during the run: 1 is one core busy all the time. */
  clientCpu: number;
  serverCpu: number;
  /** Server CPU microseconds per call answered. */
  serverCpuPerCall: number;
}

/** `concurrency` callers for `seconds`; requests completed over the time until the last reply. */
async function closedLoop(
  call: EchoCall,
  ids: Ids,
  concurrency: number,
  seconds: number,
): Promise<{ completed: number; elapsed: number }> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let completed = 0;
  const caller = async () => {
    while (performance.now() < deadline) {
      await call(ids.take());
      completed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return { completed, elapsed: (performance.now() - started) / 1000 };
}

/** A warm-up of `warmUpSeconds` at the same concurrency, then the timed run. */
export async function throughput(
  server: HttpServerProcess,
  call: EchoCall,
  ids: Ids,
  concurrency: number,
  seconds: number,
  warmUpSeconds: number,
): Promise<LoadRun> {
  await closedLoop(call, ids, concurrency, warmUpSeconds);
  const client = cpuSeconds("self");
  const served = server.cpuSeconds();
  const { completed, elapsed } = await closedLoop(call, ids, concurrency, seconds);
  const serverSeconds = server.cpuSeconds() - served;
  return {
    requestsPerSecond: completed / elapsed,
    clientCpu: (cpuSeconds("self") - client) / elapsed,
    serverCpu: serverSeconds / elapsed,
    serverCpuPerCall: serverSeconds / completed * 1e6,
  };
}
