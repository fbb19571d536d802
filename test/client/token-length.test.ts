// Issue 24, item 4: a short token used to be removed as every substring of every message
// (`TAKOFORM_TOKEN=it` printed "defin[redacted]ion", "[redacted] does not serve"). Now the whole
// credential value is removed, as it is and percent-encoded, and a token too short to be told
// apart from words is refused before anything is sent, saying why (core/bearer-token.ts).

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { ClientInputError } from "../../src/client/errors.ts";
import { REDACTED, redactText } from "../../src/client/redact.ts";
import { MIN_BEARER_TOKEN_LENGTH } from "../../src/core/index.ts";

describe("a bearer token too short to redact is refused at connect, before any request", () => {
  it("names the length, the floor and why, and never quotes the token", async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const refused = async (token: string): Promise<ClientInputError> => {
        const error = await HostClient.connect({ endpoint, token }).catch((e: unknown) => e);
        expect(error, JSON.stringify(token)).toBeInstanceOf(ClientInputError);
        return error as ClientInputError;
      };
      expect((await refused("it")).message).toBe(
        "takoform: the bearer token is 2 characters long; takoform needs at least 16, because it removes the token from every message it prints, " +
          "and a token this short also occurs inside ordinary words and names: removing it would garble messages, and the gaps would give the token away",
      );
      expect((await refused("x".repeat(MIN_BEARER_TOKEN_LENGTH - 1))).message).toContain("is 15 characters long");
      // Characters, not UTF-16 units: 8 emoji are 16 units and 8 characters.
      expect((await refused("🔑".repeat(8))).message).toContain("is 8 characters long");
      expect((await refused("")).message).toBe("takoform: the bearer token is empty");
      expect((await refused(`${"a".repeat(20)}\n`)).message).toBe("takoform: the bearer token contains control characters");
      expect(requests).toBe(0);
      // At the floor, the token is presented (and this host answers discovery 500).
      await HostClient.connect({ endpoint, token: "y".repeat(MIN_BEARER_TOKEN_LENGTH), retry: { attempts: 1 } }).catch(() => undefined);
      expect(requests).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });
});

describe("redaction removes the whole credential value and leaves words alone", () => {
  const token = "tk+Zx/9q~it.0123=";
  it("as it is (a header, an echoed value) and percent-encoded (a URL), never a part of it", () => {
    expect(redactText(`Authorization: Bearer ${token}`, token)).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactText(`GET https://h.example/x?access_token=${encodeURIComponent(token)}&a=1`, token)).toBe(
      `GET https://h.example/x?access_token=${REDACTED}&a=1`,
    );
    expect(redactText(`the credential "${token}" names nobody`, token)).toBe(`the credential "${REDACTED}" names nobody`);
    // Words that share pieces of the token (`it`, `0123`, `tk`) stay as they are.
    const message = "the definition it does not serve: tk 0123 Zx";
    expect(redactText(message, token)).toBe(message);
    expect(redactText(message, undefined)).toBe(message);
  });
});
