#!/usr/bin/env node
// The `incumbent` command. The package ships TypeScript sources (it lives in the Incumbent repository);
// tsx, the repository's own TypeScript runner, loads them.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
// Exit at once with the verdict's code: an idle keep-alive connection must not hold the shell.
process.exit(await main(process.argv.slice(2)));
