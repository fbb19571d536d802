// takoform-cdk/testing — for users' own vitest tests: a host per test, in memory, with its worker
// runtime; deploy a stack to it and request its workers; inspect state and the last plan; inject
// faults between the engine and the host (docs/testing.md).
//
//   const host = await TestHost.start();
//   const run = await host.deploy(JSON.parse(Testing.synth(new MyStack(Testing.app(), "test"))));
//   expect(await (await run.fetch("my-worker")).text()).toBe("hello");
//   await host.close();

export { TestHost, type DeployResult, type StackInput, type TestFaults, type TestHostOptions } from "./test-host.ts";
export type { FaultKind, FaultLogEntry, ProxiedRequest, ReplyFault } from "./fault-proxy.ts";
