// What the typecheck process (child.ts) sends its parent (typecheck.ts): one message, then it exits.

export interface TypecheckError {
  code: number;
  message: string;
  /** Absolute path, when the error is in a file. */
  file?: string;
  /** 1-based. */
  line?: number;
  column?: number;
}

export interface TypecheckReply {
  /** The project's TypeScript version. */
  version: string;
  errors: TypecheckError[];
  /** Every file the check read (the tsconfig and those it extends, every source and declaration). */
  files: string[];
  /** Directories a new source file would appear in (the include patterns' and the sources'). */
  dirs: string[];
}
