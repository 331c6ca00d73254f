// A small seeded generator (mulberry32): every random choice of a schedule comes from one, so a seed replays it.
// Each concern draws from a stream of its own (the schedule, the faults, the ids, the jitter), so that drawing one
// more id does not change which faults a run meets.

export class Rng {
  private state: number;

  /** A stream of `seed`, told apart from the seed's other streams by `stream`. */
  constructor(seed: number, stream = '') {
    let h = (seed ^ 0x9e3779b9) >>> 0;
    for (let i = 0; i < stream.length; i++) h = Math.imul(h ^ stream.charCodeAt(i), 0x01000193);
    this.state = h >>> 0;
  }

  /** Uniform in [0, 1), as Math.random. */
  next = (): number => {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of `weighted`'s keys, each as likely as its weight. */
  weighted<K extends string>(weighted: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weighted) as [K, number][];
    let at = this.next() * entries.reduce((sum, [, w]) => sum + w, 0);
    for (const [key, w] of entries) if ((at -= w) < 0) return key;
    return entries.at(-1)![0];
  }
}
