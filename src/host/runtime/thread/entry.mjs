// The first module of an isolate thread. A Worker does not inherit the loader that runs the
// command's TypeScript sources (bin/takoform.js registers tsx in the main thread only), so the
// thread registers it for itself and then imports the isolate's real entry point. This is the
// one plain-JavaScript file of the runtime because nothing can load TypeScript before it runs.
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
