// The app: `takoform synth`, `plan` and `apply` run this file (cdktf.json "app") and deploy the
// stack it synthesizes. The stack itself is in stack.ts, so stack.test.ts can build it too.
import { App } from "__CDK__";
import { __CLASS__ } from "./stack.js";

const app = new App();
new __CLASS__(app, "__NAME__");
app.synth();
