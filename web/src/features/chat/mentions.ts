/** Mentions in chat: the rules and the finder live in lib/mentions, shared with task comments. */
export * from "../../lib/mentions";
