import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintCoreConfig } from "@secretlint/types";
import type { Match } from "./personal-data";

// secretlint's profiler is on by default: it marks every rule of every lint with performance.mark() and keeps
// the entries, which on a long-running gateway is a leak per call. We never read it.
secretLintProfiler.setEnabled(false);

const CONFIG: SecretLintCoreConfig = {
  rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommended }],
};

/**
 * Credentials in each of `texts` (secretlint's recommended ruleset: cloud keys, tokens, private keys, basic auth
 * in URLs, ...), by index. One lint for them all: the texts are joined on blank lines and each match is mapped
 * back to the text it falls in.
 */
export async function findCredentials(texts: readonly string[]): Promise<Match[][]> {
  const out: Match[][] = texts.map(() => []);
  if (texts.length === 0) return out;
  const SEP = "\n\n";
  const starts: number[] = [];
  let offset = 0;
  for (const text of texts) {
    starts.push(offset);
    offset += text.length + SEP.length;
  }
  const result = await lintSource({
    source: { content: disarmDirectives(texts.join(SEP)), filePath: "guardrail.txt", ext: ".txt", contentType: "text" },
    options: { config: CONFIG, maskSecrets: true, noPhysicFilePath: true },
  });
  for (const message of result.messages) {
    const [start, end] = message.range;
    // The last text starting at or before the match.
    let i = starts.length - 1;
    while (i > 0 && starts[i]! > start) i--;
    const base = starts[i]!;
    const length = texts[i]!.length;
    if (start - base >= length) continue; // in a separator: cannot happen, but never index past the text
    out[i]!.push({
      category: "credentials",
      rule: message.ruleId,
      start: start - base,
      end: Math.min(end - base, length),
    });
  }
  return out;
}

/**
 * The data we scan is not a repository: a `secretlint-disable` comment in a tool's arguments or result would
 * otherwise switch detection off for what follows it. Rewritten to a same-length word, so match offsets hold.
 */
function disarmDirectives(content: string): string {
  return content.replace(/secretlint-(disable|enable)/gi, (directive) => directive.replace("-", "_"));
}
