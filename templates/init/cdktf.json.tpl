{
  "language": "typescript",
  "app": "npx tsx main.ts",
  "output": "cdktf.out"
}
