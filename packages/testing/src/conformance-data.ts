/**
 * What the conformance suite's server specification asks of a server, as plain data: the answers its scenarios
 * expect. Both fixtures serve it, the SDK 1.x one (conformance-server.ts, 2025-11-25) and the SDK v2 one
 * (conformance-2026.ts, 2026-07-28); only how they ask their client differs.
 */
export const IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
export const AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
/**
 * SEP-1613's tool schema, with what SEP-2106 adds (2026-07-28): composition (`allOf` holding an `anyOf`),
 * conditionals (`if`/`then`/`else`) and `$anchor` in `$defs`, all of which a server and the route pass unchanged.
 */
export const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object" as const,
  $defs: {
    address: {
      $anchor: "address",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  allOf: [{ anyOf: [{ required: ["name"] }, { required: ["address"] }] }],
  if: { properties: { name: { const: "admin" } }, required: ["name"] },
  then: { required: ["address"] },
  else: {},
  additionalProperties: false,
};

/**
 * A tool that asks its clients to mirror an argument into a header (`x-mcp-header`, 2026-07-28, SEP-2243): its
 * `region` travels in the body and in `Mcp-Param-Region`, which a server checks against each other.
 */
export const MIRRORED_PARAM_TOOL = {
  name: "test_mirrored_param",
  description: "Answers with the region it was called for, which it also receives in the Mcp-Param-Region header",
  inputSchema: {
    type: "object" as const,
    properties: {
      region: { type: "string", description: "Where to run", "x-mcp-header": "Region" },
      query: { type: "string", description: "What to run" },
    },
    required: ["region"],
  },
};

/** A tool whose `x-mcp-header` is on a `number` parameter, which the revision forbids: clients leave it out. */
export const INVALID_MIRRORED_TOOL = {
  name: "test_invalid_mirrored_param",
  description: "Declares a header for a number, which no client may list",
  inputSchema: {
    type: "object" as const,
    properties: { ratio: { type: "number", "x-mcp-header": "Ratio" } },
  },
};

export const SERVER_INFO = { name: "mcp-conformance-test-server", version: "1.0.0" };

type Content =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: { uri: string; mimeType: string; text: string } };

export const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

/** A progress notification of `test_tool_with_progress`, as both SDKs send it. */
export interface ProgressNotice {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; total: number; message: string };
}

/**
 * `test_tool_with_progress`: 0, 50 and 100 of 100, 50 ms apart, sent through `notify` (the SDK 1.x extra's
 * `sendNotification` or the v2 context's `mcpReq.notify`); answers the token.
 */
