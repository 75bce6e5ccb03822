/**
 * Bad text never reaches the database: a NUL character (PostgreSQL refuses it and used to answer 500 with its
 * own error text) or a string that is not valid Unicode answers BAD_REQUEST, for every procedure of the router
 * (read at test time, inputs from `support/authz-matrix.ts`) and every string of its input; over HTTP it is a
 * 400, and an unexpected error shows the client one generic sentence. Also: the Origin check on mutations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { disconnectDb } from "@switchboard/db/client";
import { GET as trpcGet, POST as trpcPost } from "~/app/api/trpc/[trpc]/route";
import { POST as authPost } from "~/app/api/auth/[...all]/route";
import { closeJobs } from "@switchboard/runtime/jobs";
import { createTRPCContext, createTRPCRouter, publicProcedure } from "~/server/trpc/init";
import { appRouter } from "~/server/trpc/root";
import { createWorld, MATRIX, outcomeOf, type World } from "./support/authz-matrix";
import { signedInCaller } from "./support/caller";

const procedures = Object.keys(appRouter._def.procedures).sort();
const APP = "http://localhost:3000";

let world: World;

beforeAll(async () => {
  world = await createWorld();
});

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

/** Every string in `value` (object keys excluded) as a path of keys and indexes. */
function stringPaths(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value === "string") return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, [...path, i]));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...path, k]));
  return [];
}

function withStringAt(value: unknown, path: Array<string | number>, replace: (s: string) => string): unknown {
  if (path.length === 0) return replace(value as string);
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head!] = withStringAt(copy[head!], rest, replace);
  return copy;
}

/** The input variants for one procedure: a NUL in each of its strings, an extra string with a NUL, a lone surrogate. */
function badVariants(input: unknown): Array<{ label: string; input: unknown }> {
  const base = input && typeof input === "object" && !Array.isArray(input) ? input : {};
  return [
    ...stringPaths(input).map((path) => ({
      label: `NUL in ${path.join(".")}`,
      input: withStringAt(input, path, (s) => `${s}\u0000x`),
    })),
    { label: "NUL in an extra field", input: { ...base, note: "a\u0000b" } },
    { label: "NUL in a key", input: { ...base, "k\u0000": "v" } },
    { label: "a lone surrogate", input: { ...base, note: "broken \ud800 text" } },
  ];
}

describe("unsafe text in tRPC inputs", () => {
  it.each(procedures)(
    "%s answers BAD_REQUEST for a NUL in any string of its input or invalid Unicode",
    async (path) => {
      const entry = MATRIX[path];
      expect(entry, `no matrix entry for ${path}: add one to test/support/authz-matrix.ts`).toBeDefined();
      const valid = entry!.input ? await entry!.input(world, "admin") : undefined;
      const variants = badVariants(valid);
      expect(variants.length).toBeGreaterThanOrEqual(3);
      const outcomes: Record<string, string> = {};
      for (const variant of variants)
        outcomes[variant.label] = await outcomeOf(world.callers.admin, path, variant.input);
      // Checked before authentication too: the anonymous get the same answer, not a 500 and not a hint.
      outcomes["anonymous, NUL"] = await outcomeOf(world.callers.anonymous, path, variants.at(-3)!.input);
      expect(outcomes).toEqual(Object.fromEntries(Object.keys(outcomes).map((k) => [k, "BAD_REQUEST"])));
    },
  );

  it("answers 400 over HTTP for the anonymous invitation.get with a NUL, naming the field, with no database text", async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { invitationId: "abc\u0000def" } }));
    const res = await trpcGet(new Request(`${APP}/api/trpc/invitation.get?input=${input}`));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { json: { message: string; data: { code: string } } } };
    expect(body.error.json.data.code).toBe("BAD_REQUEST");
    expect(body.error.json.message).toBe(
      "The request contains a NUL character (in invitationId); remove it and try again.",
    );
  });

  it("answers 400 over HTTP for a mutation whose body has a NUL, and the same call without it succeeds", async () => {
    const user = await signedInCaller("http-nul");
    const call = (name: string) =>
      trpcPost(
        new Request(`${APP}/api/trpc/team.create`, {
          method: "POST",
          headers: { cookie: user.headers.get("cookie")!, origin: APP, "content-type": "application/json" },
          body: JSON.stringify({ json: { name } }),
        }),
      );
    const bad = await call("Bad\u0000Team");
    expect(bad.status).toBe(400);
    expect(await bad.text()).not.toMatch(/0x00|invalid byte sequence|prisma/i);
    const good = await call(`Good ${Math.random().toString(36).slice(2, 8)}`);
    expect(good.status).toBe(200);
  });

  it("shows the client one generic sentence for an unexpected error, never its detail", async () => {
    const router = createTRPCRouter({
      boom: publicProcedure.query(() => {
        throw new Error('invalid byte sequence for encoding "UTF8": 0x00 (relation "users")');
      }),
    });
    const res = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: new Request(`${APP}/api/trpc/boom`),
      router,
      createContext: () => createTRPCContext({ headers: new Headers(), viaHttp: true }),
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("0x00");
    expect(text).not.toContain("relation");
    expect(JSON.parse(text).error.json.message).toBe(
      "Something went wrong on our side. Try again in a moment; if it keeps failing, tell your admin.",
    );
  });
});

