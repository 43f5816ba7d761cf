"""The WebSocket side of the bridge, in plain asyncio (``websockets``): sends the ego at a fixed rate, receives
every frame as it comes and hands the *newest* one to the publisher, reconnects with back-off.

Why "newest": a bridge that reads one frame per loop turn after a sleep falls behind without bound (the server
never waits for it, and its socket buffers the rest). Here a receiver task reads continuously into a one-frame
slot (a newer frame replaces an unpublished older one, counted as skipped) and the publisher takes from the slot
whenever it is ready, so what it publishes is never older than one frame plus its own work.

A plain (not async) ``on_frame`` — rclpy's publish — runs in a thread of its own: run on the event loop, a slow
one (150 ms) would stop the receiver reading for as long, and the frames that came meanwhile would be read in a
burst afterwards, the publisher taking one already several frames old. In its thread it only delays the next
publish, and that publish takes the newest frame received by then. The receiver wakes that thread itself (a
condition variable), with no hop through the event loop and a thread pool between: on a loaded machine every
wake-up of a thread waits for a core (and for Python's lock), and three in a row made 3 of 345 publishes come more
than two periods after the frame's receipt.
"""
import asyncio
import json
import random
import threading
import time
import urllib.parse

import websockets


class NewestFrame:
    """A one-frame slot: put() replaces, take() returns the newest frame not taken yet (or waits for one). put() is
    called on the event loop; take() waits on it, wait_take() in another thread."""

    def __init__(self):
        self._frame = None
        self._event = asyncio.Event()
        self._cond = threading.Condition()
        self.skipped = 0

    def put(self, frame):
        with self._cond:
            if self._frame is not None:
                self.skipped += 1
            self._frame = frame
            self._cond.notify()
        self._event.set()

    async def take(self):
        await self._event.wait()
        return self.take_nowait()

    def wait_take(self, timeout):
        """In a thread: the newest frame not taken yet, waiting up to `timeout` s for one (None if none came)."""
        with self._cond:
            if self._frame is None:
                self._cond.wait(timeout)
            frame, self._frame = self._frame, None
        return frame

    def take_nowait(self):
        with self._cond:
            frame, self._frame = self._frame, None
            self._event.clear()
        return frame


def with_token(url, token):
    """The URL with ?token= added (for servers that read the token from the query)."""
    if not token:
        return url
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query)
    query.append(('token', token))
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


