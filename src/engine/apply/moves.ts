// The moves of a plan (`moved` blocks), carried out in state before the apply's first step: each is
// one fenced `moveResource` write (the record, its deposed objects, the edges naming them), with
// no host call — the object is what it was, only the address state keeps it under changes. The
// plan was made from state re-keyed the same way (plan/moves.ts), so every step that follows
// finds its record where the plan put it. A run stopped between two moves leaves the rest
// undone; the next plan finds the done ones already at their new address and moves the others.

import type { Diagnostic } from "../../core/index.ts";
import { StateMoveError, type StateStore } from "../../state/index.ts";
import { engineCode } from "../codes.ts";
import type { PlanMove } from "../plan-data.ts";

export async function carryOutMoves(store: StateStore, moves: readonly PlanMove[]): Promise<Diagnostic[]> {
  for (const move of moves) {
    try {
      await store.moveResource(move.from, move.to);
    } catch (error) {
      // The plan was made under this lock from this serial (a saved plan is checked against it),
      // so only a state changed some other way gets here: nothing after this move is done.
      if (!(error instanceof StateMoveError)) throw error;
      return [
        {
          severity: "error",
          code: engineCode("move-failed"),
          summary: `Moving ${move.from} to ${move.to} in state failed`,
          detail: `${error.message}. No step of the apply ran; the moves before this one are recorded.`,
          address: move.to,
          repair: "Run `takoform plan` again: it plans from state as it is now.",
        },
      ];
    }
  }
  return [];
}
