/** Entry of the `tandem` executable: hands argv to the CLI. */
import "./production";
import { runCli } from "../cli";

await runCli(process.argv);
