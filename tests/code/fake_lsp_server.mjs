// A language server that misbehaves on purpose, for tests only (run by node). Its first
// argument says how: "ok" answers like a small server; "hang-initialize" never answers
// initialize; "hang-references" answers everything but references, and writes its pid to the
// file named by FAKE_LSP_PID so the test can kill it mid-request; "flood" writes an endless
// header without a body; "crash" exits at its first request after initialize; "pull" answers
// textDocument/diagnostic (and publishes nothing) with an error on each line holding BAD;
// "publish-once" publishes diagnostics when a file is opened and never after a change;
// "loading" begins a work-done progress ("Indexing") at `initialized` that never ends, and
// answers references with nothing meanwhile (as rust-analyzer does while it loads);
// "loading-silent" loads the same way and never answers references at all; "check-slow"
// stands in for rust-analyzer (started as `rust-analyzer`): on each save a "cargo check"
// progress runs briefly and publishes an error for each line holding BAD, and its own
// (pulled) diagnostics of a version after a check are answered 3 s late, as a loaded
// rust-analyzer's were; "slow-talking" answers references 8 s late and logs a line every half
// second meanwhile; "busy-silent" computes for 8 s before it answers references, saying nothing.
import { appendFileSync, writeFileSync } from "node:fs";
import process from "node:process";

const mode = process.argv[2] ?? "ok";
// Like a server that ignores the end of its input: only a kill ends it.
setInterval(() => {}, 1 << 30);
if (process.env.FAKE_LSP_PID) writeFileSync(process.env.FAKE_LSP_PID, String(process.pid));

function send(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

if (mode === "flood") {
  const chunk = "X".repeat(65536);
  const again = () => process.stdout.write(chunk, again);
  again();
}

let buffer = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())[1]);
    if (buffer.length < end + 4 + length) return;
    const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
    buffer = buffer.subarray(end + 4 + length);
    handle(message);
  }
});

const texts = new Map();
/** "check-slow": the checks run after saves. */
let checks = 0;

/** An error for each line of the document holding BAD. */
function bad(uri) {
  const lines = (texts.get(uri) ?? "").split("\n");
  return lines.flatMap((line, at) =>
    line.includes("BAD")
      ? [{
        range: { start: { line: at, character: 0 }, end: { line: at, character: 3 } },
        severity: 1,
        message: "BAD is not allowed here",
      }]
      : []
  );
}

function handle(message) {
  const { id, method, params } = message;
  // With FAKE_LSP_LOG, every message's method and document, one a line.
  if (process.env.FAKE_LSP_LOG) {
    appendFileSync(process.env.FAKE_LSP_LOG, `${method} ${params?.textDocument?.uri ?? ""}\n`);
  }
  if (method === "textDocument/didOpen") {
    texts.set(params.textDocument.uri, params.textDocument.text);
    // "publish-once": diagnostics for the text first opened, then never again.
    if (mode === "publish-once") {
      const { uri, version } = params.textDocument;
      send({
        method: "textDocument/publishDiagnostics",
        params: { uri, version, diagnostics: [] },
      });
    }
  }
  if (method === "initialized" && (mode === "loading" || mode === "loading-silent")) {
    send({
      method: "$/progress",
      params: { token: "index", value: { kind: "begin", title: "Indexing" } },
    });
  }
  if (method === "textDocument/didChange") {
    texts.set(params.textDocument.uri, params.contentChanges.at(-1).text);
  }
  if (method === "textDocument/didSave" && mode === "check-slow") {
    const { uri } = params.textDocument;
    const token = `check-${++checks}`;
    send({
      method: "$/progress",
      params: { token, value: { kind: "begin", title: "cargo check" } },
    });
    setTimeout(() => {
      send({ method: "textDocument/publishDiagnostics", params: { uri, diagnostics: bad(uri) } });
      send({ method: "$/progress", params: { token, value: { kind: "end" } } });
    }, 200);
  }
  if (id === undefined) return;
  if (method === "initialize") {
    if (mode === "hang-initialize" || mode === "flood") return;
    send({
      id,
      result: {
        capabilities: {
          textDocumentSync: mode === "check-slow" ? { openClose: true, change: 1, save: {} } : 1,
          definitionProvider: true,
          referencesProvider: true,
          documentSymbolProvider: true,
          renameProvider: true,
          ...(mode === "pull" || mode === "check-slow"
            ? { diagnosticProvider: { interFileDependencies: false } }
            : {}),
        },
      },
    });
    return;
  }
  if (mode === "crash") process.exit(3);
  if (method === "shutdown") return send({ id, result: null });
  if (method === "textDocument/references" && mode === "loading-silent") return;
  if (method === "textDocument/references" && mode === "busy-silent") {
    const end = Date.now() + 8000;
    while (Date.now() < end) Math.sqrt(Math.random());
  }
  if (method === "textDocument/references" && mode === "slow-talking") {
    const talk = setInterval(() => {
      send({ method: "window/logMessage", params: { type: 4, message: "still working" } });
    }, 500);
    const here = {
      uri: params.textDocument.uri,
      range: { start: { line: 0, character: 4 }, end: { line: 0, character: 9 } },
    };
    return setTimeout(() => {
      clearInterval(talk);
      send({ id, result: [here] });
    }, 8000);
  }
  if (method === "textDocument/references" && mode === "hang-references") {
    if (process.env.FAKE_LSP_PID) writeFileSync(`${process.env.FAKE_LSP_PID}.refs`, "");
    return;
  }
  if (method === "textDocument/diagnostic") {
    const items = bad(params.textDocument.uri);
    const answer = () => send({ id, result: { kind: "full", items } });
    if (mode === "check-slow" && checks > 0) return setTimeout(answer, 3000);
    return answer();
  }
  if (method === "textDocument/rename") {
    // The file itself and, with FAKE_LSP_OUTSIDE, a file outside the project too.
    const range = { start: { line: 0, character: 4 }, end: { line: 0, character: 9 } };
    const edit = [{ range, newText: params.newName }];
    const changes = { [params.textDocument.uri]: edit };
    if (process.env.FAKE_LSP_OUTSIDE) changes[`file://${process.env.FAKE_LSP_OUTSIDE}`] = edit;
    // With FAKE_LSP_DOT_URI, the same file again under a second name (`/./`), with an edit of its own.
    if (process.env.FAKE_LSP_DOT_URI) {
      const uri = params.textDocument.uri.replace(/\/([^/]*)$/, "/./$1");
      const end = { line: 1, character: 0 };
      changes[uri] = [{ range: { start: end, end }, newText: `// ${params.newName}\n` }];
    }
    return send({ id, result: { changes } });
  }
  if (method === "textDocument/documentSymbol") {
    const at = { start: { line: 0, character: 4 }, end: { line: 0, character: 9 } };
    return send({ id, result: [{ name: "thing", kind: 12, range: at, selectionRange: at }] });
  }
  const uri = params?.textDocument?.uri;
  const here = { uri, range: { start: { line: 0, character: 4 }, end: { line: 0, character: 9 } } };
  if (method === "textDocument/references" && mode === "loading") return send({ id, result: [] });
  send({ id, result: method === "textDocument/references" ? [here, here] : here });
}
