// The house rules that a tool can check (CONTRIBUTING, "Conventions"), as errors. The root eslint.config.js uses
// this as it is; tooling/test/eslint-rules.test.ts proves that each rule fails a planted violation.
import { readFileSync } from "node:fs";
import path from "node:path";

import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const SOURCE = ["**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}"];

/** Everything that is Prisma: the CLI and its packages, and the client generated into packages/db. */
const PRISMA = [
  { regex: "^(prisma|@prisma/.*|prisma/.*)$", message: "Only packages/db talks to Prisma: use its queries." },
  {
    regex: "(^@switchboard/db/generated)|(/generated/prisma(/|$))",
    message: "Only packages/db talks to Prisma: use its queries (or a type it exports).",
  },
  {
    regex: "^@switchboard/db(/client)?$",
    importNames: ["Prisma"],
    message: "Only packages/db talks to Prisma: import the type it exports under its own name (JsonValue, ...).",
  },
];

/** I/O frameworks core must not import: it declares ports and the apps pass implementations in. */
const IO_FRAMEWORKS = [
  "bullmq",
  "ioredis",
  "redis",
  "pg",
  "pino",
  "next",
  "react",
  "react-dom",
  "better-auth",
  "nodemailer",
  "@trpc/.*",
  "@tanstack/.*",
  "@next/.*",
  // OpenTelemetry's SDK (providers, exporters, the context manager) is process set-up, runtime's: core traces
  // through the API alone, which is a no-op until a process registers a provider.
  "@opentelemetry/(?!api$)[^/]+",
];

/** An app by package name or by a path that names its folder; relative paths are resolved by the local rule. */
const APP_MESSAGES = {
  web: "The console (apps/web) is its own process: share through packages, not by importing it.",
  gateway: "The gateway (apps/gateway) is its own process: share through packages, not by importing it.",
  worker: "The worker (apps/worker) is its own process: share through packages, not by importing it.",
};
function app(name) {
  const folder = ["apps", name];
  return { folder, regex: `(^@switchboard/${name}(/|$))|((^|/)apps/${name}(/|$))`, message: APP_MESSAGES[name] };
}

const WEB = app("web");
const GATEWAY = app("gateway");
const WORKER = app("worker");
/** The cross-app tests (tests/integration) import both apps; nothing imports them. */
const INTEGRATION = {
  folder: ["tests", "integration"],
  regex: "(^@switchboard/integration-tests(/|$))|((^|/)tests/integration(/|$))",
  message: "tests/integration holds tests that drive several apps: nothing imports it.",
};
const DB = {
  regex: "^@switchboard/db(/|$)",
  message: "packages/core imports no database code: declare a port in core and let the apps pass packages/db in.",
};
/** Next, React and Better Auth's Next side: the console's framework, which the shared run-time plumbing never needs. */
const NEXT = {
  regex: "^(next|react|react-dom|@next/.*)(/.*)?$",
  message: "packages/runtime is shared by every process, not only the Next console: no Next or React here.",
};
const RUNTIME_DB = {
  regex: "^@switchboard/db(/|$)",
  message: "packages/runtime imports no database code: what needs the database belongs to packages/db or an app.",
};
const TESTING = {
  regex: "^@switchboard/testing(/|$)",
  message: "packages/testing is test support: import it from test/ and e2e/ folders, never from src/.",
};
/** The console's routers own their schemas; a service declares the types it takes and the router checks against them. */
const ROUTERS = {
  folder: ["apps", "web", "src", "server", "trpc", "routers"],
  regex: "(^|/)trpc/routers(/|$)",
  message:
    "A service does not import the tRPC routers or their schemas: declare the type in the service (or take it from core or db) and let the router's schema check against it.",
};
const CORE_IO = {
  regex: `^(${IO_FRAMEWORKS.join("|")})(/.*)?$`,
  message:
    "packages/core imports no I/O framework: declare a port in core and let the apps pass the implementation in.",
};

/**
 * What no-restricted-imports cannot see: `import()` and `require()` with a literal name (checked against the same
 * patterns), and relative paths, resolved against the importing file, that lead into another app's folder (or into
 * tests/integration).
 */
const layersRule = {
  meta: { type: "problem", schema: [{ type: "object", properties: { patterns: { type: "array" } } }] },
  create(context) {
    // A pattern about some of a module's names (importNames) is no-restricted-imports' alone: a dynamic import
    // takes the whole module.
    const patterns = (context.options[0]?.patterns ?? [])
      .filter((p) => !p.importNames)
      .map((p) => ({ ...p, re: new RegExp(p.regex) }));
    const folders = patterns.filter((p) => p.folder);
    const report = (node, name, message) =>
      context.report({ node, message: `'${name}' import is restricted from being used. ${message}` });
    function check(node, source, dynamic) {
      if (source?.type !== "Literal" || typeof source.value !== "string") return;
      const name = source.value;
      if (name.startsWith(".")) {
        const target = path.relative(context.cwd, path.resolve(path.dirname(context.filename), name)).split(path.sep);
        const hit = folders.find((p) => p.folder.every((part, i) => target[i] === part));
        if (hit) return report(node, name, hit.message);
      }
      const hit = dynamic ? patterns.find((p) => p.re.test(name)) : undefined;
      if (hit) report(node, name, hit.message);
    }
    return {
      ImportDeclaration: (node) => check(node, node.source, false),
      ExportNamedDeclaration: (node) => check(node, node.source, false),
      ExportAllDeclaration: (node) => check(node, node.source, false),
      ImportExpression: (node) => check(node, node.source, true),
      "CallExpression[callee.name='require']": (node) => check(node, node.arguments[0], true),
    };
  },
};