describe("deeply nested tRPC bodies", () => {
  const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const DEEP = 5_000;
  /** tRPC's error for a whole answer, or each entry of a batch's. */
  const errorsOf = (body: unknown) =>
    (Array.isArray(body) ? body : [body]).map(
      (e) => (e as { error: { json: { message: string; data: { code: string; httpStatus: number } } } }).error.json,
    );

  async function mutation(path: string, body: string) {
    const user = await signedInCaller("deep");
    return trpcPost(
      new Request(`${APP}/api/trpc/${path}`, {
        method: "POST",
        headers: { cookie: user.headers.get("cookie")!, origin: APP, "content-type": "application/json" },
        body,
      }),
    );
  }

  async function expectRefused(res: Response, entries = 1) {
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toMatch(/call stack|RangeError/i);
    const errors = errorsOf(JSON.parse(text));
    expect(errors).toHaveLength(entries);
    for (const error of errors) {
      expect(error.data).toMatchObject({ code: "BAD_REQUEST", httpStatus: 400 });
      expect(error.message).toBe("The request is nested too deeply; send a simpler value.");
    }
  }

  it("answers 400 in one sentence for a deep superjson meta, never a stack overflow", async () => {
    // superjson walks meta.values recursively: this one overflowed the stack.
    await expectRefused(
      await mutation("team.create", `{"json":{"name":"Deep meta"},"meta":{"values":${deepArray(DEEP)}}}`),
    );
    // Parts of meta superjson ignores are refused too: the whole body is checked.
    await expectRefused(await mutation("team.create", `{"json":{"name":"Deep meta"},"meta":${deepObject(DEEP)}}`));
  });

  it("answers 400 for deep input, and for any entry of a batch, with an answer per entry", async () => {
    await expectRefused(await mutation("team.create", `{"json":{"name":"Deep","x":${deepArray(DEEP)}}}`));
    const name = JSON.stringify({ json: { name: "Fine" } });
    await expectRefused(
      await mutation(
        "team.create,team.create?batch=1",
        `{"0":${name},"1":{"json":${name},"meta":${deepObject(DEEP)}}}`,
      ),
      2,
    );
    await expectRefused(await mutation("team.create", deepArray(DEEP)));
  });

  it("answers 400 for a deep query input in the URL", async () => {
    const input = encodeURIComponent(`{"json":{"invitationId":"x"},"meta":${deepObject(DEEP)}}`);
    await expectRefused(await trpcGet(new Request(`${APP}/api/trpc/invitation.get?input=${input}`)));
    const batched = encodeURIComponent(`{"0":{"json":{"invitationId":"x"},"meta":${deepArray(DEEP)}}}`);
    await expectRefused(await trpcGet(new Request(`${APP}/api/trpc/invitation.get?batch=1&input=${batched}`)));
  });

  it("still serves a body nested as deep as the console's own forms", async () => {
    const res = await mutation(
      "team.create",
      JSON.stringify({ json: { name: `Nested ${Math.random().toString(36).slice(2, 8)}` }, meta: { values: {} } }),
    );
    expect(res.status).toBe(200);
  });
});

