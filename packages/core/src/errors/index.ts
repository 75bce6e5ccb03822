export { boundDetail, humanizeError, DETAIL_MAX, SUMMARY_MAX, type HumanError } from "./human";
export { LimitError, sizeText } from "./limit";
export { CONNECTION_CLOSED_MESSAGE, ConnectionClosedError } from "./connection-closed";
