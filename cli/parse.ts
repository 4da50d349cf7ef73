/** Option parsers that fail with a one-line reason. */
import { InvalidArgumentError } from "commander";

export function parsePort(value: string): number {
  const port = value.trim() === "" ? Number.NaN : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError("must be 0 to 65535");
  return port;
}
