export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Fail at boot, with a readable message, rather than on the first request.
  const { env } = await import("@switchboard/runtime/env");
  // Parsed once, the encryption key with the rest (a malformed one is refused there); packages/db reads it.
  const { useProcessEnv } = await import("@switchboard/db/env");
  useProcessEnv(env());
}
