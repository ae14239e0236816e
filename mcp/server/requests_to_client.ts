/**
 * Requests this server sends to a legacy client (roots/list, elicitation/create,
 * sampling/createMessage), each waiting under an id of ours for the client's response. A wait
 * that ends without one (time ran out, the call that asked was stopped) withdraws the request.
 */
import { bounded, quotedJson } from "../../config/quote.ts";
import type { Outbox } from "./outbox.ts";
import type { JsonRpcResponse, Params, RequestId } from "../wire/jsonrpc.ts";

/** How long the client gets to answer a request of ours (roots/list). */
export const CLIENT_REQUEST_TIMEOUT_MS = 10_000;

export class RequestsToClient {
  /** Requests we sent to the client, by id, waiting for its response. */
  readonly #waiting = new Map<string, (response: JsonRpcResponse) => void>();
  #nextId = 1;

  constructor(
    readonly out: Outbox,
    readonly timeoutMs = CLIENT_REQUEST_TIMEOUT_MS,
  ) {}

  /**
   * Sends a request to the client and waits for its result. If `signal` aborts or the time runs
   * out first, the client is told to drop the request (notifications/cancelled).
   */
  ask(
    method: string,
    params: Params,
    timeoutMs = this.timeoutMs,
    signal?: AbortSignal,
    related?: RequestId,
  ): Promise<Record<string, unknown>> {
    const id = `toolhost-${this.#nextId++}`;
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#waiting.delete(id);
      };
      // Whatever ends our wait, the client is told to drop the request too.
      const withdraw = (reason: string, error: Error) => {
        settle();
        this.out.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason },
        }, related);
        reject(error);
      };
      const onAbort = () =>
        withdraw(
          "the tool call that asked was stopped",
          new Error(`${method} was abandoned: the call was stopped`),
        );
      const timer = setTimeout(
        () =>
          withdraw(
            `no answer within ${timeoutMs} ms`,
            new Error(`the client did not answer ${method} within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(id, (response) => {
        settle();
        if ("error" in response) {
          reject(new Error(`${method} failed: ${bounded(String(response.error.message))}`));
        } else resolve(response.result);
      });
      if (!this.out.send({ jsonrpc: "2.0", id, method, params }, related)) {
        settle();
        reject(new Error(`${method} could not be sent: no stream to the client is open`));
      }
    });
  }

  /** Hands the client's response to the request of ours it answers; any other is dropped. */
  answer(response: JsonRpcResponse): void {
    const waiting = this.#waiting.get(String(response.id));
    if (waiting) {
      this.#waiting.delete(String(response.id));
      waiting(response);
    } else {
      this.out.logger.log(
        "debug",
        `ignored a response (id ${quotedJson(response.id)}): no request of ours is waiting`,
      );
    }
  }
}
