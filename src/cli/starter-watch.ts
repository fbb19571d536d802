// Whether the process that started a long-running command (`takoform dev`, `host serve`) is still
// there (issue 26, item 6). An orphan is re-parented (to init or a subreaper), so a parent pid
// that changes means whoever started us is gone.
//
// `npx takoform dev` starts the command two levels down: `npm exec` runs `sh -c 'takoform' dev …`,
// and the shell runs node. A SIGTERM to the npx PID reaches the shell, which dies: our parent pid
// changes. A killed npx (SIGKILL) leaves the shell alive, waiting on us: its parent pid changes.
// So when our parent is a shell running one command (`sh -c …`), its parent is watched too.
// Reading another process's parent needs /proc (Linux); elsewhere only our own parent is watched.
// (Node resets every signal's disposition at start, so a `nohup` cannot be told apart: to keep a
// server past its terminal, run it under a process manager, which stays its parent.)

import { readFileSync } from "node:fs";
import { basename } from "node:path";

const CHECK_MS = 250;

/** The parent pid of `pid`, from /proc/PID/stat (the field after the command in parentheses). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a shell running one command string: `sh -c …`, `bash -c …`. */
function isCommandShell(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return /^(sh|dash|bash|zsh|ash|ksh)$/.test(basename(argv[0] ?? "")) && argv[1] === "-c";
  } catch {
    return false;
  }
}

/**
 * Calls `gone(pid)` once, with the pid of the process that started this one, when it is gone.
 * Returns the function that stops watching. The timer never keeps the process alive by itself.
 */
export function watchStarter(gone: (pid: number) => void): () => void {
  const parent = process.ppid;
  const grandparent = isCommandShell(parent) ? parentOf(parent) : undefined;
  const timer = setInterval(() => {
    if (process.ppid !== parent) gone(parent);
    else if (grandparent !== undefined && parentOf(parent) !== grandparent) gone(grandparent);
    else return;
    clearInterval(timer);
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
