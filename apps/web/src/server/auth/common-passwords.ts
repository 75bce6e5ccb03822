import { dictionary } from "@zxcvbn-ts/language-common";

/**
 * The ~50,000 most common passwords of zxcvbn-ts's list (from public breach corpora), lower-cased, loaded on
 * first use. The policy itself lives in @switchboard/core/accounts.
 */
let common: Set<string> | undefined;

export function isCommonPassword(lowercased: string): boolean {
  common ??= new Set(dictionary["passwords-common"].map((p) => p.toLowerCase()));
  return common.has(lowercased);
}
