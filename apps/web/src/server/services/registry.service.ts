import "server-only";
import { humanizeError } from "@switchboard/core/errors";
import {
  PRESETS,
  serverJsonOf,
  templateFromServerJson,
  type ImportResult,
  type TemplateDraft,
} from "@switchboard/core/registry";
import { upstreamEgressFetch, urlRefusal } from "@switchboard/runtime/egress";
import { AppError } from "../errors";

const MAX_DOCUMENT_BYTES = 512 * 1024;
const REGISTRY_TIMEOUT_MS = 10_000;

/** The built-in presets as drafts, for the install flow's first step. */
export function presets(): { id: string; draft: TemplateDraft }[] {
  return PRESETS.flatMap((doc) => {
    const result = templateFromServerJson(doc);
    return result.ok ? [{ id: doc.name, draft: result.draft }] : [];
  });
}

function answer(result: ImportResult) {
  if (!result.ok) throw new AppError("INVALID_INPUT", result.message);
  return { draft: result.draft, notes: result.notes };
}

/** A pasted or uploaded server.json. */
export function importDocument(text: string) {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new AppError("INVALID_INPUT", "This is not valid JSON: paste the whole server.json file.", { cause: err });
  }
  return answer(templateFromServerJson(serverJsonOf(doc)));
}

/**
 * One server from a registry (the official one or a compatible sub-registry): `GET {base}/v0/servers/{name}/versions/latest`,
 * through the same egress rules as any configured URL, bounded in time and size.
 */
export async function importFromRegistry({ baseUrl, name }: { baseUrl: string; name: string }) {
  const url = new URL(
    `v0/servers/${encodeURIComponent(name)}/versions/latest`,
    baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`,
  ).href;
  const refusal = urlRefusal(url);
  if (refusal) throw new AppError("INVALID_INPUT", refusal);
  let response: Response;
  try {
    response = await upstreamEgressFetch()(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(REGISTRY_TIMEOUT_MS),
    });
  } catch (err) {
    throw new AppError("UPSTREAM_UNAVAILABLE", `The registry could not be reached: ${humanizeError(err).summary}`, {
      cause: err,
    });
  }
  if (response.status === 404) {
    await response.body?.cancel().catch(() => {});
    throw new AppError("NOT_FOUND", `The registry has no server named “${name}”.`);
  }
  const text = await boundedText(response);
  if (!response.ok)
    throw new AppError(
      "UPSTREAM_UNAVAILABLE",
      `The registry answered: ${humanizeError(`HTTP ${response.status}: ${text}`).summary}`,
    );
  return importDocument(text);
}

async function boundedText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel().catch(() => {});
      throw new AppError("INVALID_INPUT", "The registry's answer is larger than a server.json can be (512 KiB).");
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
