export { CONNECTION_TEST_TIMEOUT_MS, testConnection, type ConnectionTestResult } from "./test-connection";
