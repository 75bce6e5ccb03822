export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Fail at boot, with a readable message, rather than on the first request.
  const { env } = await import("@switchboard/runtime/env");
  env();
  const { parseEncryptionKey } = await import("@switchboard/db/crypto");
  parseEncryptionKey(process.env.SWITCHBOARD_ENCRYPTION_KEY);
}
