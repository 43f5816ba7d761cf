"""The client's hand-off from receiver to publisher, without a server: a plain on_frame (rclpy's publish) runs in
a thread of its own that the receiver wakes itself, so a frame is published while the event loop is busy
(reading, parsing, answering clock probes) — on a loaded machine each hop through the loop was a wake-up more to
wait for, and publishes came more than two periods after the frame's receipt (test_load.py measures it)."""
import asyncio
import threading
import time

from vils_bridge.client import BridgeClient, NewestFrame


def test_the_slot_wakes_a_waiting_thread_and_times_out_empty():
    slot = NewestFrame()
    assert slot.wait_take(0.01) is None
    got = []
    t = threading.Thread(target=lambda: got.append(slot.wait_take(30)))
    t.start()
    slot.put({'i': 1})
    t.join(30)
    assert got == [{'i': 1}] and slot.take_nowait() is None


def test_a_frame_is_published_while_the_event_loop_is_blocked():
    published = []
    client = BridgeClient('ws://127.0.0.1:9/none', on_frame=lambda f: published.append((time.monotonic(), threading.current_thread().name, f['i'])),
                          log=lambda t: None, reconnect_min_s=30)

    async def main():
        task = asyncio.ensure_future(client.run())
        await asyncio.sleep(0.2)  # the publisher thread is up (the connection attempt fails and waits 30 s)
        client.frames_received += 1
        client.slot.put({'i': 7, '_received_seq': client.frames_received})
        blocked_until = time.monotonic() + 2.0
        time.sleep(2.0)  # the event loop does nothing for 2 s
        client.stop()
        await task
        return blocked_until

    blocked_until = asyncio.run(main())
    (at, thread, i), = published
    assert (thread, i) == ('vils-publish', 7)
    assert at < blocked_until  # published during the block, not after it
    assert client.published_seq == [(1, 1)]
