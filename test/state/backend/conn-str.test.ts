// Issue 24, item 2: the pg backend's conn_str in every form libpq documents and lib/pq and
// node-postgres accept (src/state/pg/conn-str.ts), read into libpq's keywords; what node-postgres
// is handed for each; the password removed from every form in the spelling it was written; and
// refusals that never quote the string. (test/scenario/pg-conn-forms.test.ts connects with each
// form to a real server on a Unix socket.)

import { describe, expect, it } from "vitest";
import { parse } from "pg-connection-string";
import { checkConnStr, connStrSecrets, connStrSettings, driverOptions, redactConnStr } from "../../../src/state/pg/conn-str.ts";

const settings = (connStr: string): Record<string, string> => Object.fromEntries(connStrSettings(connStr));
const driver = (connStr: string): Record<string, unknown> => driverOptions(connStr, parse as (url: string) => Record<string, unknown>);

describe("the URI form", () => {
  it("an empty host with the socket directory as a parameter (libpq's documented Unix-socket form)", () => {
    const cs = "postgres://deploy:pw@/infra?host=/run/postgresql";
    expect(settings(cs)).toEqual({ user: "deploy", password: "pw", dbname: "infra", host: "/run/postgresql" });
    expect(driver(cs)).toEqual({ host: "/run/postgresql", user: "deploy", password: "pw", database: "infra" });
    expect(redactConnStr(cs)).toBe("postgres://deploy@/infra?host=/run/postgresql");
  });

  it("a percent-encoded socket path as the host", () => {
    expect(settings("postgresql://%2Frun%2Fpostgresql/infra")).toEqual({ host: "/run/postgresql", dbname: "infra" });
    expect(driver("postgresql://deploy@%2Frun%2Fpostgresql:5433/infra")).toEqual({ host: "/run/postgresql", port: 5433, user: "deploy", database: "infra" });
  });

  it("percent-encoding in every part, an IPv6 host, a parameter overriding the part it names", () => {
    const cs = "postgresql://d%40v:p%3Ass%2F@[::1]:6432/my%20db?host=db.internal&sslmode=disable&application_name=a%20b";
    expect(settings(cs)).toEqual({
      user: "d@v",
      password: "p:ss/",
      dbname: "my db",
      host: "db.internal",
      port: "6432",
      sslmode: "disable",
      application_name: "a b",
    });
    // Other parameters mean what node-postgres's own parser makes of them (sslmode=disable: no TLS).
    expect(driver(cs)).toEqual({
      host: "db.internal",
      port: 6432,
      user: "d@v",
      password: "p:ss/",
      database: "my db",
      sslmode: "disable",
      ssl: false,
      application_name: "a b",
    });
    expect(redactConnStr(cs)).toBe("postgresql://d%40v@[::1]:6432/my%20db?host=db.internal&sslmode=disable&application_name=a%20b");
  });

  it("what is left out stays out, so the PG* variables and ~/.pgpass fill it in", () => {
    expect(driver("postgresql://")).toEqual({});
    expect(driver("postgres:///infra")).toEqual({ database: "infra" });
  });
});

describe("the keyword=value form, with libpq's quoting", () => {
  it("whitespace-separated pairs, spaces around =, single quotes, backslash escapes inside and outside quotes", () => {
    const cs = `host = '/run/my sock'  dbname=infra user=deploy password='it\\'s a \\\\secret' options=-c\\ search_path=x application_name=''`;
    expect(settings(cs)).toEqual({
      host: "/run/my sock",
      dbname: "infra",
      user: "deploy",
      password: "it's a \\secret",
      options: "-c search_path=x",
      application_name: "",
    });
    expect(driver(cs)).toMatchObject({ host: "/run/my sock", user: "deploy", password: "it's a \\secret", database: "infra", options: "-c search_path=x" });
    expect(redactConnStr(cs)).toBe(`host = '/run/my sock' dbname=infra user=deploy options=-c\\ search_path=x application_name=''`);
  });

  it("hostaddr stands for the host when no host is given; the last spelling of a keyword wins", () => {
    expect(driver("hostaddr=127.0.0.1 port=5433 dbname=a dbname=b")).toEqual({ host: "127.0.0.1", port: 5433, database: "b" });
  });
});

describe("the password, in every form", () => {
  it("is listed in each spelling a message could show, and removed from what is shown", () => {
    expect(connStrSecrets("postgres://u:p%40ss@h/db?sslpassword=k3y")).toEqual(["p%40ss", "p@ss", "k3y"]);
    expect(connStrSecrets("host=h password='a b'")).toEqual(["a%20b", "a b"]);
    expect(redactConnStr("host=h password='a b' sslpassword=k user=u")).toBe("host=h user=u");
    expect(redactConnStr("postgres://:pw@h/db?password=x&sslmode=require")).toBe("postgres://h/db?sslmode=require");
    expect(connStrSecrets("")).toEqual([]);
  });
});

describe("refusals name what is wrong and never quote the string", () => {
  const cases: [string, RegExp][] = [
    ["nonsense-hunter2", /is neither a URL nor keyword=value pairs/],
    ["mysql://u:hunter2@h/db", /uses the scheme "mysql:"/],
    ["host='hunter2", /opens a quoted value of host and never closes it/],
    ["host hunter2 dbname=x", /a keyword has no = after it/],
    ["postgresql://h1,h2/db?password=hunter2", /names several hosts/],
    ["host=a,b password=hunter2", /names several hosts/],
    ["postgresql://u:hunter2@h:65536/db", /has a port that is not a number from 1 to 65535/],
    ["postgresql://u:hunter2%zz@h/db", /has a % that is not followed by two hex digits in its password/],
    ["postgresql://u:hunter2@h/db?x", /has a query parameter that is not keyword=value/],
  ];
  for (const [cs, message] of cases) {
    it(cs.replace("hunter2", "…"), () => {
      expect(() => checkConnStr(cs)).toThrow(message);
      try {
        checkConnStr(cs);
      } catch (error) {
        expect((error as Error).message).not.toContain("hunter2");
      }
    });
  }
});
