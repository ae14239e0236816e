/**
 * `toolhost --help`: what the command line takes. Kept apart from main.ts, which fills in what
 * only it knows (the version, the protocol versions spoken, the log levels).
 */

/** The help text for this build. */
export function helpText(
  version: string,
  versions: readonly string[],
  logLevels: readonly string[],
): string {
  return `toolhost ${version}: an MCP server over stdio with a practical toolset.

Usage: toolhost [options]
       toolhost review [--root DIR] [--config PATH] [--port N] [--open]

An MCP client starts toolhost itself: put the path of this binary in the "command" of your
client's .mcp.json. Messages are JSON-RPC 2.0, one per line, on stdin and stdout; logs go to
stderr. Speaks MCP ${versions.join(", ")}.

Settings come from these flags, then TOOLHOST_* environment variables, then the project file
(.toolhost.jsonc in the working directory, or --config), then the user file
(~/.config/toolhost/config.jsonc on Linux); see --print-config and toolhost.schema.json.

Options:
  --root DIR          let tools work in DIR (repeatable); without it, the client's roots when it
                      offers them, else the directory toolhost was started in
  --profile NAME      which tools to offer: full (default); claude-code or gemini-cli (only
                      what that client lacks); companion (only what a client with its own
                      shell and file tools lacks: Cursor, Codex); or read-only
  --read-only         offer only the tools annotated read-only (and commands, searches and
                      language servers write nothing outside their temporary directory)
  --sandbox MODE      what commands, searches and language servers may write: workspace-write
                      (default: the roots, a private $TMPDIR, the build caches), read-only, or
                      off; they never read credentials and have no network (docs/security.md)
  --allow-private-network
                      let fetch_url reach loopback, private, link-local and cloud-metadata
                      addresses (refused by default)
  --http [HOST:]PORT  serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of
                      stdio (HOST defaults to 127.0.0.1; PORT 0 picks a free one); also
                      WebSocket on /mcp and the 2024-11-05 HTTP+SSE transport on /sse
  --http-token TOKEN  require "Authorization: Bearer TOKEN"; needed whenever HOST is not a
                      loopback address, unless OAuth is on (http.auth.issuer in the user
                      config; docs/http.md). Prefer TOOLHOST_HTTP_TOKEN: other users of this
                      machine can read a process's arguments
  --http-origin URL   also accept browser requests from this origin (repeatable); only
                      toolhost's own pages (/ui/) are accepted otherwise, loopback or not
  --max-line-mb N     refuse messages over N MB (default 64; counted in characters,
                      one per byte for JSON's mostly ASCII text)
  --log-level LEVEL   stderr verbosity: ${logLevels.join(", ")} (default info)
  --config PATH       read this project file instead of ./.toolhost.jsonc
  --print-config      print the settings in effect, and where each came from, and exit
  --mcp-json          print a .mcp.json entry that starts this toolhost with these flags, and exit
  --list-tools        print the tools offered and exit
  -V, --version       print the version and the commit it was built from
  -h, --help          print this help

toolhost review serves the review app (every change toolhost made in the project, as diffs
you can undo) for the project of --root (or this directory) on 127.0.0.1, and prints the
address to open, which carries a token of its own; --port picks the port (default: a free
one), --open opens it in the browser. It reads the same journal as the toolhost your client
runs. Ctrl-C stops it.
`;
}
