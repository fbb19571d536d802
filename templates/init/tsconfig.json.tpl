{
  // Strict TypeScript for Node's own module system. `takoform synth` (and plan, apply …)
  // typechecks the project with it before running the app; `npm run typecheck` does the same.
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "lib": ["ES2023"],
    "types": ["node"],
    "strict": true,
    "verbatimModuleSyntax": true,
    "isolatedModules": true,
    "skipLibCheck": true,
    "noEmit": true__CDK_TYPES__
  },
  "include": ["*.ts"]
}
