/** The configuration loader: sources and their order, JSONC, the schema, errors, --print-config. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { ConfigError, type ConfigFlags, loadConfig } from "../../config/load.ts";
import { userConfigPath } from "../../config/paths.ts";
import { formatConfig } from "../../config/print.ts";
import { LEAVES } from "../../config/keys.ts";
import schema from "../../toolhost.schema.json" with { type: "json" };

/** A home with an XDG config dir and a project directory, each with its config file if given. */
function setup(files: { user?: string; project?: string } = {}) {
  const base = mkdtempSync(join(tmpdir(), "toolhost-config-"));
  const home = join(base, "home");
  const xdg = join(home, ".config");
  const project = join(base, "project");
  mkdirSync(join(xdg, "toolhost"), { recursive: true });
  mkdirSync(project);
  const userFile = join(xdg, "toolhost", "config.jsonc");
  const projectFile = join(project, ".toolhost.jsonc");
  if (files.user !== undefined) writeFileSync(userFile, files.user);
  if (files.project !== undefined) writeFileSync(projectFile, files.project);
  const load = (env: Record<string, string> = {}, flags: ConfigFlags = {}) =>
    loadConfig({
      flags,
      env: { XDG_CONFIG_HOME: xdg, ...env },
      cwd: project,
      home,
      platform: "linux",
    });
  return { base, home, project, userFile, projectFile, load };
}

