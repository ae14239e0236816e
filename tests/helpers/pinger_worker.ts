/**
 * A second client on its own thread, so that what the test's main thread does (building and
 * sending multi-megabyte requests) never delays it: it sends `ping` on its own legacy HTTP session,
 * one at a time with a short pause between, and reports each as `{ sent, answered }` in
 * milliseconds since the epoch (performance.timeOrigin + now(), comparable across threads), until
 * told to stop. Started by startPinger() (no_stall_test.ts).
 */

interface Start {
  url: string;
  sessionId: string;
  version: string;
  pauseMs: number;
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Start | "stop">) => void) | null;
  postMessage(message: unknown): void;
  close(): void;
};

let stopping = false;
const now = () => performance.timeOrigin + performance.now();

async function run({ url, sessionId, version, pauseMs }: Start): Promise<void> {
  for (let id = 1; !stopping; id++) {
    const sent = now();
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
        "mcp-protocol-version": version,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
    });
    const text = await response.text();
    const answered = now();
    if (!response.ok || !text.includes('"result"')) {
      scope.postMessage({ error: `ping ${id}: HTTP ${response.status} ${text.slice(0, 200)}` });
      return;
    }
    scope.postMessage({ sent, answered });
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

scope.onmessage = ({ data }) => {
  if (data === "stop") {
    stopping = true;
    return;
  }
  run(data).catch((error) => scope.postMessage({ error: String(error) })).finally(() => {
    scope.postMessage("stopped");
    scope.close();
  });
};
