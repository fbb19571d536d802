// `takoform init [DIR]`: a new project from the template shipped in the package
// (templates/init/), written offline: nothing is downloaded and nothing installed.
//
// The project depends on this very takoform-cdk (install-source.ts: `^VERSION` when it came from
// the registry, else a `file:` reference to it), and on the
// CDK library and constructs versions it was built against — cdktf, or with `--cdktn` its fork
// cdktn (one of the two optional peers, src/constructs/cdk.ts), and the same constructs, so npm
// installs one copy and a construct made by the app is one takoform-cdk recognises. A cdktn
// project's tsconfig maps the name `cdktf` (which takoform-cdk's declarations use) to cdktn's
// types. The dev tools (typescript, tsx, vitest, @types/node) are the versions this package is
// tested with, as caret ranges.
// `--package SPEC` replaces the takoform-cdk dependency (a tarball, a path, a tag).

import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { packageRoot, packageVersion } from "../package-manifest.ts";
import { CliUsageError, lastValue, parseArgs, type Command } from "../command.ts";
import { flagSpec, usage } from "../workspace.ts";
import { Console } from "../console.ts";
import { cliCode } from "../codes.ts";
import { ownDependencySpec } from "../install-source.ts";

const USAGE = `Usage: takoform init [options] [DIR]

Create a new project in DIR (default: the current directory) from the template in this
package: package.json, a strict NodeNext tsconfig.json, cdktf.json, main.ts and stack.ts (a
WorkerApp with a KV namespace and an endpoint), dist/index.js (the worker's code),
stack.test.ts (a vitest test of the stack) and .gitignore. Offline: nothing is installed.

Options:
  --force                Write into a directory that is not empty (the template's files are
                         overwritten; every other file is left alone)
  --package SPEC         The takoform-cdk dependency to write (default: what installs this
                         takoform — ^VERSION from the registry, else file:PATH to it;
                         e.g. file:../takoform-cdk-0.1.0.tgz)
  --name NAME            The project, stack and worker name (default: DIR's name)
  --cdktn                Build on cdktn (CDK Terrain, the maintained fork of CDKTF) instead of
                         cdktf
  --json                 Machine-readable output
  -h, --help             Show this help

Then: npm install, npx takoform apply, npm test.
Exit status: 0 when the project was written, 1 otherwise.`;

export const FLAGS = flagSpec({ values: ["--package", "--name"], switches: ["--help", "--force", "--json", "--no-color", "--cdktn"] });

/** Entries that do not make a directory "not empty": a fresh `git init` leaves .git behind. */
const IGNORED = new Set([".git"]);

/** Template file → where it is written (npm never packs a file named .gitignore). */
function targetOf(template: string): string {
  const path = template.slice(0, -".tpl".length);
  return path === "gitignore" ? ".gitignore" : path;
}

/** A name fit for npm, a stack and the Forms it prefixes: lowercase DNS-label characters, ≤ 30. */
export function projectName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 30)
    .replace(/-+$/, "");
  return /^[a-z]/.test(name) ? name : `app${name === "" ? "" : `-${name}`}`.slice(0, 30);
}

function className(name: string): string {
  return `${name
    .split("-")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("")}Stack`;
}

function templateFiles(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    return entry.isDirectory() ? templateFiles(dir, path) : entry.name.endsWith(".tpl") ? [path] : [];
  });
}

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, FLAGS);
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length > 1) throw new CliUsageError(`unexpected argument ${args.positionals[1]}`);
    const io = new Console(args);
    const dir = resolve(args.positionals[0] ?? ".");
    if (existsSync(dir) && !statSync(dir).isDirectory()) throw new CliUsageError(`${dir} exists and is not a directory`);
    const present = existsSync(dir) ? readdirSync(dir).filter((entry) => !IGNORED.has(entry)) : [];
    if (present.length > 0 && !args.switches.has("--force")) {
      return io.fail("init", [
        {
          severity: "error",
          code: cliCode("directory-not-empty"),
          summary: `${dir} is not empty`,
          detail: `It holds ${present.slice(0, 5).join(", ")}${present.length > 5 ? ` and ${present.length - 5} more` : ""}.`,
          repair:
            "Give an empty or new directory (takoform init DIR), or --force to write the template's files into this one (they overwrite files of the same names; nothing else is touched).",
        },
      ]);
    }
    const nameText = lastValue(args, "--name");
    const name = projectName(nameText ?? basename(dir));
    if (nameText !== undefined && name !== nameText)
      throw new CliUsageError(`--name must be lowercase letters, digits and dashes, starting with a letter, at most 30 characters (e.g. ${name})`);

    const root = packageRoot();
    const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies?: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    const cdk = args.switches.has("--cdktn") ? "cdktn" : "cdktf";
    const caret = (dependency: string): string => {
      const version = own.devDependencies?.[dependency];
      if (version === undefined) throw new Error(`takoform-cdk's package.json pins no ${dependency}`);
      return `^${version}`;
    };
    const replacements: Record<string, string> = {
      __NAME__: name,
      __CLASS__: className(name),
      __TAKOFORM_CDK__: lastValue(args, "--package") ?? ownDependencySpec(root, packageVersion()),
      __CDK__: cdk,
      __CDK_VERSION__: own.peerDependencies[cdk]!,
      // Inside compilerOptions, after its last member.
      __CDK_TYPES__:
        cdk === "cdktn"
          ? ',\n    // takoform-cdk\'s declarations name cdktf; here that is cdktn.\n    "paths": { "cdktf": ["./node_modules/cdktn/lib/index.d.ts"] }'
          : "",
      __CONSTRUCTS__: own.dependencies["constructs"]!,
      __TYPESCRIPT__: caret("typescript"),
      __TSX__: caret("tsx"),
      __VITEST__: caret("vitest"),
      __TYPES_NODE__: caret("@types/node"),
    };
    const templates = join(root, "templates", "init");
    const written: string[] = [];
    for (const template of templateFiles(templates).sort()) {
      const text = readFileSync(join(templates, template), "utf8").replace(/__[A-Z_]+__/g, (token) => replacements[token] ?? token);
      const target = join(dir, targetOf(template));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
      written.push(relative(dir, target));
    }
    written.sort();
    if (io.json) {
      io.emitJson({ ok: true, directory: dir, name, files: written });
      return 0;
    }
    io.out(`Created the project ${name} in ${dir}:`);
    for (const file of written) io.out(`  ${file}`);
    const rel = relative(process.cwd(), dir);
    const cd = rel.startsWith("..") ? dir : rel;
    io.out(
      `\nNext:\n${cd !== "" ? `  cd ${cd}\n` : ""}  npm install\n  npx takoform apply      # deploys to the embedded local host\n  npx takoform dev        # serves the worker and prints its address\n  npm test`,
    );
    return 0;
  },
};
