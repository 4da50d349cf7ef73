/** Every table, for drizzle and drizzle-kit. */
export * from "./audit";
export * from "./auth";
export * from "./automations";
export * from "./chat";
export * from "./files";
export * from "./inbox";
export * from "./integrations";
export * from "./jobs";
export * from "./notifications";
export * from "./people";
export * from "./settings";
export * from "./spaces";
export * from "./staff";
export * from "./tasks";
