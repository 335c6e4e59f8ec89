import { describeFuzzShard } from "./support/fuzz-run.js";

// Half the document's operations (the other half in the other file): two stacks, two vitest workers.
describeFuzzShard(2, 2);
