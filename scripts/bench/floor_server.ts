/**
 * The runtime's floor over stdio for `deno task bench`: a bare Bun line-echo server, compiled
 * with `bun build --compile` as toolhost is. It reads stdin lines, parses each as JSON and
 * writes a JSON-RPC result with the same id (for `tools/call`, the `echo` result the bench
 * checks), with no MCP at all: no sessions, no validation, no dispatch, no bound on read-ahead.
 * What it costs is what any Bun program pays to read, parse, stringify and write a message; a
 * toolhost figure near it leaves little to win in the protocol core.
 */
import process from "node:process";

interface Message {
  id?: unknown;
  method?: string;
  params?: { arguments?: { text?: unknown } };
}

function reply(line: string): string | undefined {
  const message = JSON.parse(line) as Message;
  if (message.id === undefined) return undefined;
  const result = message.method === "tools/call"
    ? { content: [{ type: "text", text: message.params?.arguments?.text }] }
    : {};
  return JSON.stringify({ jsonrpc: "2.0", id: message.id, result });
}

const decoder = new TextDecoder();
/** The unfinished last line, in pieces: joined once, when its newline arrives. */
let parts: string[] = [];
for await (const chunk of process.stdin as AsyncIterable<Uint8Array>) {
  const text = decoder.decode(chunk, { stream: true });
  let out = "";
  let start = 0;
  for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
    parts.push(text.slice(start, newline));
    const line = parts.length === 1 ? parts[0] : parts.join("");
    parts = [];
    start = newline + 1;
    if (line.trim() === "") continue;
    const answer = reply(line);
    if (answer !== undefined) out += answer + "\n";
  }
  if (start < text.length) parts.push(text.slice(start));
  // One write per chunk read: the replies to every line it finished.
  if (out !== "") process.stdout.write(out);
}
