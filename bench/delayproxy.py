"""A UDP proxy on loopback that answers late (an agent 800 ms away, for the fault-isolation scenario), and can
hand every request with its answer to a recorder (bench/replayagent.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from monitor.devstack.processes import free_udp_port


class _Upstream(asyncio.DatagramProtocol):
    def __init__(self, proxy: DelayProxy, client: tuple):
        self.proxy, self.client = proxy, client

    def datagram_received(self, data: bytes, addr: tuple) -> None:
        if self.proxy.on_answer is not None:
            self.proxy.on_answer(data)
        self.proxy.loop.call_later(self.proxy.delay, self.proxy.listener.sendto, data, self.client)


class _Listener(asyncio.DatagramProtocol):
    def __init__(self, proxy: DelayProxy):
        self.proxy = proxy

    def datagram_received(self, data: bytes, addr: tuple) -> None:
        if self.proxy.on_request is not None:
            self.proxy.on_request(data)
        self.proxy.loop.create_task(self.proxy.forward(data, addr))


class DelayProxy:
    """Forwards datagrams to 127.0.0.1:upstream and sends every answer back `delay` seconds later."""

    def __init__(
        self,
        upstream: int,
        delay: float = 0.8,
        on_request: Callable[[bytes], None] | None = None,
        on_answer: Callable[[bytes], None] | None = None,
    ):
        self.upstream, self.delay, self.port = upstream, delay, free_udp_port()
        self.on_request, self.on_answer = on_request, on_answer
        self.loop = asyncio.new_event_loop()
        self.listener = None
        self._clients: dict[tuple, asyncio.DatagramTransport] = {}
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        ready.wait(10)

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.listener, _ = self.loop.run_until_complete(
            self.loop.create_datagram_endpoint(lambda: _Listener(self), local_addr=("127.0.0.1", self.port))
        )
        ready.set()
        self.loop.run_forever()

    async def forward(self, data: bytes, client: tuple) -> None:
        transport = self._clients.get(client)
        if transport is None:
            transport, _ = await self.loop.create_datagram_endpoint(
                lambda: _Upstream(self, client), remote_addr=("127.0.0.1", self.upstream)
            )
            self._clients[client] = transport
        transport.sendto(data)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
