export * from "./event-types";
export * from "./live-event";
export * from "./detail";
export * from "./calls-logged";
export * from "./status-change";
export * from "./groups";
