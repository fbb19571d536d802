{
  "name": "__NAME__",
  "version": "0.1.0",
  "private": true,
  "type": "module",
  "scripts": {
    "synth": "takoform synth",
    "plan": "takoform plan",
    "apply": "takoform apply",
    "dev": "takoform dev",
    "typecheck": "tsc -p .",
    "test": "vitest run"
  },
  "dependencies": {
    "__CDK__": "__CDK_VERSION__",
    "constructs": "__CONSTRUCTS__",
    "takoform-cdk": "__TAKOFORM_CDK__"
  },
  "devDependencies": {
    "@types/node": "__TYPES_NODE__",
    "tsx": "__TSX__",
    "typescript": "__TYPESCRIPT__",
    "vitest": "__VITEST__"
  }
}
