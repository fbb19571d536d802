// A throwaway PostgreSQL cluster for tests and the bench: `initdb` into a temporary directory,
// `pg_ctl start` listening on a Unix socket in that directory (and, when asked, on a loopback TCP
// port), and `pg_ctl stop` plus removal afterwards. The binaries come from PATH, else from the
// Debian layout /usr/lib/postgresql/<version>/bin (highest version first). initdb refuses to run
// as root, so as root the cluster runs as the `postgres` OS user (runuser, else su), with the
// directory handed to that user.

import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

export interface PgCluster {
  /** A connection URL for the superuser `postgres` (socket, or TCP when `tcpPort` was asked). */
  url: string;
  /** The socket URL, whatever else was asked. */
  socketUrl: string;
  /** The loopback TCP port, when one was asked. */
  tcpPort: number | null;
  dir: string;
  /**
   * Stops the server as a crash would (`pg_ctl stop -m immediate`), keeping its data: the
   * connections it had are cut and new ones are refused until `resume()`.
   */
  halt(): void;
  /** Starts the halted server again on the same data, port and socket. */
  resume(): void;
  stop(): void;
}

/** A free loopback TCP port (free when asked; a server then takes it). */
export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** Where initdb and pg_ctl are, or null when this machine has no PostgreSQL server binaries. */
export function findPgBin(): string | null {
  const onPath = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  if (onPath.status === 0 && onPath.stdout.trim() !== "") {
    const initdb = onPath.stdout.trim();
    const dir = initdb.slice(0, initdb.lastIndexOf("/"));
    if (existsSync(join(dir, "pg_ctl"))) return dir;
  }
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(root, v, "bin", "initdb"))) return join(root, v, "bin");
  }
  return null;
}

function osUser(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

/** Runs a server binary, as `postgres` when this process is root. */
function run(bin: string, args: string[], asPostgres: boolean): void {
  const quoted = [bin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  const command = asPostgres
    ? existsSync("/usr/sbin/runuser") || existsSync("/sbin/runuser")
      ? { file: "runuser", args: ["-u", "postgres", "--", "sh", "-c", quoted] }
      : { file: "su", args: ["postgres", "-s", "/bin/sh", "-c", quoted] }
    : { file: "sh", args: ["-c", quoted] };
  const result = spawnSync(command.file, command.args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.status !== 0) throw new Error(`${bin.split("/").pop()} failed (${result.status}): ${result.stderr || result.stdout}`);
}

/**
 * Starts a cluster. `tcpPort` also listens on 127.0.0.1: the bench measures over loopback TCP
 * (`trustTcp`), the tests log in there with a password (scram-sha-256) to prove it is used.
 */
export function startPgCluster(options: { tcpPort?: number; trustTcp?: boolean } = {}): PgCluster {
  const bin = findPgBin();
  if (bin === null) throw new Error("PostgreSQL server binaries (initdb, pg_ctl) are not installed: not on PATH and not under /usr/lib/postgresql/*/bin");
  const dir = mkdtempSync(join(tmpdir(), "takoform-pg-"));
  const owner = osUser();
  if (owner !== null) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, "data");
  const asPostgres = owner !== null;
  let serverOptions = "";
  const start = (): void => run(join(bin, "pg_ctl"), ["-D", data, "-l", join(dir, "server.log"), "-o", serverOptions, "-w", "-t", "60", "start"], asPostgres);
  const halt = (): void => run(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"], asPostgres);
  try {
    const hostAuth = options.trustTcp === false ? "scram-sha-256" : "trust";
    run(
      join(bin, "initdb"),
      ["-D", data, "--auth-local=trust", `--auth-host=${hostAuth}`, "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"],
      asPostgres,
    );
    const listen = options.tcpPort !== undefined ? "127.0.0.1" : "";
    const port = String(options.tcpPort ?? 5432);
    serverOptions = `-p ${port} -k ${dir} -c listen_addresses='${listen}' -c fsync=on -c max_connections=200`;
    start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const socketUrl = `postgresql://postgres@localhost:${options.tcpPort ?? 5432}/postgres?host=${encodeURIComponent(dir)}`;
  const url = options.tcpPort !== undefined ? `postgresql://postgres@127.0.0.1:${options.tcpPort}/postgres` : socketUrl;
  let stopped = false;
  let running = true;
  return {
    url,
    socketUrl,
    tcpPort: options.tcpPort ?? null,
    dir,
    halt() {
      if (!running) return;
      halt();
      running = false;
    },
    resume() {
      if (running || stopped) return;
      start();
      running = true;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        if (running) halt();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
