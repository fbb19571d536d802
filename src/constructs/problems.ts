// How Takoform constructs report mistakes: they collect, they do not throw (issue 15 item 6).
//
// A problem in a configuration — a value the Form or the engine refuses, a reference to the wrong
// kind of construct, settings that conflict — is recorded on the construct that received it and
// handed to the constructs validation mechanism (`node.addValidation`). cdktf runs every
// validation of a stack before it writes anything and throws one error that lists them all, each
// as `[<construct path>] <message>`, so one synth shows every mistake at once.
//
// Thrown at once, deliberately: a call that cannot be carried out at all — the configuration or
// the contributed values are not an object, `from` or an import ID is not even of its declared
// type. TypeScript rejects these; nothing sensible can be built from them, and the stack trace
// points at the line that made the call.
//
// Validation can be switched off (`new App({ skipValidation: true })`, or `Testing.synth` without
// `runValidations`). A construct that collected problems still never synthesizes: a Takoform
// resource with problems, or inside a construct with problems, writes a `refusal` token that throws
// them all in the final synthesis, so a known-wrong stack is never written.

import type { IResolvable, IResolveContext } from "./cdk.ts";
import type { IConstruct } from "constructs";

/** Thrown by synthesis when a construct recorded problems: every problem of the stack, at once. */
export class TakoformConstructError extends Error {
  override name = "TakoformConstructError";
}

/** Problems per construct, in the order they were found. */
const recorded = new WeakMap<IConstruct, string[]>();

/** Records a problem of `construct`; the first one registers the construct's validation. */
export function reportProblem(construct: IConstruct, message: string): void {
  let list = recorded.get(construct);
  if (list === undefined) {
    const problems: string[] = [];
    list = problems;
    recorded.set(construct, problems);
    construct.node.addValidation({ validate: () => [...problems] });
  }
  list.push(message);
}

/** The problems `construct` itself recorded. */
export function problemsOf(construct: IConstruct): readonly string[] {
  return recorded.get(construct) ?? [];
}

/** True when `construct` or one of its scopes recorded a problem. */
export function hasProblemsInScope(construct: IConstruct): boolean {
  return construct.node.scopes.some((scope) => recorded.has(scope));
}

/**
 * A token that stands where a construct with problems would be written. While cdktf prepares a
 * stack (it resolves every element once before validation) it resolves to nothing, so validation
 * still gets to list every problem; in the final synthesis, reached only when validation was
 * skipped, it throws every problem of the stack.
 */
export function refusal(construct: IConstruct): IResolvable {
  return {
    creationStack: [],
    resolve(context: IResolveContext): unknown {
      if (context.preparing) return undefined;
      throw new TakoformConstructError(problemListing(construct));
    },
    toString: () => "takoform-construct-problems",
  };
}

/** Every recorded problem in the stack (the tree under the app root's child) of `construct`. */
function problemListing(construct: IConstruct): string {
  const scopes = construct.node.scopes;
  const top = scopes[1] ?? scopes[0]!;
  const lines = top.node.findAll().flatMap((c) => problemsOf(c).map((message) => `[${c.node.path}] ${message}`));
  const count = lines.length === 1 ? "a problem" : `${lines.length} problems`;
  // No closing period: cdktf appends one when it reports an error thrown while resolving.
  return `Takoform constructs reported ${count}, refused even with validation skipped:\n  ${lines.join("\n  ")}\nFix them and synthesize again`;
}