describe("unsafe text in auth requests", () => {
  const signUp = (body: string, type = "application/json") =>
    authPost(
      new Request(`${APP}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": type, origin: APP },
        body,
      }),
    );

  it("refuses a NUL in a sign-up body with 400, escaped or raw, before Better Auth and the database see it", async () => {
    const email = `nul-${Date.now()}@example.test`;
    for (const body of [
      JSON.stringify({ email, password: "correct-horse-battery", name: "Nul\u0000Name" }),
      `{"email":"${email}","password":"correct-horse-battery","name":"Raw\u0000Nul"}`,
      JSON.stringify({ email, password: "correct-horse-battery", name: "bad \ud800 text" }),
    ]) {
      const res = await signUp(body);
      expect(res.status).toBe(400);
      expect((await res.json()) as { message: string }).toMatchObject({
        message: expect.stringMatching(/NUL character|not valid Unicode/),
      });
    }
    // The same address signs up fine without the bad text: the body is handed on intact.
    const ok = await signUp(JSON.stringify({ email, password: "correct-horse-battery", name: "Fine Name" }));
    expect(ok.status).toBe(200);
  });

  it("refuses a NUL in a form-encoded auth body and in an auth query", async () => {
    const form = await signUp(
      "email=a%40example.test&password=correct-horse-battery&name=x%00y",
      "application/x-www-form-urlencoded",
    );
    expect(form.status).toBe(400);
    const query = await authPost(
      new Request(`${APP}/api/auth/sign-in/email?callbackURL=%00`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: APP },
        body: "{}",
      }),
    );
    expect(query.status).toBe(400);
  });
});

describe("Origin on tRPC over HTTP", () => {
  async function createTeam(origin: string | null, host = "localhost:3000") {
    const user = await signedInCaller("origin");
    const headers: Record<string, string> = {
      cookie: user.headers.get("cookie")!,
      "content-type": "application/json",
      host,
    };
    if (origin !== null) headers.origin = origin;
    return trpcPost(
      new Request(`${APP}/api/trpc/team.create`, {
        method: "POST",
        headers,
        body: JSON.stringify({ json: { name: `Origin ${Math.random().toString(36).slice(2, 8)}` } }),
      }),
    );
  }

  it("refuses a mutation from a foreign origin or without one with 403 FORBIDDEN", async () => {
    for (const origin of ["https://evil.example", null, "null", "http://localhost:3000.evil.example"]) {
      const res = await createTeam(origin);
      expect(res.status, `origin ${origin}`).toBe(403);
      expect(((await res.json()) as { error: { json: { data: { code: string } } } }).error.json.data.code).toBe(
        "FORBIDDEN",
      );
    }
  });

  it("accepts a mutation from the console's own origin", async () => {
    const res = await createTeam(APP);
    expect(res.status).toBe(200);
  });

  it("accepts a mutation from the name the console was reached under, and not from another one", async () => {
    expect((await createTeam("http://127.0.0.1:3000", "127.0.0.1:3000")).status).toBe(200);
    expect((await createTeam("http://127.0.0.1:3001", "127.0.0.1:3000")).status).toBe(403);
    expect((await createTeam("https://127.0.0.1:3000", "127.0.0.1:3000")).status).toBe(403);
  });

  it("lets a query without an Origin through (same-origin GETs send none) and refuses one from a foreign origin", async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { invitationId: world.invitationId } }));
    const plain = await trpcGet(new Request(`${APP}/api/trpc/invitation.get?input=${input}`));
    expect(plain.status).toBe(200);
    const foreign = await trpcGet(
      new Request(`${APP}/api/trpc/invitation.get?input=${input}`, { headers: { origin: "https://evil.example" } }),
    );
    expect(foreign.status).toBe(403);
  });
});

describe("unsafe text in the OAuth callback", () => {
  it("redirects a signed-in browser with a readable error for a NUL in the state, instead of failing in the database", async () => {
    const { GET: callback } = await import("~/app/api/oauth/callback/route");
    const user = await signedInCaller("oauth-nul");
    const res = await callback(
      new Request(`${APP}/api/oauth/callback?state=abc%00def&code=x`, {
        headers: { cookie: user.headers.get("cookie")! },
      }),
    );
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(location.pathname).toBe("/teams");
    expect(location.searchParams.get("oauth")).toBe("error");
    expect(location.searchParams.get("message")).toMatch(/malformed answer/);
  });
});
