/**
 * What checking a bearer token costs a request (issue 26, item 2): 2026-07-28 `tools/list` POSTs
 * through the HTTP transport in process, with no token, the static `--http-token`, and an OAuth
 * JWT access token checked against a JWK Set served on 127.0.0.1 (jose, ES256; the key set is
 * fetched once and kept). Rounds alternate between the three, and the figure is the median time
 * per request of each, with the ratio to no token. Runs alone:
 * `./node_modules/.bin/deno run --allow-all scripts/bench/http_auth_bench.ts`
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createAuthorizer } from "../../mcp/http/auth/mod.ts";
import { HttpGuard } from "../../mcp/http/guard.ts";
import { HttpTransport } from "../../mcp/http/transport.ts";
import type { Logger } from "../../mcp/wire/mod.ts";
import { McpService } from "../../mcp/server/mod.ts";
import { markdownTable } from "./report.ts";
import { median } from "./stats.ts";

const ROUNDS = 15;
const PER_ROUND = 300;
const RESOURCE = "http://127.0.0.1:8765/mcp";
const quiet: Logger = { log: () => {} };

async function issuer() {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = { ...await exportJWK(publicKey), kid: "k1", alg: "ES256", use: "sig" };
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = await new SignJWT({ scope: "toolhost:read toolhost:write" })
    .setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt" })
    .setIssuer(base).setSubject("bench").setAudience(RESOURCE).setIssuedAt()
    .setExpirationTime("1h").sign(privateKey);
  return { base, token, close: () => server.close() };
}

function transport(guard: HttpGuard): HttpTransport {
  const service = new McpService({
    info: { name: "bench", version: "1" },
    tools: [],
    logger: quiet,
    roots: { fixed: [], fallback: [process.cwd()] },
  });
  return new HttpTransport({ service, logger: quiet, guard, maxBodyBytes: 1 << 20 });
}

const body = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});

async function round(t: HttpTransport, bearer: string | undefined): Promise<number> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/list",
  };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const started = performance.now();
  for (let i = 0; i < PER_ROUND; i++) {
    const response = await t.handle(new Request(RESOURCE, { method: "POST", headers, body }));
    if (response.status !== 200) {
      throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    }
    await response.text();
  }
  return (performance.now() - started) / PER_ROUND;
}

export async function httpAuthReport(progress: (text: string) => void): Promise<string> {
  const as = await issuer();
  const kinds: { name: string; t: HttpTransport; bearer?: string }[] = [
    { name: "no token", t: transport(new HttpGuard({ host: "127.0.0.1", origins: [] })) },
    {
      name: "static token (--http-token)",
      t: transport(new HttpGuard({ host: "127.0.0.1", origins: [], token: "s3cret-static" })),
      bearer: "s3cret-static",
    },
    {
      name: "OAuth JWT (ES256, JWKS kept)",
      t: transport(
        new HttpGuard({
          host: "127.0.0.1",
          origins: [],
          auth: createAuthorizer({
            issuer: as.base,
            resource: () => RESOURCE,
            jwksUri: `${as.base}/jwks`,
            readScope: "toolhost:read",
            writeScope: "toolhost:write",
            cooldownMs: 30_000,
            logger: quiet,
          }),
        }),
      ),
      bearer: as.token,
    },
  ];
  const times = kinds.map(() => [] as number[]);
  for (const kind of kinds) await round(kind.t, kind.bearer); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    progress(`http auth: round ${r + 1} of ${ROUNDS}`);
    for (const [i, kind] of kinds.entries()) times[i].push(await round(kind.t, kind.bearer));
  }
  for (const kind of kinds) await kind.t.close();
  as.close();
  const base = median(times[0]);
  const rows = kinds.map((kind, i) => [
    kind.name,
    `${(median(times[i]) * 1000).toFixed(0)} µs`,
    `${(median(times[i]) / base).toFixed(2)}×`,
  ]);
  return `### Bearer tokens: time per tools/list request, in process (${ROUNDS} alternating rounds of ${PER_ROUND})\n\n` +
    markdownTable(["token", "median per request", "against no token"], rows);
}

if (import.meta.main) {
  process.stdout.write(
    await httpAuthReport((text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}
