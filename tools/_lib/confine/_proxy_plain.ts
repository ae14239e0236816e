/**
 * One plain http request through the sandbox's proxy: its body sent on exactly as framed (what
 * follows it, a second request on a kept-alive connection, is read and dropped, never forwarded
 * unchecked), and the answer sent back with `Connection: close` in its head and its own body's
 * framing followed, so the connection ends with the answer even when the host keeps it open.
 * Both directions keep backpressure: nothing is buffered beyond the sockets' own buffers.
 */
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import {
  answer,
  type BodyFraming,
  ChunkedEnd,
  closingResponseHead,
  headEnd,
  responseFraming,
} from "./_proxy_http.ts";

const RESPONSE_HEAD_BYTES = 64 * 1024;
const CLOSE_GRACE_MS = 5_000;

/** Sends the request's body (`rest` is what came with its head) and relays the answer. */
export function relayPlain(
  client: Socket,
  up: Socket,
  rest: Buffer,
  framing: BodyFraming,
  method: string,
): void {
  const broken = () => {
    client.destroy();
    up.destroy();
  };
  // Whatever the client sends after the body is read and dropped: the answer says close.
  relayBody(client, up, rest, framing, () => client.on("data", () => {}), broken);
  relayAnswer(up, client, method, broken);
}

/**
 * Copies from `from` to `to` what `framing` says is one body (undefined: until `from` ends),
 * pausing `from` while `to` is full; `done` once it has all gone.
 */
function relayBody(
  from: Socket,
  to: Socket,
  rest: Buffer,
  framing: BodyFraming | undefined,
  done: () => void,
  broken: () => void,
): void {
  if (!framing) {
    if (rest.length > 0) to.write(rest);
    from.pipe(to, { end: false });
    from.once("end", done);
    from.resume();
    return;
  }
  let left = "length" in framing ? framing.length : Infinity;
  const chunked = "chunked" in framing ? new ChunkedEnd() : undefined;
  const finished = () => left === 0 || chunked?.done === true;
  const feed = (chunk: Buffer) => {
    let n: number;
    try {
      n = chunked ? chunked.take(chunk) : Math.min(left, chunk.length);
    } catch {
      return broken();
    }
    if (!chunked) left -= n;
    const full = n > 0 && !to.write(chunk.subarray(0, n));
    if (finished()) {
      from.off("data", feed);
      done();
    } else if (full) {
      from.pause();
      to.once("drain", () => from.resume());
    }
  };
  if (finished()) return done();
  if (rest.length > 0) feed(rest);
  if (finished()) return;
  from.on("data", feed);
  from.resume();
}

/** The host's answer back to the client: 1xx heads as they are, then the final one closing. */
function relayAnswer(up: Socket, client: Socket, method: string, broken: () => void): void {
  let buffer: Buffer = Buffer.alloc(0);
  const gone = () =>
    client.end(
      answer(
        502,
        "Bad Gateway",
        "toolhost's sandbox proxy: the host closed the connection without an answer",
      ),
    );
  const onData = (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = headEnd(buffer);
      if (end < 0) {
        if (buffer.length <= RESPONSE_HEAD_BYTES) return;
        up.destroy();
        return void client.end(
          answer(
            502,
            "Bad Gateway",
            "toolhost's sandbox proxy: the host's answer head is over 64 KiB",
          ),
        );
      }
      const text = buffer.subarray(0, end).toString("latin1");
      const status = Number(text.match(/^HTTP\/1\.[01] (\d{3})/)?.[1] ?? 0);
      if (status >= 100 && status < 200 && status !== 101) {
        client.write(buffer.subarray(0, end + 4));
        buffer = buffer.subarray(end + 4);
        continue;
      }
      up.off("data", onData);
      up.off("end", gone);
      up.pause();
      client.write(closingResponseHead(text));
      // The answer is whole: the client's connection ends; the host's is closed gently (its
      // server may still be finishing), and for good a little later.
      const finish = () => {
        client.end();
        up.end();
        setTimeout(() => up.destroy(), CLOSE_GRACE_MS).unref?.();
      };
      return relayBody(
        up,
        client,
        buffer.subarray(end + 4),
        responseFraming(text, method),
        finish,
        broken,
      );
    }
  };
  up.on("data", onData);
  up.once("end", gone);
}