const local = { rules: { layers: layersRule } };

/** One entry per area: in a flat config the last matching entry replaces the others. */
function layer(files, patterns) {
  const forEslint = patterns.map(({ regex, message, importNames }) => ({
    regex,
    message,
    ...(importNames ? { importNames } : {}),
  }));
  return {
    files,
    plugins: { local },
    rules: {
      "no-restricted-imports": ["error", { patterns: forEslint }],
      "local/layers": ["error", { patterns }],
    },
  };
}

/** `process.env` only in env modules: it is parsed there once, with readable errors. */
const PROCESS_ENV = {
  selector: "MemberExpression[object.name='process'][property.name='env']",
  message:
    "Read the parsed environment (the package's env.ts), not process.env: it is parsed once, with readable errors.",
};
const PROCESS_ENV_DESTRUCTURED = {
  selector: "VariableDeclarator[init.name='process'] > ObjectPattern > Property[key.name='env']",
  message: PROCESS_ENV.message,
};

/** Prisma's error codes ("P2002") are read by packages/db's `errors.ts`; elsewhere, ask it. */
const PRISMA_CODE = {
  selector: "Literal[value=/^P[0-9]{4}$/]",
  message:
    "Prisma's error codes are packages/db's: use its predicates (@switchboard/db/errors: isUniqueViolation, ...).",
};

/**
 * An instance status group (which statuses retry, need the member, can be reconnected, ...) is core's
 * (`@switchboard/core/status`): outside packages/core, a list of two or more status literals (an array, the array
 * of a `new Set`) or a comparison of one value with two of them (`s === "offline" || s === "error"`) restates one.
 * The statuses are read from core's INSTANCE_STATUSES (packages/core/src/status/statuses.ts), their one home: this
 * config runs as plain JavaScript and cannot import TypeScript (tooling/test/eslint-rules.test.ts compares both).
 */
export const INSTANCE_STATUS_NAMES = (() => {
  const source = readFileSync(new URL("../packages/core/src/status/statuses.ts", import.meta.url), "utf8");
  const list = /export const INSTANCE_STATUSES = \[([^\]]*)\]/.exec(source)?.[1];
  if (!list) throw new Error("tooling/eslint.config.js: INSTANCE_STATUSES not found in core's statuses.ts");
  return [...list.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
})();
const STATUS_LITERAL = `/^(${INSTANCE_STATUS_NAMES.join("|")})$/`;
const STATUS_GROUP_MESSAGE =
  "Instance status groups live in @switchboard/core/status: import the group or its predicate (isRetrying, needsMemberAction, ...) instead of listing statuses.";
const STATUS_GROUP_LIST = {
  selector: `ArrayExpression > Literal[value=${STATUS_LITERAL}] ~ Literal[value=${STATUS_LITERAL}]`,
  message: STATUS_GROUP_MESSAGE,
};
/** A side of `||` / `&&` that compares with a status literal (`s === "a"`, `"a" !== s`). */
const isStatusTest = (side) => `[${side}.right.value=${STATUS_LITERAL}], [${side}.left.value=${STATUS_LITERAL}]`;
const STATUS_GROUP_COMPARISON = {
  // Two neighbouring comparisons of a chain (`a || b`, or `(... || a) || b`), both with a status literal.
  selector: `LogicalExpression:matches(${isStatusTest("right")}):matches(${isStatusTest("left")}, ${isStatusTest("left.right")})`,
  message: STATUS_GROUP_MESSAGE,
};

/**
 * Code that Next compiles (the console's src): Next inlines NODE_ENV and NEXT_RUNTIME at build time, so reading
 * those two is no run-time read (and client and edge code has no env module to ask).
 */
