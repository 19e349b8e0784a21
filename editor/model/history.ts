// Undo and redo over whole assets: edits share structure, so a step costs only what it changed.
import type { JsonObject } from './types.ts';

/** The assets an editing session went through, and where it stands among them. */
export class History {
  private readonly steps: JsonObject[];
  private at = 0;

  constructor(initial: JsonObject) {
    this.steps = [initial];
  }

  get current(): JsonObject {
    return this.steps[this.at];
  }

  /** Makes `asset` current, after the current one; drops the steps undone before. The current asset again is no step. */
  push(asset: JsonObject): void {
    if (asset === this.current) return;
    this.steps.length = this.at + 1;
    this.steps.push(asset);
    this.at++;
  }

  /** The asset before the current one, now current; undefined (nothing changes) at the first. */
  undo(): JsonObject | undefined {
    if (this.at === 0) return undefined;
    return this.steps[--this.at];
  }

  /** The asset undone last, current again; undefined when nothing was undone since the last push. */
  redo(): JsonObject | undefined {
    if (this.at === this.steps.length - 1) return undefined;
    return this.steps[++this.at];
  }

  get canUndo(): boolean {
    return this.at > 0;
  }

  get canRedo(): boolean {
    return this.at < this.steps.length - 1;
  }
}