export async function reportProgress(
  progressToken: string | number,
  notify: (notice: ProgressNotice) => Promise<void>,
) {
  for (const progress of [0, 50, 100]) {
    await notify({
      method: "notifications/progress",
      params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` },
    });
    if (progress < 100) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return text(String(progressToken));
}

/** Tools that answer fixed content. */
export const CONTENT_TOOLS: ReadonlyArray<{ name: string; description: string; content: Content[] }> = [
  {
    name: "test_simple_text",
    description: "Tests simple text content response",
    content: [{ type: "text", text: "This is a simple text response for testing." }],
  },
  {
    name: "test_image_content",
    description: "Tests image content response",
    content: [{ type: "image", data: IMAGE, mimeType: "image/png" }],
  },
  {
    name: "test_audio_content",
    description: "Tests audio content response",
    content: [{ type: "audio", data: AUDIO, mimeType: "audio/wav" }],
  },
  {
    name: "test_embedded_resource",
    description: "Tests embedded resource content response",
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  },
  {
    name: "test_multiple_content_types",
    description: "Tests response with multiple content types (text, image, resource)",
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: IMAGE, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  },
];

export const TEST_ELICITATION_SCHEMA = {
  type: "object",
  properties: { response: { type: "string", description: "User's response" } },
  required: ["response"],
};

/** Tools without arguments that ask the user one form and report what came back (`prefix: action=…, content=…`). */
export const ELICITATION_TOOLS: ReadonlyArray<{
  name: string;
  description: string;
  message: string;
  requestedSchema: Record<string, unknown>;
  prefix: string;
}> = [
  {
    name: "test_streaming_elicitation",
    description: "Asks the client for input while the call runs",
    message: "Please provide your name",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    prefix: "Elicited",
  },
  {
    name: "test_elicitation_sep1034_defaults",
    description: "Tests elicitation with default values per SEP-1034",
    message: "Please review and update the form fields with defaults",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "User name", default: "John Doe" },
        age: { type: "integer", description: "User age", default: 30 },
        score: { type: "number", description: "User score", default: 95.5 },
        status: {
          type: "string",
          description: "User status",
          enum: ["active", "inactive", "pending"],
          default: "active",
        },
        verified: { type: "boolean", description: "Verification status", default: true },
      },
      required: [],
    },
    prefix: "Elicitation completed",
  },
  {
    name: "test_elicitation_sep1330_enums",
    description: "Tests elicitation with enum schema improvements per SEP-1330",
    message: "Please select options from the enum fields",
    requestedSchema: {
      type: "object",
      properties: {
        untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
        titledSingle: {
          type: "string",
          description: "Select one option with titles",
          oneOf: [
            { const: "value1", title: "First Option" },
            { const: "value2", title: "Second Option" },
            { const: "value3", title: "Third Option" },
          ],
        },
        legacyEnum: {
          type: "string",
          description: "Select one option (legacy)",
          enum: ["opt1", "opt2", "opt3"],
          enumNames: ["Option One", "Option Two", "Option Three"],
        },
        untitledMulti: {
          type: "array",
          description: "Select multiple options",
          minItems: 1,
          maxItems: 3,
          items: { type: "string", enum: ["option1", "option2", "option3"] },
        },
        titledMulti: {
          type: "array",
          description: "Select multiple options with titles",
          minItems: 1,
          maxItems: 3,
          items: {
            anyOf: [
              { const: "value1", title: "First Choice" },
              { const: "value2", title: "Second Choice" },
              { const: "value3", title: "Third Choice" },
            ],
          },
        },
      },
      required: [],
    },
    prefix: "Elicitation completed",
  },
];

export const elicited = (prefix: string, result: { action: string; content?: unknown }) =>
  text(`${prefix}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);

/** Resources with fixed contents. */
export const STATIC_RESOURCES: ReadonlyArray<{
  name: string;
  uri: string;
  metadata: { title: string; description: string; mimeType: string };
  contents: Array<{ uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string }>;
}> = [
  {
    name: "static-text",
    uri: "test://static-text",
    metadata: {
      title: "Static Text Resource",
      description: "A static text resource for testing",
      mimeType: "text/plain",
    },
    contents: [
      { uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." },
    ],
  },
  {
    name: "static-binary",
    uri: "test://static-binary",
    metadata: {
      title: "Static Binary Resource",
      description: "A static binary resource (image) for testing",
      mimeType: "image/png",
    },
    contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: IMAGE }],
  },
  {
    name: "watched-resource",
    uri: "test://watched-resource",
    metadata: {
      title: "Watched Resource",
      description: "A resource that auto-updates every 3 seconds",
      mimeType: "text/plain",
    },
    contents: [{ uri: "test://watched-resource", mimeType: "text/plain", text: "Watched resource content" }],
  },
];

export const TEMPLATE = {
  name: "template",
  uriTemplate: "test://template/{id}/data",
  metadata: {
    title: "Resource Template",
    description: "A resource template with parameter substitution",
    mimeType: "application/json",
  },
  read: (uri: URL, id: unknown) => ({
    contents: [
      {
        uri: uri.toString(),
        mimeType: "application/json",
        text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
      },
    ],
  }),
};

export const PROMPTS = {
  simple: {
    name: "test_simple_prompt",
    config: { title: "Simple Test Prompt", description: "A simple prompt without arguments" },
    get: () => ({
      messages: [
        { role: "user" as const, content: { type: "text" as const, text: "This is a simple prompt for testing." } },
      ],
    }),
  },
  withArguments: {
    name: "test_prompt_with_arguments",
    config: { title: "Prompt With Arguments", description: "A prompt with required arguments" },
    get: ({ arg1, arg2 }: { arg1: string; arg2: string }) => ({
      messages: [
        {
          role: "user" as const,
          content: { type: "text" as const, text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    }),
  },
  embeddedResource: {
    name: "test_prompt_with_embedded_resource",
    config: { title: "Prompt With Embedded Resource", description: "A prompt that includes an embedded resource" },
    get: ({ resourceUri }: { resourceUri: string }) => ({
      messages: [
        {
          role: "user" as const,
          content: {
            type: "resource" as const,
            resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." },
          },
        },
        {
          role: "user" as const,
          content: { type: "text" as const, text: "Please process the embedded resource above." },
        },
      ],
    }),
  },
  image: {
    name: "test_prompt_with_image",
    config: { title: "Prompt With Image", description: "A prompt that includes image content" },
    get: () => ({
      messages: [
        { role: "user" as const, content: { type: "image" as const, data: IMAGE, mimeType: "image/png" } },
        { role: "user" as const, content: { type: "text" as const, text: "Please analyze the image above." } },
      ],
    }),
  },
};

export const LOG_LINES = ["Tool execution started", "Tool processing data", "Tool execution completed"];
export const STATELESS_LOG_LINES = ["Tool execution started", "Tool execution completed"];
