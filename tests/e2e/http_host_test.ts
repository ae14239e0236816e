/**
 * A request whose URL cannot be made, because its Host header is empty or (HTTP/1.0) absent, is a
 * client's mistake: 400 with a JSON-RPC error and one line on stderr, never a 500 with a stack.
 * Sent over a raw socket, since HTTP client libraries always send a Host.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { type HttpServer, postModern, startHttpServer } from "../helpers/http_server.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";

let server: HttpServer;
before(async () => {
  server = await startHttpServer(PRODUCT_BINARY);
});
after(async () => {
  await server.stop();
});

const BODY = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

/** Sends `head` (the request line and headers) and the body; resolves with all that comes back. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let got = "";
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => {
      got += text;
      // One response is all these tests wait for: its body is as long as it says.
      const length = /content-length: (\d+)/i.exec(got)?.[1];
      const split = got.indexOf("\r\n\r\n");
      if (length !== undefined && split >= 0 && got.length - split - 4 >= Number(length)) {
        socket.end();
      }
    });
    socket.on("end", () => resolve(got));
    socket.on("close", () => resolve(got));
    socket.on("error", reject);
    socket.write(
      `${head}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
        `Content-Length: ${BODY.length}\r\nConnection: close\r\n\r\n${BODY}`,
    );
  });
}

test("an empty Host header, or HTTP/1.0 without one, is a 400 with a one-line log", async () => {
  for (
    const head of [
      "POST /mcp HTTP/1.1\r\nHost: ",
      "POST /mcp HTTP/1.0",
    ]
  ) {
    const before = server.stderr().length;
    const reply = await rawRequest(server.port, head);
    assert.match(reply, /^HTTP\/1\.[01] 400 /, `${JSON.stringify(head)}: ${reply}`);
    const body = JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4));
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /Host header/);
    const logged = server.stderr().slice(before).trimEnd().split("\n");
    assert.equal(logged.length, 1, logged.join("\n"));
    assert.match(logged[0], /no usable Host header/);
  }
  // The server goes on serving.
  const ok = await postModern(server.url, 2, "tools/list");
  assert.equal(ok.status, 200);
  assert.ok(Array.isArray((await ok.json()).result?.tools));
});
