/**
 * Entry point of dist/toolhost-conformance: the product plus the fixtures the official
 * conformance suite calls by name (scripts/conformance.ts runs the suite against it).
 */
import process from "node:process";
import { main } from "../../main.ts";
import fixtures from "./fixtures.ts";

await main(process.argv.slice(2), { extra: fixtures });
