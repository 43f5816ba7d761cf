"""The bridge's plain-Python side against a live `vils serve` over a real WebSocket."""
import asyncio
import time

from vils_bridge import convert
from vils_bridge.client import BridgeClient


def run(coro, timeout):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def test_sends_the_ego_and_publishes_npcs(server):
    origin = server.get('/api/status')['origin']
    published = []
    errors = []

    async def main():
        client = BridgeClient(server.ws, get_ego=lambda: convert.ego_state(origin['lat'], origin['lon'], 45.0, 3.0, ego_id='bridge'),
                              on_frame=lambda f: published.append((time.time(), f)), on_error=errors.append, log=lambda t: None, send_hz=10)
        task = asyncio.ensure_future(client.run())
        await asyncio.sleep(3.0)
        client.stop()
        await task
        return client

    client = run(main(), 30)
    assert errors == []
    assert client.egos_sent >= 25
    assert client.frames_received >= 25
    last = published[-1][1]
    assert any(e['ego_id'] == 'bridge' and not e['stale'] for e in last['egos'])
    n = len(last['npcs'])
    assert 15 <= n <= 20  # 20 NPCs, less one that just reached its goal and awaits its successor
    markers = convert.npc_markers(last)
    assert [m['id'] for m in markers] == [npc['id'] for npc in last['npcs']]
    assert len(convert.predicted_objects(last)) == n and len(convert.npc_detections(last)) == n
    ages = [t - f['timestamp'] for t, f in published]
    assert max(ages) < 0.1 + 0.02


def test_reports_server_errors(server):
    errors = []

    async def main():
        client = BridgeClient(server.ws, get_ego=lambda: convert.ego_state(0.0, 0.0, 0.0, 1.0), on_error=errors.append, log=lambda t: None)
        task = asyncio.ensure_future(client.run())
        await asyncio.sleep(1.0)
        client.stop()
        await task

    run(main(), 30)
    assert errors and 'outside the map' in errors[0]


def test_reconnects_with_back_off():
    import conftest

    s = conftest.LiveServer({'npc_target': 2, 'publish_hz': 10})
    logs = []

    async def main():
        client = BridgeClient(s.ws, log=logs.append, reconnect_min_s=0.2, reconnect_max_s=0.8)
        task = asyncio.ensure_future(client.run())
        await asyncio.sleep(1.5)  # no server yet: refused, retried with growing delays
        assert client.connects == 0
        await asyncio.get_running_loop().run_in_executor(None, s.start)
        await asyncio.wait_for(client.connected.wait(), 10)
        received = client.frames_received
        await asyncio.sleep(0.5)
        assert client.frames_received > received
        await asyncio.get_running_loop().run_in_executor(None, s.stop)
        await asyncio.sleep(1.0)
        await asyncio.get_running_loop().run_in_executor(None, s.start)
        await asyncio.sleep(0.1)
        deadline = time.time() + 10
        while client.connects < 2 and time.time() < deadline:
            await asyncio.sleep(0.1)
        client.stop()
        await task
        return client

    try:
        client = run(main(), 120)
    finally:
        s.stop()
    assert client.connects == 2
    assert sum('retrying' in line for line in logs) >= 3
