// The member-wide budget for request bodies being received (grid.rest.max-buffered-body-bytes).
// Pure accounting, no I/O: the REST server opens one charge per body, adds bytes as they
// arrive (or the declared length up front) and releases the charge exactly once when the
// request is handled, refused, or its client has gone.

export class BodyBudget {
  private used = 0;

  constructor(readonly limitBytes: number) {}

  /** Bytes charged now by every open body. */
  get usedBytes(): number {
    return this.used;
  }

  /** A new, empty charge for one body. */
  open(): BodyCharge {
    return new BodyCharge(this);
  }

  /** @internal Take `bytes` if they fit; a refusal takes nothing. */
  take(bytes: number): boolean {
    if (bytes > this.limitBytes - this.used) return false;
    this.used += bytes;
    return true;
  }

  /** @internal */
  give(bytes: number): void {
    this.used -= bytes;
  }
}

/** What one body holds of the budget. */
export class BodyCharge {
  private bytes = 0;
  private released = false;

  constructor(private readonly budget: BodyBudget) {}

  /** Bytes this body holds. */
  get chargedBytes(): number {
    return this.bytes;
  }

  /**
   * Charge `bytes` more. False when the budget cannot hold them: nothing is charged then (the
   * body keeps what it held until release). Always false once released.
   */
  add(bytes: number): boolean {
    if (this.released || !this.budget.take(bytes)) return false;
    this.bytes += bytes;
    return true;
  }

  /** Give everything back; later calls do nothing. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.bytes);
    this.bytes = 0;
  }
}
