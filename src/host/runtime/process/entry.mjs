// The first module of an isolate process. The process is forked with plain Node, not through the
// command's loader (bin/takoform.js registers tsx in its own process only), so it registers tsx for
// itself and then imports the isolate's real entry point. This is the one plain-JavaScript file of
// the runtime because nothing can load TypeScript before it runs.
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
