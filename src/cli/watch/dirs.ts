// Watching a set of directories, each one on its own (fs.watch, not recursive): the inputs of
// `takoform dev --watch` are files in known directories, and an editor that saves by writing a
// new file and renaming it over the old one is still seen as a change to that name in its
// directory. (A recursive watch would walk node_modules and every other folder of the project.)

import { watch, type FSWatcher } from "node:fs";
import { join } from "node:path";

export class DirWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;

  constructor(private readonly onPath: (path: string) => void) {}

  /** Watches exactly these directories from now on (a directory that does not exist is skipped). */
  set(dirs: readonly string[]): void {
    if (this.closed) return;
    const wanted = new Set(dirs);
    for (const [dir, watcher] of this.watchers) {
      if (wanted.has(dir)) continue;
      watcher.close();
      this.watchers.delete(dir);
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: false }, (_event, name) => this.onPath(name === null ? dir : join(dir, name.toString())));
        // A directory removed while watched: the next synth says where the content went.
        watcher.on("error", () => {
          watcher.close();
          this.watchers.delete(dir);
          this.onPath(dir);
        });
        this.watchers.set(dir, watcher);
      } catch {
        // gone, or not a directory: nothing in it to watch
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
