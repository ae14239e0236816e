/** The comparison server for `deno task bench`: the SDK's echo server (sdk_echo.ts) over stdio. */
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { echoServer } from "./sdk_echo.ts";

await echoServer().connect(new StdioServerTransport());