const PROCESS_ENV_NEXT = {
  ...PROCESS_ENV,
  selector: `${PROCESS_ENV.selector}:not(MemberExpression[property.name=/^(NODE_ENV|NEXT_RUNTIME)$/] > MemberExpression.object)`,
};

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/.next/**",
      "**/dist/**",
      "**/coverage/**",
      "**/.turbo/**",
      "packages/db/src/generated/**",
      "**/next-env.d.ts",
      "**/test-results/**",
      "**/playwright-report/**",
      "**/e2e/.artifacts/**",
      "tools/**",
      ".demo/**",
    ],
  },
  {
    files: SOURCE,
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: { ...globals.node, ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "no-restricted-syntax": [
        "error",
        PROCESS_ENV,
        PROCESS_ENV_DESTRUCTURED,
        PRISMA_CODE,
        STATUS_GROUP_LIST,
        STATUS_GROUP_COMPARISON,
      ],
      // `const { token: _token, ...rest } = x` is how a field is left out of a copy.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true, argsIgnorePattern: "^_" }],
      // `let ref; const x = make(() => ref); ref = x;`: a closure that reads the variable before its assignment.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  // Playwright reads a fixture's dependencies from its first parameter, which must be an object pattern.
  { files: ["**/e2e/**"], rules: { "no-empty-pattern": "off" } },

  {
    files: ["apps/web/src/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        PROCESS_ENV_NEXT,
        PROCESS_ENV_DESTRUCTURED,
        PRISMA_CODE,
        STATUS_GROUP_LIST,
        STATUS_GROUP_COMPARISON,
      ],
    },
  },

  // packages/core is the status groups' home.
  {
    files: ["packages/core/**"],
    rules: { "no-restricted-syntax": ["error", PROCESS_ENV, PROCESS_ENV_DESTRUCTURED, PRISMA_CODE] },
  },

  // packages/db reads Prisma's error codes (the one place).
  {
    files: ["packages/db/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        PROCESS_ENV,
        PROCESS_ENV_DESTRUCTURED,
        STATUS_GROUP_LIST,
        STATUS_GROUP_COMPARISON,
      ],
    },
  },

  // process.env: env modules, and the code whose job is to build another process's environment (tests, their
  // fixtures and harnesses, scripts, benchmarks, tool configs).
  {
    files: [
      "**/env.ts",
      "**/test/**",
      "**/e2e/**",
      "**/bench/**",
      "scripts/**",
      "apps/*/scripts/**",
      "packages/db/src/testing/**",
      "packages/*/src/testing/**",
      "packages/testing/**",
      "*.config.ts",
      "apps/*/*.config.ts",
      "packages/*/*.config.ts",
      "tooling/**",
      // This file, seen from its own folder (ESLint lints tooling/ with the config found there).
      "eslint.config.js",
    ],
    rules: { "no-restricted-syntax": "off" },
  },

  // Layers.
  layer(["**/*"], [...PRISMA, INTEGRATION]),
  // Packages (core, db, runtime, testing) are imported by the apps, never the other way round.
  layer(["packages/**"], [...PRISMA, WEB, GATEWAY, WORKER, INTEGRATION]),
  layer(["packages/db/**"], [WEB, GATEWAY, WORKER, INTEGRATION]),
  layer(["packages/core/**"], [...PRISMA, DB, WEB, GATEWAY, WORKER, CORE_IO, INTEGRATION]),
  layer(["packages/runtime/**"], [...PRISMA, RUNTIME_DB, NEXT, WEB, GATEWAY, WORKER, INTEGRATION]),
  layer(["apps/web/**"], [...PRISMA, GATEWAY, WORKER, INTEGRATION]),
  layer(["apps/gateway/**"], [...PRISMA, WEB, WORKER, INTEGRATION]),
  layer(["apps/worker/**"], [...PRISMA, WEB, GATEWAY, INTEGRATION]),
  // Test support stays in tests: no src/ folder imports packages/testing (same rules as above, plus that one).
  layer(["packages/*/src/**"], [...PRISMA, WEB, GATEWAY, WORKER, TESTING, INTEGRATION]),
  layer(["packages/db/src/**"], [WEB, GATEWAY, WORKER, TESTING, INTEGRATION]),
  layer(["packages/core/src/**"], [...PRISMA, DB, WEB, GATEWAY, WORKER, CORE_IO, TESTING, INTEGRATION]),
  layer(["packages/runtime/src/**"], [...PRISMA, RUNTIME_DB, NEXT, WEB, GATEWAY, WORKER, TESTING, INTEGRATION]),
  layer(["apps/web/src/**"], [...PRISMA, GATEWAY, WORKER, TESTING, INTEGRATION]),
  layer(["apps/web/src/server/services/**"], [...PRISMA, GATEWAY, WORKER, TESTING, INTEGRATION, ROUTERS]),
  layer(["apps/gateway/src/**"], [...PRISMA, WEB, WORKER, TESTING, INTEGRATION]),
  layer(["apps/worker/src/**"], [...PRISMA, WEB, GATEWAY, TESTING, INTEGRATION]),
  // The cross-app tests: a change made through the console's API and what the gateway then does, in one process.
  // They may import both apps (sources and test support); Prisma stays behind packages/db there too.
  layer(["tests/integration/**"], PRISMA),
  // The Prisma CLI's own configuration is the one file outside packages/db that names it.
  { files: ["prisma.config.ts"], rules: { "no-restricted-imports": "off", "local/layers": "off" } },
);
