/**
 * What an upstream did past one of the bounds that protect the processes every team shares (a stdio server's
 * output, an HTTP answer's size): `kind` names the bound, the message is the one sentence shown for it.
 */
export class LimitError<K extends string = string> extends Error {
  constructor(
    readonly kind: K,
    message: string,
  ) {
    super(message);
  }
}

const MiB = 1024 * 1024;

/** A bound in bytes as a person reads it: "10 MiB", or "1,500 bytes". */
export function sizeText(bytes: number): string {
  return bytes >= MiB && bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes.toLocaleString("en")} bytes`;
}
