import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CancelledError } from '../../src/shared/time.ts';
import { FakeClock } from './fake-clock.ts';

describe('the fake clock', () => {
  it('fires timers in the order of their times, whatever order they were set in', async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    await Promise.all([
      clock.sleep(30_000).then(() => fired.push(`b@${clock.now()}`)),
      clock.sleep(1_000).then(() => fired.push(`a@${clock.now()}`)),
      clock.sleep(30_000).then(() => fired.push(`c@${clock.now()}`)),
    ]);
    expect(fired).toEqual(['a@1000', 'b@30000', 'c@30000']);
  });

  it('moves on from where a woken sleeper left it, as a real clock would', async () => {
    const clock = new FakeClock(0);
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      await clock.sleep(10_000);
      seen.push(clock.now());
    }
    expect(seen).toEqual([10_000, 20_000, 30_000]);
  });

  it('keeps its wall time a fixed epoch plus now(), whatever Date.now says', async () => {
    const epoch = Date.UTC(2030, 5, 1);
    const clock = new FakeClock(500, epoch);
    expect(clock.wall()).toBe(epoch + 500);
    await clock.sleep(90_000);
    expect(clock.wall()).toBe(epoch + 90_500);
    expect(new FakeClock().wall()).toBe(Date.UTC(2025, 0, 1) + 1_000_000);
  });

  it('rejects a sleep that is cancelled, and drops its timer', async () => {
    const clock = new FakeClock(0);
    const cancel = new AbortController();
    const sleeping = clock.sleep(60_000, cancel.signal);
    cancel.abort();
    await expect(sleeping).rejects.toBeInstanceOf(CancelledError);
    expect(clock.pending).toBe(0);
  });

  it('stands still while real work is under way: a request in flight is not overtaken by a timer', async () => {
    const clock = new FakeClock(0);
    const server = createServer((_, res) => setTimeout(() => res.end('ok'), 30));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    let inFlight = 0;
    clock.busy = () => inFlight > 0;
    const order: string[] = [];
    try {
      inFlight++;
      const request = fetch(`http://127.0.0.1:${port}/`)
        .then((r) => r.text())
        .finally(() => inFlight--)
        .then(() => order.push(`answer@${clock.now()}`));
      const timer = clock.sleep(5_000).then(() => order.push(`timer@${clock.now()}`));
      await Promise.all([request, timer]);
    } finally {
      server.close();
    }
    expect(order).toEqual(['answer@0', 'timer@5000']);
  });
});