/** The report of a configuration that fails to load. */
function failure(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${error}`);
    return error.message;
  }
  assert.fail("the configuration loaded");
}

const lines = (...rows: string[]) => rows.join("\n") + "\n";

test("each source overrides the one below it: a scalar", () => {
  const user = lines("{", '  "log_level": "notice"', "}");
  const project = lines("{", "", '  "log_level": "warning"', "}");
  assert.equal(setup().load().settings.logLevel, "info");
  assert.equal(setup().load().origins.get("log_level"), "default");

  let s = setup({ user });
  assert.equal(s.load().settings.logLevel, "notice");
  assert.equal(s.load().origins.get("log_level"), `user file ${s.userFile}:2`);

  s = setup({ user, project });
  assert.equal(s.load().settings.logLevel, "warning");
  assert.equal(s.load().origins.get("log_level"), `project file ${s.projectFile}:3`);

  const env = { TOOLHOST_LOG_LEVEL: "error" };
  assert.equal(s.load(env).settings.logLevel, "error");
  assert.equal(s.load(env).origins.get("log_level"), "env TOOLHOST_LOG_LEVEL");

  const flagged = s.load(env, { log_level: "debug" });
  assert.equal(flagged.settings.logLevel, "debug");
  assert.equal(flagged.origins.get("log_level"), "flag --log-level");
  assert.deepEqual(flagged.files, [s.userFile, s.projectFile]);
});

test("each source overrides the one below it: members of an object, one by one", () => {
  const s = setup({
    user: lines(
      "{",
      '  "limits": { "output_chars": 40000, "bash_timeout_ms": 60000, "max_line_mb": 8 },',
      '  "search": { "provider": "searxng", "searxng_url": "https://user.example" },',
      "}",
    ),
    project: lines(
      "{",
      '  "limits": {',
      '    "output_chars": 50000,',
      "  },",
      '  "search": { "searxng_url": "https://project.example" },',
      "}",
    ),
  });
  let { settings, origins } = s.load();
  assert.equal(settings.limits.outputChars, 50000);
  assert.equal(origins.get("limits.output_chars"), `project file ${s.projectFile}:3`);
  assert.equal(settings.limits.bashTimeoutMs, 60000);
  assert.equal(origins.get("limits.bash_timeout_ms"), `user file ${s.userFile}:2`);
  assert.equal(settings.limits.fetchTimeoutMs, 30000);
  assert.equal(origins.get("limits.fetch_timeout_ms"), "default");
  assert.deepEqual(settings.search, {
    provider: "searxng",
    searxngUrl: "https://project.example",
  });

  ({ settings, origins } = s.load({ TOOLHOST_OUTPUT_CHARS: "60000", TOOLHOST_MAX_LINE_MB: "16" }));
  assert.equal(settings.limits.outputChars, 60000);
  assert.equal(origins.get("limits.output_chars"), "env TOOLHOST_OUTPUT_CHARS");
  assert.equal(settings.limits.maxLineMb, 16);
  assert.equal(settings.limits.bashTimeoutMs, 60000);

  ({ settings, origins } = s.load({ TOOLHOST_MAX_LINE_MB: "16" }, { max_line_mb: "0.5" }));
  assert.equal(settings.limits.maxLineMb, 0.5);
  assert.equal(origins.get("limits.max_line_mb"), "flag --max-line-mb");
  assert.equal(settings.limits.outputChars, 50000);
});

test("each source overrides the one below it: an array is replaced whole", () => {
  const s = setup({
    user: lines("{", '  "roots": ["/u1", "/u2"],', "}"),
    project: lines("{", '  "roots": ["sub"],', "}"),
  });
  assert.deepEqual(setup({ user: lines('{ "roots": ["/u1", "/u2"] }') }).load().settings.roots, [
    "/u1",
    "/u2",
  ]);
  let { settings, origins } = s.load();
  assert.deepEqual(settings.roots, [join(dirname(s.projectFile), "sub")]);
  assert.equal(origins.get("roots"), `project file ${s.projectFile}:2`);

  ({ settings, origins } = s.load({ TOOLHOST_ROOTS: "/e1:/e2" }));
  assert.deepEqual(settings.roots, ["/e1", "/e2"]);
  assert.equal(origins.get("roots"), "env TOOLHOST_ROOTS");

  ({ settings, origins } = s.load({ TOOLHOST_ROOTS: "/e1:/e2" }, { root: ["/f"] }));
  assert.deepEqual(settings.roots, ["/f"]);
  assert.equal(origins.get("roots"), "flag --root");
});

test("custom tools merge by name: a project's tool replaces the user's tool of that name whole", () => {
  const s = setup({
    user: lines(
      "{",
      '  "custom_tools": {',
      '    "lint": { "description": "user lint", "command": ["eslint"], "timeout_ms": 5000 },',
      '    "fmt": { "description": "format", "command": ["prettier", "--write", "{path}"] },',
      "  },",
      "}",
    ),
    project: lines(
      "{",
      '  "custom_tools": {',
      '    "lint": { "description": "project lint", "command": ["npx", "eslint", "."] },',
      "  },",
      "}",
    ),
  });
  const { settings, origins } = s.load();
  assert.deepEqual(settings.customTools.lint, {
    description: "project lint",
    command: ["npx", "eslint", "."],
  });
  assert.equal(settings.customTools.fmt.description, "format");
  assert.equal(origins.get("custom_tools.lint"), `project file ${s.projectFile}:3`);
  assert.equal(origins.get("custom_tools.fmt"), `user file ${s.userFile}:4`);
});

test("JSONC: comments, trailing commas and a byte-order mark are fine", () => {
  const s = setup({
    project: "\uFEFF" + lines(
      "// toolhost settings for this project",
      "{",
      '  "$schema": "https://example.org/toolhost.schema.json",',
      "  /* which tools */",
      '  "tools": { "deny": ["bash*", "write_file",], }, // no shell here',
      '  "read_only": true,',
      "}",
    ),
  });
  const { settings, origins } = s.load();
  assert.deepEqual(settings.toolsDeny, ["bash*", "write_file"]);
  assert.equal(settings.readOnly, true);
  assert.equal(origins.get("read_only"), `project file ${s.projectFile}:6`);
});

test("an empty file, or one with only whitespace or comments, loads with a warning naming it", () => {
  for (const project of ["", " \n\t\n", "// nothing yet\n/* later */\n"]) {
    const s = setup({ project });
    const loaded = s.load();
    assert.equal(loaded.settings.logLevel, "info");
    assert.deepEqual(loaded.warnings, [
      `${s.projectFile}: the project file holds no settings (it is empty, or only whitespace ` +
      `and comments), so it changes nothing; write {} in it if that is on purpose`,
    ]);
  }
  const user = setup({ user: "" });
  assert.match(user.load().warnings[0], /config\.jsonc: the user file holds no settings/);
  // {} says "nothing" on purpose.
  assert.deepEqual(setup({ project: "{}", user: "{ }" }).load().warnings, []);
});

test("schema errors point at the line and column, say what is allowed, and come all at once", () => {
  const s = setup({
    project: lines(
      "{",
      '  "limits": {',
      '    "output_chars": "lots",',
      '    "fetch_timeout_ms": 5,',
      "  },",
      '  "tols": { "allow": ["read_file"] },',
      '  "log_level": "verbose",',
      "}",
    ),
  });
  const report = failure(() => s.load());
  assert.equal(
    report,
    [
      `${s.projectFile}:3:21: limits.output_chars is the string "lots"; allowed: an integer from 1000 to 1000000`,
      `${s.projectFile}:4:25: limits.fetch_timeout_ms is 5, below the minimum 1000; allowed: an integer from 1000 to 600000`,
      `${s.projectFile}:6:3: unknown key "tols"; did you mean "tools"? allowed: $schema, roots, ` +
      "read_only, tools, limits, shell, shell_env, allow_private_network, proxy, sandbox, search, " +
      "skill_dirs, state_dir, journal, code, http, log_level, custom_tools",
      `${s.projectFile}:7:16: log_level is the string "verbose"; allowed: one of "debug", "info", ` +
      '"notice", "warning", "error", "critical", "alert", "emergency"',
    ].join("\n"),
  );
});

test("an unknown key inside a group is named with the group's closest key", () => {
  const s = setup({ user: lines("{", '  "limits": { "outptu_chars": 5000 }', "}") });
  const report = failure(() => s.load());
  assert.match(
    report,
    new RegExp(
      `^${s.userFile}:2:15: unknown key "outptu_chars" in limits; did you mean "output_chars"\\? ` +
        "allowed: output_chars, bash_timeout_ms,",
    ),
  );
});

test("bad custom tools: a bad name, missing fields, an input that is not an object schema", () => {
  const s = setup({
    project: lines(
      "{",
      '  "custom_tools": {',
      '    "my tool": { "description": "x", "command": ["x"] },',
      '    "lint": { "command": [], "input": { "type": "array" } },',
      '    "env": { "description": "x", "command": ["env"], "env": { "A": 1 } },',
      "  },",
      "}",
    ),
  });
  assert.deepEqual(failure(() => s.load()).split("\n"), [
    `${s.projectFile}:3:5: "my tool" is not a valid name in custom_tools; allowed: a string matching ^[A-Za-z0-9_.-]{1,128}$`,
    `${s.projectFile}:4:13: custom_tools.lint has no "description", which is required; allowed: a non-empty string`,
    `${s.projectFile}:4:26: custom_tools.lint.command is empty; allowed: a non-empty array of strings`,
    `${s.projectFile}:4:49: custom_tools.lint.input.type is the string "array"; allowed: "object"`,
    `${s.projectFile}:5:68: custom_tools.env.env.A is 1; allowed: a string`,
  ]);
});

test("a custom tool's cwd and program path are taken from its file's directory", () => {
  const s = setup({
    project: lines(
      "{",
      '  "custom_tools": {',
      '    "test": { "description": "Run the tests", "command": ["npm", "test"], "cwd": "pkg",',
      '      "input": { "type": "object", "properties": {} }, "destructive": false },',
      '    "deploy": { "description": "Deploy", "command": ["scripts/deploy.sh", "{env}"] },',
      '    "build": { "description": "Build", "command": ["./build", "-v"], "cwd": "~/b" },',
      "  },",
      "}",
    ),
  });
  assert.deepEqual(s.load().settings.customTools.test, {
    description: "Run the tests",
    command: ["npm", "test"],
    cwd: join(s.project, "pkg"),
    input: { type: "object", properties: {} },
    destructive: false,
  });
  const { deploy, build } = s.load().settings.customTools;
  assert.deepEqual(deploy.command, [join(s.project, "scripts", "deploy.sh"), "{env}"]);
  assert.equal(build.cwd, join(s.home, "b"));
  assert.deepEqual(build.command, [join(s.home, "b", "build"), "-v"]);
});

test("unparseable JSONC is reported at its position, with what is allowed", () => {
  const missingComma = setup({
    project: lines("{", '  "read_only": true', '  "log_level": "debug"', "}"),
  });
  assert.equal(
    failure(() => missingComma.load()),
    `${missingComma.projectFile}:3:3: expected "," before "\\"log_level\\""; ` +
      "allowed: entries separated by commas (a trailing one is fine)",
  );
  const unclosed = setup({ user: lines("{", '  "shell": "/bin/zsh', "}") });
  assert.match(failure(() => unclosed.load()), new RegExp(`^${unclosed.userFile}:2:12: `));
  const backslash = setup({ project: lines("{", '  "state_dir": "C:\\state"', "}") });
  assert.match(
    failure(() => backslash.load()),
    new RegExp(`^${backslash.projectFile}:2:19: an invalid escape in a string; allowed: `),
  );
});

test("a key given twice is an error, not a silent choice", () => {
  const s = setup({ project: lines("{", '  "roots": ["/a"],', '  "roots": ["/b"]', "}") });
  assert.equal(
    failure(() => s.load()),
    `${s.projectFile}:3:3: the key "roots" is given twice (first on line 2); allowed: each key once per object`,
  );
});

test("--config and TOOLHOST_CONFIG name the project file; a missing one is an error", () => {
  const s = setup({ project: lines('{ "log_level": "warning" }') });
  const other = join(s.base, "other.jsonc");
  writeFileSync(other, lines('{ "log_level": "error" }'));
  assert.equal(s.load({}, { config: other }).settings.logLevel, "error");
  // The file is the user's own, not a project's: its settings and messages say --config.
  assert.equal(s.load({}, { config: other }).origins.get("log_level"), `--config file ${other}:1`);
  assert.equal(s.load({}, { config: other }).places.get("log_level"), `${other}:1:3`);
  assert.equal(
    s.load({ TOOLHOST_CONFIG: other }).origins.get("log_level"),
    `TOOLHOST_CONFIG file ${other}:1`,
  );
  assert.equal(s.load({ TOOLHOST_CONFIG: other }).settings.logLevel, "error");
  assert.equal(s.load({ TOOLHOST_CONFIG: "" }).settings.logLevel, "warning");

  const missing = join(s.base, "nope.jsonc");
  assert.equal(
    failure(() => s.load({}, { config: missing })),
    `${missing}: no such file (named by --config); allowed: the path of an existing config file`,
  );
  assert.match(failure(() => s.load({ TOOLHOST_CONFIG: missing })), /named by TOOLHOST_CONFIG/);
  // Without either, there need be no file at all.
  assert.deepEqual(setup().load().files, []);
});

test("a config file must be a regular file of at most 1 MB", () => {
  const s = setup();
  assert.match(
    failure(() => s.load({}, { config: s.project })),
    /: is a directory; allowed: a regular file/,
  );
  const big = join(s.base, "big.jsonc");
  writeFileSync(big, `{ "shell": "${"x".repeat(1024 * 1024)}" }`);
  assert.match(
    failure(() => s.load({}, { config: big })),
    /: is 1048591 bytes, too big for a config file; allowed: at most 1 MB/,
  );
});

test("environment variables: bad values name the variable; blank ones are unset", () => {
  const s = setup();
  const report = failure(() =>
    s.load({
      TOOLHOST_READ_ONLY: "maybe",
      TOOLHOST_ALLOW_PRIVATE_NETWORK: "2",
      TOOLHOST_OUTPUT_CHARS: "lots",
      TOOLHOST_FETCH_MAX_BYTES: "12",
      TOOLHOST_LOG_LEVEL: "loud",
      TOOLHOST_TOOLS_DENY: "bash, rm -rf",
    })
  );
  assert.deepEqual(report.split("\n"), [
    'env TOOLHOST_READ_ONLY: "maybe" is not yes or no; allowed: 1, true, yes, 0, false, no',
    'env TOOLHOST_ALLOW_PRIVATE_NETWORK: "2" is not yes or no; allowed: 1, true, yes, 0, false, no',
    'env TOOLHOST_TOOLS_DENY: tools.deny[1] is "rm -rf", which does not match the pattern; ' +
    "allowed: a string matching ^[A-Za-z0-9_.*-]+$",
    'env TOOLHOST_OUTPUT_CHARS: limits.output_chars is the string "lots"; allowed: an integer from 1000 to 1000000',
    "env TOOLHOST_FETCH_MAX_BYTES: limits.fetch_max_bytes is 12, below the minimum 1024; " +
    "allowed: an integer from 1024 to 1073741824",
    'env TOOLHOST_LOG_LEVEL: log_level is the string "loud"; allowed: one of "debug", "info", ' +
    '"notice", "warning", "error", "critical", "alert", "emergency"',
  ]);

  const { settings, origins } = s.load({
    TOOLHOST_READ_ONLY: "Yes",
    TOOLHOST_ALLOW_PRIVATE_NETWORK: "0",
    TOOLHOST_TOOLS_ALLOW: " read_*, grep ,,",
    TOOLHOST_SEARCH_PROVIDER: "Brave",
    TOOLHOST_SHELL_ENV: "login",
    TOOLHOST_LOG_LEVEL: "",
    TOOLHOST_STATE_DIR: "   ",
  });
  assert.equal(settings.readOnly, true);
  assert.equal(settings.allowPrivateNetwork, false);
  assert.equal(origins.get("allow_private_network"), "env TOOLHOST_ALLOW_PRIVATE_NETWORK");
  assert.deepEqual(settings.toolsAllow, ["read_*", "grep"]);
  assert.equal(settings.search.provider, "brave");
  assert.equal(settings.shellEnv, "login");
  assert.equal(settings.logLevel, "info");
  assert.equal(origins.get("log_level"), "default");
  assert.equal(settings.stateDir, "");
});

test("the Brave key: TOOLHOST_BRAVE_API_KEY wins over BRAVE_API_KEY", () => {
  const s = setup();
  let loaded = s.load({ BRAVE_API_KEY: "plain" });
  assert.equal(loaded.settings.search.braveApiKey, "plain");
  assert.equal(loaded.origins.get("search.brave_api_key"), "env BRAVE_API_KEY");
  loaded = s.load({ BRAVE_API_KEY: "plain", TOOLHOST_BRAVE_API_KEY: "ours" });
  assert.equal(loaded.settings.search.braveApiKey, "ours");
  assert.equal(loaded.origins.get("search.brave_api_key"), "env TOOLHOST_BRAVE_API_KEY");
});

test("flags are checked like everything else", () => {
  const s = setup();
  assert.equal(
    failure(() => s.load({}, { max_line_mb: "lots" })),
    'flag --max-line-mb: limits.max_line_mb is the string "lots"; allowed: a number from 0.01 to 4096',
  );
  assert.match(failure(() => s.load({}, { log_level: "loud" })), /^flag --log-level: log_level is/);
  const { settings } = s.load({}, { read_only: true, allow_private_network: true });
  assert.equal(settings.readOnly, true);
  assert.equal(settings.allowPrivateNetwork, true);
});

test("relative paths are taken from the file's directory (or the working one); ~ is home", () => {
  const s = setup({
    user: lines(
      "{",
      '  "roots": ["code", "~/notes", "/abs"],',
      '  "skill_dirs": ["skills"],',
      '  "state_dir": "~/state",',
      '  "shell": "bin/zsh",',
      "}",
    ),
  });
  const configDir = join(s.home, ".config", "toolhost");
  const { settings } = s.load();
  assert.deepEqual(settings.roots, [join(configDir, "code"), join(s.home, "notes"), "/abs"]);
  assert.deepEqual(settings.skillDirs, [join(configDir, "skills")]);
  assert.equal(settings.stateDir, join(s.home, "state"));
  assert.equal(settings.shell, join(configDir, "bin", "zsh"));

  // A bare program name is looked up on PATH when it runs; it is not a path.
  assert.equal(s.load({ TOOLHOST_SHELL: "zsh" }).settings.shell, "zsh");
  // From the environment and flags, relative paths are taken from the working directory.
  const fromEnv = s.load({ TOOLHOST_ROOTS: `src:~:${s.base}`, TOOLHOST_SKILL_DIRS: "~/skills" });
  assert.deepEqual(fromEnv.settings.roots, [join(s.project, "src"), s.home, s.base]);
  assert.deepEqual(fromEnv.settings.skillDirs, [join(s.home, "skills")]);
  assert.deepEqual(s.load({}, { root: ["lib", "~/x"] }).settings.roots, [
    join(s.project, "lib"),
    join(s.home, "x"),
  ]);
});

test("the default bash timeout may not exceed the longest a call may ask for", () => {
  const s = setup({ project: lines("{", '  "limits": { "bash_timeout_ms": 900000 }', "}") });
  assert.equal(
    failure(() => s.load()),
    `${s.projectFile}:2:15: limits.bash_timeout_ms is 900000 (project file ${s.projectFile}:2), ` +
      "above limits.bash_max_timeout_ms 600000 (default); allowed: a default timeout no longer " +
      "than the longest one a call may ask for",
  );
  assert.equal(
    s.load({ TOOLHOST_BASH_MAX_TIMEOUT_MS: "3600000" }).settings.limits.bashTimeoutMs,
    900000,
  );
});

test("--print-config: every setting with its value and source, secrets hidden", () => {
  const s = setup({
    project: lines(
      "{",
      '  "search": { "brave_api_key": "file-secret" },',
      '  "custom_tools": {',
      '    "deploy": { "description": "Deploy", "command": ["./deploy.sh"], "env": { "TOKEN": "t0ps3cret" } },',
      "  },",
      "}",
    ),
  });
  const { settings, origins, files } = s.load({ TOOLHOST_OUTPUT_CHARS: "12345" }, { root: ["/r"] });
  const text = formatConfig(settings, origins, files);
  assert.doesNotMatch(text, /file-secret|t0ps3cret/);
  const row = (key: string) => text.split("\n").find((line) => line.trimStart().startsWith(key));
  assert.match(row('"roots"')!, /^ {2}"roots": \["\/r"\], +\/\/ flag --root$/);
  assert.match(row('"output_chars"')!, /"output_chars": 12345, +\/\/ env TOOLHOST_OUTPUT_CHARS$/);
  assert.match(row('"read_only"')!, /"read_only": false, +\/\/ default$/);
  assert.match(
    row('"brave_api_key"')!,
    new RegExp(`"brave_api_key": "\\*+" +// project file ${s.projectFile}:2$`),
  );
  assert.match(row('// "searxng_url"')!, /not set +\/\/ default$/);
  // A secret nobody set reads as unset, not as stars that would say one is in force.
  assert.match(row('// "proxy"')!, /^ {2}\/\/ "proxy": not set +\/\/ default$/);
  assert.equal(row('"proxy"'), undefined);
  assert.match(row('"env"')!, /"env": \{ "TOKEN": "\*+" \} +\/\/ project file/);
  assert.match(text, new RegExp(`Config files read: ${s.projectFile}\\.`));
  // The output is JSONC a config file could start from: strip the comments and it parses.
  const json = text.replace(/^\s*\/\/.*$/gm, "").replace(/ +\/\/ .*$/gm, "");
  const parsed = JSON.parse(json);
  assert.equal(parsed.limits.output_chars, 12345);
  assert.deepEqual(parsed.custom_tools.deploy.command, [join(s.project, "deploy.sh")]);
});

