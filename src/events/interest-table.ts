// Pure: which members want the change events of which maps. Each member announces the whole
// set of its maps with a version; a later version replaces its entry, an older or equal one
// (a late or repeated message) changes nothing, and a removed member's entry goes with it.

export class InterestTable {
  private readonly byMember = new Map<string, { version: number; maps: ReadonlySet<string> }>();
  /** Map name -> members that want its events (kept in step with byMember). */
  private readonly byMap = new Map<string, Set<string>>();

  /** Take `uuid`'s announcement; true when what it wants changed. */
  apply(uuid: string, version: number, maps: readonly string[]): boolean {
    const known = this.byMember.get(uuid);
    if (known !== undefined && version <= known.version) return false;
    const next = new Set(maps);
    const changed = known === undefined ? next.size > 0 : !sameSet(known.maps, next);
    if (known !== undefined) this.unindex(uuid, known.maps);
    this.byMember.set(uuid, { version, maps: next });
    for (const m of next) {
      let members = this.byMap.get(m);
      if (members === undefined) this.byMap.set(m, (members = new Set()));
      members.add(uuid);
    }
    return changed;
  }

  /** A member left or was removed; true when it wanted something. */
  remove(uuid: string): boolean {
    const known = this.byMember.get(uuid);
    if (known === undefined) return false;
    this.byMember.delete(uuid);
    this.unindex(uuid, known.maps);
    return known.maps.size > 0;
  }

  /** The members that want `mapName`'s events (empty: none). */
  membersFor(mapName: string): ReadonlySet<string> {
    return this.byMap.get(mapName) ?? EMPTY;
  }

  /** Every map some member wants. */
  maps(): IterableIterator<string> {
    return this.byMap.keys();
  }

  private unindex(uuid: string, maps: ReadonlySet<string>): void {
    for (const m of maps) {
      const members = this.byMap.get(m);
      if (members === undefined) continue;
      members.delete(uuid);
      if (members.size === 0) this.byMap.delete(m);
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
