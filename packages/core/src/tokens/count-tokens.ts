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
  const text = [tool.name, tool.description ?? "", schema].join("\n");
  return encode(text, AS_PLAIN_TEXT).length;
}

export function countCatalogueTokens(tools: readonly TokenCountableTool[]): {
  perTool: Array<{ name: string; tokens: number }>;
  total: number;
} {
  const perTool = tools.map((t) => ({ name: t.name, tokens: countToolTokens(t) }));
  return { perTool, total: perTool.reduce((sum, t) => sum + t.tokens, 0) };
}
