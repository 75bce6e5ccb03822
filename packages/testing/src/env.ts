process.env.BETTER_AUTH_SECRET ??= "test-secret-test-secret-test-secret-0123456789";
process.env.APP_URL ??= "http://localhost:3000";
process.env.LOG_LEVEL ??= "silent";
// Own Redis namespace per test run: queues, sessions and live-event channels never meet another run's.
process.env.REDIS_PREFIX ??= `sbtest-${Math.random().toString(36).slice(2, 10)}`;
// Open sign-up, set by the operator: test files sign up many accounts. test/signup.test.ts unsets it to test the
// deployment owners' setting (invite-only by default). Assigned, not defaulted: a forked worker may have run that file.
process.env.SIGNUP_MODE = "open";
// The upstream fixtures listen on 127.0.0.1 on ports picked at run time: that host is a named exception (any
// port), as an operator would name a server. Everything else stays refused, as the console's services
// (apps/web/test/catalogue-egress.test.ts) and the MCP route (apps/gateway/test/egress.test.ts) prove (e.g.
// `localhost`, which resolves to the same fixtures, is refused).
process.env.EGRESS_ALLOW ??= "127.0.0.1:*";
