// takoform-cdk: the package's public entry.

// Authoring constructs (TakoformProvider, the generated resource classes, …).
export * from "./constructs/index.ts";
