process.env.BETTER_AUTH_SECRET ??= "test-secret-test-secret-test-secret-0123456789";
process.env.APP_URL ??= "http://localhost:3000";
process.env.LOG_LEVEL ??= "silent";
// Own Redis namespace per test run: queues, sessions and live-event channels never meet another run's.
process.env.REDIS_PREFIX ??= `sbtest-${Math.random().toString(36).slice(2, 10)}`;
// Open sign-up, set by the operator: test files sign up many accounts. test/signup.test.ts unsets it to test the
// deployment owners' setting (invite-only by default). Assigned, not defaulted: a forked worker may have run that file.
process.env.SIGNUP_MODE = "open";
