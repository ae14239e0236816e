/**
 * The session cap of --http (1,000) holds exactly for the one-channel ways in, WebSocket and the
 * 2024-11-05 SSE stream (issue 36 §6): a session gives up its place only with its connection, so
 * however its client behaves after the session ended (the server ended it for a binary frame; or
 * the client sent a close frame), neither answering nor closing its end, the server never holds
 * more connections of accepted sessions than the cap; and the places come back. Raw sockets (node:net), so the test knows which connection the server
 * accepted, and /proc tells which of them the server still holds (its own sockets, by inode).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { connect, type Socket } from "node:net";
import process from "node:process";
import { test } from "node:test";
import { startHttpServer } from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

/** The server's cap on sessions (mcp/http/transport.ts). */
const CAP = 1_000;
/** Connections the server ends while their clients hold them open. */
const ENDED = 3;

interface Opened {
  socket: Socket;
  /** The client's port, which the server's end names as its peer. */
  port: number;
  /** The handshake's HTTP status: 101 (WebSocket), 200 (SSE), 503 (full). */
  status: number;
  /** Resolves once the server has closed the connection. */
  closed: Promise<void>;
}

/** Opens a WebSocket (`ws`) or an SSE stream (`sse`) by hand and waits for the status line. */
function open(port: number, kind: "ws" | "sse"): Promise<Opened> {
  return new Promise((resolve, reject) => {
    // Half-open allowed: a FIN from the server is not answered with one (a hostile client).
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    let head = "";
    let settled = false;
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.on("connect", () => {
      socket.write(
        kind === "sse"
          ? `GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`
          : `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n` +
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mcp\r\n\r\n",
      );
    });
    socket.on("data", (chunk) => {
      if (settled) return;
      head += chunk.toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (!status) return;
      settled = true;
      resolve({ socket, port: socket.localPort!, status: Number(status[1]), closed });
    });
    socket.on("error", (error) => {
      if (!settled) reject(error);
    });
    socket.once("close", () => {
      if (!settled) reject(new Error(`the server closed a ${kind} handshake unanswered`));
    });
  });
}

const statuses = (opened: Opened[]) => opened.map((o) => o.status).sort().join(",");
const accepted = (o: Opened) => o.status === 101 || o.status === 200;

/**
 * How many of `clients` (connections from loopback) the server process `pid` still holds the
 * other end of: its own sockets (by inode, from /proc/<pid>/fd) whose peer is one of them.
 */
function heldBy(pid: number, clients: Opened[]): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set(
    clients.map((c) => c.port.toString(16).toUpperCase().padStart(4, "0")),
  );
  let held = 0;
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, "utf8").split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const peerPort = fields[2].split(":")[1];
    if (ports.has(peerPort) && inodes.has(fields[9])) held++;
  }
  return held;
}

test(
  "sessions the server ended keep their places until it lets their connections go: never more than 1,000 held",
  {
    skip: process.platform !== "linux" && "reads the server's sockets from /proc",
  },
  async () => {
    const server = await startHttpServer(PRODUCT_BINARY, ["--root", e2e.scratch("cap")]);
    const pid = server.child.pid!;
    const sockets: Socket[] = [];
    try {
      const opened: Opened[] = [];
      for (let i = 0; i < CAP; i += 100) {
        const batch = await Promise.all(
          Array.from({ length: 100 }, (_, k) => open(server.port, (i + k) % 2 ? "sse" : "ws")),
        );
        opened.push(...batch);
      }
      sockets.push(...opened.map((o) => o.socket));
      assert.equal(opened.filter(accepted).length, CAP);

      // A binary frame (masked, one byte) ends a WebSocket session. Its client reads on, but
      // neither answers a close frame nor closes: it waits until the server has acted.
      const ended = opened.filter((o) => o.status === 101).slice(0, ENDED);
      await Promise.all(ended.map(({ socket }) =>
        new Promise<void>((resolve) => {
          socket.on("data", (chunk: Buffer) => chunk.includes(0x88) && resolve());
          socket.once("end", () => resolve());
          socket.once("close", () => resolve());
          socket.write(Buffer.from([0x82, 0x81, 1, 2, 3, 4, 0x55]));
        })
      ));
      const more: Opened[] = [];
      for (let i = 0; i < ENDED + 2; i++) {
        more.push(await open(server.port, i % 2 ? "sse" : "ws"));
        sockets.push(more.at(-1)!.socket);
      }
      const all = [...opened, ...more].filter(accepted);
      const held = heldBy(pid, all);
      assert.ok(
        held <= CAP,
        `the server holds ${held} connections of accepted sessions (${statuses(more)} after ` +
          `${ENDED} were ended)`,
      );
      // The places came back, exactly so many.
      assert.equal(more.filter(accepted).length, ENDED, statuses(more));
      assert.equal(held, CAP);
    } finally {
      for (const socket of sockets) socket.destroy();
      await server.terminate();
    }
  },
);