class BridgeClient:
    """Connects to a VILS stream and keeps at it.

    ``get_ego()`` returns the ego_state dict to send (or None while there is no new fix); ``on_frame(frame)`` is
    called with the newest npc_states frame, one at a time (an async function or a plain one);
    ``on_error(text)`` with the server's error replies; ``log(text)`` for connection news. ``clock()`` is the
    clock the ego_state timestamps are on (seconds since the Unix epoch): the server's clock probes are answered
    on it, so the server measures its offset and places every fix at the moment it was taken.
    """

    def __init__(self, url, get_ego=None, on_frame=None, on_error=None, log=print, token='', send_hz=10.0,
                 reconnect_min_s=0.5, reconnect_max_s=10.0, clock=time.time):
        self.url = url
        self.token = token
        self.get_ego = get_ego or (lambda: None)
        self.on_frame = on_frame or (lambda frame: None)
        self.on_error = on_error or (lambda text: None)
        self.log = log
        self.send_period = 1.0 / send_hz if send_hz > 0 else 0.0
        self.reconnect_min_s = reconnect_min_s
        self.reconnect_max_s = reconnect_max_s
        self.clock = clock
        self.probes_answered = 0
        self.slot = NewestFrame()
        self.frames_received = 0
        self.frames_published = 0
        self.egos_sent = 0
        self.connects = 0
        self.connected = asyncio.Event()
        self._stop = asyncio.Event()
        self._loop = None
        self._loop_thread = None
        # per publish: the frame's receive count and the newest receive count when it was taken (see _publish_loop)
        self.published_seq = []

    @property
    def frames_skipped(self):
        return self.slot.skipped

    def stop(self):
        """Ends run(); from any thread (the node calls it from rclpy's, on shutdown)."""
        loop = self._loop
        if loop is not None and loop.is_running() and threading.current_thread() is not self._loop_thread:
            loop.call_soon_threadsafe(self._stop.set)  # an asyncio.Event set from another thread wakes nobody
        else:
            self._stop.set()

    async def run(self):
        """Runs until stop(): connect, exchange, and on any failure wait (back-off, with jitter) and reconnect."""
        self._loop, self._loop_thread = asyncio.get_running_loop(), threading.current_thread()
        delay = self.reconnect_min_s
        publisher = asyncio.ensure_future(self._publish_loop())
        try:
            while not self._stop.is_set():
                try:
                    headers = {'Authorization': f'Bearer {self.token}'} if self.token else None
                    async with websockets.connect(with_token(self.url, self.token), extra_headers=headers, max_size=2 ** 22,
                                                  open_timeout=5, ping_interval=5, ping_timeout=5) as ws:
                        self.connects += 1
                        self.connected.set()
                        delay = self.reconnect_min_s
                        self.log(f'connected to {self.url}')
                        await self._exchange(ws)
                except (OSError, asyncio.TimeoutError, websockets.WebSocketException) as err:
                    self.connected.clear()
                    if self._stop.is_set():
                        break
                    self.log(f'VILS connection lost or refused ({err}); retrying in {delay:.1f} s')
                    try:
                        await asyncio.wait_for(self._stop.wait(), delay * (0.8 + 0.4 * random.random()))
                    except asyncio.TimeoutError:
                        pass
                    delay = min(self.reconnect_max_s, delay * 2)
        finally:
            self.connected.clear()
            publisher.cancel()

    async def _exchange(self, ws):
        sender = asyncio.ensure_future(self._send_loop(ws))
        stopper = asyncio.ensure_future(self._stop.wait())
        receiver = asyncio.ensure_future(self._receive_loop(ws))
        try:
            done, _ = await asyncio.wait({sender, receiver, stopper}, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task is not stopper and task.exception() is not None:
                    raise task.exception()
        finally:
            for task in (sender, receiver, stopper):
                task.cancel()

    async def _receive_loop(self, ws):
        async for raw in ws:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            kind = msg.get('type') if isinstance(msg, dict) else None
            if kind == 'clock_probe':
                # answered at once, on the clock the fixes are stamped with (the server measures its offset)
                received = self.clock()
                await ws.send(json.dumps({'type': 'clock_reply', 'server_time': msg.get('server_time'), 'received': received, 'sent': self.clock()}))
                self.probes_answered += 1
            elif kind == 'npc_states':
                self.frames_received += 1
                msg['_received_at'] = time.time()  # for the bridge's own latency (publish − receipt)
                msg['_received_seq'] = self.frames_received
                self.slot.put(msg)
            elif kind == 'error':
                self.on_error(str(msg.get('error')))

    async def _send_loop(self, ws):
        if self.send_period <= 0:
            await asyncio.Future()
        loop = asyncio.get_running_loop()
        next_t = loop.time()
        while True:
            ego = self.get_ego()
            if ego is not None:
                await ws.send(json.dumps(ego))
                self.egos_sent += 1
            next_t += self.send_period
            now = loop.time()
            if next_t < now:  # fell behind (a stall): start the schedule again instead of bursting
                next_t = now + self.send_period
            await asyncio.sleep(next_t - now)

    async def _publish_loop(self):
        if asyncio.iscoroutinefunction(self.on_frame):
            while True:
                frame = await self.slot.take()
                if frame is not None:
                    await self._publish(frame, self.on_frame)
        # a plain on_frame: one thread, so publishes stay in order and one at a time, woken by the receiver itself
        stop = threading.Event()
        thread = threading.Thread(target=self._publish_thread, args=(stop,), name='vils-publish', daemon=True)
        thread.start()
        try:
            await asyncio.Future()  # until run() cancels it
        finally:
            stop.set()
            # run() returns once no publish is under way: the node is destroyed after it
            thread.join(5)

    def _publish_thread(self, stop):
        while not stop.is_set():
            frame = self.slot.wait_take(0.5)
            if frame is not None and not stop.is_set():
                self._publish_sync(frame)

    def _taken(self, frame):
        # the frame's receive count and the newest receive count when it was taken: equal = it was the newest
        self.published_seq.append((frame['_received_seq'], self.frames_received))
        del self.published_seq[:-1000]

    def _publish_sync(self, frame):
        self._taken(frame)
        try:
            self.on_frame(frame)
            self.frames_published += 1
        except Exception as err:  # a bad frame never stops the bridge
            self.log(f'publishing a frame failed: {err!r}')

    async def _publish(self, frame, on_frame):
        self._taken(frame)
        try:
            await on_frame(frame)
            self.frames_published += 1
        except Exception as err:  # a bad frame never stops the bridge
            self.log(f'publishing a frame failed: {err!r}')
