/** A readable sentence for any error that reached the browser (tRPC, Better Auth or network). */
export function errorMessage(err: unknown): string {
  if (!err) return "";
  const e = err as { message?: string; data?: { fieldErrors?: Record<string, string[] | undefined> | null } };
  const fields = e.data?.fieldErrors;
  if (fields) {
    const first = Object.values(fields).flat().find(Boolean);
    if (first) return first;
  }
  if (e.message && !e.message.startsWith("[")) return e.message;
  return "Something went wrong. Please try again.";
}
