/** Every table, for drizzle and drizzle-kit. */
export * from "./auth";
export * from "./people";
export * from "./settings";
export * from "./staff";
