// What `takoform dev --watch` watches, and what a change to each path asks of the next cycle.
//
// Two kinds of input. The app's own sources (the files its tsconfig's program read, cdktf.json)
// decide the synthesized stack: a change there needs a typecheck and a synth. The content the
// stack names by path (every `content_file` of a WorkerApp's modules, assets and migrations, or
// of a bundle written by hand) is read by the plan itself, which re-reads its digests: a change to
// one of those files needs only a plan and an apply. A file appearing in or leaving a content
// directory changes the list the app wrote (WorkerApp lists its `contentDir` at synth), so it
// needs a synth, but no typecheck.

import { existsSync } from "node:fs";
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from "node:path";

/** What the next cycle has to do for a set of changes, most first. */
export type Need = "typecheck" | "synth" | "plan";

/** Names editors write beside a file while saving it (swap and backup files, vim's probe). */
const EDITOR_LITTER = /(^\.#|^#.*#$|~$|\.sw[a-p]$|^4913$)/;

/** Extensions of a file that may become one of the app's sources when it appears. */
const SOURCE_EXTENSIONS = new Set([".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json"]);

export class Watched {
  /** The stack's content files (absolute) and the directories they are in. */
  private contentFiles = new Set<string>();
  private contentDirs = new Set<string>();
  /** The app's sources (absolute: cdktf.json, the tsconfigs, every source the typecheck read) and their directories. */
  private sources = new Set<string>();
  private sourceDirs = new Set<string>();

  constructor(private readonly projectDir: string) {
    this.setSources([join(projectDir, "cdktf.json")], [projectDir]);
  }

  /** The app's sources, as the last typecheck read them (or cdktf.json alone without one). */
  setSources(files: readonly string[], dirs: readonly string[]): void {
    this.sources = new Set([join(this.projectDir, "cdktf.json"), ...files]);
    this.sourceDirs = new Set([this.projectDir, ...dirs, ...files.map((f) => dirname(f))]);
  }

  /** The content the synthesized stack names: every `content_file` in it, relative to the project directory. */
  setContent(stackDocument: string): void {
    const files = new Set<string>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) for (const item of value) visit(item);
      else if (value !== null && typeof value === "object") {
        for (const [key, item] of Object.entries(value)) {
          if (key === "content_file" && typeof item === "string" && !item.includes("${")) files.add(isAbsolute(item) ? item : resolve(this.projectDir, item));
          else visit(item);
        }
      }
    };
    try {
      visit(JSON.parse(stackDocument));
    } catch {
      return; // the loader reported the document already; keep what was watched
    }
    this.contentFiles = files;
    this.contentDirs = new Set([...files].map((f) => dirname(f)));
  }

  /** Every directory to watch (non-recursively: each one the files above are in). */
  dirs(): string[] {
    return [...new Set([...this.sourceDirs, ...this.contentDirs])].filter((dir) => !this.generated(dir)).sort();
  }

  /** What a change to `path` needs, or undefined when the path is none of the inputs. */
  need(path: string): Need | undefined {
    if (EDITOR_LITTER.test(basename(path)) || this.generated(path)) return undefined;
    if (this.sources.has(path)) return "typecheck";
    if (this.contentFiles.has(path)) return existsSync(path) ? "plan" : "synth";
    if (this.contentDirs.has(path)) return "synth";
    // A new file in a content directory (one that is gone again was an editor's while saving).
    if (this.contentDirs.has(dirname(path))) return existsSync(path) ? "synth" : undefined;
    if (this.sourceDirs.has(dirname(path)) && SOURCE_EXTENSIONS.has(extname(path))) return "typecheck";
    return undefined;
  }

  /** The paths, relative to the project, for the cycle's line. */
  describe(paths: readonly string[]): string {
    const shown = paths.slice(0, 3).map((p) => relative(this.projectDir, p) || ".");
    return paths.length > 3 ? `${shown.join(", ")} and ${paths.length - 3} more` : shown.join(", ");
  }

  /** What takoform writes itself (state, the embedded host, the synthesized stacks) and the packages. */
  private generated(path: string): boolean {
    const inside = relative(this.projectDir, path).split(/[/\\]/);
    return inside[0] === ".takoform" || inside[0] === "cdktf.out" || inside[0] === ".git" || inside.includes("node_modules");
  }
}

/** The most a set of needs asks for. */
export function mostOf(needs: Iterable<Need>): Need {
  let most: Need = "plan";
  for (const need of needs) {
    if (need === "typecheck") return "typecheck";
    if (need === "synth") most = "synth";
  }
  return most;
}
