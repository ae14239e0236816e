/**
 * JSON-RPC batches, which only MCP 2025-03-26 allows: each element is classified on its own,
 * notifications take effect, requests run side by side, and their replies go back together.
 */
import {
  classify,
  failure,
  INVALID_REQUEST,
  type JsonRpcFailure,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "./jsonrpc.ts";
import { features } from "./versions.ts";

/** What the connection does with the messages in a batch. */
export interface BatchHandlers {
  notification(message: JsonRpcNotification): void;
  request(message: JsonRpcRequest): Promise<JsonRpcResponse | null>;
}

/**
 * One refusal for the whole batch (the session's version has no batches, or it is empty), or
 * what each element is answered with (null for what gets no reply), in order.
 */
export function batchReplies(
  items: unknown[],
  version: string | undefined,
  handlers: BatchHandlers,
): JsonRpcFailure | Promise<JsonRpcResponse | null>[] {
  if (version === undefined || !features.batches(version)) {
    return failure(
      null,
      INVALID_REQUEST,
      `Invalid Request: JSON-RPC batches are only allowed when 2025-03-26 was negotiated (${
        version ? `this session uses ${version}` : "no session was initialized"
      }); send one message per line`,
    );
  }
  if (items.length === 0) {
    return failure(null, INVALID_REQUEST, "Invalid Request: the batch is empty");
  }
  return items.map((item): Promise<JsonRpcResponse | null> => {
    const decoded = classify(item);
    switch (decoded.kind) {
      case "invalid":
        return Promise.resolve(decoded.reply);
      case "notification":
        handlers.notification(decoded.message);
        return Promise.resolve(null);
      case "ignored":
      case "response":
      case "batch":
        return Promise.resolve(
          decoded.kind === "batch"
            ? failure(null, INVALID_REQUEST, "Invalid Request: batches cannot be nested")
            : null,
        );
      case "request":
        if (decoded.message.method === "initialize") {
          return Promise.resolve(failure(
            decoded.message.id,
            INVALID_REQUEST,
            "Invalid Request: initialize must not be part of a batch",
          ));
        }
        return handlers.request(decoded.message);
    }
  });
}
