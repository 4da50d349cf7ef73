/**
 * First import of the binary's entry: Elysia and Bun.serve run in development mode unless NODE_ENV says
 * otherwise, and a compiled binary carries no environment of its own.
 */
process.env.NODE_ENV ??= "production";
