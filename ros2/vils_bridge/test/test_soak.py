"""Five minutes against a live server: what the bridge publishes is never older than one publish period + 20 ms.

Runs when VILS_SOAK=1 (it takes 5 minutes; not part of `npm test`); VILS_SOAK_S shortens or lengthens it.
"""
import asyncio
import os
import time

import pytest

from vils_bridge import convert
from vils_bridge.client import BridgeClient

SOAK = os.environ.get('VILS_SOAK') == '1'


@pytest.mark.skipif(not SOAK, reason='5-minute soak: set VILS_SOAK=1')
def test_published_frames_stay_fresh_for_five_minutes(server):
    seconds = float(os.environ.get('VILS_SOAK_S', '300'))
    hz = server.get('/api/config')['publish_hz']
    origin = server.get('/api/status')['origin']
    ages = []
    own = []

    def publish(frame):
        now = time.time()
        ages.append(convert.frame_age_s(frame, now))
        own.append(now - frame['_received_at'])
        convert.npc_markers(frame), convert.npc_detections(frame), convert.predicted_objects(frame)

    async def main():
        client = BridgeClient(server.ws, get_ego=lambda: convert.ego_state(origin['lat'], origin['lon'], 90.0, 2.0), on_frame=publish, log=lambda t: None)
        task = asyncio.ensure_future(client.run())
        await asyncio.sleep(seconds)
        client.stop()
        await task
        return client

    t0 = time.time()
    client = asyncio.run(main())
    bound = 1.0 / hz + 0.020
    ages.sort()
    print(f'{len(ages)} frames in {time.time() - t0:.0f} s: age p50 {ages[len(ages) // 2] * 1000:.1f} ms, p99 {ages[int(len(ages) * 0.99)] * 1000:.1f} ms, max {ages[-1] * 1000:.1f} ms (bound {bound * 1000:.0f} ms); '
          f'the bridge\'s own part (publish − receipt) max {max(own) * 1000:.1f} ms; skipped {client.frames_skipped}')
    assert len(ages) >= seconds * hz * 0.95
    assert ages[-1] < bound
