// The outlines (backend, addresses) of an app's stacks, each read from its synthesized file once
// per command however many stacks ask: the shared-state check of every stack of a multi-stack run
// looks at every other stack, so reading them per stack would read n × (n − 1) files.

import { readStackOutline, type AppStacks, type StackOutline } from "../engine/config/index.ts";

/** The app's stacks' outlines, read once per command. */
export class AppOutlines {
  private readonly cache = new Map<string, Promise<StackOutline | null>>();
  constructor(readonly app: AppStacks | null) {}

  outline(stack: string): Promise<StackOutline | null> {
    let found = this.cache.get(stack);
    if (found === undefined) {
      const file = this.app?.stacks.get(stack);
      found = file === undefined ? Promise.resolve(null) : readStackOutline(file);
      this.cache.set(stack, found);
    }
    return found;
  }
}
