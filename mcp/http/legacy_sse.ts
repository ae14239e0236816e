/**
 * The 2024-11-05 HTTP+SSE transport, served beside /mcp for clients that predate Streamable
 * HTTP: GET /sse opens a stream whose first event (`endpoint`) names the session's POST URL,
 * /messages?sessionId=…; what is POSTed there gets 202, and every answer, notification and
 * request of ours arrives on the stream as a `message` event. The session ends with the stream.
 */
import type { Logger } from "../wire/log.ts";
import type { McpService } from "../server/service.ts";
import { ChannelSession } from "./channel.ts";
import { SSE_HEADERS } from "./exchange.ts";
import { SseStream } from "./sse.ts";
import type { Admission } from "./admission.ts";

export const SSE_PATH = "/sse";
export const MESSAGES_PATH = "/messages";

/**
 * Opens a session's stream; `onEnd` runs once when the client goes away or the stream is dropped
 * (its connection is gone then too), or the server closes it.
 */
export function openSseSession(
  id: string,
  service: McpService,
  logger: Logger,
  onEnd: (session: ChannelSession) => void,
  admission: Admission,
  /** The subject of the token that opened it (OAuth). */
  owner?: string,
): { session: ChannelSession; response: Response } {
  let ended = false;
  // Gone only once the client has read the stream, which `session` is set long before.
  const stream = new SseStream(() => {
    if (ended) return;
    ended = true;
    logger.log("debug", `SSE session ${id}: the stream closed`);
    onEnd(session);
    session.gone().catch(() => {});
  });
  const session: ChannelSession = new ChannelSession(
    id,
    "sse",
    service,
    logger,
    (json) => stream.send(json),
    () => {
      stream.close();
      if (ended) return;
      ended = true;
      onEnd(session);
    },
    admission,
    owner,
  );
  // Relative, so it holds whatever name and port the client used to reach us.
  stream.event("endpoint", `${MESSAGES_PATH}?sessionId=${encodeURIComponent(id)}`);
  return { session, response: new Response(stream.body, { headers: SSE_HEADERS }) };
}
