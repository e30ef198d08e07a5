import { describe, expect, it } from 'vitest';
import { PublishWindow } from './publish-window';

describe('PublishWindow', () => {
  it('hands over the broadcasts published within the time asked, on the channels asked, oldest first', () => {
    let now = 1000;
    const window = new PublishWindow(() => now, 10_000, 1024);
    window.record('sio#/#', Buffer.from('a'));
    now += 3000;
    window.record('sio-request#/#', Buffer.from('b'));
    window.record('sio#/#ring:1#', Buffer.from('c'));
    now += 1000;
    window.record('sio#/#', 'a JSON request, not a broadcast');
    expect(window.since(1500, 'sio#/#').map((entry) => entry.message.toString())).toEqual(['c']);
    expect(window.since(5000, 'sio#/#').map((entry) => entry.message.toString())).toEqual(['a', 'c']);
  });

  it('forgets what is older than its window, and the oldest past its byte budget', () => {
    let now = 0;
    const window = new PublishWindow(() => now, 10_000, 10);
    window.record('c', Buffer.alloc(4, 1));
    window.record('c', Buffer.alloc(4, 2));
    window.record('c', Buffer.alloc(4, 3));
    expect(window.since(60_000, 'c').map((entry) => entry.message[0])).toEqual([2, 3]);
    now = 10_001;
    window.record('c', Buffer.alloc(1, 4));
    expect(window.since(60_000, 'c').map((entry) => entry.message[0])).toEqual([4]);
  });
});

describe('PublishWindow over many publishes', () => {
  it('keeps exactly the entries of its window however many went through', () => {
    let now = 0;
    const window = new PublishWindow(() => now, 1000, 1024 * 1024);
    for (let i = 0; i < 5000; i++) {
      now = i;
      window.record('c', Buffer.from(String(i)));
    }
    const kept = window.since(10_000, 'c').map((entry) => Number(entry.message.toString()));
    expect(kept).toEqual(Array.from({ length: 1001 }, (_, i) => 3999 + i));
  });
});
