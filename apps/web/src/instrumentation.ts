export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Fail at boot, with a readable message, rather than on the first request.
  const { env } = await import("@switchboard/runtime/env");
  const { SWITCHBOARD_ENCRYPTION_KEY } = env();
  const { parseEncryptionKey } = await import("@switchboard/db/crypto");
  parseEncryptionKey(SWITCHBOARD_ENCRYPTION_KEY);
}
