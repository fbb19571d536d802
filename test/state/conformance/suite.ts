// The state contract, run unchanged against every store (the way Terraform's statemgr test
// helpers run against every backend): each store's test file calls `stateConformance` with its
// target (target.ts).

import { describe } from "vitest";
import { bindingContract } from "./binding.ts";
import { concurrencyContract } from "./concurrency.ts";
import { lockContract } from "./lock.ts";
import { moveContract } from "./move.ts";
import { planFileContract } from "./plan-file.ts";
import { processContract } from "./processes.ts";
import { recordsContract } from "./records.ts";
import { secretsContract } from "./secrets.ts";
import { stackContract } from "./stack.ts";
import type { StoreTarget } from "./target.ts";

export function stateConformance(target: StoreTarget): void {
  describe(`state contract: ${target.name}`, () => {
    recordsContract(target);
    bindingContract(target);
    stackContract(target);
    moveContract(target);
    secretsContract(target);
    lockContract(target);
    concurrencyContract(target);
    planFileContract(target);
    processContract(target);
  });
}
