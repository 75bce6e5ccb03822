import { encode } from "gpt-tokenizer";

export interface TokenCountableTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

// Special-token markers such as "<|endoftext|>" in a description are counted as plain text instead of making
// the tokenizer throw (its default is to reject them).
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Estimated tokens a tool costs in a model's context: name, description and JSON schema joined by newlines.
 * Uses gpt-tokenizer's default export, the o200k_base encoding (GPT-4o and later). It is an estimate for every
 * other model family, good enough to compare servers and to show the cost of a catalogue.
 */
export function countToolTokens(tool: TokenCountableTool): number {
  const schema = tool.inputSchema === undefined ? "" : (JSON.stringify(tool.inputSchema) ?? "");
  return estimateTokens([tool.name, tool.description ?? "", schema].join("\n"));
}

/** Past this many characters, a text's tokens are estimated from its start (encoding is linear in the length). */
export const TOKEN_SAMPLE_CHARS = 64 * 1024;

/**
 * Estimated tokens of a text in a model's context (o200k_base, see above): the estimate every count in the
 * console uses, tool costs and the tokens of tool results alike. A text over TOKEN_SAMPLE_CHARS is counted on its
 * first TOKEN_SAMPLE_CHARS characters and scaled by length, so a large result costs the gateway bounded CPU.
 */
export function estimateTokens(text: string): number {
  if (text.length <= TOKEN_SAMPLE_CHARS) return encode(text, AS_PLAIN_TEXT).length;
  const sample = encode(text.slice(0, TOKEN_SAMPLE_CHARS), AS_PLAIN_TEXT).length;
  return Math.round((sample * text.length) / TOKEN_SAMPLE_CHARS);
}

export function countCatalogueTokens(tools: readonly TokenCountableTool[]): {
  perTool: Array<{ name: string; tokens: number }>;
  total: number;
} {
  const perTool = tools.map((t) => ({ name: t.name, tokens: countToolTokens(t) }));
  return { perTool, total: perTool.reduce((sum, t) => sum + t.tokens, 0) };
}
