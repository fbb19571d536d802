// Reading a failed app's output: cdktf validation failures become one problem per construct, an
// uncaught error keeps its message and the app's own frames. The shapes are the ones cdktf 0.21
// and Node 20 print (the command path is exercised for real in test/constructs/collect-command).

import { describe, expect, it } from "vitest";
import { uncaughtError, validationProblems } from "../../../src/engine/config/app-failure.ts";

const STACK_FAILURE = `/p/node_modules/cdktf/lib/errors.ts:216
  new Error(\`Validation failed with the following errors:\\n  \${errorList}
  ^


Error: Validation failed with the following errors:
  [demo/thing] first problem
  [demo/thing] second problem
with two lines
  [demo/thing/inner] third [bracketed] text

If you wish to ignore these validations, pass 'skipValidation: true' to your App configuration.

    at stackValidationFailure (/p/node_modules/cdktf/lib/errors.ts:216:3)
    at TerraformStack.runAllValidations (/p/node_modules/cdktf/lib/terraform-stack.ts:467:35)
    at <anonymous> (/p/main.ts:9:5)

Node.js v20.20.2
`;

describe("validationProblems", () => {
  it("lists a stack's problems with their construct paths, a message of several lines kept whole", () => {
    expect(validationProblems(STACK_FAILURE)).toEqual([
      { path: "demo/thing", message: "first problem" },
      { path: "demo/thing", message: "second problem\nwith two lines" },
      { path: "demo/thing/inner", message: "third [bracketed] text" },
    ]);
  });

  it("lists App-level validations without a path", () => {
    const output = "Error: App-level validation failed with the following errors:\n  one\n  two\nValidations allow for dynamic verification of your project.\n";
    expect(validationProblems(output)).toEqual([{ message: "one" }, { message: "two" }]);
  });

  it("finds nothing in other failures", () => {
    expect(validationProblems("Error: boom\n    at x (/p/main.ts:1:1)\n")).toEqual([]);
    expect(validationProblems("")).toEqual([]);
  });
});

describe("uncaughtError", () => {
  it("keeps the error and the frames in the app's own files, relative to the project", () => {
    const output = `some log line
/repo/src/constructs/worker-app.ts:124
      throw new TakoformConstructError(\`WorkerApp "\${id}": the configuration must be an object.\`);
            ^


TakoformConstructError: WorkerApp "w": the configuration must be an object.
    at new WorkerApp (/repo/src/constructs/worker-app.ts:124:13)
    at <anonymous> (/p/main.ts:6:1)
    at Object.<anonymous> (/p/main.ts:7:11)
    at Array.forEach (<anonymous>)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at Object.transformer (/p/node_modules/tsx/dist/register-B1c7OH6V.cjs:22:2188)
    at file:///p/lib/helper.ts:3:9
    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)

Node.js v20.20.2
`;
    expect(uncaughtError(output, "/p")).toBe(
      'TakoformConstructError: WorkerApp "w": the configuration must be an object.\n  at main.ts:6:1\n  at main.ts:7:11\n  at lib/helper.ts:3:9',
    );
  });

  it("keeps a message of several lines, and leaves out the properties Node prints after the last frame", () => {
    const output = `node:fs:573
  return binding.open(
                 ^

Error: ENOENT: no such file or directory, open '/nonexistent/x'
second line
    at Object.openSync (node:fs:573:18)
    at <anonymous> (/p/main.ts:2:1) {
  errno: -2,
  code: 'ENOENT'
}

Node.js v20.20.2
`;
    expect(uncaughtError(output, "/p")).toBe("Error: ENOENT: no such file or directory, open '/nonexistent/x'\nsecond line\n  at main.ts:2:1");
  });

  it("takes the paragraph above the first frame when there is no source excerpt", () => {
    expect(uncaughtError("noise\n\nError: boom\n    at run (/p/main.ts:4:2)\n", "/p")).toBe("Error: boom\n  at main.ts:4:2");
  });

  it("gives up on output without frames (a thrown string), leaving it to the caller", () => {
    expect(
      uncaughtError("node:internal/modules/run_main:123\n    triggerUncaughtException(\n    ^\na string\n(Use `node --trace-uncaught ...`)\n", "/p"),
    ).toBeUndefined();
  });
});
