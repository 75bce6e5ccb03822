export { freePort } from "@switchboard/runtime/net";