test("the user file's place on each platform", () => {
  assert.equal(
    userConfigPath({ XDG_CONFIG_HOME: "/xdg" }, "/home/u", "linux"),
    "/xdg/toolhost/config.jsonc",
  );
  // A relative XDG_CONFIG_HOME is invalid by the spec and ignored.
  assert.equal(
    userConfigPath({ XDG_CONFIG_HOME: "rel" }, "/home/u", "linux"),
    "/home/u/.config/toolhost/config.jsonc",
  );
  assert.equal(userConfigPath({}, "/home/u", "freebsd"), "/home/u/.config/toolhost/config.jsonc");
  assert.equal(
    userConfigPath({ XDG_CONFIG_HOME: "/xdg" }, "/Users/u", "darwin"),
    "/Users/u/Library/Application Support/toolhost/config.jsonc",
  );
  assert.equal(
    userConfigPath({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "C:\\Users\\u", "win32"),
    "C:\\Users\\u\\AppData\\Roaming\\toolhost\\config.jsonc",
  );
  assert.equal(
    userConfigPath({}, "C:\\Users\\u", "win32"),
    "C:\\Users\\u\\AppData\\Roaming\\toolhost\\config.jsonc",
  );
});

test("on Windows, lists are separated by ; and paths resolve the Windows way", () => {
  const { settings } = loadConfig({
    flags: {},
    env: { TOOLHOST_ROOTS: "C:\\src;~\\notes;D:\\x", APPDATA: "Z:\\no-such-dir" },
    cwd: "C:\\work",
    home: "C:\\Users\\u",
    platform: "win32",
  });
  assert.deepEqual(settings.roots, ["C:\\src", "C:\\Users\\u\\notes", "D:\\x"]);
});

test("the schema documents every key, closes every object it should, and matches the loader", () => {
  const open = new Set([
    "custom_tools",
    "custom_tools.*.input",
    "custom_tools.*.env",
    "code.language_servers",
    "code.language_servers.*.initialization_options",
    "code.language_servers.*.settings",
    "code.language_servers.*.env",
  ]);
  const walk = (node: Record<string, unknown>, path: string) => {
    const properties = node.properties as Record<string, Record<string, unknown>> | undefined;
    if (node.type === "object" && !open.has(path)) {
      assert.equal(node.additionalProperties, false, `${path || "the top"} is closed`);
    }
    for (const [key, child] of Object.entries(properties ?? {})) {
      const at = path ? `${path}.${key}` : key;
      assert.equal(typeof child.description, "string", `${at} has a description`);
      walk(child, at);
    }
  };
  walk(schema as Record<string, unknown>, "");
  const defs = (schema as { $defs: Record<string, Record<string, unknown>> }).$defs;
  walk(defs.custom_tool, "custom_tools.*");
  walk(defs.language_server, "code.language_servers.*");
  for (const def of Object.values(defs)) assert.equal(typeof def.description, "string");

  // Every key the loader knows is in the schema, and every leaf of the schema is in the loader.
  const leavesOf = (node: unknown, path: string): string[] => {
    const members = (node as { properties?: Record<string, unknown> }).properties;
    if (!members) return [path];
    return Object.entries(members).flatMap(([key, child]) => leavesOf(child, `${path}.${key}`));
  };
  const schemaLeaves: string[] = [];
  for (const [key, child] of Object.entries(schema.properties)) {
    if (key === "$schema" || key === "custom_tools") continue;
    schemaLeaves.push(...leavesOf(child, key));
  }
  assert.deepEqual(LEAVES.map((leaf) => leaf.key), schemaLeaves);
});

test("a project file cannot reach past its project: roots outside it, shell, the network guard", () => {
  const s = setup({
    project: lines(
      "{",
      '  "roots": ["/", "inside"],',
      '  "shell": "./evil.sh",',
      '  "allow_private_network": true,',
      '  "read_only": true',
      "}",
    ),
  });
  let problems: string[] = [];
  assert.throws(() => s.load(), (error) => {
    problems = (error as ConfigError).problems;
    return error instanceof ConfigError;
  });
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(problems[0], /:2:\d+: root \/ is outside the project .*cannot reach past it/);
  assert.match(
    problems[1],
    /:3:\d+: a project file cannot set shell: .*user file, the environment/,
  );
  assert.match(problems[2], /:4:\d+: a project file cannot set allow_private_network/);
  // The same settings are the user's to make.
  const user = setup({ user: lines('{ "shell": "/bin/zsh", "allow_private_network": true }') });
  assert.equal(user.load().settings.allowPrivateNetwork, true);
});

test("proxy: the user's to set (file or TOOLHOST_PROXY), never a project file's, masked when printed", () => {
  const project = setup({ project: lines('{ "proxy": "http://proxy.example:3128" }') });
  assert.throws(() => project.load(), (error) =>
    error instanceof ConfigError &&
    /:1:\d+: a project file cannot set proxy: .*another machine/.test(error.problems[0]));
  const user = setup({ user: lines('{ "proxy": "http://u:secret@proxy.example:3128" }') });
  assert.equal(user.load().settings.proxy, "http://u:secret@proxy.example:3128");
  const socks = setup({ user: lines('{ "proxy": "socks5://proxy.example:1080" }') });
  assert.throws(
    () => socks.load(),
    (error) => error instanceof ConfigError && /proxy .*allowed:/.test(error.problems[0]),
  );
  const env = setup().load({ TOOLHOST_PROXY: "http://proxy.example:8080" });
  assert.equal(env.settings.proxy, "http://proxy.example:8080");
});
