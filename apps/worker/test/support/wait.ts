export { waitUntil } from "@switchboard/testing/wait";
