// What `takoform dev --watch` makes of a changed path (src/cli/watch/watched.ts): the app's
// sources need a typecheck, a content file the stack names needs only a plan, a file appearing in
// or leaving a content directory needs a synth, and editors' save litter and takoform's own
// output are no change at all.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mostOf, Watched } from "../../src/cli/watch/watched.ts";

const dir = mkdtempSync(join(tmpdir(), "takoform-watch-inputs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STACK = JSON.stringify({
  resource: {
    takoform_worker_bundle: {
      b: {
        modules: [{ name: "index.js", content_file: "dist/index.js" }],
        files: [
          { path: "a.css", content_file: `${dir}/public/a.css` },
          { path: "x", content_file: "${var.elsewhere}" },
        ],
      },
    },
  },
});

describe("dev --watch: what a change needs", () => {
  mkdirSync(join(dir, "dist"));
  mkdirSync(join(dir, "public"));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "dist", "index.js"), "export default {};\n");
  writeFileSync(join(dir, "public", "a.css"), "");
  writeFileSync(join(dir, "dist", "new.js"), "");
  const watched = new Watched(dir);
  watched.setSources([join(dir, "main.ts"), join(dir, "tsconfig.json"), join(dir, "src", "lib.ts")], [dir]);
  watched.setContent(STACK);

  it("watches each directory of a source or a content file, never takoform's own", () => {
    expect(watched.dirs()).toEqual([dir, join(dir, "dist"), join(dir, "public"), join(dir, "src")].sort());
  });

  it("classifies each path", () => {
    expect(watched.need(join(dir, "main.ts"))).toBe("typecheck");
    expect(watched.need(join(dir, "cdktf.json"))).toBe("typecheck");
    expect(watched.need(join(dir, "src", "lib.ts"))).toBe("typecheck");
    // A new file beside the sources may be one the tsconfig includes.
    expect(watched.need(join(dir, "other.ts"))).toBe("typecheck");
    expect(watched.need(join(dir, "notes.txt"))).toBeUndefined();
    // The stack's content, relative to the project or absolute.
    expect(watched.need(join(dir, "dist", "index.js"))).toBe("plan");
    expect(watched.need(join(dir, "public", "a.css"))).toBe("plan");
    // A file added to a content directory changes the list the app writes; one already gone
    // again was an editor's while saving.
    expect(watched.need(join(dir, "dist", "new.js"))).toBe("synth");
    expect(watched.need(join(dir, "dist", "sedAb12Cd"))).toBeUndefined();
    // Editors' litter and what takoform writes are not inputs.
    for (const litter of [".index.js.swp", "index.js~", "4913", ".#index.js"]) expect(watched.need(join(dir, "dist", litter))).toBeUndefined();
    expect(watched.need(join(dir, "cdktf.out", "manifest.json"))).toBeUndefined();
    expect(watched.need(join(dir, ".takoform", "host", "host.db"))).toBeUndefined();
    expect(watched.need(join(dir, "node_modules", "x", "index.ts"))).toBeUndefined();
  });

  it("a content file that was removed needs a synth", () => {
    rmSync(join(dir, "public", "a.css"));
    expect(watched.need(join(dir, "public", "a.css"))).toBe("synth");
  });

  it("a cycle does the most its changes need", () => {
    expect(mostOf(["plan", "plan"])).toBe("plan");
    expect(mostOf(["plan", "synth"])).toBe("synth");
    expect(mostOf(["synth", "typecheck", "plan"])).toBe("typecheck");
  });

  it("names what changed, three at most", () => {
    const paths = ["a.ts", "b.ts", "c.ts", "d.ts", "e.ts"].map((f) => join(dir, f));
    expect(watched.describe(paths.slice(0, 2))).toBe("a.ts, b.ts");
    expect(watched.describe(paths)).toBe("a.ts, b.ts, c.ts and 2 more");
  });
});
