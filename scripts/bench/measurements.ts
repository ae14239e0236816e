/**
 * The measurements, each on fresh server processes so one cannot warm or bloat another.
 * Times are wall-clock from the client's side: what an MCP client waits for.
 */
import { initializeRequest, type Request, ServerProcess } from "./server_process.ts";

/** How to start one server under test. */
export interface ServerCommand {
  command: string;
  args: string[];
}

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

const echoRequest = (id: number, text: string, modern = false): Request => ({
  id,
  method: "tools/call",
  params: { name: "echo", arguments: { text }, ...(modern ? { _meta: MODERN_META } : {}) },
});

function start(server: ServerCommand): ServerProcess {
  return new ServerProcess(server.command, server.args);
}

/** A legacy session: initialize, then notifications/initialized. */
async function startSession(server: ServerCommand): Promise<ServerProcess> {
  const session = start(server);
  await session.initialize();
  return session;
}

/** Milliseconds from spawn to the initialize reply. */
export async function coldStart(server: ServerCommand): Promise<number> {
  const started = performance.now();
  const session = start(server);
  try {
    await session.request(initializeRequest(0));
    return performance.now() - started;
  } finally {
    await session.close();
  }
}

/** Milliseconds from spawn to the initialize reply, and the peak RSS (VmHWM) at that reply. */
export async function startedRss(server: ServerCommand): Promise<{ ms: number; rssBytes: number }> {
  const started = performance.now();
  const session = start(server);
  try {
    await session.request(initializeRequest(0));
    return { ms: performance.now() - started, rssBytes: session.peakRss() };
  } finally {
    await session.close();
  }
}

/** Microseconds per echo call, each sent after the previous reply. */
export async function sequentialRoundTrips(
  server: ServerCommand,
  count: number,
): Promise<number[]> {
  const session = await startSession(server);
  try {
    const latencies: number[] = [];
    for (let id = 1; id <= count; id++) {
      const sent = performance.now();
      await session.request(echoRequest(id, "hi"));
      latencies.push((performance.now() - sent) * 1000);
    }
    return latencies;
  } finally {
    await session.close();
  }
}

/** Milliseconds per echo of `size` characters, each sent after the previous reply. */
export async function payloadRoundTrips(
  server: ServerCommand,
  size: number,
  count: number,
): Promise<number[]> {
  // Mixed letters so nothing below can take a shortcut on a run of one character.
  const text = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(Math.ceil(size / 36)).slice(0, size);
  const session = await startSession(server);
  try {
    const times: number[] = [];
    for (let id = 1; id <= count; id++) {
      const sent = performance.now();
      const reply = await session.request(echoRequest(id, text));
      times.push(performance.now() - sent);
      if (reply.result?.content?.[0]?.text !== text) {
        throw new Error(`${server.command}: the ${size}-character echo came back altered`);
      }
    }
    return times;
  } finally {
    await session.close();
  }
}

export interface PipelinedRun {
  requestsPerSecond: number;
  /** VmHWM of the server process right after the run, before stdin closes. */
  peakRssBytes: number;
  /** The server's CPU time (all threads) over the run, per request, in µs. */
  cpuMicrosPerCall: number;
}

/**
 * Writes `count` echo calls in one go while reading replies; the rate is requests over the time
 * from the write to the last reply. `modern` sends 2026-07-28 stateless requests, no handshake.
 */
export async function pipelined(
  server: ServerCommand,
  count: number,
  modern = false,
): Promise<PipelinedRun> {
  const session = modern ? start(server) : await startSession(server);
  try {
    const requests = Array.from({ length: count }, (_, i) => echoRequest(i + 1, "hi", modern));
    const lines = requests.map((r) => JSON.stringify({ jsonrpc: "2.0", ...r }) + "\n").join("");
    const cpuBefore = session.cpuMs();
    const sent = performance.now();
    await session.pipeline(requests, lines);
    const seconds = (performance.now() - sent) / 1000;
    return {
      requestsPerSecond: count / seconds,
      peakRssBytes: session.peakRss(),
      cpuMicrosPerCall: (session.cpuMs() - cpuBefore) * 1000 / count,
    };
  } finally {
    await session.close();
  }
}
