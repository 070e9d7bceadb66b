import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { RequestActivity } from './request-activity';

/** A request through the middleware; `end()` finishes its response. */
function arrive(activity: RequestActivity): { end: () => void } {
  const res = new EventEmitter();
  let nexted = false;
  activity.middleware()({} as Request, res as unknown as Response, () => (nexted = true));
  expect(nexted).toBe(true);
  return { end: () => res.emit('finish') };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('background work gives the thread to requests in flight', () => {
  it('goes on at once (after a turn of the event loop) when no request is in flight', async () => {
    const activity = new RequestActivity({ quietMs: 0 });
    const t = performance.now();
    await activity.yieldToRequests();
    expect(performance.now() - t).toBeLessThan(50);
  });

  it('waits while a request is in flight and goes on once it ended', async () => {
    const activity = new RequestActivity({ maxDeferMs: 5000, quietMs: 0 });
    const request = arrive(activity);
    expect(activity.busy()).toBe(true);
    let resumed = false;
    const slice = activity.yieldToRequests().then(() => (resumed = true));
    await sleep(60);
    expect(resumed).toBe(false);
    request.end();
    await slice;
    expect(resumed).toBe(true);
    expect(activity.inFlight).toBe(0);
  });

  it('waits for a short quiet gap after a request ended (the next one of a burst comes right after)', async () => {
    const activity = new RequestActivity({ maxDeferMs: 5000, quietMs: 80 });
    const first = arrive(activity);
    first.end();
    let resumed = false;
    const slice = activity.yieldToRequests().then(() => (resumed = true));
    await sleep(30);
    const second = arrive(activity); // inside the gap: the work keeps waiting
    await sleep(60);
    expect(resumed).toBe(false);
    second.end();
    const ended = performance.now();
    await slice;
    expect(performance.now() - ended).toBeGreaterThanOrEqual(70);
  });

  it('is never starved: a slice goes on after maxDeferMs even with requests in flight', async () => {
    const activity = new RequestActivity({ maxDeferMs: 100, quietMs: 0 });
    const request = arrive(activity);
    const t = performance.now();
    await activity.yieldToRequests();
    const waited = performance.now() - t;
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(1000);
    request.end();
  });

  it('is not held back by a long request (a download): only by ones a person waits on to go on', async () => {
    const activity = new RequestActivity({ maxDeferMs: 5000, longRequestMs: 50, quietMs: 0 });
    const download = arrive(activity);
    await sleep(70);
    expect(activity.busy()).toBe(false);
    const t = performance.now();
    await activity.yieldToRequests();
    expect(performance.now() - t).toBeLessThan(50);
    download.end();
  });

  it('counts a request once whether its response finished or its connection closed first', async () => {
    const activity = new RequestActivity();
    const res = new EventEmitter();
    activity.middleware()({} as Request, res as unknown as Response, () => undefined);
    res.emit('close');
    res.emit('finish');
    expect(activity.inFlight).toBe(0);
  });
});
