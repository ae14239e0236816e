import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { CONFIG_VALIDATOR, renderConfigValidator } from "../../scripts/gen_config_validator.ts";

test("the precompiled configuration validator matches toolhost.schema.json (run `deno task gen` if this fails)", () => {
  assert.equal(
    readFileSync(CONFIG_VALIDATOR, "utf8"),
    renderConfigValidator(),
    "config/schema_validator.generated.js is stale: toolhost.schema.json changed. Run `deno task gen`.",
  );
});
