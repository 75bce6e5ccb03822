export {
  CONNECTION_TEST_TIMEOUT_MS,
  failedConnectionTest,
  testConnection,
  type ConnectionTestResult,
} from "./test-connection";
