// What a TCP connection to a loopback port meets now: a listener, a refusal (nothing listens), or
// another failure. Tests use it to wait for a server to go away and to pick a port that refuses.

import { connect } from "node:net";

export type TcpProbe = "accepted" | "refused" | "failed";

export function probeTcp(port: number): Promise<TcpProbe> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve("accepted");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED" ? "refused" : "failed"));
  });
}
