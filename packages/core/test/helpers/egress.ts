import { egressFetch } from "../../src/upstream";

/**
 * The fetch of tests whose upstream fixtures listen on 127.0.0.1 (ports picked at run time): that host is a
 * named exception, as an operator would name a server. Transports given no fetch apply the default rules and
 * refuse these fixtures (egress.test.ts proves it).
 */
export const fixtureFetch = egressFetch({ allowPrivate: false, allow: [{ host: "127.0.0.1", port: "*" }] });
