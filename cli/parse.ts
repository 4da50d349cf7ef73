/** Option parsers and input checks that fail with a one-line reason. */
import { InvalidArgumentError } from "commander";
import { z } from "zod";
import { parseDecimal } from "../src/config";
import { invalid } from "../src/core/errors";
import { installZodMessages } from "../src/http/validation";

export function parsePort(value: string): number {
  const port = parseDecimal(value);
  if (port === null || port > 65535) throw new InvalidArgumentError("must be 0 to 65535");
  return port;
}

/** An address to bind; an empty one would mean every interface, which is never what an empty flag meant. */
export function parseHost(value: string): string {
  if (value.trim() === "") throw new InvalidArgumentError("must not be empty");
  return value.trim();
}

/**
 * Holds a value given on the command line to the schema the API holds its field to, failing with the API's
 * message (`admin_password: must be at most 1024 characters`), which the CLI shows under the flag's name. A
 * value the API would refuse must not get in here: login would refuse it too, and lock the account out.
 */
export function checkAsApi(field: string, schema: z.ZodType, value: string): void {
  installZodMessages();
  const result = z.object({ [field]: schema }).safeParse({ [field]: value });
  if (!result.success) throw invalid(result.error.issues[0]?.message ?? `${field}: is invalid`);
}
